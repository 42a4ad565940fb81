#!/usr/bin/env bash
# benchmarks/calls.sh: a call of 1, 2, 4 and 8 participants over WebSockets at 1x, taking turns as people do,
# with about 10 % of turns overlapped, transcribed by one `audiograph serve --run` (whisper tiny.en, one model
# shared by every participant's branch), beside the same call as N separate `audiograph run` processes, one a
# participant, each loading its own model.
#
# Audio: espeak-ng voices reading benchmarks/eval/heldout's sentences (nothing is tuned on them), 16 kHz mono
# with a -55 dBFS noise floor (benchmarks/calls_driver.py make). The senders are python3-websockets clients
# (real RFC 6455), one a participant, each sending 20 ms messages on the 1x schedule; a viewer reads the
# session's captions (SSE) and notes when each final arrives.
#
# Reported per participant count:
#   finals, end of speech -> final (median, p95: from the end of a turn's speech in the script to the arrival
#   of its last final at the viewer), words given to the right speaker outside overlaps, reference words
#   recognized (a sanity check of the transcription), the senders' worst lag behind 1x (backpressure: the
#   server never drops a participant's audio, it slows reading), and for serve vs N processes: peak RSS and
#   CPU seconds, and their ratios. Targets on a 2-core machine with tiny.en: at 4 participants p95 <= 1.5 s; at
#   8 p95 <= 2.5 s; peak RSS at 8 <= 1.5x that at 1; >= 98 % of words on the right speaker.
#
# Usage: benchmarks/calls.sh [--binary PATH] [--work DIR] [--counts "1 2 4 8"] [--seconds S] [--smoke]
#   --binary PATH  the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR     folder for audio, stores and logs (default: a mktemp folder, removed at the end)
#   --counts LIST  participant counts (default "1 2 4 8")
#   --seconds S    length of each call (default 90)
#   --smoke        1 and 2 participants, 12 s calls (CI; see lib.sh)
#
# Needs espeak-ng, sox, Debian's python3 with python3-websockets, GNU time, and the tiny.en model
# (`audiograph models install tiny.en`). Run it on an otherwise idle machine: latency is wall-clock.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY="" WORK="" COUNTS="1 2 4 8" SECONDS_PER_CALL=90
while [ $# -gt 0 ]; do
  case "$1" in
    --counts) [ $# -ge 2 ] || die "--counts needs a list"; COUNTS="$2"; shift 2 ;;
    --seconds) [ $# -ge 2 ] && is_count "$2" || die "--seconds needs a whole number"; SECONDS_PER_CALL="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
if [ "$SMOKE" = 1 ]; then COUNTS="1 2" SECONDS_PER_CALL=12; smoke_banner; fi
require_tools "" espeak-ng sox
# Debian's python3 has python3-websockets (scripts/install-deps.sh); a python3 earlier on PATH may not.
PY=/usr/bin/python3
"$PY" -c "import websockets" 2>/dev/null || die "Debian's python3-websockets is missing (apt-get install python3-websockets)"
require_gnu_time
resolve_binary
"$BINARY" models path tiny.en >/dev/null 2>&1 || die "the tiny.en model is not installed (audiograph models install tiny.en)"
make_work audiograph-calls
DRIVER="$ROOT/benchmarks/calls_driver.py"

BRANCH='"rs": {"type": "resampler", "sampleRate": 16000, "channels": 1}, "vad": {"type": "vad"},
        "asr": {"type": "recognizer", "engine": "whisper"}'

# serve_call N DIR: the call through one serve; sets SERVE_SCORE and SERVE_USAGE ("peak_kb cpu_s").
serve_call() {
  local n="$1" dir="$2" store="$2/store.sqlite" names="" p token pid port line i
  : >"$dir/tokens.tsv"
  for i in $(seq 1 "$n"); do
    p="p$i"; names="$names${names:+, }\"$p\""
    token=$("$BINARY" tokens create --user "$p" --store "$store" 2>>"$dir/tokens.log" | tail -n1 | awk '{ print $NF }')
    printf '%s\t%s\n' "$p" "$token" >>"$dir/tokens.tsv"
  done
  cat >"$dir/call.json" <<EOF
{"version": 1,
 "session": {"id": "bench", "participants": [$names], "autoStartTranscription": true, "captions": true},
 "participant": {"nodes": {"in": {"type": "participant-source"}, $BRANCH},
                 "links": ["in -> rs -> vad -> asr -> store"]},
 "nodes": {"store": {"type": "transcript-store", "path": "$store"}},
 "links": []}
EOF
  "$BINARY" serve --store "$store" --listen 127.0.0.1:0 --run "$dir/call.json" 2>"$dir/serve.log" &
  pid=$!
  port=""
  for _ in $(seq 1 600); do
    line=$(grep -m1 '^audiograph: serving http://' "$dir/serve.log" || true)
    [ -z "$line" ] || { port="${line##*:}"; break; }
    kill -0 "$pid" 2>/dev/null || { cat "$dir/serve.log" >&2; die "serve did not start"; }
    sleep 0.1
  done
  [ -n "$port" ] || { kill "$pid"; die "serve did not announce its address"; }
  if ! "$PY" "$DRIVER" send --base "http://127.0.0.1:$port" --session bench --tokens "$dir/tokens.tsv" \
      --dir "$dir" --out "$dir/serve.json" 2>"$dir/send.log"; then
    cat "$dir/send.log" >&2; kill "$pid"; die "the senders failed ($n participants)"
  fi
  # Peak RSS (VmHWM) and CPU (utime + stime) of serve, read before it stops.
  SERVE_USAGE="$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status") $(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$pid/stat")"
  kill -INT "$pid"
  wait "$pid" || { cat "$dir/serve.log" >&2; die "serve did not stop cleanly"; }
  SERVE_SCORE=$("$PY" "$DRIVER" score --dir "$dir" --result "$dir/serve.json")
}

# separate_runs N DIR: the same participants as N `audiograph run` processes at 1x, each loading its own model;
# sets SEPARATE_USAGE ("sum_peak_kb sum_cpu_s").
separate_runs() {
  local n="$1" dir="$2" i pids=()
  for i in $(seq 1 "$n"); do
    cat >"$dir/run$i.json" <<EOF
{"version": 1,
 "session": {"autoStartTranscription": true},
 "nodes": {"src": {"type": "file-source", "path": "$dir/p$i.wav", "realtime": true, "speaker": "p$i"}, $BRANCH,
           "out": {"type": "caption-sink", "format": "json", "path": "$dir/run$i-captions.json"}},
 "links": ["src -> rs -> vad -> asr -> out"]}
EOF
    /usr/bin/time -f '%M %U %S' -o "$dir/run$i.time" "$BINARY" run --quiet "$dir/run$i.json" >"$dir/run$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { cat "$dir/run$((i + 1)).log" >&2; die "audiograph run of p$((i + 1)) failed"; }
  done
  for i in $(seq 1 "$n"); do
    # A participant with no turn in this call's script says nothing: only those who spoke must be transcribed.
    if cut -f1 "$dir/script.tsv" | grep -qx "p$i"; then
      grep -q '"text"' "$dir/run$i-captions.json" || die "audiograph run of p$i transcribed nothing"
    fi
  done
  SEPARATE_USAGE=$(cat "$dir"/run*.time | awk '{ kb += $1; cpu += $2 + $3 } END { printf "%d %.2f", kb, cpu }')
}

echo "machine: $(machine); $SECONDS_PER_CALL s calls; whisper tiny.en"
printf '%-4s %6s %8s %8s %8s %7s %7s %7s | %10s %8s | %10s %8s | %7s %7s\n' \
  N finals "med(s)" "p95(s)" "turns" "right%" "words%" "lag(s)" "serve MB" "CPU s" "N runs MB" "CPU s" "mem x" "CPU x"
peak1=""
for n in $COUNTS; do
  dir="$WORK/call-$n"
  mkdir -p "$dir"
  "$PY" "$DRIVER" make --participants "$n" --seconds "$SECONDS_PER_CALL" --out "$dir"
  serve_call "$n" "$dir"
  separate_runs "$n" "$dir"
  read -r finals matched turns median p95 right recognized lag <<<"$SERVE_SCORE"
  read -r serve_kb serve_cpu <<<"$SERVE_USAGE"
  read -r sep_kb sep_cpu <<<"$SEPARATE_USAGE"
  [ -n "$peak1" ] || peak1="$serve_kb"
  awk -v n="$n" -v f="$finals" -v m="$median" -v p="$p95" -v mt="$matched" -v t="$turns" -v r="$right" -v w="$recognized" \
      -v l="$lag" -v skb="$serve_kb" -v sc="$serve_cpu" -v nkb="$sep_kb" -v nc="$sep_cpu" 'BEGIN {
    printf "%-4s %6d %8.2f %8.2f %4d/%-3d %7.1f %7.1f %7.2f | %10.0f %8.1f | %10.0f %8.1f | %7.2f %7.2f\n",
      n, f, m, p, mt, t, r, w, l, skb / 1024, sc, nkb / 1024, nc, nkb / skb, (sc > 0 ? nc / sc : 0) }'
  # A run that heard nothing must not look fast.
  [ "$finals" -gt 0 ] || die "no final reached the viewer with $n participants"
  if [ "$SMOKE" = 0 ]; then
    awk -v n="$n" -v p="$p95" -v r="$right" -v kb="$serve_kb" -v one="$peak1" 'BEGIN {
      if (n == 4 && p > 1.5) print "  target missed: p95 at 4 participants > 1.5 s"
      if (n == 8 && p > 2.5) print "  target missed: p95 at 8 participants > 2.5 s"
      if (n == 8 && kb > 1.5 * one) print "  target missed: peak RSS at 8 > 1.5x that at 1"
      if (r < 98) print "  target missed: fewer than 98 % of words on the right speaker" }'
  fi
done
echo "mem x, CPU x: N separate runs over one serve (above 1: the shared model saves that much)."
