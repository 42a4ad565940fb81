#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# A sound server with a null sink, so the microphone tests capture for real (and fail, not skip, without it).
bash scripts/start-pulseaudio.sh
export AUDIOGRAPH_REQUIRE_SOUND_SERVER=1
swift build --build-tests
# The example plugins (separate packages) that the plugin tests load through the audiograph binary, and the
# embedding example (built, tested and run).
bash scripts/build-plugins.sh
export AUDIOGRAPH_REQUIRE_EXAMPLE_PLUGINS=1
bash scripts/build-examples.sh
# One test at a time: many tests block on real work (decoding, nested builds, realtime audio), and run side by
# side on 2 cores they starve the concurrency pool that the waiting tests need (parallel runs took 126 s and
# failed now and then on timeouts; serial runs take about 190 s and do not).
swift test --skip-build --no-parallel
