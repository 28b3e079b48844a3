#!/usr/bin/env bash
# A gateway on a fresh database of the local cluster, for the contract checks: migrated, seeded with
# gateway/contract/seed.sql (a credential holding every scope, a lot `lot-1` and two bookings on
# it), rate limits lifted, the webhook worker and the admin listener off. On exit the gateway stops
# and the database is dropped.
#
#   gateway/contract/gateway.sh COMMAND [ARG...]    run COMMAND against a gateway of its own
#   . gateway/contract/gateway.sh; gateway_start    (in a script) the same, the caller's shell goes on
#
# Either way the command sees INGEST_DOCUMENT_URL (<root>/openapi.json), INGEST_BASE_URL (the
# document's first server URL read relative to the document: <root>/v1, what a client is given) and
# INGEST_BEARER (the seeded credential, `key_id.secret`). The gateway's log is
# target/contract/<name of the script run>-gateway.log. INGEST_BIN: the binary (default target/debug/ingest).
set -euo pipefail

contract_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
contract_cluster="$contract_root/sql/dev/cluster.sh"
contract_db="contract_$(date +%s)_$$"
contract_gateway_pid=""

gateway_stop() {
    if [ -n "$contract_gateway_pid" ]; then
        kill "$contract_gateway_pid" 2>/dev/null && wait "$contract_gateway_pid" 2>/dev/null || true
    fi
    psql "$("$contract_cluster" url postgres)" -qXc "DROP DATABASE IF EXISTS $contract_db WITH (FORCE)" >/dev/null 2>&1 || true
}

# gateway_start [LABEL]: LABEL names the log (default: contract).
gateway_start() {
    local label="${1:-contract}" bin="${INGEST_BIN:-$contract_root/target/debug/ingest}"
    local admin url port
    admin=$("$contract_cluster" url postgres)
    url=$("$contract_cluster" url "$contract_db")
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    trap gateway_stop EXIT
    mkdir -p "$contract_root/target/contract"

    psql "$admin" -qXc "CREATE DATABASE $contract_db" >/dev/null
    DATABASE_URL="$url" LOG_LEVEL=warn "$bin" migrate
    INGEST_BEARER=$(psql "$url" -qAtX -v ON_ERROR_STOP=1 -f "$contract_root/gateway/contract/seed.sql" | tail -1)

    DATABASE_URL="$url" LISTEN_ADDR="127.0.0.1:$port" ADMIN_LISTEN_ADDR= RATE_LIMITS=off WEBHOOK_WORKER=off LOG_LEVEL=warn \
        "$bin" serve > "$contract_root/target/contract/$label-gateway.log" 2>&1 &
    contract_gateway_pid=$!
    INGEST_DOCUMENT_URL="http://127.0.0.1:$port/openapi.json"
    # Waits for the document, and resolves its server URL against the document's own, as a client does.
    INGEST_BASE_URL=$(python3 - "$INGEST_DOCUMENT_URL" <<'PY'
import json, sys, time, urllib.parse, urllib.request
for _ in range(100):
    try:
        document = json.load(urllib.request.urlopen(sys.argv[1], timeout=1))
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit(f"no document at {sys.argv[1]}: see the gateway's log")
print(urllib.parse.urljoin(sys.argv[1], document["servers"][0]["url"]).rstrip("/"))
PY
)
    export INGEST_DOCUMENT_URL INGEST_BASE_URL INGEST_BEARER
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    [ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
    label=contract
    for arg in "$@"; do
        case "$arg" in *.py | *.sh) label=$(basename -- "${arg%.*}") ;; esac
    done
    gateway_start "$label"
    "$@"
fi
