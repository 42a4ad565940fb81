#!/usr/bin/env bash
# Runs the built test suite (`swift build --build-tests` first) as three test processes side by side, each running
# its tests one at a time, and prints every failure again at the end. scripts/test.sh calls it; so can a developer.
#
# Why three processes and not Swift Testing's in-process parallelism: many tests block a thread on real work
# (decoding, nested builds, a child process), and on 2 cores the concurrency pool has 2 threads, so tests side by
# side in one process starve the waiting tests of threads (they then time out). One process per group has a pool
# of its own. The groups split what uses the CPU (nested builds; whisper, pocketsphinx and the example pipelines)
# from the rest, which mostly waits on child processes, servers, leases and real-time audio (measured on 2 cores:
# 820 s of CPU over 1210 s serially).
#
# Usage: scripts/run-tests.sh [--serial]   (--serial: one process, every test in turn, as before)
set -uo pipefail
cd "$(dirname "$0")/.."

binary="$(swift build --show-bin-path)/audiographPackageTests.xctest"
if [ ! -x "$binary" ]; then
    echo "run-tests: no test binary at $binary; run 'swift build --build-tests' first" >&2
    exit 1
fi
export NO_COLOR=1

# Each pattern is a regular expression over test ids (Module.Suite/test()); the last group is everything else.
groups=(
    'AudioGraphTests\.(CommandPluginTests|ExamplesTests)/'
    'AudioGraphWhisperTests\.|AudioGraphSpeechTests\.(PocketSphinxRecognizerTests|EagerFinalPassTests|StreamingPipelineTests)/'
)
names=(builds speech rest)
if [ "${1:-}" = "--serial" ]; then
    groups=()
    names=(all)
fi

expected=$("$binary" --testing-library swift-testing --list-tests 2>/dev/null | grep -c '/') || expected=0
logs=()
pids=()
skip=""
for index in "${!names[@]}"; do
    log="$(mktemp -t "audiograph-test-${names[$index]}.XXXXXX.log")"
    logs+=("$log")
    if [ "$index" -lt "${#groups[@]}" ]; then
        selection=(--filter "${groups[$index]}")
        skip="${skip:+$skip|}${groups[$index]}"
    elif [ -n "$skip" ]; then
        selection=(--skip "$skip")
    else
        selection=()
    fi
    "$binary" --testing-library swift-testing --no-parallel "${selection[@]}" >"$log" 2>&1 &
    pids+=($!)
done

status=0
ran=0
for index in "${!pids[@]}"; do
    wait "${pids[$index]}" || status=1
done
for index in "${!names[@]}"; do
    log="${logs[$index]}"
    summary=$(grep -E '^(✔|✘) Test run with' "$log" | tail -n 1)
    count=$(printf '%s' "$summary" | sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p')
    ran=$((ran + ${count:-0}))
    echo "run-tests: ${names[$index]}: ${summary:-no summary (the process crashed? see $log)}"
    if grep -qE '^✘|Fatal error|Crashed|signal [0-9]' "$log" || [ -z "$summary" ]; then
        status=1
        echo "==== test failures in ${names[$index]} (whole log: $log) ===="
        grep -E -A4 '^✘|recorded an issue|: error:|Fatal error|Exited with|Crashed|signal [0-9]' "$log" | tail -n 80 || true
        tail -n 5 "$log"
        echo "==== end of ${names[$index]} failures ===="
    else
        rm -f "$log"
    fi
done
if [ "$ran" -ne "$expected" ]; then
    echo "run-tests: the groups ran $ran tests, the suite has $expected" >&2
    status=1
fi
if [ "$status" -eq 0 ]; then
    echo "run-tests: all $ran tests passed"
else
    echo "run-tests: FAILED ($ran of $expected tests ran)"
fi
exit "$status"
