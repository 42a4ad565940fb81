#!/usr/bin/env bash
# Installs what is missing, builds audiograph and runs the main demo on bundled speech: a 44.1 kHz stereo FLAC
# is resampled to 16 kHz mono, metered and written to out/demo/speech-16k.wav, with a live level meter on a
# terminal and the events printed as JSON lines.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --product audiograph
bin=$(swift build --show-bin-path)/audiograph
"$bin" validate examples/levels.json
"$bin" run examples/levels.json --set out.path=../out/demo/speech-16k.wav --events jsonl | tail -n 3
echo "demo: wrote out/demo/speech-16k.wav ($(soxi -D out/demo/speech-16k.wav) s, $(soxi -r out/demo/speech-16k.wav) Hz)"
