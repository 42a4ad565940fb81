#!/usr/bin/env bash
# Makes sure Debian's PostgreSQL server is running on loopback with a role and a database for the tests, and
# prints the URL to reach them (the only thing on stdout):
#
#   export AUDIOGRAPH_TEST_POSTGRES_URL="$(bash scripts/start-postgres.sh)"
#
# Idempotent: reuses a running cluster, an existing role (its password is set again) and database. Uses the first
# cluster `pg_lsclusters` lists, or creates `<version> main` when there is none. Needs root (it runs the cluster
# tools and psql as the `postgres` user). Debian packages: postgresql (the server, its cluster tools) and
# libpq-dev (the client library audiograph links).
#
# Stop it again with: pg_ctlcluster <version> <cluster> stop   (scripts print the pair on stderr)
#
# Environment: AUDIOGRAPH_TEST_POSTGRES_USER / _PASSWORD / _DB (all default to audiograph_test).
set -euo pipefail

ROLE="${AUDIOGRAPH_TEST_POSTGRES_USER:-audiograph_test}"
PASSWORD="${AUDIOGRAPH_TEST_POSTGRES_PASSWORD:-audiograph_test}"
DB="${AUDIOGRAPH_TEST_POSTGRES_DB:-audiograph_test}"

say() { echo "start-postgres: $*" >&2; }
# The cluster tools print on stdout ("Removed stale pid file." after an unclean stop), and stdout is the URL:
# their output goes to stderr.

if ! command -v pg_lsclusters >/dev/null || ! command -v pg_ctlcluster >/dev/null; then
  say "Debian's PostgreSQL cluster tools are missing: install postgresql (scripts/install-deps.sh)"
  exit 69
fi

# The first cluster: "version name port status ..." (no header with -h).
cluster="$(pg_lsclusters -h | head -n 1 || true)"
if [ -z "$cluster" ]; then
  version="$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1)"
  if [ -z "$version" ]; then
    say "no PostgreSQL server under /usr/lib/postgresql: install postgresql"
    exit 69
  fi
  say "creating cluster $version main"
  pg_createcluster "$version" main >&2
  cluster="$(pg_lsclusters -h | head -n 1)"
fi
read -r version name port status _ <<<"$cluster"

# Loopback only (Debian's default is already localhost; make it explicit), in a file of its own in the
# cluster's conf.d (Debian's postgresql.conf includes it), so postgresql.conf itself is left alone.
conf="/etc/postgresql/$version/$name/conf.d/audiograph-test.conf"
wanted="listen_addresses = '127.0.0.1'"
if [ -d "$(dirname "$conf")" ] && [ "$(cat "$conf" 2>/dev/null)" != "$wanted" ]; then
  echo "$wanted" >"$conf"
  if [ "$status" = "online" ]; then
    pg_ctlcluster "$version" "$name" restart >&2 3>&-
  fi
fi

if [ "$status" != "online" ]; then
  say "starting cluster $version $name on 127.0.0.1:$port"
  pg_ctlcluster "$version" "$name" start >&2 3>&-
else
  say "cluster $version $name already running on port $port"
fi

psql_admin() { (cd / && su postgres -s /bin/sh -c "psql -X -q -v ON_ERROR_STOP=1 -p $port $*"); }

# Wait until it accepts connections (start returns once the postmaster is up; be safe).
for _ in $(seq 1 50); do
  if psql_admin "-d postgres -tAc 'SELECT 1'" >/dev/null 2>&1; then break; fi
  sleep 0.2
done

# Role and database; the password is a literal for SQL (single quotes doubled).
sql_password="${PASSWORD//\'/\'\'}"
psql_admin "-d postgres" >/dev/null <<SQL
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$ROLE') THEN
    CREATE ROLE "$ROLE" LOGIN PASSWORD '$sql_password';
  ELSE
    ALTER ROLE "$ROLE" LOGIN PASSWORD '$sql_password';
  END IF;
END
\$\$;
SQL
if [ "$(psql_admin "-d postgres -tAc \"SELECT 1 FROM pg_database WHERE datname = '$DB'\"")" != "1" ]; then
  psql_admin "-d postgres -c 'CREATE DATABASE \"$DB\" OWNER \"$ROLE\"'" >/dev/null
  say "created database $DB"
fi
say "stop with: pg_ctlcluster $version $name stop"

encode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1" 2>/dev/null || echo "$1"; }
echo "postgres://$(encode "$ROLE"):$(encode "$PASSWORD")@127.0.0.1:$port/$(encode "$DB")"
