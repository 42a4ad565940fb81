#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# A sound server with a null sink, so the microphone tests capture for real (and fail, not skip, without it).
bash scripts/start-pulseaudio.sh
export AUDIOGRAPH_REQUIRE_SOUND_SERVER=1
# PostgreSQL on loopback for the store, queue and batch tests; stopped again at the end when this script started
# it (a server that was already running is left alone).
online_before=$(pg_lsclusters -h 2>/dev/null | awk '$4 == "online"' | wc -l)
AUDIOGRAPH_TEST_POSTGRES_URL="$(bash scripts/start-postgres.sh)"
case "$AUDIOGRAPH_TEST_POSTGRES_URL" in
    postgres://*) ;;
    *) echo "test.sh: start-postgres.sh printed '$AUDIOGRAPH_TEST_POSTGRES_URL', not a postgres:// URL" >&2; exit 1 ;;
esac
export AUDIOGRAPH_TEST_POSTGRES_URL AUDIOGRAPH_REQUIRE_POSTGRES=1
stop_postgres() {
    [ "$online_before" -eq 0 ] || return 0
    pg_lsclusters -h | awk '$4 == "online" {print $1, $2}' | while read -r version name; do
        pg_ctlcluster "$version" "$name" stop || true
    done
}
trap stop_postgres EXIT
swift build --build-tests
# The example plugins (separate packages) that the plugin tests load through the audiograph binary, and the
# embedding example (built, tested and run).
bash scripts/build-plugins.sh
export AUDIOGRAPH_REQUIRE_EXAMPLE_PLUGINS=1
# The /metrics tests parse with prometheus_client (Debian's python3-prometheus-client): fail, not skip, without it.
export AUDIOGRAPH_REQUIRE_PROMETHEUS_PARSER=1
bash scripts/build-examples.sh
# Code that is not the test suite but must not rot: every benchmark in its --smoke mode (seconds, the debug build)
# and every libFuzzer target for 30 s (docs/fuzzing.md). Both run before the tests so that the test runner's
# summary stays the last line; a failure here fails the run after the tests.
smoke_status=0
bash scripts/bench-smoke.sh || smoke_status=$?
bash scripts/fuzz.sh --smoke || smoke_status=$?
# One test at a time: many tests block on real work (decoding, nested builds, realtime audio), and run side by
# side on 2 cores they starve the concurrency pool that the waiting tests need (parallel runs took 126 s and
# failed now and then on timeouts; serial runs take about 190 s and do not).
# A failing run keeps its whole log and prints every failure line again at the end: CI shows only the tail.
log="$(mktemp -t audiograph-test.XXXXXX.log)"
status=0
swift test --skip-build --no-parallel 2>&1 | tee "$log" || status=$?
if [ "$status" -eq 0 ]; then
    rm -f "$log"
else
    echo "==== test failures (from $log) ===="
    grep -E -A4 '^✘|recorded an issue|: error:|Test Case .* failed|Fatal error|Exited with|Crashed|signal [0-9]' "$log" | tail -n 80 || true
    echo "==== end of test failures; swift test exited $status ===="
fi
if [ "$smoke_status" -ne 0 ]; then
    echo "==== the benchmark or fuzz smoke failed (see above: 'benchmarks smoke:' and 'fuzz:' lines) ===="
    [ "$status" -ne 0 ] || status=$smoke_status
fi
exit "$status"
