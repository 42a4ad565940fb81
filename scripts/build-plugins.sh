#!/usr/bin/env bash
# Builds the example plugins in examples/plugins/ (gain, keyword-spotter), each as its own package against this
# checkout, in release mode, side by side. Each keeps its scratch folder at .build/plugins/<name>, so a rebuild
# only builds what changed (CI caches .build). Prints where each plugin library is; the plugin tests
# (Tests/AudioGraphCLITests/Plugins) load them from .build/plugins/<name>/release/.
#
#   scripts/build-plugins.sh                  # both
#   scripts/build-plugins.sh keyword-spotter  # one
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
source scripts/swift-tmp.sh

if [ $# -gt 0 ]; then names=("$@"); else names=(gain keyword-spotter); fi
for name in "${names[@]}"; do
    if [ ! -f "examples/plugins/$name/Package.swift" ]; then
        echo "build-plugins: no plugin package at examples/plugins/$name" >&2
        exit 64
    fi
done

# The packages share no build folder (each builds its own copy of AudioGraphCore), so they build in parallel.
# Each build's output goes to its log, shown when it fails or warns.
start=$SECONDS
pids=()
for name in "${names[@]}"; do
    mkdir -p "$root/.build/plugins/$name"
    swift build -c release --package-path "examples/plugins/$name" --scratch-path "$root/.build/plugins/$name" \
        > "$root/.build/plugins/$name/build.log" 2>&1 &
    pids+=($!)
done
failed=0
for index in "${!names[@]}"; do
    name=${names[$index]}
    log="$root/.build/plugins/$name/build.log"
    if ! wait "${pids[$index]}"; then
        echo "build-plugins: $name failed:" >&2
        cat "$log" >&2
        failed=1
    elif grep -q "warning:" "$log"; then
        grep -A3 "warning:" "$log" >&2
    fi
done
[ $failed -eq 0 ] || exit 1

for name in "${names[@]}"; do
    for library in "$root/.build/plugins/$name/release/"lib*Plugin.so; do
        echo "$name: $library"
    done
done
echo "build-plugins: built in $((SECONDS - start)) s"
