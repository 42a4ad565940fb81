#!/usr/bin/env bash
# benchmarks/metrics.sh: what the runtime's per-node metrics cost: the same pipelines run with metrics on (the
# default) and off (`audiograph run --no-metrics`), interleaved, on a long file.
#
# Jobs (the input is made here: 44.1 kHz stereo speech-like noise, --minutes long):
#   dsp     file-source -> resampler (16 kHz mono) -> level-meter -> vad -> wav-sink: a realistic graph whose
#           nodes do real work per buffer (1024 frames)
#   stress  file-source (16 kHz mono copy, blockFrames 64) -> 6 level-meters in a row, no sink: the worst case
#           for per-call bookkeeping: tiny buffers through cheap inline nodes on one thread (7 nodes, 64-frame
#           buffers; no queue, whose thread wake-ups would vary more than what is measured)
# Each job runs --repeats times with metrics on and off, alternating; reported: median wall and CPU (user +
# sys, GNU time) and the ratio on/off. Target: the dsp pipeline within 2% (ratio <= 1.02).
#
# Usage: benchmarks/metrics.sh [--binary PATH] [--work DIR] [--repeats R] [--minutes M] [--smoke]
#   --binary PATH  the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR     folder for audio, configs and outputs (default: a mktemp folder, removed at the end)
#   --repeats R    runs of each job both ways (default 7)
#   --minutes M    length of the input (default 20)
#   --smoke        10 s of input, one run each way (CI; see lib.sh)
#
# Needs sox, GNU time. Run it on an otherwise idle machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY="" WORK="" REPEATS=7 MINUTES=20
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) [ $# -ge 2 ] && is_count "$2" || die "--minutes needs a count"; MINUTES="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
is_count "$REPEATS" || die "--repeats needs a count"
INPUT_SECONDS=$((MINUTES * 60))
if [ "$SMOKE" = 1 ]; then INPUT_SECONDS=10 REPEATS=1; smoke_banner; fi
require_tools "" sox
require_gnu_time
resolve_binary
make_work audiograph-metrics

make_speech_like_input "$INPUT_SECONDS" "$WORK/in.wav"
sox -R "$WORK/in.wav" -r 16000 -c 1 "$WORK/in16k.wav"
cat >"$WORK/dsp.json" <<'JSON'
{"version": 1,
 "nodes": {"src": {"type": "file-source", "path": "in.wav"},
           "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
           "level": {"type": "level-meter"}, "vad": {"type": "vad"},
           "out": {"type": "wav-sink", "path": "out/dsp.wav"}},
 "links": ["src -> rs -> level -> vad -> out"]}
JSON
cat >"$WORK/stress.json" <<'JSON'
{"version": 1,
 "nodes": {"src": {"type": "file-source", "path": "in16k.wav", "blockFrames": 64},
           "l1": {"type": "level-meter"}, "l2": {"type": "level-meter"}, "l3": {"type": "level-meter"},
           "l4": {"type": "level-meter"}, "l5": {"type": "level-meter"}, "l6": {"type": "level-meter"}},
 "links": ["src -> l1 -> l2 -> l3 -> l4 -> l5 -> l6"]}
JSON

echo "audiograph metrics overhead: $(machine)"
echo "input: $INPUT_SECONDS s; $REPEATS runs each way, alternating; wall and CPU are medians"
printf '%-8s %10s %10s %10s %10s %9s %9s\n' job "on wall" "off wall" "on cpu" "off cpu" "wall on/off" "cpu on/off"
cd "$WORK"
for job in dsp stress; do
  : >"$job-on.runs"; : >"$job-off.runs"
  for _ in $(seq 1 "$REPEATS"); do
    time_run "$job" "$BINARY" run "$job.json" --quiet; echo "$TIMED_RUN" >>"$job-on.runs"
    time_run "$job" "$BINARY" run "$job.json" --quiet --no-metrics; echo "$TIMED_RUN" >>"$job-off.runs"
  done
  read -r on_wall _ on_cpu <<<"$(runs_summary "$job-on.runs")"
  read -r off_wall _ off_cpu <<<"$(runs_summary "$job-off.runs")"
  awk -v j="$job" -v a="$on_wall" -v b="$off_wall" -v c="$on_cpu" -v d="$off_cpu" \
    'BEGIN { printf "%-8s %9.3fs %9.3fs %9.2fs %9.2fs %9.3f %9.3f\n", j, a, b, c, d, a / b, (d > 0 ? c / d : 0) }'
done
