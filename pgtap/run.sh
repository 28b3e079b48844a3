#!/usr/bin/env bash
# The database test layer: a fresh database, migrated by the binary exactly as in production, then
# the `tests` helper schema (pgtap/tests_schema/, its parts checked against their index), every
# pgTAP file of sql/tests through pg_prove, plpgsql_check over every PL/pgSQL function of the
# project's schemas, and the scan guard (pgtap/scan_guard.sql: no statement inside a function
# filters a table by a function call per row). Then the files that judge request bodies run again
# in a second database whose locale and default collation are en_US.UTF-8: trimming, "first in
# byte order" and duplicate keys must not depend on the server's locale.
#
#   pgtap/run.sh [sql/tests/NN-topic.sql ...]      (default: all of sql/tests, then the second pass)
#
# Needs the cluster of sql/dev/cluster.sh (started by `make test`) and a built binary (INGEST_BIN).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cluster="$root/sql/dev/cluster.sh"
bin="${INGEST_BIN:-$root/target/debug/ingest}"
db="pgtap_$(date +%s)_$$"
admin=$("$cluster" url postgres)
# The files of the second pass: every test that sends bodies or compares text a client sees.
locale_files=(09-lot-body-validation 13-lots-list 15-rates 16-blocked-periods 18-bookings-storage 26-body-edge-cases)

cleanup() {
    for name in "$db" "${db}_en_us"; do
        psql "$admin" -qXc "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT

helpers="$root/pgtap/tests_schema"
parts=("$helpers"/[0-9][0-9]-*.sql)

# The index (tests_schema/README.md) lists under each part exactly the helpers the part creates.
check_helper_index() {
    local part name listed made
    for part in "${parts[@]}"; do
        name=$(basename "$part")
        listed=$(awk -v part="## $name" '/^## /{on = ($0 == part)} on && /^- `/{gsub(/[-` ]/, ""); print}' \
            "$helpers/README.md")
        made=$(sed -n 's/^CREATE FUNCTION tests\.\([a-z_0-9]*\).*/\1/p' "$part")
        if [ "$listed" != "$made" ]; then
            echo "pgtap/tests_schema/README.md does not list what $name creates, in its order:" >&2
            diff <(echo "$listed") <(echo "$made") >&2 || true
            exit 1
        fi
    done
    if [ "$(grep -c '^## ' "$helpers/README.md")" != "${#parts[@]}" ]; then
        echo "pgtap/tests_schema/README.md indexes a part that is not there, or misses one" >&2
        exit 1
    fi
}

# prepare <database> [CREATE DATABASE options]: created, migrated, the helper schema loaded.
prepare() {
    local name=$1
    shift
    psql "$admin" -qXc "CREATE DATABASE $name $*" >/dev/null
    DATABASE_URL=$("$cluster" url "$name") LOG_LEVEL=warn "$bin" migrate
    psql "$("$cluster" url "$name")" -qX -v ON_ERROR_STOP=1 "${parts[@]/#/-f}" >/dev/null
}

prove() {
    local name=$1
    shift
    local port
    port=$("$cluster" url | sed 's|.*:\([0-9]*\)/.*|\1|')
    pg_prove --dbname "$name" --host 127.0.0.1 --port "$port" --username postgres "$@"
}

check_helper_index
prepare "$db"
if [ $# -gt 0 ]; then
    prove "$db" "$@"
    exit 0
fi
prove "$db" "$root"/sql/tests/*.sql

echo "plpgsql_check: every PL/pgSQL function of the project's schemas"
psql "$("$cluster" url "$db")" -qX -v ON_ERROR_STOP=1 -f "$root/pgtap/plpgsql_check.sql"

echo "The scan guard: every route's function under auto_explain, at an operator of 2 000 lots"
psql "$("$cluster" url "$db")" -X -f "$root/pgtap/scan_guard.sql" 2>&1 | python3 "$root/pgtap/scan_guard.py"

echo "The body-validation files again, in a database of locale en_US.UTF-8"
prepare "${db}_en_us" "TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8'"
prove "${db}_en_us" $(printf "$root/sql/tests/%s.sql " "${locale_files[@]}")
