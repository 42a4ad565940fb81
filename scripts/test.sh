#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
swift test
