#!/usr/bin/env bash
# Builds, tests and runs the example packages that use audiograph as a library (each its own Swift package in
# examples/, depending on this checkout by path), for CI. Each package builds in a scratch folder of its own,
# .build/examples/<name> (kept, so a rebuild only builds what changed; EXAMPLES_SCRATCH=DIR puts them under DIR
# instead), so it never competes with the main package's .build for its lock.
#
#   scripts/build-examples.sh              # every example package listed below
#   scripts/build-examples.sh embedding    # one (a folder name under examples/)
#
# A new example package: add its folder name to `packages`, and its demo to `demos` if it has one.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
source scripts/swift-tmp.sh
scratch_root=${EXAMPLES_SCRATCH:-$root/.build/examples}

packages=(embedding plugins/gain)
# The executable each package runs after its tests pass (must exit 0), with its arguments.
declare -A demos=(
    [embedding]="embedding-demo"
)

if [ $# -gt 0 ]; then names=("$@"); else names=("${packages[@]}"); fi
timings=()
for name in "${names[@]}"; do
    package="examples/$name"
    if [ ! -f "$package/Package.swift" ]; then
        echo "build-examples: no package at $package" >&2
        exit 64
    fi
    scratch="$scratch_root/$name"
    options=(--package-path "$package" --scratch-path "$scratch")
    start=$(date +%s)
    echo "== $package: build"
    # --quiet keeps the progress lines out; errors and warnings still print.
    swift build --build-tests --quiet "${options[@]}"
    echo "== $package: test"
    mkdir -p "$scratch"
    log="$scratch/test.log"
    status=0
    swift test --skip-build "${options[@]}" > "$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$log"
        echo "build-examples: $package: swift test failed (exit $status)" >&2
        exit 1
    fi
    # Passed: the summary lines only (the full output is in $log).
    grep -E 'Test run with' "$log" || true
    if [ -n "${demos[$name]:-}" ]; then
        echo "== $package: swift run ${demos[$name]}"
        # shellcheck disable=SC2086  # the demo's arguments are words
        swift run --skip-build "${options[@]}" ${demos[$name]}
    fi
    timings+=("$package: built, tested and run in $(( $(date +%s) - start )) s")
done
printf '%s\n' "${timings[@]}"
