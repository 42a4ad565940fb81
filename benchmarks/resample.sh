#!/usr/bin/env bash
# benchmarks/resample.sh: the resampler pipeline against sox and ffmpeg.
#
# The script makes a speech-like 44.1 kHz stereo test file (--minutes long) and runs the same job on it
# with each tool:
#   ours    file-source -> resampler{16 kHz, mono, engine, quality} -> level-meter -> wav-sink (pcm16),
#           once for each engine (soxr, libsamplerate) and quality (best, high, medium, fastest)
#   sox     sox in.wav -r 16000 -c 1 out.wav                 (sox's default rate quality, -h)
#   ffmpeg  ffmpeg -i in.wav -af aresample=16000,astats=... -ac 1 out.wav
# It runs each job --repeats times (interleaved rounds) and reports the median wall time, the speed as a multiple of real time and
# the peak RSS (the highest of the runs), with time and memory as ratios to ours. Then it runs our default
# config (no engine or quality given, so the node's defaults apply) on a --long-minutes file to show that
# peak memory does not grow with the length of the input. Last it measures the quality of each engine and
# quality: alias rejection and passband flatness on test tones (see QUALITY below).
#
# Usage: benchmarks/resample.sh [--minutes N] [--long-minutes M] [--binary PATH] [--work DIR] [--repeats R] [--smoke]
#   --minutes N       length of the timed input, minutes (default 10)
#   --long-minutes M  length of the memory-only input, minutes (default 60; 0 skips the long run)
#   --binary PATH     the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR        folder for the test files (default: a mktemp folder, removed at the end;
#                     a folder you name is kept)
#   --repeats R       runs of each job (default 3)
#   --smoke           every job once on 6 s (the long run on 12 s), the quality measure as it is (CI; see lib.sh)
#
# Needs: sox, ffmpeg, python3 (standard library only), GNU time at /usr/bin/time (`apt-get install time`).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MINUTES=10
LONG_MINUTES=60
BINARY=""
WORK=""
REPEATS=3

while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) [ $# -ge 2 ] || die "--minutes needs a value"; MINUTES="$2"; shift 2 ;;
    --long-minutes) [ $# -ge 2 ] || die "--long-minutes needs a value"; LONG_MINUTES="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
is_count "$MINUTES" && [ "$MINUTES" -ge 1 ] || die "--minutes must be a whole number >= 1"
is_count "$LONG_MINUTES" || die "--long-minutes must be a whole number (0 skips the long run)"
is_count "$REPEATS" && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"
if [ "$SMOKE" = 1 ]; then MINUTES=0.1 LONG_MINUTES=0.2 REPEATS=1; smoke_banner; fi

require_tools " (scripts/install-deps.sh installs it)" sox soxi ffmpeg python3
require_gnu_time
resolve_binary
make_work audiograph-bench

SCRIPT_START=$(date +%s)
ENGINES=(soxr libsamplerate)
QUALITIES=(best high medium fastest)
RATE=16000

# The node's defaults, as the binary reports them (`audiograph inspect resampler`).
inspect="$("$BINARY" inspect resampler)"
DEFAULT_ENGINE="$(sed -n 's/^ *engine .*default "\([^"]*\)".*/\1/p' <<<"$inspect")"
DEFAULT_QUALITY="$(sed -n 's/^ *quality .*default "\([^"]*\)".*/\1/p' <<<"$inspect")"

# ---------------------------------------------------------------------------------------------------------
# Helpers

# make_input MINUTES PATH: speech-like 44.1 kHz stereo 16-bit noise (lib.sh's make_speech_like_input).
make_input() { make_speech_like_input "$(minutes_to_seconds "$1")" "$2"; }
# minutes_to_seconds MINUTES: the seconds (--smoke uses fractions of a minute).
minutes_to_seconds() { awk -v m="$1" 'BEGIN { print m * 60 }'; }

# write_config PATH INPUT OUTPUT ENGINE QUALITY [SAMPLE_FORMAT]: our pipeline. An empty ENGINE or QUALITY
# leaves the key out, so the node's default applies.
write_config() {
  local path="$1" input="$2" output="$3" engine="$4" quality="$5" sample_format="${6:-pcm16}" extra=""
  [ -n "$engine" ] && extra+=", \"engine\": \"$engine\""
  [ -n "$quality" ] && extra+=", \"quality\": \"$quality\""
  cat >"$path" <<EOF
{
  "version": 1,
  "nodes": {
    "src":   { "type": "file-source", "path": "$input" },
    "rs":    { "type": "resampler", "sampleRate": $RATE, "channels": 1$extra },
    "level": { "type": "level-meter" },
    "out":   { "type": "wav-sink", "path": "$output", "sampleFormat": "$sample_format" }
  },
  "links": ["src -> rs -> level -> out"]
}
EOF
}

# add_job NAME EXPECTED_SECONDS OUTPUT -- COMMAND...: queues a job (its argv is stored one word a line).
# run_jobs: runs the queued jobs $REPEATS rounds, every job once per round (interleaved, so a burst of load
# on the machine hits all jobs alike rather than all runs of one), then appends a line
# "NAME median_wall_s peak_kb median_cpu_s" per job to $RESULTS and empties the queue.
# Timing is lib.sh's time_run and runs_summary (wall from the nanosecond clock, peak = GNU time's max RSS, CPU =
# user + sys). After each run the output's length is checked, so a run that stops early cannot look fast.
RESULTS="$WORK/results.txt"
: >"$RESULTS"
JOBS_DIR="$WORK/jobs"
JOB_NAMES=() JOB_EXPECTED=() JOB_OUTPUTS=()
add_job() {
  local name="$1" expected="$2" output="$3"; shift 4
  local id=${#JOB_NAMES[@]}
  mkdir -p "$JOBS_DIR"
  printf '%s\n' "$@" >"$JOBS_DIR/$id.args"
  : >"$JOBS_DIR/$id.runs"
  JOB_NAMES+=("$name") JOB_EXPECTED+=("$expected") JOB_OUTPUTS+=("$output")
}

run_jobs() {
  local round id name output argv got
  for (( round = 1; round <= REPEATS; round++ )); do
    echo "  round $round/$REPEATS" >&2
    for id in "${!JOB_NAMES[@]}"; do
      name="${JOB_NAMES[$id]}" output="${JOB_OUTPUTS[$id]}"
      mapfile -t argv <"$JOBS_DIR/$id.args"
      rm -f "$output"
      time_run "$name" "${argv[@]}"
      got=$(soxi -D "$output")
      expect_seconds "$name" "$got" "${JOB_EXPECTED[$id]}" 0.1
      echo "$TIMED_RUN" >>"$JOBS_DIR/$id.runs"
    done
  done
  for id in "${!JOB_NAMES[@]}"; do
    name="${JOB_NAMES[$id]}"
    echo "$name $(runs_summary "$JOBS_DIR/$id.runs")" >>"$RESULTS"
    echo "  $(tail -n1 "$RESULTS" | awk '{ printf "%s: %s s, %.1f MB", $1, $2, $3 / 1024 }')" >&2
    rm -f "$JOBS_DIR/$id.args" "$JOBS_DIR/$id.runs"
  done
  JOB_NAMES=() JOB_EXPECTED=() JOB_OUTPUTS=()
}

result() { awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$RESULTS"; }

# ---------------------------------------------------------------------------------------------------------
# Timed jobs

SECONDS_IN=$(minutes_to_seconds "$MINUTES")
IN="$WORK/in-${MINUTES}min.wav"
echo "Making a ${MINUTES}-minute 44.1 kHz stereo input ..." >&2
make_input "$MINUTES" "$IN"
cat "$IN" >/dev/null  # into the page cache, so the first timed run does not pay for the disk

add_job sox "$SECONDS_IN" "$WORK/out-sox.wav" -- \
  sox "$IN" -r "$RATE" -c 1 "$WORK/out-sox.wav"
# aresample converts rate and channels in one libswresample pass (-ac 1 makes the graph negotiate mono, so
# astats sees 16 kHz mono, like our level meter). astats measures what our level meter measures, peak and
# RMS per channel, and attaches it to every frame (metadata=1:reset=1), the way our meter emits a level
# event per window.
FFMPEG_AF="aresample=$RATE,astats=metadata=1:reset=1:measure_perchannel=Peak_level+RMS_level:measure_overall=none"
add_job ffmpeg "$SECONDS_IN" "$WORK/out-ffmpeg.wav" -- \
  ffmpeg -nostdin -v error -y -i "$IN" -af "$FFMPEG_AF" -ac 1 "$WORK/out-ffmpeg.wav"
# For reference: astats with all of its ~25 measures per frame, and resampling alone.
add_job ffmpeg-allstats "$SECONDS_IN" "$WORK/out-ffmpeg.wav" -- \
  ffmpeg -nostdin -v error -y -i "$IN" -af "aresample=$RATE,astats=metadata=1:reset=1" -ac 1 "$WORK/out-ffmpeg.wav"
add_job ffmpeg-nostats "$SECONDS_IN" "$WORK/out-ffmpeg.wav" -- \
  ffmpeg -nostdin -v error -y -i "$IN" -af "aresample=$RATE" -ac 1 "$WORK/out-ffmpeg.wav"

for engine in "${ENGINES[@]}"; do
  for quality in "${QUALITIES[@]}"; do
    write_config "$WORK/$engine-$quality.json" "$IN" "$WORK/out-ours.wav" "$engine" "$quality"
    add_job "$engine/$quality" "$SECONDS_IN" "$WORK/out-ours.wav" -- \
      "$BINARY" run "$WORK/$engine-$quality.json" --quiet
  done
done
echo "Timing ($REPEATS rounds) ..." >&2
run_jobs

print_table() {
  local sox_s sox_kb ff_s ff_kb
  sox_s=$(result sox 2); sox_kb=$(result sox 3); ff_s=$(result ffmpeg 2); ff_kb=$(result ffmpeg 3)
  awk -v secs="$SECONDS_IN" -v ss="$sox_s" -v sk="$sox_kb" -v fs="$ff_s" -v fk="$ff_kb" '
    BEGIN {
      printf "%-22s %8s %8s %8s %8s %11s %14s %11s %14s\n", "job", "seconds", "x real", "peak MB", "cpu s",
             "sox/ours t", "ffmpeg/ours t", "ours/sox M", "ours/ffmpeg M"
    }
    $1 !~ /^default@/ {
      name = $1; s = $2; kb = $3
      ours = (name ~ /\//)
      printf "%-22s %8.3f %8.0f %8.1f %8.2f", name, s, secs / s, kb / 1024, $4
      if (ours) printf " %11.2f %14.2f %11.2f %14.2f\n", ss / s, fs / s, kb / sk, kb / fk
      else printf " %11s %14s %11s %14s\n", "-", "-", "-", "-"
    }' "$RESULTS"
}

# ---------------------------------------------------------------------------------------------------------
# Memory against length: our default config (engine and quality left out) at both lengths.

write_config "$WORK/default-short.json" "$IN" "$WORK/out-ours.wav" "" ""
LONG_RESULTS="$WORK/long.txt"
: >"$LONG_RESULTS"
add_job "default@${MINUTES}min" "$SECONDS_IN" "$WORK/out-ours.wav" -- \
  "$BINARY" run "$WORK/default-short.json" --quiet
LENGTHS=("$MINUTES")
if [ "$LONG_MINUTES" != 0 ]; then
  LONG_IN="$WORK/in-${LONG_MINUTES}min.wav"
  echo "Making a ${LONG_MINUTES}-minute input ..." >&2
  make_input "$LONG_MINUTES" "$LONG_IN"
  cat "$LONG_IN" >/dev/null
  write_config "$WORK/default-long.json" "$LONG_IN" "$WORK/out-long.wav" "" ""
  add_job "default@${LONG_MINUTES}min" "$(minutes_to_seconds "$LONG_MINUTES")" "$WORK/out-long.wav" -- \
    "$BINARY" run "$WORK/default-long.json" --quiet
  LENGTHS+=("$LONG_MINUTES")
fi
echo "Default config ($DEFAULT_ENGINE/$DEFAULT_QUALITY) at ${LENGTHS[*]} minutes ($REPEATS rounds) ..." >&2
run_jobs
for m in "${LENGTHS[@]}"; do
  echo "$m $(result "default@${m}min" 2) $(result "default@${m}min" 3)" >>"$LONG_RESULTS"
done
rm -f "${LONG_IN:-}" "$WORK/out-long.wav"

# ---------------------------------------------------------------------------------------------------------
# QUALITY: a 10 s 44.1 kHz stereo file (32-bit PCM, both channels equal) holding three tones of equal
# amplitude (-12 dBFS each): 1 kHz (reference), 7 kHz (in the 16 kHz output's passband, 87.5% of its
# 8 kHz Nyquist) and 12 kHz (above it: a resampler must remove it; what gets through aliases to
# 16 - 12 = 4 kHz). Each job resamples it to 16 kHz mono as float (so 16-bit quantization does not set the
# floor), and a Goertzel filter (Hann window, the middle 8 s) reads the tone levels:
#   alias rejection dB = level(1 kHz) - level(4 kHz)     (higher is better)
#   7 kHz flatness dB  = level(7 kHz) - level(1 kHz)     (0 is ideal; negative = rolled off)

cat >"$WORK/tones.py" <<'PY'
import array, math, struct, sys, wave

def generate(path, rate=44100, seconds=10, amplitude=0.25, freqs=(1000.0, 7000.0, 12000.0)):
    n = rate * seconds
    full = 2**31 - 1
    samples = array.array("i", bytes(8 * n))
    steps = [2 * math.pi * f / rate for f in freqs]
    for i in range(n):
        v = int(round(full * amplitude * sum(math.sin(s * i) for s in steps)))
        samples[2 * i] = v
        samples[2 * i + 1] = v
    if sys.byteorder != "little":
        samples.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(4)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())

def read_wav(path):
    """First channel of a PCM (16/24/32-bit) or IEEE float (32/64-bit) WAV, as floats, and its rate."""
    data = open(path, "rb").read()
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise SystemExit(f"{path}: not a RIFF/WAVE file")
    pos, fmt, payload = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            fmt = body
        elif cid == b"data":
            payload = body
        pos += 8 + size + (size & 1)
    if fmt is None or payload is None:
        raise SystemExit(f"{path}: no fmt or data chunk")
    tag, channels, rate = struct.unpack("<HHI", fmt[:8])
    bits = struct.unpack("<H", fmt[14:16])[0]
    if tag == 0xFFFE:
        tag = struct.unpack("<H", fmt[24:26])[0]
    if tag == 3 and bits in (32, 64):
        values = array.array("f" if bits == 32 else "d", payload[: len(payload) // (bits // 8) * (bits // 8)])
        if sys.byteorder != "little":
            values.byteswap()
        scale = 1.0
    elif tag == 1 and bits in (16, 32):
        values = array.array("h" if bits == 16 else "i", payload[: len(payload) // (bits // 8) * (bits // 8)])
        if sys.byteorder != "little":
            values.byteswap()
        scale = 1.0 / 2 ** (bits - 1)
    elif tag == 1 and bits == 24:
        values = [int.from_bytes(payload[i:i + 3], "little", signed=True) for i in range(0, len(payload) - 2, 3)]
        scale = 1.0 / 2**23
    else:
        raise SystemExit(f"{path}: unsupported WAV format tag {tag} with {bits} bits")
    return [values[i] * scale for i in range(0, len(values), channels)], rate

def level_db(x, rate, freq):
    """Goertzel power of a Hann-windowed block at `freq`, in dB."""
    n = len(x)
    coeff = 2 * math.cos(2 * math.pi * freq / rate)
    s1 = s2 = 0.0
    for i, v in enumerate(x):
        w = 0.5 - 0.5 * math.cos(2 * math.pi * i / n)
        s1, s2 = v * w + coeff * s1 - s2, s1
    power = s1 * s1 + s2 * s2 - coeff * s1 * s2
    return 10 * math.log10(max(power, 1e-300))

def measure(path):
    x, rate = read_wav(path)
    middle = x[rate: rate + 8 * rate]  # skip filter start-up and tail
    ref = level_db(middle, rate, 1000.0)
    alias = level_db(middle, rate, 16000.0 - 12000.0 if rate == 16000 else abs(rate - 12000.0))
    band = level_db(middle, rate, 7000.0)
    print(f"{ref - alias:.1f} {band - ref:.2f}")

if __name__ == "__main__":
    {"generate": generate, "measure": measure}[sys.argv[1]](sys.argv[2])
PY

echo "Quality (tones) ..." >&2
TONES="$WORK/tones.wav"
python3 "$WORK/tones.py" generate "$TONES"
QUALITY_RESULTS="$WORK/quality.txt"
: >"$QUALITY_RESULTS"
sox "$TONES" -r "$RATE" -c 1 -e floating-point -b 32 "$WORK/q-sox.wav"
echo "sox $(python3 "$WORK/tones.py" measure "$WORK/q-sox.wav")" >>"$QUALITY_RESULTS"
ffmpeg -nostdin -v error -y -i "$TONES" -af "aresample=$RATE" -ac 1 -c:a pcm_f32le "$WORK/q-ffmpeg.wav"
echo "ffmpeg $(python3 "$WORK/tones.py" measure "$WORK/q-ffmpeg.wav")" >>"$QUALITY_RESULTS"
for engine in "${ENGINES[@]}"; do
  for quality in "${QUALITIES[@]}"; do
    write_config "$WORK/q-$engine-$quality.json" "$TONES" "$WORK/q-ours.wav" "$engine" "$quality" float
    "$BINARY" run "$WORK/q-$engine-$quality.json" --quiet
    echo "$engine/$quality $(python3 "$WORK/tones.py" measure "$WORK/q-ours.wav")" >>"$QUALITY_RESULTS"
  done
done

# ---------------------------------------------------------------------------------------------------------
# Report (stdout)

echo "audiograph resampler benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(machine)"
echo "tools: $(sox --version 2>&1 | sed 's/^sox: *//'), $(ffmpeg -version | head -n1 | cut -d' ' -f1-3)"
echo "binary: $BINARY (node defaults: engine $DEFAULT_ENGINE, quality $DEFAULT_QUALITY)"
echo
echo "== Speed and memory: ${MINUTES} min of 44.1 kHz stereo -> 16 kHz mono (+ level meter, 16-bit WAV out)"
echo "   median of $REPEATS interleaved runs; peak MB = highest max RSS; cpu s = median user+sys;"
echo "   t ratios (wall time) > 1: we are faster;"
echo "   M ratios < 1: we use less memory. ffmpeg = aresample + astats (peak and RMS per frame)."
print_table
echo
echo "== Peak memory against input length (default config, engine and quality left out)"
awk -v first="$(awk 'NR == 1 { print $3 }' "$LONG_RESULTS")" '
  BEGIN { printf "%-10s %8s %8s %8s %12s\n", "minutes", "seconds", "x real", "peak MB", "vs shortest" }
  { printf "%-10s %8.3f %8.0f %8.1f %12.2f\n", $1, $2, $1 * 60 / $2, $3 / 1024, $3 / first }' "$LONG_RESULTS"
echo
echo "== Quality: 1 kHz + 7 kHz + 12 kHz tones (-12 dBFS each), 44.1 kHz -> 16 kHz mono, float out"
echo "   alias rejection = 1 kHz level - 4 kHz level (the 12 kHz alias); flatness = 7 kHz level - 1 kHz level"
awk -v secs="$SECONDS_IN" 'NR == FNR { t[$1] = $2; next }
  FNR == 1 { printf "%-22s %14s %14s %8s\n", "job", "alias rej. dB", "7 kHz flat dB", "x real" }
  { printf "%-22s %14.1f %14.2f %8s\n", $1, $2, $3, ($1 in t) ? sprintf("%.0f", secs / t[$1]) : "-" }' \
  "$RESULTS" "$QUALITY_RESULTS"
echo
# Recommendation: the fastest of ours with alias rejection >= 90 dB and 7 kHz within 0.5 dB. Others that pass
# and are within 10% of its time are named too: differences that small are within run-to-run noise.
awk 'NR == FNR { t[$1] = $2; next }
  $1 ~ /\// && $2 >= 90 && ($3 < 0 ? -$3 : $3) <= 0.5 {
    n++; name[n] = $1; rej[$1] = $2; flat[$1] = $3
    if (best == "" || t[$1] < t[best]) best = $1
  }
  END {
    if (best == "") {
      print "Recommendation: no engine/quality has alias rejection >= 90 dB and 7 kHz flatness within 0.5 dB"
      exit
    }
    printf "Recommendation (fastest with alias rejection >= 90 dB and |7 kHz flatness| <= 0.5 dB): %s " \
           "(%.3f s, %.1f dB rejection, %+.2f dB at 7 kHz)\n", best, t[best], rej[best], flat[best]
    for (i = 1; i <= n; i++) if (name[i] != best && t[name[i]] <= 1.10 * t[best])
      printf "  within 10%% of it (a tie at this run-to-run noise): %s (%.3f s, %.1f dB, %+.2f dB)\n",
             name[i], t[name[i]], rej[name[i]], flat[name[i]]
  }' "$RESULTS" "$QUALITY_RESULTS"

default_s=$(result "$DEFAULT_ENGINE/$DEFAULT_QUALITY" 2)
sox_s=$(result sox 2)
awk -v d="$default_s" -v s="$sox_s" -v name="$DEFAULT_ENGINE/$DEFAULT_QUALITY" 'BEGIN {
  printf "Target, faster than sox at the default quality: %s %.3f s vs sox %.3f s (%.2fx): %s\n",
         name, d, s, s / d, (d < s) ? "met" : "NOT met" }'
awk '{ if ($3 > max) max = $3; lens = lens (lens == "" ? "" : ", ") $1 " min " sprintf("%.1f", $3 / 1024) " MB" }
  END { printf "Target, peak memory under 50 MB at any length: %s: %s\n", lens, (max < 50 * 1024) ? "met" : "NOT met" }' \
  "$LONG_RESULTS"
echo "Total benchmark time: $(( $(date +%s) - SCRIPT_START )) s"
