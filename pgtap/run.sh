#!/usr/bin/env bash
# The database test layer: a fresh database, migrated by the binary exactly as in production, then
# the `tests` helper schema (pgtap/tests_schema.sql), every pgTAP file of sql/tests through pg_prove,
# and plpgsql_check over every PL/pgSQL function of the project's schemas.
#
#   pgtap/run.sh [sql/tests/NN-topic.sql ...]      (default: all of sql/tests)
#
# Needs the cluster of sql/dev/cluster.sh (started by `make test`) and a built binary (INGEST_BIN).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cluster="$root/sql/dev/cluster.sh"
bin="${INGEST_BIN:-$root/target/debug/ingest}"
db="pgtap_$(date +%s)_$$"
admin=$("$cluster" url postgres)
url=$("$cluster" url "$db")

cleanup() { psql "$admin" -qXc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; }
trap cleanup EXIT

psql "$admin" -qXc "CREATE DATABASE $db" >/dev/null
DATABASE_URL="$url" LOG_LEVEL=warn "$bin" migrate
psql "$url" -qX -v ON_ERROR_STOP=1 -f "$root/pgtap/tests_schema.sql" >/dev/null

if [ $# -eq 0 ]; then set -- "$root"/sql/tests/*.sql; fi
pg_prove --dbname "$db" --host 127.0.0.1 --port "${PG_PORT:-54329}" --username postgres "$@"

echo "plpgsql_check: every PL/pgSQL function of app, api, console, platform"
psql "$url" -qX -v ON_ERROR_STOP=1 -f "$root/pgtap/plpgsql_check.sql"
