# Sourced by the scripts that call swift. The swift driver (6.3.1) leaves an empty TemporaryDirectory.* folder in
# $TMPDIR on every call: 6 for a build, 3 for `swift build --show-bin-path`, even for `swift package init`, so a
# test run left dozens in /tmp. This `swift` runs the real one with a temporary folder of its own, removed when it
# returns, so the scripts leave the machine's temporary folder as they found it. Tested by
# Tests/AudioGraphTests/SwiftTemporaryFolderScriptTests.swift.
swift() {
    local folder status=0
    folder=$(mktemp -d "${TMPDIR:-/tmp}/audiograph-swift.XXXXXX") || return 1
    TMPDIR="$folder" command swift "$@" || status=$?
    rm -rf "$folder"
    return "$status"
}
