#!/usr/bin/env bash
# Batch throughput: audio hours transcribed per wall hour by `audiograph batch` on one machine with --jobs 1
# and --jobs 2 (SQLite store), and by one and two `audiograph worker` processes draining a PostgreSQL queue.
# Reports the scaling efficiency (2 / 1); the issue's target is at least 1.8x on a 2-core machine.
#
# Usage: benchmarks/batch.sh [--binary PATH] [--work DIR] [--files N] [--smoke]
#   --files N   how many files (default 24; each 20 s of the bundled call at a different offset)
#   --smoke     2 files of 1 s, every run once (CI; see lib.sh)
# Environment: POSTGRES_URL (default: what scripts/start-postgres.sh prints; the PostgreSQL runs are skipped
#              when it cannot start one).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
BINARY=""; WORK=""; FILES=24; FILE_SECONDS=20
while [ $# -gt 0 ]; do
  case "$1" in
    --files) [ $# -ge 2 ] && is_count "$2" && [ "$2" -ge 1 ] || die "--files needs a count >= 1"; FILES="$2"; shift 2 ;;
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
if [ "$SMOKE" = 1 ]; then FILES=2 FILE_SECONDS=1; smoke_banner; fi
require_tools "" sox python3 psql
resolve_binary
make_work audiograph-batch

cd "$WORK"
CALL="$ROOT/examples/audio/call.flac"
for i in $(seq 0 $((FILES - 1))); do
  # 20 s windows of the 23.7 s call, shifted so the files differ.
  sox "$CALL" -r 16000 -c 1 "f$i.wav" trim "$(python3 -c "print(($i % 7) * 0.5)")" "$FILE_SECONDS"
done
for i in $(seq 0 $((FILES - 1))); do echo "{\"path\": \"f$i.wav\", \"session\": \"bench-$i\"}"; done > manifest.jsonl
cat > pipeline.json <<'JSON'
{"version": 1,
 "nodes": {"src": {"type": "file-source", "path": "f0.wav"}, "vad": {"type": "vad"},
           "asr": {"type": "recognizer", "engine": "pocketsphinx"}, "store": {"type": "transcript-store", "path": "store.sqlite"}},
 "links": ["src -> vad -> asr -> store"]}
JSON
audio_seconds=$((FILES * FILE_SECONDS))

now() { python3 -c 'import time; print(time.monotonic())'; }
report() {  # NAME SECONDS
  python3 - "$1" "$2" "$audio_seconds" <<'PY'
import sys
name, wall, audio = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
print(f"{name:<34} {wall:8.1f} s wall  {audio / wall:7.1f}x real time  {audio / wall:7.1f} audio h / wall h")
PY
}

results=()
for jobs in 1 2; do
  rm -rf store.sqlite* transcripts
  start=$(now)
  "$BINARY" batch manifest.jsonl --pipeline pipeline.json --jobs "$jobs" --quiet >/dev/null
  end=$(now)
  wall=$(python3 -c "print($end - $start)")
  results+=("batch --jobs $jobs (SQLite)|$wall")
done

URL="${POSTGRES_URL:-$(bash "$ROOT/scripts/start-postgres.sh" 2>/dev/null || true)}"
if [ -n "$URL" ]; then
  for workers in 1 2; do
    schema="bench_batch_$$_$workers"
    psql "$URL" -qc "CREATE SCHEMA $schema" >/dev/null
    store="$URL?options=-csearch_path%3D$schema"
    case "$URL" in *\?*) store="$URL&options=-csearch_path%3D$schema" ;; esac
    "$BINARY" batch manifest.jsonl --pipeline pipeline.json --store "$store" --enqueue-only --quiet >/dev/null
    start=$(now)
    pids=()
    for _ in $(seq 1 "$workers"); do "$BINARY" worker --store "$store" --jobs 1 --quiet >/dev/null & pids+=($!); done
    for pid in "${pids[@]}"; do wait "$pid" || die "a worker exited $? ($workers worker(s))"; done
    end=$(now)
    status="$("$BINARY" batch status --store "$store")"
    [ "$status" = "queued 0, running 0, done $FILES, failed 0" ] || die "after $workers worker(s): $status"

    results+=("$workers worker(s), --jobs 1 (PostgreSQL)|$(python3 -c "print($end - $start)")")
    PGOPTIONS="--client-min-messages=warning" psql "$URL" -qc "DROP SCHEMA $schema CASCADE" >/dev/null
  done
else
  echo "no PostgreSQL: the worker runs are skipped" >&2
fi

echo "audiograph batch throughput, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$FILES files x $FILE_SECONDS s = $audio_seconds s of audio; pipeline file-source -> vad -> recognizer (pocketsphinx) -> transcript-store"
for entry in "${results[@]}"; do report "${entry%%|*}" "${entry##*|}"; done
python3 - "${results[@]}" <<'PY'
import sys
walls = {e.split("|")[0]: float(e.split("|")[1]) for e in sys.argv[1:]}
one, two = walls.get("batch --jobs 1 (SQLite)"), walls.get("batch --jobs 2 (SQLite)")
if one and two: print(f"scaling, --jobs 2 / --jobs 1: {one / two:.2f}x")
w1, w2 = walls.get("1 worker(s), --jobs 1 (PostgreSQL)"), walls.get("2 worker(s), --jobs 1 (PostgreSQL)")
if w1 and w2: print(f"scaling, 2 workers / 1 worker: {w1 / w2:.2f}x (target >= 1.8x)")
PY
