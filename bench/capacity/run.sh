#!/usr/bin/env bash
# make bench-capacity: how many operators one machine serves under the load model
# (bench/capacity/src/model.rs), found by steps: for each N of CAPACITY_STEPS, a fresh gateway
# (release build, the contract's rate limits on, behind a signed edge, its webhook worker
# delivering to this program's receiver on port 443), CAPACITY_WARMUP seconds of warm-up, then
# CAPACITY_MEASURE seconds measured, then where PostgreSQL's time went (postgres_profile.sh); first,
# a calibration of the machine (/ping and the empty tail at one connection). Steps in rising order
# stop at the first step over a bound; steps given largest first search down and stop at the first
# step within every bound. It writes every step to bench/capacity/RESULTS.md
# (CAPACITY_OUT), the largest N within every bound first. The seeded
# database (capacity) holds the largest step's operators and is kept for later runs of that size
# or smaller.
#
#   bench/capacity/run.sh                         the search: steps of 1 000 … 14 000, 5 minutes each
#   CAPACITY_QUICK=1 bench/capacity/run.sh        one step of 200 operators, 30 s: a quick check
#   CAPACITY_STANDBY=1 bench/capacity/run.sh      the same with the feed read from a hot standby of
#                                                 the cluster (sql/dev/cluster.sh standby, on these
#                                                 same cores), written to RESULTS-standby.md
#   CAPACITY_STEPS="14000 12000 10000" …          a search down from the largest
#
# Needs root (the receiver listens on port 443, and a hosts entry names it, removed at the end) and
# the local cluster (sql/dev/cluster.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cluster="$root/sql/dev/cluster.sh"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
profile="$root/bench/capacity/postgres_profile.sh"
if [ -n "${CAPACITY_QUICK:-}" ]; then
    steps="${CAPACITY_STEPS:-200}"; warmup="${CAPACITY_WARMUP:-15}"; measure="${CAPACITY_MEASURE:-30}"
else
    steps="${CAPACITY_STEPS:-1000 2000 4000 6000 8000 10000 12000 14000}"
    warmup="${CAPACITY_WARMUP:-60}"; measure="${CAPACITY_MEASURE:-300}"
fi
standby="${CAPACITY_STANDBY:-}"
out="${CAPACITY_OUT:-$root/bench/capacity/RESULTS${standby:+-standby}.md}"
port="${CAPACITY_PORT:-18180}"
largest=$(tr ' ' '\n' <<<"$steps" | sort -n | tail -1)
# Steps given largest first search down: the first step within every bound ends the search.
read -r first_step _ <<<"$steps"
descending=""; [ "$first_step" = "$largest" ] && [ "$(wc -w <<<"$steps")" -gt 1 ] && descending=1
work="$root/target/capacity"
edge_secret="capacity-edge-secret"
hosts_line="127.0.0.1 hooks.capacity.test # bench/capacity/run.sh"
mkdir -p "$work"

"$cluster" start >/dev/null
"$cluster" statements   # (before the postmaster's pid is read: the first time, it restarts)
cargo build --release --locked --bin ingest --bin bench-capacity
ingest="$root/target/release/ingest"
capacity="$root/target/release/bench-capacity"
cluster_url="$("$cluster" url postgres)"
db=capacity
admin_url="$("$cluster" url "$db" postgres)"
postmaster=$(head -1 "$(psql "$cluster_url" -XAtqc 'SHOW data_directory')/postmaster.pid")

gateway_pid=""
cleanup() {
    [ -n "$gateway_pid" ] && kill "$gateway_pid" 2>/dev/null && wait "$gateway_pid" 2>/dev/null
    sed -i "\|$hosts_line|d" /etc/hosts
    [ -z "$standby" ] || "$cluster" standby-stop
}
trap cleanup EXIT

# The data, made again only when the database holds fewer operators than the largest step needs.
held=$(psql "$admin_url" -XAtqc 'SELECT count(*) FROM capacity.operators' 2>/dev/null || echo 0)
if [ "$held" -lt "$largest" ] || [ "$(wc -l <"$work/operators.tsv" 2>/dev/null || echo 0)" -lt "$largest" ]; then
    echo "seeding $largest operators" >&2
    psql "$cluster_url" -Xq -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
    DATABASE_URL="$admin_url" LOG_LEVEL=warn "$ingest" migrate
    psql "$admin_url" -Xq -v operators="$largest" -f "$root/bench/capacity/seed.sql"
    "$capacity" seed "$admin_url" "$work/operators.tsv"
else
    DATABASE_URL="$admin_url" LOG_LEVEL=warn "$ingest" migrate
fi
# The data settled before the first step: a fresh seed's vacuum and its checkpoint are not a
# step's to pay (a step still pays the checkpoints its own writes bring).
psql "$admin_url" -Xq -c "VACUUM ANALYZE" -c "CHECKPOINT"
# The statements' execution times, nested ones too, for each step's profile (postgres_profile.sh;
# tracking them costs each step a little too, alike)
psql "$admin_url" -Xq -c "SET client_min_messages = warning" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA capacity" \
    -c "ALTER DATABASE $db SET pg_stat_statements.track = 'all'"
# (set as a deployment sets it: the worker checks endpoints against it)
psql "$admin_url" -Xqc "UPDATE app.settings SET value = 'capacity-platform.invalid' WHERE name = 'webhook_platform_domains'"
# With CAPACITY_STANDBY: a hot standby made of the cluster as it is now; the gateway reads the feed
# there (DATABASE_READ_URL), and both servers' processes count as PostgreSQL's.
read_settings=() postmasters="$postmaster" admin_addr=""
if [ -n "$standby" ]; then
    "$cluster" standby
    admin_addr="127.0.0.1:$(( port + 1 ))"   # its /metrics say how many reads the standby served
    read_settings=(DATABASE_READ_URL="$("$cluster" standby-url "$db" ingest_gateway)")
    postmasters="$postmaster,$(head -1 "$(psql "$("$cluster" standby-url postgres)" -XAtqc 'SHOW data_directory')/postmaster.pid")"
fi
"$capacity" tls "$work/tls"
grep -qF "$hosts_line" /etc/hosts || echo "$hosts_line" >>/etc/hosts

# This machine's calibration, before the search, so that runs on two machines can be compared: the
# gateway's own calls for /ping and for the empty tail (the first operator's feed followed to its
# end), pgbench at one connection as the gateway's role, 5 s each.
calibration() {
    local auth since="" page url
    auth="Bearer $(awk -F'\t' 'NR == 1 { print $3 }' "$work/operators.tsv")"
    for _ in $(seq 1000); do
        page=$(psql "$admin_url" -XAtq -v auth="$auth" -v since="$since" \
                   <<<"SELECT body ->> 'next', body ->> 'has_more' FROM api.bookings_get(:'auth', :'since', 500)")
        since=${page%%|*}
        [ "${page##*|}" = true ] || break
    done
    url=$("$cluster" url "$db" ingest_gateway)
    latency() {
        "$pg_bin/pgbench" -n -M prepared -c 1 -T 5 -f "$root/bench/pgbench/$1" -D auth="$auth" -D since="$since" \
            -D limit=500 "$url" 2>&1 | awk '/^latency average/ { print $4 }'
    }
    echo "Calibration (pgbench, the gateway's own call, one connection): /ping $(latency ping.sql) ms, the empty tail $(latency bookings_tail.sql) ms."
}
calibrated=$(calibration)
echo "$calibrated" >&2

{
    echo "# Capacity: how many operators one machine serves"
    echo
    echo "Written by \`make bench-capacity\` (bench/capacity/run.sh) on $(date -u +%Y-%m-%d), commit"
    echo "$(git -C "$root" rev-parse --short HEAD), $(nproc) cores shared by the gateway, PostgreSQL${standby:+ (a primary and a hot standby serving the feed)} and the load program,"
    echo "$(psql "$cluster_url" -XAtqc 'SHOW server_version'). Each step: a fresh gateway (release build, the contract's rate"
    echo "limits on, each operator behind the signed edge from its own address, the webhook worker delivering"
    echo "over HTTPS to the load program's receiver), ${warmup} s of warm-up, ${measure} s measured; latencies from each"
    echo "request's scheduled time (open loop). The model:"
    "$capacity" model
    echo
    echo "Bounds: every route's p99 ≤ 50 ms (the bookings page ≤ 100 ms), no 5xx, no 429, every hint"
    echo "delivered within 2 s p99, a booking recorded reaching its operator's feed within 12 s p99."
    echo
    echo "$calibrated"
    echo
} >"$out.steps"

passed=""
for n in $steps; do
    echo "step: $n operators" >&2
    "$profile" start "$admin_url" "$postmasters" "$work/processes-$n"
    step_started=$SECONDS
    DATABASE_URL="$("$cluster" url "$db" ingest_gateway)" WEBHOOK_DATABASE_URL="$("$cluster" url "$db" webhook_worker)" \
        LISTEN_ADDR="127.0.0.1:$port" ADMIN_LISTEN_ADDR="$admin_addr" EDGE_SECRET="$edge_secret" EDGE_PEERS=127.0.0.1/32 \
        WEBHOOK_PUBLIC_RANGES=127.0.0.0/8 WEBHOOK_EXTRA_ROOTS="$work/tls/ca.pem" LOG_LEVEL=warn \
        env "${read_settings[@]}" "$ingest" serve >"$work/gateway-$n.log" 2>&1 &
    gateway_pid=$!
    for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/openapi.json" && break; sleep 0.1; done
    set +e
    "$capacity" run --api "http://127.0.0.1:$port/v1" --platform "$("$cluster" url "$db" capacity_platform)" \
        --operators-file "$work/operators.tsv" --operators "$n" --warmup "$warmup" --measure "$measure" \
        --tls-dir "$work/tls" --edge-secret "$edge_secret" --receiver 127.0.0.1:443 \
        --gateway-pid "$gateway_pid" --postgres-pids "$postmasters" >>"$out.steps"
    verdict=$?
    set -e
    if [ -n "$admin_addr" ]; then
        counter() { curl -fs "http://$admin_addr/metrics" | awk -v name="$1" 'index($0, name) == 1 { sum += $NF } END { printf "%d", sum }'; }
        echo "Feed reads served by the standby over the step: $(counter ingest_standby_reads_total); served by the primary instead: $(counter ingest_standby_fallbacks_total)." >>"$out.steps"
        echo >>"$out.steps"
    fi
    "$profile" report "$admin_url" "$postmasters" "$work/processes-$n" $(( SECONDS - step_started )) >>"$out.steps"
    kill "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true; gateway_pid=""
    case $verdict in
        0) passed=$n; [ -z "$descending" ] || break ;;
        3) [ -n "$descending" ] || break ;;
        *) echo "the load program failed (exit $verdict)" >&2; exit 1 ;;
    esac
done

# The hand-written part of the file (what moved the figure, with its before and after) is kept.
{
    if [ -n "$passed" ]; then
        echo "**$passed operators** within every bound on this machine ($(nproc) shared cores); the steps below."
    else
        echo "**No step held every bound**; the steps below say which bound was crossed."
    fi
    echo
    tail -n +3 "$out.steps"
} | "$root/bench/results_file.sh" "$out" \
    '<!-- bench/capacity/run.sh keeps everything above this line and writes everything below it -->' \
    "Capacity${standby:+ with the feed read from a hot standby}"
rm "$out.steps"
