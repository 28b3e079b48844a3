#!/usr/bin/env bash
# `make run` after the cluster is up and the release binary built: migrate, seed the demo operator
# (sql/dev/demo.sql prints a fresh credential), then serve the API and the webhook worker until
# Ctrl-C. On the local cluster the gateway and the worker log in as their own roles (trust
# authentication on loopback), so the role settings that keep secrets out of the server log apply,
# as in production. With DATABASE_URL set, that database and login serve for everything.
#
#   LISTEN_ADDR=127.0.0.1:8080 BASE_PATH=/v1 sql/dev/run.sh      (make run sets both)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cluster="$root/sql/dev/cluster.sh"
bin="$root/target/release/ingest"
listen="${LISTEN_ADDR:-127.0.0.1:8080}"
base_path="${BASE_PATH:-/v1}"

url="${DATABASE_URL:-$("$cluster" url)}"
serve_url="${DATABASE_URL:-$("$cluster" url ingest ingest_gateway)}"
worker_url="${DATABASE_URL:-$("$cluster" url ingest webhook_worker)}"

DATABASE_URL="$url" LOG_LEVEL=warn "$bin" migrate
psql "$url" -qX -v base_url="http://$listen$base_path" -f "$root/sql/dev/demo.sql"
admin="${ADMIN_LISTEN_ADDR:-127.0.0.1:8081}"
# The addresses served, for the commands that print a make run of their own (make hints-up).
mkdir -p "$root/.pg"
echo "LISTEN_ADDR=$listen ADMIN_LISTEN_ADDR=$admin" >"$root/.pg/listen"
echo "Serving (Ctrl-C stops):"
echo "  API         http://$listen$base_path   (reference: http://$listen${base_path%/v1}/docs)"
echo "  admin       http://$admin   (/livez, /readyz, /metrics)"
[ -n "${DATABASE_URL:-}" ] || echo "  PostgreSQL  $("$cluster" url)   (psql \"\$(sql/dev/cluster.sh url)\")"
echo "Other ports: LISTEN_ADDR=127.0.0.1:9080 ADMIN_LISTEN_ADDR=127.0.0.1:9081 PG_PORT=25432 make run"
echo
DATABASE_URL="$serve_url" WEBHOOK_DATABASE_URL="$worker_url" LISTEN_ADDR="$listen" ADMIN_LISTEN_ADDR="$admin" \
    BASE_PATH="$base_path" exec "$bin" serve
