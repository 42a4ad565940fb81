#!/usr/bin/env bash
# benchmarks/vad.sh: the `vad` node against py-webrtcvad (modes 0-3) and silero-vad, frame F1 and cost.
#
# Test audio (benchmarks/vad_eval.py makes it, deterministically, from Tests/AudioGraphSpeechTests/Fixtures):
#   real    the labelled fixtures as they are: librivox_0870 ... 0930 and chan3_16k (vad_labels.tsv)
#   calls   8 "synthetic calls": the five labelled librivox clips shuffled, with 0.5-2 s of silence between
#           them, each call at its own level; clean and mixed with white, pink and babble noise at SNR 20, 10,
#           5 and 0 dB (labels = the clips' labels, shifted)
# Systems, all on the same 16 kHz audio:
#   ours-aN     audiograph run {file-source -> vad{aggressiveness N}} --events jsonl, N = 0..3, other
#               parameters at their defaults; speechStarted/speechEnded become 10 ms frame labels
#   webrtcN     py-webrtcvad mode N, 30 ms frames, its raw per-frame decisions
#   silero      silero-vad (ONNX model run with onnxruntime) through get_speech_timestamps' defaults
#   silero-raw  silero-vad's per-32 ms-chunk probability >= 0.5
# Scoring: frame-level precision, recall and F1 of the speech class over 10 ms frames, pooled per condition.
# Cost: real-time factor of the vad node = (wall time of file-source -> level-meter -> vad minus that of
# file-source -> level-meter) / audio duration, on a --rtf-minutes file, median of --repeats interleaved runs.
#
# Usage: benchmarks/vad.sh [--binary PATH] [--work DIR] [--repeats R] [--rtf-minutes M] [--no-silero] [--smoke]
#   --binary PATH     the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR        folder for the test audio and outputs (default: a mktemp folder, removed at the end;
#                     a folder you name is kept)
#   --repeats R       timed runs of each pipeline for the real-time factor (default 5)
#   --rtf-minutes M   length of the timing file, minutes (default 30)
#   --no-silero       skip silero-vad (no onnxruntime download)
#   --smoke           one synthetic call (all its noise conditions), ours at the default aggressiveness,
#                     webrtcvad, no silero, 15 s for the cost, one run (CI; see lib.sh)
#
# Needs python3 with venv. numpy, webrtcvad-wheels (and onnxruntime + silero-vad, whose wheel ships the ONNX
# model) are installed from PyPI into a venv at $VAD_VENV (default ~/.cache/audiograph/vad-venv) when the
# python3 on PATH lacks them.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY=""
WORK=""
REPEATS=5
RTF_MINUTES=30
SILERO=1

while [ $# -gt 0 ]; do
  case "$1" in
    --rtf-minutes) [ $# -ge 2 ] || die "--rtf-minutes needs a value"; RTF_MINUTES="$2"; shift 2 ;;
    --no-silero) SILERO=0; shift ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
is_count "$REPEATS" && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"
is_count "$RTF_MINUTES" && [ "$RTF_MINUTES" -ge 1 ] || die "--rtf-minutes must be a whole number >= 1"
CALLS=8 AGGRESSIVENESS="0 1 2 3"
if [ "$SMOKE" = 1 ]; then CALLS=1 AGGRESSIVENESS="" RTF_MINUTES=0.25 REPEATS=1 SILERO=0; smoke_banner; fi
require_tools "" python3

FIXTURES="$ROOT/Tests/AudioGraphSpeechTests/Fixtures"
EVAL="$ROOT/benchmarks/vad_eval.py"
resolve_binary
make_work audiograph-vad
SCRIPT_START=$(date +%s)

# ---------------------------------------------------------------------------------------------------------
# Python with numpy, webrtcvad (and onnxruntime + silero-vad)

vad_python "$SILERO"

# ---------------------------------------------------------------------------------------------------------
# Test audio

echo "Making the test audio ..." >&2
"$PY" "$EVAL" make "$FIXTURES" "$WORK/data" --calls "$CALLS"
mapfile -t NAMES < <("$PY" -c 'import json,sys; [print(f["name"]) for f in json.load(open(sys.argv[1]))["files"]]' \
  "$WORK/data/manifest.json")

# ---------------------------------------------------------------------------------------------------------
# Ours: one run per file and aggressiveness, events as JSON lines

OURS_ARGS=()
DEFAULT_AGGR="$("$BINARY" inspect vad | sed -n 's/^ *aggressiveness .*default \([0-9]\).*/\1/p')"
[ -n "$DEFAULT_AGGR" ] || DEFAULT_AGGR=1
echo "Running the vad node on ${#NAMES[@]} files at aggressiveness $DEFAULT_AGGR (the default) ${AGGRESSIVENESS:+and $AGGRESSIVENESS }..." >&2
for aggr in "$DEFAULT_AGGR" $AGGRESSIVENESS; do
  out="$WORK/ours-a$aggr"
  [ -d "$out" ] && continue
  mkdir -p "$out"
  for name in "${NAMES[@]}"; do
    cat >"$WORK/cfg.json" <<EOF
{ "version": 1,
  "nodes": { "src": { "type": "file-source", "path": "$WORK/data/$name.wav" },
             "vad": { "type": "vad", "aggressiveness": $aggr } },
  "links": ["src -> vad"] }
EOF
    "$BINARY" run "$WORK/cfg.json" --events jsonl --quiet >"$out/$name.jsonl" \
      || die "audiograph run failed on $name (aggressiveness $aggr)"
  done
done
OURS_ARGS+=(--ours "ours-a$DEFAULT_AGGR=$WORK/ours-a$DEFAULT_AGGR")
for aggr in $AGGRESSIVENESS; do
  [ "$aggr" = "$DEFAULT_AGGR" ] || OURS_ARGS+=(--ours "ours-a$aggr=$WORK/ours-a$aggr")
done

# ---------------------------------------------------------------------------------------------------------
# Cost: real-time factor

echo "Timing ($RTF_MINUTES min of audio, $REPEATS rounds) ..." >&2
LONG="$WORK/long.wav"
"$PY" - "$WORK/data" "$LONG" "$RTF_MINUTES" <<'PY'
import json, os, sys, wave
data, out, minutes = sys.argv[1], sys.argv[2], float(sys.argv[3])
files = [f["path"] for f in json.load(open(os.path.join(data, "manifest.json")))["files"] if f["set"] == "calls"]
frames = []
with wave.open(out, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
    total, i = 0, 0
    while total < minutes * 60 * 16000:
        with wave.open(files[i % len(files)]) as r:
            chunk = r.readframes(r.getnframes())
        w.writeframes(chunk)
        total += len(chunk) // 2
        i += 1
PY
cat "$LONG" >/dev/null
LONG_SECONDS="$("$PY" -c 'import wave,sys; w=wave.open(sys.argv[1]); print(w.getnframes()/w.getframerate())' "$LONG")"
write_timing_config() {
  local path="$1" with_vad="$2" nodes links
  nodes='"src": { "type": "file-source", "path": "'"$LONG"'" }, "level": { "type": "level-meter", "intervalMs": 60000 }'
  links='"src -> level"'
  if [ "$with_vad" = 1 ]; then
    nodes="$nodes"', "vad": { "type": "vad" }'
    links='"src -> level -> vad"'
  fi
  printf '{ "version": 1, "nodes": { %s }, "links": [%s] }\n' "$nodes" "$links" >"$path"
}
write_timing_config "$WORK/base.json" 0
write_timing_config "$WORK/with-vad.json" 1
: >"$WORK/base.runs"
: >"$WORK/vad.runs"
for (( round = 1; round <= REPEATS; round++ )); do
  for job in base vad; do
    cfg="$WORK/base.json"; [ "$job" = vad ] && cfg="$WORK/with-vad.json"
    t0=$(now_ns)
    "$BINARY" run "$cfg" --quiet >/dev/null || die "timing run ($job) failed"
    t1=$(now_ns)
    echo $(( t1 - t0 )) >>"$WORK/$job.runs"
  done
done
BASE_NS=$(lower_median <"$WORK/base.runs")
VAD_NS=$(lower_median <"$WORK/vad.runs")

# ---------------------------------------------------------------------------------------------------------
# Report (stdout)

echo "audiograph vad benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(machine)"
echo "binary: $BINARY (vad defaults: $("$BINARY" inspect vad | sed -n 's/^ *\([a-zA-Z]*\) .*default \([0-9]*\).*/\1 \2/p' | paste -sd, - | sed 's/,/, /g'))"
echo "python: $("$PY" -c 'import sys, numpy, importlib.metadata as m; print(sys.version.split()[0], "numpy", numpy.__version__, "webrtcvad-wheels", m.version("webrtcvad-wheels"), *(["silero-vad", m.version("silero-vad"), "onnxruntime", m.version("onnxruntime")] if '"$SILERO"' else []))')"
echo
EVAL_ARGS=("${OURS_ARGS[@]}" --json "$WORK/f1.json" --markdown "$WORK/f1.md")
[ "$SILERO" = 1 ] && EVAL_ARGS+=(--silero)
"$PY" "$EVAL" eval "$WORK/data" "${EVAL_ARGS[@]}"
echo
awk -v b="$BASE_NS" -v v="$VAD_NS" -v s="$LONG_SECONDS" -v r="$REPEATS" 'BEGIN {
  printf "Cost on %.1f min of 16 kHz mono (median of %d runs): file-source -> level-meter %.3f s, + vad %.3f s\n",
         s / 60, r, b / 1e9, v / 1e9
  rtf = (v - b) / 1e9 / s
  printf "vad real-time factor: %.5f (%.0fx faster than real time); target < 0.002: %s\n",
         rtf, (rtf > 0 ? 1 / rtf : 0), (rtf < 0.002 ? "met" : "NOT met")
}'
echo
echo "== The F1 tables in Markdown"
echo
cat "$WORK/f1.md"
echo "Total benchmark time: $(( $(date +%s) - SCRIPT_START )) s"
