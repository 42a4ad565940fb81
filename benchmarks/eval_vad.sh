#!/usr/bin/env bash
# benchmarks/eval_vad.sh: the vad node's engines (spectral, silero) against py-webrtcvad (modes 0-3) and the
# Python silero-vad package, frame F1 on audio the thresholds were not tuned on, and the cost of each engine.
#
# Test audio (benchmarks/eval_vad.py makes it, deterministically):
#   real    the six labelled recordings of Tests/AudioGraphSpeechTests/Fixtures (../shared/speech; vad_labels.tsv)
#   calls   synthetic calls from the sentences of benchmarks/eval/*.txt, each in its own espeak-ng voice, speed
#           and level, 0.8-2.5 s of silence between them; clean and with white, pink and babble noise at 20, 10,
#           5 and 0 dB SNR (each SNR row pools the three kinds)
# Systems, all on the same 16 kHz audio:
#   spectral / silero   audiograph run {file-source -> vad{engine}} --events jsonl, the node's defaults
#   silero-matched      the silero engine with get_speech_timestamps' post-processing lengths (hangoverMs 100,
#                       minSpeechMs 250, preRollMs 30): the same model and rules as the Python package
#   webrtcN             py-webrtcvad mode N, its raw 30 ms decisions
#   silero-vad (python) silero-vad's ONNX model (onnxruntime) through its get_speech_timestamps defaults
# Cost: real-time factor of each engine = (wall time of file-source -> vad minus file-source alone) / audio
# duration, on a --rtf-minutes file, lower median of --repeats interleaved runs.
#
# Usage: benchmarks/eval_vad.sh [--binary PATH] [--work DIR] [--repeats R] [--rtf-minutes M] [--calls N] [--smoke]
#   --binary PATH     the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR        folder for the audio and outputs (default: a mktemp folder, removed at the end)
#   --repeats R       timed runs of each pipeline (default 3)
#   --rtf-minutes M   length of the timing file, minutes (default 5)
#   --calls N         synthetic calls of 8 sentences (default 4)
#   --smoke           one call of 4 sentences, no Python silero-vad, 15 s for the cost, one run (CI; see lib.sh)
#
# Needs espeak-ng, sox, python3 with venv; numpy and webrtcvad-wheels (and onnxruntime 1.20.1 + silero-vad
# 6.2.3 without its torch dependency) are installed into $VAD_VENV (default ~/.cache/audiograph/vad-venv)
# when missing. The silero engine needs `audiograph models install silero`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY="" WORK="" REPEATS=3 RTF_MINUTES=5 CALLS=4 SENTENCES=8 SILERO=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rtf-minutes) [ $# -ge 2 ] || die "--rtf-minutes needs a value"; RTF_MINUTES="$2"; shift 2 ;;
    --calls) [ $# -ge 2 ] || die "--calls needs a value"; CALLS="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
is_count "$REPEATS" && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"
is_count "$CALLS" && [ "$CALLS" -ge 1 ] || die "--calls must be a whole number >= 1"
if [ "$SMOKE" = 1 ]; then CALLS=1 SENTENCES=4 RTF_MINUTES=0.25 REPEATS=1 SILERO=0; smoke_banner; fi
require_tools " (apt-get install espeak-ng sox python3-venv)" espeak-ng sox python3
resolve_binary
make_work audiograph-eval-vad
"$BINARY" models path silero >/dev/null
[ -f "$("$BINARY" models path silero)" ] || die "no Silero model: run \`$BINARY models install silero\`"
SCRIPT_START=$(date +%s)

vad_python "$SILERO"

echo "Making the test audio ..." >&2
"$PY" "$ROOT/benchmarks/eval_vad.py" make "$ROOT/Tests/AudioGraphSpeechTests/Fixtures" "$WORK/data" \
  --calls "$CALLS" --sentences "$SENTENCES"
mapfile -t FILES < <("$PY" -c 'import json,sys; [print(f["name"], f["path"]) for f in json.load(open(sys.argv[1]))["files"]]' \
  "$WORK/data/manifest.json")

# system label, then the vad node's parameters (JSON members)
SYSTEMS=("spectral|\"engine\": \"spectral\"" "silero|\"engine\": \"silero\""
         "silero-matched|\"engine\": \"silero\", \"hangoverMs\": 100, \"minSpeechMs\": 250, \"preRollMs\": 30")
echo "Running the vad node (${#SYSTEMS[@]} systems) on ${#FILES[@]} files ..." >&2
EVAL_ARGS=()
for system in "${SYSTEMS[@]}"; do
  label="${system%%|*}" params="${system#*|}"
  mkdir -p "$WORK/$label"
  for entry in "${FILES[@]}"; do
    name="${entry%% *}" path="${entry#* }"
    printf '{ "version": 1, "nodes": { "src": { "type": "file-source", "path": "%s" }, "vad": { "type": "vad", %s } }, "links": ["src -> vad"] }\n' \
      "$path" "$params" >"$WORK/cfg.json"
    "$BINARY" run "$WORK/cfg.json" --events jsonl --quiet >"$WORK/$label/$name.jsonl" || die "audiograph run failed on $name ($label)"
  done
  EVAL_ARGS+=(--ours "$label=$WORK/$label")
done

echo "Timing ($RTF_MINUTES min of audio, $REPEATS rounds) ..." >&2
LONG="$WORK/long.wav"
mapfile -t CALL_FILES < <(printf '%s\n' "${FILES[@]}" | awk '$1 ~ /^call/ {print $2}')
sox "${CALL_FILES[@]}" "$WORK/once.wav"
ONCE_SECONDS="$(soxi -D "$WORK/once.wav")"
REPEAT_COUNT="$(awk -v m="$RTF_MINUTES" -v s="$ONCE_SECONDS" 'BEGIN { print int(m * 60 / s) + 1 }')"
sox $(for (( i = 0; i < REPEAT_COUNT; i++ )); do echo "$WORK/once.wav"; done) "$LONG" trim 0 "$(awk -v m="$RTF_MINUTES" 'BEGIN { print m * 60 }')"
LONG_SECONDS="$(soxi -D "$LONG")"
timing_config() {  # PATH [vad parameters]
  if [ $# -ge 2 ]; then
    printf '{ "version": 1, "nodes": { "src": { "type": "file-source", "path": "%s" }, "vad": { "type": "vad", %s } }, "links": ["src -> vad"] }\n' "$LONG" "$2" >"$1"
  else
    printf '{ "version": 1, "nodes": { "src": { "type": "file-source", "path": "%s" }, "level": { "type": "level-meter", "intervalMs": 60000 } }, "links": ["src -> level"] }\n' "$LONG" >"$1"
  fi
}
timing_config "$WORK/t-base.json"
timing_config "$WORK/t-spectral.json" '"engine": "spectral"'
timing_config "$WORK/t-silero.json" '"engine": "silero"'
for job in base spectral silero; do : >"$WORK/$job.runs"; done
for (( round = 1; round <= REPEATS; round++ )); do
  for job in base spectral silero; do
    t0=$(now_ns)
    "$BINARY" run "$WORK/t-$job.json" --quiet >/dev/null || die "timing run ($job) failed"
    echo $(( $(now_ns) - t0 )) >>"$WORK/$job.runs"
  done
done

echo "audiograph vad evaluation (unseen audio), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(machine); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary: $BINARY"
echo "python: $("$PY" -c 'import sys, numpy, importlib.metadata as m; print(sys.version.split()[0], "numpy", numpy.__version__, "webrtcvad-wheels", m.version("webrtcvad-wheels"), *(["silero-vad", m.version("silero-vad"), "onnxruntime", m.version("onnxruntime")] if '"$SILERO"' else []))')"
echo
[ "$SILERO" = 1 ] && EVAL_ARGS+=(--silero)
"$PY" "$ROOT/benchmarks/eval_vad.py" eval "$WORK/data" "${EVAL_ARGS[@]}" --markdown "$WORK/f1.md"
echo
BASE_NS=$(lower_median <"$WORK/base.runs")
for job in spectral silero; do
  ns=$(lower_median <"$WORK/$job.runs")
  awk -v b="$BASE_NS" -v v="$ns" -v s="$LONG_SECONDS" -v j="$job" 'BEGIN {
    rtf = (v - b) / 1e9 / s
    printf "%s real-time factor: %.5f (%.1f s of audio; %.3f s with the vad, %.3f s without); target < 0.01: %s\n",
           j, rtf, s, v / 1e9, b / 1e9, (rtf < 0.01 ? "met" : "NOT met")
  }'
done
echo "Total benchmark time: $(( $(date +%s) - SCRIPT_START )) s"
