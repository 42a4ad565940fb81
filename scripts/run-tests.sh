#!/usr/bin/env bash
# Runs the built test suite (`swift build --build-tests` first) in one process, tests side by side (Swift Testing's
# own parallelism), and prints every failure again at the end. scripts/test.sh calls it; so can a developer.
#
# Two settings make the parallel run reliable on a 2-core machine; `swift test` takes the same two variables:
#   SWIFT_DEBUG_CONCURRENCY_ENABLE_COOPERATIVE_QUEUES=false SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=6 swift test
# - Many tests block a thread on real work: a decode, a nested build, a synchronous test waiting on a child. The
#   default executor's cooperative pool has one thread a core and never grows, so on 2 cores two such tests starve
#   every waiting test in the process of threads, and those time out. Without cooperative queues the executor runs
#   on libdispatch's ordinary global queue, which adds a thread when one blocks. It adds none while its threads
#   compute, though (it counts runnable workers against the cores): so suites that compute for long (a real decode,
#   a model conversion, a long file through an FFT) take the trait `.ownThreads` (AudioGraphTestKit), which runs
#   their tests on threads outside the pool. Without it CI once saw 25 s in which no other test ran, and a
#   server's and a browser's test failed on their deadlines.
# - The width bounds how many tests run at once (Swift Testing otherwise starts all of them together). Unbounded on
#   the growing pool, a run hung after 3 tests with 77 threads, every one blocked. With 6 the 2 cores stay busy
#   (measured: the suite in 451-546 s, against 593 s for the three one-test-at-a-time processes this script ran before;
#   the suite's 820 s of CPU sets a floor of 410 s).
# Measured on 2 cores in one process with the defaults (cooperative pool, unbounded width): 49 tests had failed on
# timeouts when the run was stopped at 350 s.
#
# Usage: scripts/run-tests.sh [--serial]   (--serial: every test in turn, as `swift test --no-parallel`)
# AUDIOGRAPH_TEST_WIDTH=N sets how many tests run at once (default 6).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/swift-tmp.sh

binary="$(swift build --show-bin-path)/audiographPackageTests.xctest"
if [ ! -x "$binary" ]; then
    echo "run-tests: no test binary at $binary; run 'swift build --build-tests' first" >&2
    exit 1
fi
export NO_COLOR=1
export SWIFT_DEBUG_CONCURRENCY_ENABLE_COOPERATIVE_QUEUES=false
width="${AUDIOGRAPH_TEST_WIDTH:-6}"
mode=(--experimental-maximum-parallelization-width "$width")
if [ "${1:-}" = "--serial" ]; then
    mode=(--no-parallel)
fi

expected=$("$binary" --testing-library swift-testing --list-tests 2>/dev/null | grep -c '/') || expected=0
log="$(mktemp -t audiograph-test.XXXXXX.log)"
start=$(date +%s)
"$binary" --testing-library swift-testing "${mode[@]}" >"$log" 2>&1
status=$?
summary=$(grep -E '^(✔|✘) Test run with' "$log" | tail -n 1)
ran=$(printf '%s' "$summary" | sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p')
ran=${ran:-0}
echo "run-tests: ${summary:-no summary (the process crashed? see $log)} ($(( $(date +%s) - start )) s wall)"
if grep -qE '^✘|Fatal error|Crashed|signal [0-9]' "$log" || [ -z "$summary" ]; then
    status=1
    echo "==== test failures (whole log: $log) ===="
    grep -E -A4 '^✘|recorded an issue|: error:|Fatal error|Exited with|Crashed|signal [0-9]' "$log" | tail -n 120 || true
    tail -n 5 "$log"
    echo "==== end of failures ===="
else
    rm -f "$log"
fi
if [ "$ran" -ne "$expected" ]; then
    echo "run-tests: the run ran $ran tests, the suite has $expected" >&2
    status=1
fi
if [ "$status" -eq 0 ]; then
    echo "run-tests: all $ran tests passed"
else
    echo "run-tests: FAILED ($ran of $expected tests ran)"
fi
exit "$status"
