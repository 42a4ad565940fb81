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
# Usage: benchmarks/aac.sh [--minutes N] [--bitrate B] [--binary PATH] [--work DIR] [--repeats R]
#   --minutes N   length of the input, minutes (default 10)
#   --bitrate B   bits per second (default 64000)
#   --binary PATH the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR    folder for the test files (default: a mktemp folder, removed at the end; a folder you
#                 name is kept)
#   --repeats R   runs of each job (default 3)
#
# Needs: sox, ffmpeg, ffprobe, GNU time at /usr/bin/time (`apt-get install time`).
set -euo pipefail

MINUTES=10
BITRATE=64000
BINARY=""
WORK=""
REPEATS=3

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
die() { echo "aac.sh: $*" >&2; exit 1; }
is_count() { [[ "$1" =~ ^[0-9]+$ ]]; }

while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) [ $# -ge 2 ] || die "--minutes needs a value"; MINUTES="$2"; shift 2 ;;
    --bitrate) [ $# -ge 2 ] || die "--bitrate needs a value"; BITRATE="$2"; shift 2 ;;
    --binary) [ $# -ge 2 ] || die "--binary needs a value"; BINARY="$2"; shift 2 ;;
    --work) [ $# -ge 2 ] || die "--work needs a value"; WORK="$2"; shift 2 ;;
    --repeats) [ $# -ge 2 ] || die "--repeats needs a value"; REPEATS="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 64 ;;
  esac
done
is_count "$MINUTES" && [ "$MINUTES" -ge 1 ] || die "--minutes must be a whole number >= 1"
is_count "$BITRATE" && [ "$BITRATE" -ge 16000 ] && [ "$BITRATE" -le 320000 ] \
  || die "--bitrate must be a whole number 16000...320000"
is_count "$REPEATS" && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"

for tool in sox ffmpeg ffprobe md5sum; do
  command -v "$tool" >/dev/null || die "$tool is not installed (scripts/install-deps.sh installs it)"
done
/usr/bin/time -f '%e %M' -o /dev/null true 2>/dev/null \
  || die "GNU time is missing at /usr/bin/time (apt-get install -y time)"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "$BINARY" ]; then
  echo "Building audiograph (swift build -c release) ..." >&2
  swift build -c release --package-path "$ROOT" >&2
  BINARY="$(swift build -c release --package-path "$ROOT" --show-bin-path)/audiograph"
fi
[ -x "$BINARY" ] || die "no audiograph binary at $BINARY"
BINARY="$(cd "$(dirname "$BINARY")" && pwd)/$(basename "$BINARY")"

if [ -z "$WORK" ]; then
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/audiograph-aac-bench.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
else
  mkdir -p "$WORK"
fi
WORK="$(cd "$WORK" && pwd)"

SECONDS_IN=$(( MINUTES * 60 ))
IN="$WORK/in-${MINUTES}min.wav"
OURS="$WORK/out-ours.m4a"
THEIRS="$WORK/out-ffmpeg.m4a"
KBPS="$(( BITRATE / 1000 ))k"
[ $(( BITRATE % 1000 )) -eq 0 ] || KBPS="$BITRATE"

echo "Making a ${MINUTES}-minute 44.1 kHz stereo input ..." >&2
# Two independent pink-noise channels, amplitude-modulated at a syllable rate: speech-like, never silent.
sox -n -r 44100 -c 2 -b 16 "$IN" synth "$SECONDS_IN" pinknoise pinknoise tremolo 3.5 70 vol 0.3
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

now_ns() { date +%s%N; }

# run_once NAME OUTPUT COMMAND...: one timed run; appends "wall_ns peak_kb user_s sys_s" to $WORK/NAME.runs
# and checks the output's duration with ffprobe, so a run that stops early cannot look fast.
run_once() {
  local name="$1" output="$2" t0 t1 got; shift 2
  rm -f "$output"
  t0=$(now_ns)
  if ! /usr/bin/time -f '%M %U %S' -o "$WORK/time.txt" "$@" >"$WORK/job.log" 2>&1; then
    cat "$WORK/job.log" >&2
    die "$name failed: $*"
  fi
  t1=$(now_ns)
  got=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$output")
  awk -v g="$got" -v e="$SECONDS_IN" 'BEGIN { exit !(g > e - 0.05 && g < e + 0.05) }' \
    || die "$name wrote $got s of audio, expected $SECONDS_IN s"
  echo "$(( t1 - t0 )) $(tail -n1 "$WORK/time.txt")" >>"$WORK/$name.runs"
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

# summary NAME: "median_wall_s peak_kb median_cpu_s" (the lower median for an even count).
summary() {
  local runs="$WORK/$1.runs" n wall cpu peak
  n=$(wc -l <"$runs")
  wall=$(awk '{ print $1 }' "$runs" | sort -n | sed -n "$(( (n + 1) / 2 ))p")
  cpu=$(awk '{ print $3 + $4 }' "$runs" | sort -g | sed -n "$(( (n + 1) / 2 ))p")
  peak=$(awk '{ print $2 }' "$runs" | sort -n | tail -n1)
  awk -v w="$wall" -v p="$peak" -v c="$cpu" 'BEGIN { printf "%.3f %d %.2f\n", w / 1e9, p, c }'
}
read -r OURS_WALL OURS_PEAK OURS_CPU < <(summary ours)
read -r FF_WALL FF_PEAK FF_CPU < <(summary ffmpeg)
read -r BIG_WALL BIG_PEAK BIG_CPU < <(summary ours-4096)

decoded_md5() { ffmpeg -nostdin -v error -i "$1" -f f32le - | md5sum | cut -d' ' -f1; }
SAME="no"
[ "$(decoded_md5 "$OURS")" = "$(decoded_md5 "$THEIRS")" ] && SAME="yes"
size() { stat -c %s "$1"; }

echo "AAC-LC ${BITRATE} b/s, ${MINUTES} min 44.1 kHz stereo, median of $REPEATS runs ($(nproc) cores, $(ffmpeg -version | head -n1 | cut -d' ' -f1-3))"
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
