#!/usr/bin/env bash
# benchmarks/store.sh: paging transcripts out of the SQLite transcript store — keyset pages stay flat.
#
# The store: 1,000 sessions and ~20,000 transcripts (one utterance each). Session "bench-big" holds 10,000 of
# them; 998 other sessions hold 10 each, all inserted in shuffled order (fixed seed) so the big session's
# rows are spread over the whole table. The schema is the code's own: a tiny `audiograph run` (0.5 s of
# silence -> recognizer -> transcript-store) creates the store and its first session ("bench-init"), then
# python3's sqlite3 module adds the other 999 sessions with plain INSERTs on that schema (a column the code
# renamed would fail them; benchmarks/store_schema.py checks them against the store as the binary made it).
#
# What it times:
#   1. `audiograph transcripts list --session bench-big --all --limit N --timings` for N = 30 (334 pages)
#      and N = 1000 (10 pages): every page is one `TranscriptsRequest.fetchNext()`; --timings prints each
#      fetch's time. Reported: the median fetch time of the first 10% and the last 10% of pages (flat = the
#      same), the slowest page, and the whole command's wall time. Median over --repeats runs.
#   2. The same page query in python3's sqlite3 on the same file, keyset (`t.id > ?`) against OFFSET
#      (`LIMIT ? OFFSET ?`), for the first and the last page: what an OFFSET design would cost.
#   3. `audiograph transcripts list --page P` end to end for early and late P: a stateless CLI call walks
#      pages 1…P (P index lookups), so this grows slowly with P while each fetch stays flat.
#
# Usage: benchmarks/store.sh [--binary PATH] [--work DIR] [--repeats R] [--smoke]
#   --binary PATH   the audiograph to test (default: `swift build -c release` in the repo root)
#   --work DIR      folder for the store (default: a mktemp folder, removed at the end; a folder you name is kept)
#   --repeats R     runs of each timing (default 5)
#   --smoke         300 transcripts in bench-big, 20 other sessions, one run of each timing (CI; see lib.sh)
#
# Needs python3 (standard library only) and sox.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BINARY=""
WORK=""
REPEATS=5

while [ $# -gt 0 ]; do
  case "$1" in
    *) common_option "$@"; shift "$OPTION_WORDS" ;;
  esac
done
[[ "$REPEATS" =~ ^[0-9]+$ ]] && [ "$REPEATS" -ge 1 ] || die "--repeats must be a whole number >= 1"
BIG=10000 SESSIONS=999
if [ "$SMOKE" = 1 ]; then BIG=300 SESSIONS=21 REPEATS=1; smoke_banner; fi
LAST_PAGE=$(( (BIG + 29) / 30 ))
require_tools "" python3 sox
resolve_binary
make_work audiograph-store
STORE="$WORK/store/transcripts.sqlite"
rm -rf "$WORK/store"

# ---------------------------------------------------------------------------------------------------------
# The store: the code makes the schema, python fills it.

sox -n -r 16000 -c 1 "$WORK/silence.wav" trim 0 0.5
cat > "$WORK/init.json" <<EOF
{
  "version": 1,
  "session": { "id": "bench-init", "room": "bench", "autoStartTranscription": true },
  "nodes": {
    "src":   { "type": "file-source", "path": "silence.wav" },
    "asr":   { "type": "recognizer", "engine": "pocketsphinx" },
    "store": { "type": "transcript-store", "path": "store/transcripts.sqlite" }
  },
  "links": ["src -> asr -> store"]
}
EOF
"$BINARY" run "$WORK/init.json" --quiet

python3 - "$STORE" "$BIG" "$SESSIONS" "$ROOT/benchmarks" <<'EOF'
import random, sqlite3, sys
sys.path.insert(0, sys.argv[4])
from store_schema import require_columns
db = sqlite3.connect(sys.argv[1])
big_count, session_count = int(sys.argv[2]), int(sys.argv[3])
require_columns(db, "sessions", ["session_id", "room_name", "url", "start_time", "end_time", "has_transcription"])
require_columns(db, "transcripts", ["tid", "session_row", "session_id", "language", "start_time", "end_time",
                                    "transcript_date", "transcript_url"])
require_columns(db, "utterances", ["transcript", "segment", "start", "end", "text", "confidence", "words", "language"])
random.seed(7)
start = 1_767_225_600  # 2026-01-01
sessions = {}
with db:
    for i in range(session_count):
        sid = "bench-big" if i == 0 else f"bench-{i:04d}"
        cur = db.execute("INSERT INTO sessions (session_id, room_name, url, start_time, end_time, has_transcription)"
                         " VALUES (?, ?, '', ?, ?, 1)", (sid, f"room-{i % 17}", start + i * 3600, start + i * 3600 + 1800))
        sessions[sid] = cur.lastrowid
    order = ["bench-big"] * big_count + [s for s in sessions if s != "bench-big" for _ in range(10)]
    random.shuffle(order)
    counts = {}
    for sid in order:
        n = counts.get(sid, 0); counts[sid] = n + 1
        t0 = start + n * 60
        tid = f"t-{sid}-{n:05d}"
        cur = db.execute("INSERT INTO transcripts (tid, session_row, session_id, language, start_time, end_time,"
                         " transcript_date, transcript_url) VALUES (?, ?, ?, 'en-US', ?, ?, ?, ?)",
                         (tid, sessions[sid], sid, t0, t0 + 45, "2026-01-01T00:00:00Z", f"file:///bench/{tid}.json"))
        db.execute("INSERT INTO utterances (transcript, segment, start, \"end\", text, confidence, words, language)"
                   " VALUES (?, 0, 0.5, 2.5, 'go forward ten meters', 0.8, '[]', 'en-US')", (cur.lastrowid,))
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
s, t, u = (db.execute(f"SELECT count(*) FROM {x}").fetchone()[0] for x in ("sessions", "transcripts", "utterances"))
big = db.execute("SELECT count(*) FROM transcripts WHERE session_id = 'bench-big'").fetchone()[0]
print(f"store: {s} sessions, {t} transcripts ({big} in bench-big), {u} utterances")
EOF
echo "file: $(du -h "$STORE" | cut -f1) at $STORE"
echo

# ---------------------------------------------------------------------------------------------------------
# 1. Every page through TranscriptsRequest (--timings), limits 30 and 1000.

echo "1. audiograph transcripts list --session bench-big --all --limit N --timings (median of $REPEATS runs)"
for LIMIT in 30 1000; do
  for r in $(seq 1 "$REPEATS"); do
    t0=$(date +%s.%N)
    "$BINARY" transcripts list --store "$STORE" --session bench-big --all --limit "$LIMIT" --json --timings \
      > "$WORK/out-$LIMIT-$r.json" 2> "$WORK/timings-$LIMIT-$r.txt"
    t1=$(date +%s.%N)
    echo "$t0 $t1" > "$WORK/wall-$LIMIT-$r.txt"
  done
done
python3 - "$WORK" "$REPEATS" <<'EOF'
import json, re, statistics, sys
work, repeats = sys.argv[1], int(sys.argv[2])
for limit in (30, 1000):
    runs, walls, counts = [], [], set()
    for r in range(1, repeats + 1):
        pages = [float(m.group(1)) for m in re.finditer(r"records in ([0-9.]+) ms", open(f"{work}/timings-{limit}-{r}.txt").read())]
        runs.append(pages)
        t0, t1 = map(float, open(f"{work}/wall-{limit}-{r}.txt").read().split())
        walls.append(t1 - t0)
        counts.add(len(json.load(open(f"{work}/out-{limit}-{r}.json"))))
    n = len(runs[0])
    per_page = [statistics.median(run[i] for run in runs) for i in range(n)]
    tenth = max(1, n // 10)
    first, last = statistics.median(per_page[:tenth]), statistics.median(per_page[-tenth:])
    print(f"  limit {limit:4}: {n} pages, {sorted(counts)} records; fetch median first {tenth} pages {first:.3f} ms, "
          f"last {tenth} pages {last:.3f} ms (last/first {last / first:.2f}); slowest page {max(per_page):.3f} ms; "
          f"whole command {statistics.median(walls) * 1000:.0f} ms")
EOF
echo

# ---------------------------------------------------------------------------------------------------------
# 2. Keyset against OFFSET, same SQL shape, python3's sqlite3 on the same file.

echo "2. the page query alone (python3 sqlite3, median of 200), keyset vs OFFSET"
python3 - "$STORE" <<'EOF'
import sqlite3, statistics, sys, time
db = sqlite3.connect(sys.argv[1])
cols = ("t.id, t.tid, t.session_row, t.session_id, s.room_name, s.url, t.language, t.start_time, t.end_time, "
        "t.transcript_date, t.transcript_url")
base = f"SELECT {cols} FROM transcripts t LEFT JOIN sessions s ON s.id = t.session_row WHERE t.session_id = ?"
keyset = base + " AND t.id > ? ORDER BY t.id LIMIT ?"
offset = base + " ORDER BY t.id LIMIT ? OFFSET ?"
ids = [row[0] for row in db.execute("SELECT id FROM transcripts WHERE session_id = 'bench-big' ORDER BY id")]
def timed(sql, args):
    samples = []
    for _ in range(200):
        t0 = time.perf_counter(); rows = db.execute(sql, args).fetchall(); samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000, len(rows)
for limit in (30, 1000):
    pages = (len(ids) + limit - 1) // limit
    for label, page in (("first", 1), ("last", pages)):
        after = ids[(page - 1) * limit - 1] if page > 1 else -1
        k, nk = timed(keyset, ("bench-big", after, limit))
        o, no = timed(offset, ("bench-big", limit, (page - 1) * limit))
        assert nk == no
        print(f"  limit {limit:4}, {label:5} page ({page:3}): keyset {k:.3f} ms, OFFSET {o:.3f} ms ({o / k:.1f}x)")
plan = " / ".join(r[-1] for r in db.execute("EXPLAIN QUERY PLAN " + keyset, ("bench-big", 0, 30)))
print(f"  keyset plan: {plan}")
EOF
echo

# ---------------------------------------------------------------------------------------------------------
# 3. One stateless CLI call per page.

echo "3. audiograph transcripts list --session bench-big --limit 30 --page P, one process each (median of $REPEATS)"
for P in $(printf '%s\n' 1 10 100 "$LAST_PAGE" | awk -v last="$LAST_PAGE" '$1 <= last' | sort -nu); do
  python3 - "$BINARY" "$STORE" "$P" "$REPEATS" <<'EOF'
import statistics, subprocess, sys, time
binary, store, page, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
walls = []
for _ in range(repeats):
    t0 = time.perf_counter()
    subprocess.run([binary, "transcripts", "list", "--store", store, "--session", "bench-big", "--limit", "30",
                    "--page", page], check=True, stdout=subprocess.DEVNULL)
    walls.append(time.perf_counter() - t0)
print(f"  page {page:>3}: {statistics.median(walls) * 1000:.1f} ms")
EOF
done
