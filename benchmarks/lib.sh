# benchmarks/lib.sh: helpers shared by the benchmark scripts; each sources it right after `set -euo pipefail`:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Not a script of its own.

# The repository root (this file is in benchmarks/).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/swift-tmp.sh"

# usage: the calling script's header comment (line 2 up to `set -euo pipefail`), without the `# `.
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
# die MESSAGE: "SCRIPT: MESSAGE" on stderr, exit 1.
die() { echo "$(basename "$0"): $*" >&2; exit 1; }
is_count() { [[ "$1" =~ ^[0-9]+$ ]]; }

# common_option ARGS...: the options every script takes, for the `*)` branch of its option loop: --binary PATH,
# --work DIR and --repeats R set BINARY, WORK and REPEATS; --smoke sets SMOKE=1; -h/--help prints the usage and
# exits 0; anything else prints the usage on stderr and exits 64. Sets OPTION_WORDS to the words it used (for
# `shift`).
#
# --smoke: the script runs every code path it has (the same jobs, configs, tools and report) on tiny inputs, in
# seconds, so that CI keeps it working (scripts/bench-smoke.sh runs them all). Its numbers mean nothing. Without
# --binary it uses the debug build (.build/debug/audiograph) instead of building a release one. It exits
# non-zero when anything fails, as a full run does.
OPTION_WORDS=0
SMOKE=0
common_option() {
  case "$1" in
    --smoke) SMOKE=1; OPTION_WORDS=1 ;;
    --binary|--work|--repeats)
      [ $# -ge 2 ] || die "$1 needs a value"
      case "$1" in
        --binary) BINARY="$2" ;;
        --work) WORK="$2" ;;
        --repeats) REPEATS="$2" ;;
      esac
      OPTION_WORDS=2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 64 ;;
  esac
}

# require_tools HINT TOOL...: dies with "TOOL is not installed" + HINT for the first TOOL not on PATH.
require_tools() {
  local hint="$1" tool; shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || die "$tool is not installed$hint"
  done
}

# require_gnu_time: dies unless GNU time (with -f and -o) is at /usr/bin/time.
require_gnu_time() {
  /usr/bin/time -f '%e %M' -o /dev/null true 2>/dev/null \
    || die "GNU time is missing at /usr/bin/time (apt-get install -y time)"
}

# resolve_binary: with $BINARY empty, builds audiograph (`swift build -c release` in $ROOT) and sets BINARY to
# it; dies unless $BINARY is executable; makes BINARY an absolute path.
resolve_binary() {
  [ -n "$BINARY" ] || [ "$SMOKE" = 0 ] || BINARY="$ROOT/.build/debug/audiograph"
  if [ -z "$BINARY" ]; then
    echo "Building audiograph (swift build -c release) ..." >&2
    swift build -c release --package-path "$ROOT" >&2
    BINARY="$(swift build -c release --package-path "$ROOT" --show-bin-path)/audiograph"
  fi
  [ -x "$BINARY" ] || die "no audiograph binary at $BINARY"
  BINARY="$(cd "$(dirname "$BINARY")" && pwd)/$(basename "$BINARY")"
}

# make_work PREFIX: with $WORK empty, a new mktemp folder ${TMPDIR:-/tmp}/PREFIX.XXXXXX removed at exit;
# otherwise $WORK is created if missing (and kept). Either way WORK becomes an absolute path.
make_work() {
  if [ -z "$WORK" ]; then
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
  else
    mkdir -p "$WORK"
  fi
  WORK="$(cd "$WORK" && pwd)"
}

# make_speech_like_input SECONDS PATH: 44.1 kHz stereo 16-bit: two independent pink noise channels,
# amplitude-modulated at a syllable rate (tremolo 3.5 Hz, 70% depth), peaks around -10 dBFS. Speech-like and
# never silent, so no engine gets a shortcut.
make_speech_like_input() {
  sox -n -r 44100 -c 2 -b 16 "$2" synth "$1" pinknoise pinknoise tremolo 3.5 70 vol 0.3
}

now_ns() { date +%s%N; }

# smoke_banner: in smoke mode, a note on stderr that the numbers below mean nothing.
smoke_banner() { [ "$SMOKE" = 0 ] || echo "$(basename "$0") --smoke: tiny inputs, one run each; the numbers mean nothing" >&2; }

# time_run NAME COMMAND...: runs COMMAND under GNU time (output to $WORK/job.log) and sets TIMED_RUN to
# "wall_ns peak_kb user_s sys_s". Wall time comes from the nanosecond clock around the run (GNU time's %e has
# only 10 ms steps); peak memory is GNU time's %M (max RSS, KB). A failed run shows its log and dies.
TIMED_RUN=""
time_run() {
  local name="$1" t0 t1; shift
  t0=$(now_ns)
  if ! /usr/bin/time -f '%M %U %S' -o "$WORK/time.txt" "$@" >"$WORK/job.log" 2>&1; then
    cat "$WORK/job.log" >&2
    die "$name failed: $*"
  fi
  t1=$(now_ns)
  TIMED_RUN="$(( t1 - t0 )) $(tail -n1 "$WORK/time.txt")"
}

# expect_seconds NAME GOT EXPECTED TOLERANCE: dies unless GOT is within TOLERANCE (exclusive) of EXPECTED
# seconds, so a run that stops early cannot look fast.
expect_seconds() {
  awk -v g="$2" -v e="$3" -v t="$4" 'BEGIN { exit !(g > e - t && g < e + t) }' \
    || die "$1 wrote $2 s of audio, expected $3 s"
}

# lower_median [SORT_FLAG]: the median of the numbers on stdin, one a line (the lower one for an even count;
# nothing for no input). SORT_FLAG is sort's (default -n).
lower_median() { sort "${1:--n}" | awk '{ v[NR] = $0 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# runs_summary RUNS: "median_wall_s peak_kb median_cpu_s" of a file of time_run lines: the (lower) median
# wall and CPU (user + sys) time, the highest peak RSS.
runs_summary() {
  local runs="$1" wall cpu peak
  wall=$(awk '{ print $1 }' "$runs" | lower_median -n)
  cpu=$(awk '{ print $3 + $4 }' "$runs" | lower_median -g)
  peak=$(awk '{ print $2 }' "$runs" | sort -n | tail -n1)
  awk -v w="$wall" -v p="$peak" -v c="$cpu" 'BEGIN { printf "%.3f %d %.2f\n", w / 1e9, p, c }'
}

# machine: "N cores, CPU model" of this machine.
machine() { echo "$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"; }

# vad_python SILERO: sets PY to a python3 with numpy and webrtcvad (and, SILERO=1, onnxruntime and silero-vad),
# installing them into $VAD_VENV (default ~/.cache/audiograph/vad-venv) when the python3 on PATH lacks them.
# Versions are pinned where the numbers depend on them (onnxruntime, silero-vad).
vad_python() {
  local silero="$1" needs="import numpy, webrtcvad" venv
  # silero_vad's own __init__ imports torch: only check that the package (and so its ONNX model) is there.
  [ "$silero" = 1 ] && needs="$needs, onnxruntime, importlib.util; assert importlib.util.find_spec('silero_vad')"
  PY=python3
  "$PY" -c "$needs" 2>/dev/null && return 0
  venv="${VAD_VENV:-$HOME/.cache/audiograph/vad-venv}"
  if ! "$venv/bin/python" -c "$needs" 2>/dev/null; then
    echo "Installing numpy, webrtcvad-wheels$([ "$silero" = 1 ] && echo ", onnxruntime, silero-vad") into $venv ..." >&2
    python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install -q numpy webrtcvad-wheels >&2
    if [ "$silero" = 1 ]; then
      # silero-vad's wheel carries the ONNX model; its torch dependency is not needed to run it.
      "$venv/bin/pip" install -q onnxruntime==1.20.1 >&2
      "$venv/bin/pip" install -q --no-deps silero-vad==6.2.3 >&2
    fi
  fi
  PY="$venv/bin/python"
}
