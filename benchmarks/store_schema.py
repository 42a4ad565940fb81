"""Checks for the benchmarks that fill a transcript store with plain SQL INSERTs (http.sh, store.sh).

The store is always created by the binary under test (`audiograph tokens create` or `audiograph run`), so its
schema is the code's current one, whatever version that is. Instead of pinning a schema version (which goes
stale at every migration), `require_columns` checks what the INSERTs rely on against the store as it is:
every column they fill exists, and every column the code made NOT NULL without a default is one they fill.
A migration that adds an optional column passes; one that renames a column, or adds a required one, fails
with a message that names the table and the column.

Usage, from a benchmark's inline python3:
    sys.path.insert(0, BENCHMARKS_DIR)
    from store_schema import require_columns
    require_columns(db, "sessions", ["session_id", "room_name", ...])
"""
import sys


def require_columns(db, table, filled):
    """Exits (status 1) unless `table` has every column of `filled` and needs no other one."""
    rows = db.execute(f"PRAGMA table_info({table})").fetchall()  # cid, name, type, notnull, default, pk
    if not rows:
        sys.exit(f"store schema: no table {table} (schema version {schema_version(db)})")
    columns = {row[1]: row for row in rows}
    missing = [name for name in filled if name not in columns]
    if missing:
        sys.exit(f"store schema version {schema_version(db)}: {table} has no column {', '.join(missing)}; "
                 "update the benchmark's INSERTs to the code's schema")
    integer_key = [row[1] for row in rows if row[5] and row[2].upper() == "INTEGER"]
    required = [row[1] for row in rows
                if row[3] and row[4] is None and row[1] not in filled and row[1] not in integer_key]
    if required:
        sys.exit(f"store schema version {schema_version(db)}: {table}.{', '.join(required)} must be filled "
                 "(NOT NULL, no default); update the benchmark's INSERTs to the code's schema")


def schema_version(db):
    return db.execute("PRAGMA user_version").fetchone()[0]
