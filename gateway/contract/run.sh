#!/usr/bin/env bash
# Contract tests: schemathesis (pinned, from PyPI) against a gateway on a fresh database of the local
# cluster, with a seeded credential holding every scope and a lot, over every route of the
# published OpenAPI document: no 500, every response conforms to the document, every error body has
# the documented shape.
#
#   gateway/contract/run.sh          (after `cargo build --bin ingest`; `make test` runs it)
#
# Rate limits are lifted, and the webhook worker and the admin listener are off for the run.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cluster="$root/sql/dev/cluster.sh"
bin="${INGEST_BIN:-$root/target/debug/ingest}"
tools="$root/target/pytools"
db="contract_$(date +%s)_$$"
admin=$("$cluster" url postgres)
url=$("$cluster" url "$db")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

[ -x "$tools/bin/schemathesis" ] || {
    [ -x "$tools/bin/pip" ] || python3 -m venv "$tools"
    "$tools/bin/pip" install -q schemathesis==4.32.5
}

gateway_pid=""
cleanup() {
    [ -n "$gateway_pid" ] && kill "$gateway_pid" 2>/dev/null && wait "$gateway_pid" 2>/dev/null || true
    psql "$admin" -qXc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT

psql "$admin" -qXc "CREATE DATABASE $db" >/dev/null
DATABASE_URL="$url" LOG_LEVEL=warn "$bin" migrate
bearer=$(psql "$url" -qAtX -v ON_ERROR_STOP=1 -f "$root/gateway/contract/seed.sql" | tail -1)

DATABASE_URL="$url" LISTEN_ADDR="127.0.0.1:$port" ADMIN_LISTEN_ADDR= RATE_LIMITS=off WEBHOOK_WORKER=off LOG_LEVEL=warn \
    "$bin" serve > "$root/target/contract-gateway.log" 2>&1 &
gateway_pid=$!
python3 - "$port" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/openapi.json", timeout=1)
        break
    except OSError:
        time.sleep(0.1)
PY

# (its cache folder goes under target/)
cd "$root/target"
"$tools/bin/schemathesis" run "http://127.0.0.1:$port/openapi.json" \
    --url "http://127.0.0.1:$port" \
    --header "Authorization: Bearer $bearer" \
    --checks all --exclude-checks positive_data_acceptance \
    --max-examples "${CONTRACT_EXAMPLES:-25}" \
    --seed 20261123 --generation-deterministic \
    --no-color
