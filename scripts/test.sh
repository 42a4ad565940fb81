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
swift test
