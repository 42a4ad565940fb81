#!/usr/bin/env bash
# benchmarks/aac.sh: AAC encoding speed of our aac-sink against `ffmpeg -c:a aac`.
#
# The script makes a speech-like 44.1 kHz stereo 16-bit WAV (--minutes long, the input of resample.sh) and
# encodes it to AAC-LC in .m4a at the same bit rate both ways, with the same encoder (FFmpeg's native aac):
#   ours    audiograph run CONFIG --quiet; CONFIG is file-source -> aac-sink{bitrate} (the defaults
#           otherwise: 1024-frame blocks)
#   ffmpeg  ffmpeg -nostdin -v error -y -i in.wav -c:a aac -b:a 64k out.m4a
#   ours, blockFrames 4096 (reference, not in the ratios): the same with 4096-frame blocks
# It runs each job --repeats times (interleaved rounds) and reports the median wall time, the speed as a
# multiple of real time, the median CPU time and the peak RSS (the highest of the runs), and the ratios
# ours/ffmpeg. Every output's duration is checked with ffprobe, and the two files' audio is compared
# (decoded with ffmpeg): the same encoder fed the same frames should give the same samples.
#
# Usage: benchmarks/aac.sh [--minutes N] [--bitrate B] [--binary PATH] [--work DIR] [--repeats R] [--smoke]
#   --minutes N   length of the input, minutes (default 10)
#   --bitrate B   bits per second (default 64000)
#   --binary PATH the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR    folder for the test files (default: a mktemp folder, removed at the end; a folder you
#                 name is kept)
#   --repeats R   runs of each job (default 3)
#   --smoke       every job once on 5 s of input (CI; see lib.sh)
#
# Needs: sox, ffmpeg, ffprobe, GNU time at /usr/bin/time (`apt-get install time`).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MINUTES=10
BITRATE=64000
BINARY=""
WORK=""
REPEATS=3

while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) [ $# -ge 2 ] || die "--minutes needs a value"; MINUTES="$2"; shift 2 ;;
    --bitrate) [ $# -ge 2 ] || die "--bitrate needs a value"; BITRATE="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
is_count "$MINUTES" && [ "$MINUTES" -ge 1 ] || die "--minutes must be a whole number >= 1"
is_count "$BITRATE" && [ "$BITRATE" -ge 16000 ] && [ "$BITRATE" -le 320000 ] \
  || die "--bitrate must be a whole number 16000...320000"
is_count "$REPEATS" && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"

require_tools " (scripts/install-deps.sh installs it)" sox ffmpeg ffprobe md5sum
require_gnu_time
resolve_binary
make_work audiograph-aac-bench

SECONDS_IN=$(( MINUTES * 60 ))
if [ "$SMOKE" = 1 ]; then SECONDS_IN=5 REPEATS=1; smoke_banner; fi
IN="$WORK/in-${SECONDS_IN}s.wav"
OURS="$WORK/out-ours.m4a"
THEIRS="$WORK/out-ffmpeg.m4a"
KBPS="$(( BITRATE / 1000 ))k"
[ $(( BITRATE % 1000 )) -eq 0 ] || KBPS="$BITRATE"

echo "Making a ${SECONDS_IN} s 44.1 kHz stereo input ..." >&2
make_speech_like_input "$SECONDS_IN" "$IN"
cat "$IN" >/dev/null  # into the page cache, so the first timed run does not pay for the disk

# write_config PATH OUTPUT [SOURCE_EXTRA]: file-source -> aac-sink.
write_config() {
  cat >"$1" <<EOF
{
  "version": 1,
  "nodes": {
    "src": { "type": "file-source", "path": "$IN"${3:-} },
    "rec": { "type": "aac-sink", "path": "$2", "bitrate": $BITRATE }
  },
  "links": ["src -> rec"]
}
EOF
}
write_config "$WORK/aac.json" "$OURS"
# For reference: bigger blocks from the source, so fewer hand-offs to the sink's queue thread.
OURS_BIG="$WORK/out-ours-4096.m4a"
write_config "$WORK/aac-4096.json" "$OURS_BIG" ', "blockFrames": 4096'

# run_once NAME OUTPUT COMMAND...: one timed run; appends "wall_ns peak_kb user_s sys_s" to $WORK/NAME.runs
# and checks the output's duration with ffprobe, so a run that stops early cannot look fast.
run_once() {
  local name="$1" output="$2" got; shift 2
  rm -f "$output"
  time_run "$name" "$@"
  got=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$output")
  expect_seconds "$name" "$got" "$SECONDS_IN" 0.05
  echo "$TIMED_RUN" >>"$WORK/$name.runs"
}

: >"$WORK/ours.runs"
: >"$WORK/ours-4096.runs"
: >"$WORK/ffmpeg.runs"
for (( round = 1; round <= REPEATS; round++ )); do
  echo "  round $round/$REPEATS" >&2
  run_once ours "$OURS" "$BINARY" run "$WORK/aac.json" --quiet
  run_once ffmpeg "$THEIRS" ffmpeg -nostdin -v error -y -i "$IN" -c:a aac -b:a "$KBPS" "$THEIRS"
  run_once ours-4096 "$OURS_BIG" "$BINARY" run "$WORK/aac-4096.json" --quiet
done

read -r OURS_WALL OURS_PEAK OURS_CPU < <(runs_summary "$WORK/ours.runs")
read -r FF_WALL FF_PEAK FF_CPU < <(runs_summary "$WORK/ffmpeg.runs")
read -r BIG_WALL BIG_PEAK BIG_CPU < <(runs_summary "$WORK/ours-4096.runs")

decoded_md5() { ffmpeg -nostdin -v error -i "$1" -f f32le - | md5sum | cut -d' ' -f1; }
SAME="no"
[ "$(decoded_md5 "$OURS")" = "$(decoded_md5 "$THEIRS")" ] && SAME="yes"
size() { stat -c %s "$1"; }

echo "AAC-LC ${BITRATE} b/s, ${SECONDS_IN} s 44.1 kHz stereo, median of $REPEATS runs ($(nproc) cores, $(ffmpeg -version | head -n1 | cut -d' ' -f1-3))"
echo
echo "| job | wall (s) | x real time | CPU (s) | peak RSS (MB) | output (KB) |"
echo "|---|---|---|---|---|---|"
row() {
  awk -v n="$1" -v w="$2" -v c="$3" -v p="$4" -v s="$5" -v len="$SECONDS_IN" \
    'BEGIN { printf "| %s | %.2f | %.0fx | %.2f | %.1f | %d |\n", n, w, len / w, c, p / 1024, s / 1024 }'
}
row "ours (file-source -> aac-sink)" "$OURS_WALL" "$OURS_CPU" "$OURS_PEAK" "$(size "$OURS")"
row "ffmpeg -c:a aac -b:a $KBPS" "$FF_WALL" "$FF_CPU" "$FF_PEAK" "$(size "$THEIRS")"
row "ours, blockFrames 4096 (reference)" "$BIG_WALL" "$BIG_CPU" "$BIG_PEAK" "$(size "$OURS_BIG")"
echo
awk -v ow="$OURS_WALL" -v fw="$FF_WALL" -v op="$OURS_PEAK" -v fp="$FF_PEAK" 'BEGIN {
  printf "time ours/ffmpeg: %.3f (target: within 10%% of ffmpeg, <= 1.10: %s)\n", ow / fw, (ow / fw <= 1.10 ? "met" : "NOT met")
  printf "memory ours/ffmpeg: %.2f\n", op / fp
}'
echo "same decoded audio as ffmpeg's file: $SAME"
