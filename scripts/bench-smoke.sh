#!/usr/bin/env bash
# Runs every benchmark in benchmarks/ (each *.sh but lib.sh) in its --smoke mode: the same jobs, tools and
# report on tiny inputs, in seconds, so that none of them rots. Prints one line per script (its log is shown
# when it fails) and a summary, `benchmarks smoke: N passed, M failed`; exits 1 when any failed.
#
# Usage: scripts/bench-smoke.sh [--binary PATH] [--keep DIR]
#   --binary PATH  the audiograph the benchmarks run (default: the debug build, .build/debug/audiograph;
#                  build it first with `swift build`)
#   --keep DIR     keep each script's log in DIR/NAME.log (default: a temporary folder, removed at the end)
#
# Needs what the benchmarks need (scripts/install-deps.sh installs it); vad.sh installs numpy and
# webrtcvad-wheels from PyPI into a venv the first time (see benchmarks/README.md); whisper.sh needs whisper-cli
# and the tiny.en model (`audiograph models install tiny.en`) and fails without them; eval_vad.sh needs the Silero
# model (`audiograph models install silero`; scripts/test.sh installs both).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BINARY="$ROOT/.build/debug/audiograph"
LOGS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) [ $# -ge 2 ] || { echo "bench-smoke.sh: --binary needs a path" >&2; exit 64; }; BINARY="$2"; shift 2 ;;
    --keep) [ $# -ge 2 ] || { echo "bench-smoke.sh: --keep needs a folder" >&2; exit 64; }; LOGS="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-smoke.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
  esac
done
[ -x "$BINARY" ] || { echo "bench-smoke.sh: no audiograph at $BINARY (swift build first, or --binary PATH)" >&2; exit 66; }
BINARY="$(cd "$(dirname "$BINARY")" && pwd)/$(basename "$BINARY")"
if [ -z "$LOGS" ]; then
  LOGS="$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX")"
  trap 'rm -rf "$LOGS"' EXIT
fi
mkdir -p "$LOGS"

passed=0 failed=0 start=$(date +%s)
for script in "$ROOT"/benchmarks/*.sh; do
  name="$(basename "$script" .sh)"
  [ "$name" != lib ] || continue
  args=(--smoke --binary "$BINARY")
  [ "$name" != final-pass ] || args=(--smoke)  # it runs pocketsphinx_batch only: no binary
  [ "$name" != eval_languages ] || args+=(--set asr.beamSize=2)  # its --set too (a beam of 2 on one sentence)
  [ "$name" != whisper ] || args+=(--set asr.audioContext=fit)  # its --set too (fitted windows in the file runs)
  t0=$(date +%s)
  if bash "$script" "${args[@]}" </dev/null >"$LOGS/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok      $name ($(( $(date +%s) - t0 )) s)"
  else
    status=$?
    failed=$((failed + 1))
    echo "FAILED  $name (exit $status after $(( $(date +%s) - t0 )) s); the end of its log:"
    tail -n 25 "$LOGS/$name.log" | sed 's/^/        /'
  fi
done
echo "all benchmark smokes: $(( $(date +%s) - start )) s"
echo "benchmarks smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
