#!/usr/bin/env bash
# make bench: the gateway against PostgreSQL's own limit, written to bench/RESULTS.md.
#
# For each data size (bench/generate.sql; small: 1 000 lots and 10 000 bookings, large: 10 000 lots
# and 1 000 000 bookings, plus small operators; each also 10 000 bookings written through
# platform.booking_record with the webhook endpoint armed) on a fresh database of the local cluster, and for
# each route and concurrency (1, 16, 64 connections):
#   - wrk (Debian's package) drives the release gateway over loopback (bench/wrk/request.lua), and
#     the same requests to the pass-through floor (bench/passthrough: the route's call and nothing else);
#   - pgbench makes the gateway's own SQL call, as the gateway's role, over as many connections
#     (bench/pgbench/);
#   - for the read routes, pgbench runs the plainest SQL returning the same JSON as the superuser
#     (bench/floor/): the floor; it is given the operator and the bearer's key id and secret;
#   - for the write routes, the WAL the gateway's statements wrote (pg_stat_statements), per request.
# The bookings feed is also read through a second gateway from a hot standby of the cluster
# (sql/dev/cluster.sh standby; DATABASE_READ_URL), against the first reading it from the primary, at
# 16 connections in alternating rounds, with the standby's lag sampled meanwhile.
# Rate limits are lifted for the run (RATE_LIMITS=off) and the results say so. The gateway's peak
# resident memory is read from /proc at the end of each size, and the pass-through's beside it; the
# CPU time each used per request, from /proc, beside their rows.
# On a machine of two cores or more (BENCH_PIN=on, the default there), every route is measured once
# more with the gateway, and in its turn the pass-through, on a core of its own (the first this run
# may use) and PostgreSQL, wrk and pgbench on the others, as in production where the gateway does not share its
# cores with the database: the gateway against the pass-through is judged there.
# After the last size, a soak (BENCH_SOAK seconds, default 600; 0 skips it): wrk at 64 connections
# over every route at once, the gateway's resident memory sampled every 5 s.
#
# The gateway and pgbench are compared in alternating rounds (wrk, then wrk to the pass-through, then
# pgbench, then the floor, BENCH_ROUNDS times over): this machine's speed drifts from one run of a
# few seconds to the next, and rounds spread that drift over both sides instead of handing it to
# one. Every side is measured warm: wrk runs one unmeasured second before the first round (the
# gateway's sessions prepare the route's statement), and pgbench, whose sessions are new each round,
# runs a second longer and only its last BENCH_DURATION ÷ BENCH_ROUNDS seconds are counted (from its
# per-transaction log). A row: req/s the mean of the rounds, p50 their median, p99 their highest,
# errors their sum. After the routes, an unchanged lot PUT and a GET of the lot are interleaved in
# one pgbench run at one connection: the same seconds for both, which the target comparing them needs.
# At one connection the gateway's own clocks (its /metrics on the admin listener, read before and
# after a route's rounds) split what it adds over the same requests: its own code (request time less
# its database call) and the HTTP exchange (wrk's mean less the request time). Drift between rounds
# cannot enter those differences, as it can enter gateway p50 − pgbench p50.
#
# Settings: BENCH_DURATION (seconds each side is measured on a route, in all; default 6),
# BENCH_ROUNDS (default 3; each round measures BENCH_DURATION ÷ BENCH_ROUNDS whole seconds),
# BENCH_SIZES (default "small large"), BENCH_CONNECTIONS (default "1 16 64"), BENCH_OUT (default
# bench/RESULTS.md), BENCH_PORT (the gateway's, default 18080), BENCH_ADMIN_PORT (its admin
# listener's, default BENCH_PORT + 1), BENCH_BARE_PORT (the pass-through's, default BENCH_PORT + 2);
# the gateway reading from the standby listens on BENCH_PORT + 3 and BENCH_PORT + 4 (admin), the
# pinned gateway and pass-through on BENCH_PORT + 5 and + 6. BENCH_PIN (on or off), BENCH_SOAK.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cluster="$root/sql/dev/cluster.sh"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
duration="${BENCH_DURATION:-6}"
rounds="${BENCH_ROUNDS:-3}"
if ! [[ "$duration" =~ ^[0-9]+$ && "$rounds" =~ ^[1-9][0-9]*$ ]] || [ "$duration" -lt "$rounds" ]; then
    echo "BENCH_DURATION and BENCH_ROUNDS must be whole numbers, BENCH_DURATION at least BENCH_ROUNDS" >&2
    exit 1
fi
window=$(( duration / rounds ))   # seconds measured in one round
sizes="${BENCH_SIZES:-small large}"
connections="${BENCH_CONNECTIONS:-1 16 64}"
out="${BENCH_OUT:-$root/bench/RESULTS.md}"
port="${BENCH_PORT:-18080}"
admin_port="${BENCH_ADMIN_PORT:-$(( port + 1 ))}"   # the gateway's /metrics, read at one connection
bare_port="${BENCH_BARE_PORT:-$(( port + 2 ))}"   # the pass-through floor (bench/passthrough)
standby_gateway_port=$(( port + 3 ))   # the gateway reading the feed from the standby
standby_admin_port=$(( port + 4 ))
pinned_port=$(( port + 5 ))   # the gateway on a core of its own
pinned_bare_port=$(( port + 6 ))   # the pass-through, in its turn on the same core
pin="${BENCH_PIN:-$([ "$(nproc)" -ge 2 ] && echo on || echo off)}"
soak="${BENCH_SOAK:-600}"
if ! [[ "$pin" =~ ^(on|off)$ && "$soak" =~ ^[0-9]+$ ]] || { [ "$pin" = on ] && [ "$(nproc)" -lt 2 ]; }; then
    echo "BENCH_PIN must be on (two cores or more) or off, BENCH_SOAK a whole number of seconds" >&2
    exit 1
fi
# The cores this run may use (a container's cpuset, say): the first for the pinned gateway, the
# others for PostgreSQL and the load meanwhile.
all_cores="$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)"
allowed=($(awk -v list="$all_cores" 'BEGIN { n = split(list, parts, ","); for (i = 1; i <= n; i++) {
    if (split(parts[i], r, "-") == 2) { for (c = r[1]; c <= r[2]; c++) print c } else print parts[i] } }'))
gateway_core="${allowed[0]}"
other_cores="$(IFS=,; echo "${allowed[*]:1}")"
load_cores=""   # when set, the cores wrk and pgbench run on
declare -A server_pid   # port → the process answering there, whose CPU time is read
work="$(mktemp -d)"
gateway_pid=""
bare_pid=""
standby_gateway_pid=""
lag_sampler_pid=""
pinned_pid=""
pinned_bare_pid=""
rss_sampler_pid=""
# Stops the process $1 (if any), whether or not it is still running.
stop() { [ -n "$1" ] || return 0; kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
cleanup() {
    stop "$gateway_pid"
    stop "$bare_pid"
    stop "$standby_gateway_pid"
    stop "$lag_sampler_pid"
    stop "$pinned_pid"
    stop "$pinned_bare_pid"
    stop "$rss_sampler_pid"
    [ "$pin" = on ] && { database_on_cores "$all_cores" || true; }
    "$cluster" standby-stop
    rm -rf "$work"
}
trap cleanup EXIT

if ! command -v wrk >/dev/null || ! command -v curl >/dev/null; then
    echo "installing: wrk curl" >&2
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends wrk curl >/dev/null
fi
"$cluster" start
# WAL per request is read off pg_stat_statements: the WAL the gateway's own statements wrote, not what
# autovacuum or another database wrote meanwhile (the cluster's WAL position counted both: an
# automatic ANALYZE, a shared catalog's vacuum). Tracked only in the bench databases.
cluster_url="$("$cluster" url postgres postgres)"
"$cluster" statements
(cd "$root" && cargo build --release --locked --bin ingest --bin bench-passthrough)
ingest="$root/target/release/ingest"

# --- measuring -----------------------------------------------------------------------------------

# The p-th percentile (0-100) of the numbers on stdin, one per line.
percentile() { sort -n | awk -v p="$1" '{ v[NR] = $1 } END { i = int((NR * p + 99) / 100); if (i < 1) i = 1; print v[i] + 0 }'; }

# The CPU time the process $1 has used so far, in µs: its threads' user and system time (/proc).
clock_ticks="$(getconf CLK_TCK)"
cpu_us() { awk -v tck="$clock_ticks" '{ sub(/^.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1000000 / tck }' "/proc/$1/stat"; }

# The CPU time per request (µs, one decimal) over the rounds' gateway_run lines (their requests and
# the server's CPU time), or "-".
cpu_per_request() {
    printf '%s\n' "$@" | awk '{ requests += $5; cpu += $7 } END { if (requests > 0) printf "%.1f\n", cpu / requests; else print "-" }'
}

# PostgreSQL's processes, and every backend it starts from now on, on the cores $1 (taskset).
database_on_cores() {
    local postmaster pid
    # (the parent of the checkpointer, which lives as long as the server)
    postmaster="$(ps -o ppid= -p "$(psql "$cluster_url" -XAtqc "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")" | tr -d ' ')"
    # (a backend may end between the listing and its turn: only the postmaster's must succeed)
    taskset -a -p -c "$1" "$postmaster" >/dev/null
    for pid in $(pgrep -P "$postmaster"); do taskset -a -p -c "$1" "$pid" >/dev/null 2>&1 || true; done
}

# wrk for $2 seconds at $1 connections to port $3 (default: the gateway's) with the request of the
# BENCH_* environment: "req/s p50_ms p99_ms errors requests mean_ms".
run_wrk() {
    local c="$1" seconds="$2" threads=2 launcher=()
    [ "$c" -lt 2 ] && threads=1
    [ -n "$load_cores" ] && launcher=(taskset -c "$load_cores")
    "${launcher[@]}" wrk -t"$threads" -c"$c" -d"${seconds}s" --latency -s "$root/bench/wrk/request.lua" "http://127.0.0.1:${3:-$port}" \
        >"$work/wrk.out" 2>&1 || true
    awk '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /^ +Latency +[0-9]/ { mean = ms($2) }
        /^ +50%/ { p50 = ms($2) } /^ +99%/ { p99 = ms($2) }
        /Requests\/sec/ { rps = $2 }
        /requests in/ { total = $1 }
        /Non-2xx or 3xx/ { non2xx = $NF }
        /Unexpected status/ { unexpected = $3; expecting = 1 }
        /Socket errors/ { gsub(/,/, ""); errors += $4 + $6 + $8 + $10 }
        END { errors += expecting ? unexpected : non2xx
              printf "%.0f %.3f %.3f %d %d %.4f\n", rps, p50, p99, errors, total, mean }' "$work/wrk.out"
}

# pgbench at $1 connections of the scripts and arguments that follow ("-f …" among them) on $2 (URL),
# measured warm: it runs one second more than a round and only the transactions that ended in the
# last $window seconds count. Its per-transaction log is left in $work/pgb.* (the fields:
# client, transaction, latency in µs, script, end in s and µs) and the counted lines in
# $work/pgb.counted. Prints "tps p50_ms p99_ms errors transactions".
run_pgbench() {
    local c="$1" url="$2"; shift 2
    local threads=2
    [ "$c" -lt 2 ] && threads=1
    rm -f "$work"/pgb.*
    local launcher=()
    [ -n "$load_cores" ] && launcher=(taskset -c "$load_cores")
    "${launcher[@]}" "$pg_bin/pgbench" -n -M prepared -c "$c" -j "$threads" -T "$(( window + 1 ))" -l --log-prefix="$work/pgb" \
        "$@" "$url" >"$work/pgbench.out" 2>&1 || true
    cat "$work"/pgb.* 2>/dev/null | awk -v window="$window" '
        { end_us = $5 * 1000000 + $6; line[NR] = $0; ended[NR] = end_us; if (end_us > last) last = end_us }
        END { for (i = 1; i <= NR; i++) if (ended[i] > last - window * 1000000) print line[i] }' >"$work/pgb.counted"
    local p50 p99 tps failed counted
    counted="$(wc -l <"$work/pgb.counted")"
    p50="$(awk '{ print $3 / 1000 }' "$work/pgb.counted" | percentile 50)"
    p99="$(awk '{ print $3 / 1000 }' "$work/pgb.counted" | percentile 99)"
    tps="$(awk -v n="$counted" -v window="$window" 'BEGIN { printf "%.0f", n / window }')"
    failed="$(awk '/number of failed transactions/ { print $5 }' "$work/pgbench.out")"
    grep -q "aborted\|error" "$work/pgbench.out" && failed="${failed:-0}+aborted"
    printf "%s %.3f %.3f %s %s\n" "${tps:-0}" "${p50:-0}" "${p99:-0}" "${failed:-0}" "${counted:-0}"
}

# The rounds' "rate p50 p99 errors count" lines (one argument each) as one: the mean rate, the
# median p50, the highest p99, the errors and counts added up ("+aborted" kept if any round says it).
combine_rounds() {
    local p50 aborted=""
    p50="$(printf '%s\n' "$@" | awk '{ print $2 }' | percentile 50)"
    [[ "$*" == *aborted* ]] && aborted="+aborted"
    printf '%s\n' "$@" | awk -v p50="$p50" -v aborted="$aborted" '
        { rate += $1; if ($3 > p99) p99 = $3; errors += $4; count += $5 }
        END { printf "%.0f %.3f %.3f %d%s %d\n", rate / NR, p50, p99, errors, aborted, count }'
}

# The gateway's own clocks, summed over every request so far (its /metrics): "request_s requests
# call_s calls", the seconds from a request's arrival to its answer and the seconds of its database
# call (the wait for a connection included). Zeros if /metrics cannot be read: the split is then
# left out ("-"), and the run goes on.
gateway_clocks() {
    { curl -fs "http://127.0.0.1:$admin_port/metrics" || true; } | awk '
        /^ingest_http_request_duration_seconds_sum/ { request += $2 } /^ingest_http_request_duration_seconds_count/ { requests += $2 }
        /^ingest_db_call_duration_seconds_sum/ { call += $2 } /^ingest_db_call_duration_seconds_count/ { calls += $2 }
        END { printf "%.6f %d %.6f %d\n", request, requests, call, calls }'
}

# A request body's size in KiB, one decimal ("0" for none): the own-code target allows 4 µs a KiB.
body_kib() {
    if [ -n "$1" ]; then awk -v bytes="$(stat -c %s "$1")" 'BEGIN { printf "%.1f\n", bytes / 1024 }'; else echo 0; fi
}

# One connection's "wrk mean|gateway mean|database call mean" (ms) over the same requests: the
# rounds' wrk lines (their requests and means), and the gateway's clocks before and after them.
same_requests_means() {
    local before="$1" after="$2"; shift 2
    printf '%s\n' "$@" | awk -v before="$before" -v after="$after" '
        { requests += $5; weighted += $5 * $6 }
        END { split(before, b, " "); split(after, a, " ")
              n = a[2] - b[2]; calls = a[4] - b[4]
              if (requests == 0 || n <= 0 || calls <= 0) { print "-|-|-"; exit }
              printf "%.3f|%.3f|%.3f\n", weighted / requests, (a[1] - b[1]) / n * 1000, (a[3] - b[3]) / calls * 1000 }'
}

# The WAL the gateway's statements wrote in this database since the last reset.
statement_wal_reset() { psql "$admin_url" -XAtqc "SELECT bench.pg_stat_statements_reset()" >/dev/null; }
statement_wal_bytes() {
    psql "$admin_url" -XAtqc "SELECT coalesce(sum(s.wal_bytes), 0)::bigint FROM bench.pg_stat_statements AS s
                               WHERE s.dbid = (SELECT d.oid FROM pg_database AS d WHERE d.datname = current_database())
                                 AND s.userid = 'ingest_gateway'::regrole"
}

# --- one size ------------------------------------------------------------------------------------

rows=()   # the table's rows, across sizes
pinned_rows=()   # "size|route|conns|gateway run|pass-through run|gateway CPU µs/req|pass-through CPU µs/req"
soak_line="not run"
peak_rss=()
bare_peak_rss=()   # the pass-through's, beside the gateway's: what hyper and tokio-postgres keep alone
interleaved=()   # "size: PUT p50 / GET p50" (ms)
one_connection=()   # "size|route|body KiB|wrk mean|gateway mean|database call mean" (ms), the same requests
standby_rows=()   # "size|route|conns|primary run|standby run|reads by the standby|fallbacks|max age|max WAL"

# Waits until the standby has replayed all the cluster has written so far.
standby_caught_up() {
    local written standby_url; written="$(psql "$cluster_url" -XAtqc "SELECT pg_current_wal_lsn()")"
    standby_url="$("$cluster" standby-url postgres postgres)"
    for _ in $(seq 600); do
        [ "$(psql "$standby_url" -XAtqc "SELECT pg_last_wal_replay_lsn() >= '$written'::pg_lsn")" = t ] && return 0
        sleep 0.1
    done
    echo "the standby did not replay up to $written in 60 s" >&2
    exit 1
}

# Every half second until killed, the standby's lag on database $1: "age_seconds wal_bytes", the age
# of the last publication it holds (what DATABASE_READ_MAX_LAG_MS bounds) and the WAL it has yet
# to replay.
sample_standby_lag() {
    local standby_url; standby_url="$("$cluster" standby-url "$1" postgres)"
    while true; do
        local row replayed
        row="$(psql "$standby_url" -XAtqF' ' -c "SELECT extract(epoch FROM now() - published_at), pg_last_wal_replay_lsn()
                                                  FROM app.booking_writers_published" 2>/dev/null || true)"
        if [ -n "$row" ]; then
            replayed="${row#* }"
            echo "${row%% *} $(psql "$cluster_url" -XAtqc "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$replayed')")"
        fi
        sleep 0.5
    done
}

# A counter of the standby gateway's /metrics (the sum of its series).
standby_gateway_metric() {
    { curl -fs "http://127.0.0.1:$standby_admin_port/metrics" || true; } |
        awk -v name="$1" 'index($0, name "{") == 1 || index($0, name " ") == 1 { sum += $NF } END { printf "%d", sum }'
}

# --- one data size's steps (bench_size): each reads and sets the size's variables, which
# bench_size declares -----------------------------------------------------------------------------

# A query's one answer into $work/$2, without psql's closing line break.
answer_file() { printf '%s' "$(psql "$admin_url" -XAtqc "$1")" >"$work/$2"; }

# lot-000002 written once with another capacity, then back with lot.json: its PUT is then an
# operator's system sending again the text it last wrote (see write_bodies).
lot_json_written_last() {
    psql "$admin_url" -XAtq -v ON_ERROR_STOP=1 -v body="$(cat "$work/lot.json")" -v auth="$auth" >/dev/null <<<"
        SELECT api.lot_put(:'auth', 'lot-000002', jsonb_set(:'body', '{capacity}', to_jsonb((:'body'::jsonb ->> 'capacity')::integer + 1))::text, false);
        SELECT api.lot_put(:'auth', 'lot-000002', :'body', false);"
}

# wrk at $c connections with the route's request, for $1 seconds, to port $2 (default: the gateway):
# run_wrk's line and the CPU time (µs) the server on that port used meanwhile.
gateway_run() {
    local to="${2:-$port}" before measured
    before="$(cpu_us "${server_pid[$to]}")"
    measured="$(BENCH_METHOD="$method" BENCH_PATH="$path" BENCH_AUTHORIZATION="$auth" BENCH_BODY_FILE="$body_file" \
                BENCH_FOLLOW="$([[ "$path" == /v1/bookings* ]] && echo next)" \
                BENCH_CHANGING="$([[ "$path" == *"{lot}"* ]] && echo capacity)" \
                BENCH_EXPECT="$([[ "$writes" == refused* ]] && echo "${writes#refused }")" run_wrk "$c" "$1" "$to")"
    echo "$measured $(( $(cpu_us "${server_pid[$to]}") - before ))"
}

# The bench operator's webhook endpoint disarmed, as its console would.
endpoint_disarm() {
    psql "$admin_url" -XqAt -v ON_ERROR_STOP=1 -v operator="$operator" >/dev/null <<<"
        BEGIN;
        SET LOCAL ROLE authenticated;
        SELECT set_config('request.jwt.claims', '{\"sub\": \"00000000-0000-4000-8000-0000000be4c0\", \"role\": \"authenticated\"}', true),
               set_config('request.headers', json_build_object('x-tenant-id', :'operator')::text, true);
        SELECT count(*) FROM console.webhook_endpoint_disarm();
        COMMIT;"
}

# A fresh database of the size, migrated, generated (bench/generate.sql) and analysed; its bearer.
make_database() {
    db="bench_$size"
    admin_url="$("$cluster" url "$db" postgres)"
    gateway_url="$("$cluster" url "$db" ingest_gateway)"
    psql "$cluster_url" -XqAt -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
    DATABASE_URL="$admin_url" LOG_LEVEL=warn "$ingest" migrate
    psql "$admin_url" -XAtq -v ON_ERROR_STOP=1 -c "CREATE SCHEMA bench" \
        -c "CREATE EXTENSION pg_stat_statements SCHEMA bench" -c "ALTER DATABASE $db SET pg_stat_statements.track = 'top'"
    echo "$size: generating $lots lots and $bookings bookings" >&2
    bearer="$(psql "$admin_url" -X -v lots="$lots" -v bookings="$bookings" -v small_operators="$small" \
                   -f "$root/bench/generate.sql" | sed -n 's/^bearer=//p')"
    psql "$admin_url" -XqAt -c "VACUUM ANALYZE" -c "CHECKPOINT"
    operator="$(psql "$admin_url" -XAtqc "SELECT id FROM app.operators WHERE name = 'Bench Large'")"
    auth="Bearer $bearer"
    # The booking writes' floor: a role that owns nothing, acting for the operator under row-level security.
    psql "$admin_url" -XqAt -f "$root/bench/floor/booking_writer.sql" >/dev/null
    booking_floor_url="$("$cluster" url "$db" bench_booking_writer)?options=-c%20app.operator_id%3D$operator"
}

# The request bodies the routes send, written under $work.
write_bodies() {
    # Bodies: lot-000002 and its envelope as stored (so their PUT is unchanged), lot-000001's closures
    # as stored, and the 512 lots the changing PUT writes.
    # Written without psql's closing line break: pgbench is handed a file's text by `$(cat …)`, which
    # drops it, and wrk sends the file as it is; both must send the same bytes.
    answer_file "SELECT ((body -> 'lots' -> 0) - 'rates')::text FROM api.lots_get('$auth', 'lot-000001', 1)" lot.json
    # "unchanged" is an operator's system sending again the text it last wrote: lot-000002 is written
    # once with another capacity and once back with lot.json, which keeps that text's digest. "other
    # text" is the same values spaced otherwise: the full check runs and answers unchanged.
    sed 's/, "/,  "/g' "$work/lot.json" >"$work/lot_other_text.json"
    lot_json_written_last
    answer_file "SELECT ((body -> 'lots' -> 0 -> 'rates') - 'channel')::text FROM api.lots_get('$auth', 'lot-000001', 1)" rates.json
    answer_file "SELECT jsonb_build_object('blocked_periods', jsonb_agg(p - 'overlapping_bookings'))::text
                   FROM api.lot_blocked_periods_get('$auth', 'lot-000001') AS g,
                        jsonb_array_elements(g.body -> 'blocked_periods') AS p" closures.json
    # A body of just under 64 KiB whose last member holds what jsonb cannot hold: 422 invalid_body
    # naming it, found only at the end of the body.
    awk 'BEGIN { printf "{\"name\": \"Refused\", \"arrival\": {"; for (i = 0; i < 3700; i++) printf "%s\"k%d\": \"v%d\"", (i ? ", " : ""), i, i
                 printf "}, \"zz\": \"\\u0000\"}" }' >"$work/refused_64k.json"
    # Two more of the slowest refusals when the database read JSON syntax: numbers PostgreSQL
    # writes out in full (1e1000: 1 001 digits each), and a key given twice in the last of 6 500 objects.
    awk 'BEGIN { printf "{\"name\": \"Refused\", \"zz\": ["; for (i = 0; i < 9000; i++) printf "%s1e1000", (i ? "," : ""); printf "]}" }' \
        >"$work/refused_exponents.json"
    awk 'BEGIN { printf "{\"name\": \"Refused\", \"zz\": ["; for (i = 0; i < 6500; i++) printf "{\"a\": 1}, "
                 printf "{\"a\": 1, \"a\": 2}]}" }' >"$work/refused_repeated_key.json"
    # Two more shapes that were slow when the database read JSON syntax (bench/FINDINGS.md, "JSON
    # syntax read by the gateway"): 16 000 tiny arrays then an object repeating a key, and 5 400
    # top-level members whose first key is given again last.
    awk 'BEGIN { printf "{\"name\": \"Refused\", \"zz\": ["; for (i = 0; i < 16000; i++) printf "[1],"
                 printf "{\"a\": 1, \"a\": 2}]}" }' >"$work/refused_tiny_arrays.json"
    awk 'BEGIN { printf "{\"name\": \"Refused\""; for (i = 0; i < 5400; i++) printf ", \"m%d\": 1", i
                 printf ", \"m0\": 2}" }' >"$work/refused_top_level_key.json"
    # Sound JSON of 64 KiB, so the whole of it is read: 32 000 small numbers (the densest text to
    # read; the lot rules then refuse the unknown key, 422 unknown_field), and the lot of lot-000004
    # with 16 KiB of arrival, sent again laid out with 64 KiB of white space (the full check runs,
    # unchanged). Their floor is jsonb's own reading of the same text.
    awk 'BEGIN { printf "{\"name\": \"Read\", \"zz\": ["; for (i = 0; i < 32000; i++) printf "%s%d", (i ? "," : ""), i % 10
                 printf "]}" }' >"$work/read_numbers.json"
    psql "$admin_url" -XAtq -v ON_ERROR_STOP=1 -v auth="$auth" >/dev/null <<<"
        SELECT api.lot_put(:'auth', 'lot-000004', jsonb_build_object(
                   'name', 'Wide lot', 'timezone', 'Europe/London', 'handover', 'self', 'online_bookable', true,
                   'arrival', (SELECT jsonb_object_agg('step_' || i, repeat('x', 70)) FROM generate_series(1, 180) AS i))::text, false)"
    answer_file "SELECT replace(jsonb_pretty((body -> 'lots' -> 0) - 'rates'), chr(10), chr(10) || repeat(' ', 190))
                   FROM api.lots_get('$auth', 'lot-000003', 1)" read_lot.json
    local changing='{"name":"Bench put","timezone":"Europe/Paris","handover":"self","online_bookable":false,"capacity":0}'
    printf '%s' "$changing" >"$work/changing.json"
    psql "$admin_url" -XAtq -v ON_ERROR_STOP=1 -v body="$changing" -v auth="$auth" >/dev/null \
        <<<"SELECT count(*) FROM generate_series(0, 511) AS k, api.lot_put(:'auth', 'bench-put-' || k, :'body', false) AS p"
    chmod a+r "$work"/*.json
}

# The release gateway and the pass-through floor, both answering.
start_gateways() {
    # The gateway: release build, rate limits lifted, no webhook worker; its admin listener serves the
    # clocks read at one connection. CPU_SCHEDULING=batch, not the default normal: here the gateway,
    # wrk and PostgreSQL share this machine's cores, and under SCHED_BATCH a gateway thread woken by a
    # backend's answer does not preempt a running backend mid-call (bench/FINDINGS.md,
    # "CPU_SCHEDULING=batch where the database shares the cores"). With the database on other
    # machines, as in production, it gains nothing.
    DATABASE_URL="$gateway_url" LISTEN_ADDR="127.0.0.1:$port" RATE_LIMITS=off DATABASE_POOL_SIZE=64 \
        CPU_SCHEDULING=batch WEBHOOK_WORKER=off ADMIN_LISTEN_ADDR="127.0.0.1:$admin_port" LOG_LEVEL=warn \
        "$ingest" serve >"$work/gateway.log" 2>&1 &
    gateway_pid=$!
    server_pid[$port]=$gateway_pid
    # The floor this architecture cannot beat (bench/passthrough): the same calls over a pool of the
    # same size and the same session settings that matter to a plan (generic plans), under the same
    # CPU scheduling, with nothing else.
    DATABASE_URL="$gateway_url?options=-c%20plan_cache_mode%3Dforce_generic_plan" LISTEN_ADDR="127.0.0.1:$bare_port" \
        POOL_SIZE=64 chrt --batch 0 "$root/target/release/bench-passthrough" >"$work/bare.log" 2>&1 &
    bare_pid=$!
    server_pid[$bare_port]=$bare_pid
    serving "$port" "$bare_port"
}

# Waits (at most 5 s each) until the servers on the ports given answer a ping with the bearer; stops
# the run, naming the port, when one does not (a measurement against it would be of nothing).
serving() {
    local ready_port
    for ready_port in "$@"; do
        for _ in $(seq 50); do curl -fs -o /dev/null -H "Authorization: $auth" "http://127.0.0.1:$ready_port/v1/ping" && break; sleep 0.1; done
        curl -fs -o /dev/null -H "Authorization: $auth" "http://127.0.0.1:$ready_port/v1/ping" ||
            { echo "the server on port $ready_port does not answer" >&2; exit 1; }
    done
}

# Every route measured, a line each: name | method | path | body | pgbench script and its variables |
# floor script and its variables | "write" (WAL per request measured) or "refused <status>" (the
# status every answer must have).
route_scenarios=(
    "GET /ping|GET|/v1/ping||ping.sql||"
    "GET /lots (50)|GET|/v1/lots?limit=50||lots_page.sql -D after=none -D limit=50|lots_page.sql -D after=none -D limit=50|"
    "GET /lots (200)|GET|/v1/lots?limit=200||lots_page.sql -D after=none -D limit=200|lots_page.sql -D after=none -D limit=200|"
    "GET one lot|GET|/v1/lots?after=lot-000001&limit=1||lots_page.sql -D after=lot-000001 -D limit=1|lots_page.sql -D after=lot-000001 -D limit=1|"
    "PUT lot, unchanged|PUT|/v1/lots/lot-000002|lot.json|lot_put.sql -D lot=lot-000002||write"
    "PUT lot, unchanged (other text)|PUT|/v1/lots/lot-000002|lot_other_text.json|lot_put.sql -D lot=lot-000002||write"
    "PUT lot, one field changed|PUT|/v1/lots/{lot}|changing.json|lot_put_changing.sql||write"
    "PUT lot, 64 KiB refused (\\u0000 last)|PUT|/v1/lots/lot-000003|refused_64k.json|||refused 422"
    "PUT lot, 64 KiB refused (9 000 × 1e1000)|PUT|/v1/lots/lot-000003|refused_exponents.json|||refused 422"
    "PUT lot, 64 KiB refused (a key twice, last of 6 500 objects)|PUT|/v1/lots/lot-000003|refused_repeated_key.json|||refused 422"
    "PUT lot, 64 KiB refused (a key twice after 16 000 tiny arrays)|PUT|/v1/lots/lot-000003|refused_tiny_arrays.json|||refused 422"
    "PUT lot, 64 KiB refused (5 400 top-level members, the first again last)|PUT|/v1/lots/lot-000003|refused_top_level_key.json|||refused 422"
    "PUT lot, 64 KiB read (32 000 numbers, unknown_field)|PUT|/v1/lots/lot-000003|read_numbers.json||json_read.sql|refused 422"
    "PUT lot, 64 KiB read (the lot laid out again, unchanged)|PUT|/v1/lots/lot-000004|read_lot.json|lot_put.sql -D lot=lot-000004|json_read.sql|write"
    "PUT rates, unchanged|PUT|/v1/lots/lot-000002/rates|rates.json|rates_put.sql -D lot=lot-000002||write"
    "GET blocked periods (100)|GET|/v1/lots/lot-000001/blocked-periods||blocked_periods_get.sql -D lot=lot-000001|blocked_periods.sql -D lot=lot-000001|"
    "PUT blocked periods (100), unchanged|PUT|/v1/lots/lot-000001/blocked-periods|closures.json|blocked_periods_put.sql -D lot=lot-000001||write"
    "GET /bookings (200, following next)|GET|/v1/bookings?limit=200||bookings_page.sql -D next=none -D limit=200|bookings_page.sql -D limit=200 -D at=-infinity -D ref=none|"
    "GET /bookings (500, following next)|GET|/v1/bookings?limit=500||bookings_page.sql -D next=none -D limit=500|bookings_page.sql -D limit=500 -D at=-infinity -D ref=none|"
)

# The route scenario $1's fields, and what they give: the body's file, pgbench's and the floor's
# script and arguments (variables of the caller's, which declares them).
route_vars() {
    IFS='|' read -r name method path body pgb floor writes <<<"$1"
    body_file=""; extra=(); floor_args=()
    [ -n "$body" ] && body_file="$work/$body" && extra=(-D "body=$(cat "$body_file")")
    read -r -a pgb_args <<<"$pgb"
    [ -n "$floor" ] && read -r -a floor_args <<<"$floor"
    return 0
}

# Every route at every concurrency: gateway, pass-through, pgbench and floor in alternating rounds.
measure_routes() {
    local scenario name method path body pgb floor writes c body_file pgb_args extra floor_args
    for scenario in "${route_scenarios[@]}"; do
        route_vars "$scenario"
        for c in $connections; do
            echo "$size: $name at $c" >&2
            local gw pg fl bare wal="" round wal_bytes=0 gw_rounds=() pg_rounds=() fl_rounds=() bare_rounds=()
            # Vacuum and analyze first: the route starts on clean tables, whatever an earlier route
            # (the changing PUT's dead rows and 512 lots) left. Then the unmeasured second.
            [ "$writes" = write ] && psql "$admin_url" -XqAt -c "VACUUM ANALYZE"
            gateway_run 1 >/dev/null
            gateway_run 1 "$bare_port" >/dev/null
            local clocks_before=""
            [ "$c" = 1 ] && clocks_before="$(gateway_clocks)"
            for round in $(seq "$rounds"); do
                [ "$writes" = write ] && statement_wal_reset
                gw_rounds+=("$(gateway_run "$window")")
                [ "$writes" = write ] && wal_bytes=$(( wal_bytes + $(statement_wal_bytes) ))
                bare_rounds+=("$(gateway_run "$window" "$bare_port")")
                # (no pgbench for a refusal: pgbench ends a client at its first error)
                [ -n "$pgb" ] && pg_rounds+=("$(run_pgbench "$c" "$gateway_url" -f "$root/bench/pgbench/${pgb_args[0]}" \
                                                    -D "auth=$auth" "${extra[@]}" "${pgb_args[@]:1}")")
                [ -n "$floor" ] && fl_rounds+=("$(run_pgbench "$c" "$admin_url" -f "$root/bench/floor/${floor_args[0]}" \
                                                      -D "operator=$operator" -D "key=${bearer%%.*}" -D "secret=${bearer#*.}" \
                                                      "${extra[@]}" "${floor_args[@]:1}")")
            done
            gw="$(combine_rounds "${gw_rounds[@]}")"
            bare="$(combine_rounds "${bare_rounds[@]}")"
            [ "$c" = 1 ] && one_connection+=("$size|$name|$(body_kib "$body_file")|$(same_requests_means "$clocks_before" "$(gateway_clocks)" "${gw_rounds[@]}")")
            pg="- - - - -"; fl="- - - - -"
            [ -n "$pgb" ] && pg="$(combine_rounds "${pg_rounds[@]}")"
            [ -n "$floor" ] && fl="$(combine_rounds "${fl_rounds[@]}")"
            if [ "$writes" = write ]; then
                local requests; requests="$(echo "$gw" | cut -d' ' -f5)"
                wal="$(( wal_bytes / (requests > 0 ? requests : 1) ))"
            fi
            rows+=("$size|$name|$c|$gw|$pg|$fl|$wal|$bare|$(cpu_per_request "${gw_rounds[@]}")|$(cpu_per_request "${bare_rounds[@]}")")
        done
    done
}

# Every route at every concurrency again, the gateway and in its turn the pass-through on one
# core, and everything else (PostgreSQL, wrk) on the other cores: the gateway as it runs in
# production, with the default CPU scheduling, against the pass-through under the same conditions.
measure_pinned() {
    [ "$pin" = on ] || return 0
    database_on_cores "$other_cores"
    DATABASE_URL="$gateway_url" LISTEN_ADDR="127.0.0.1:$pinned_port" RATE_LIMITS=off DATABASE_POOL_SIZE=64 \
        WEBHOOK_WORKER=off ADMIN_LISTEN_ADDR="" LOG_LEVEL=warn taskset -c "$gateway_core" "$ingest" serve >"$work/pinned.log" 2>&1 &
    pinned_pid=$!
    server_pid[$pinned_port]=$pinned_pid
    DATABASE_URL="$gateway_url?options=-c%20plan_cache_mode%3Dforce_generic_plan" LISTEN_ADDR="127.0.0.1:$pinned_bare_port" \
        POOL_SIZE=64 taskset -c "$gateway_core" "$root/target/release/bench-passthrough" >"$work/pinned_bare.log" 2>&1 &
    pinned_bare_pid=$!
    server_pid[$pinned_bare_port]=$pinned_bare_pid
    serving "$pinned_port" "$pinned_bare_port"
    local load_cores="$other_cores"
    local scenario name method path body pgb floor writes c body_file pgb_args extra floor_args round
    for scenario in "${route_scenarios[@]}"; do
        route_vars "$scenario"
        for c in $connections; do
            echo "$size: $name at $c, the gateway on a core of its own" >&2
            [ "$writes" = write ] && psql "$admin_url" -XqAt -c "VACUUM ANALYZE"
            gateway_run 1 "$pinned_port" >/dev/null
            gateway_run 1 "$pinned_bare_port" >/dev/null
            local gw_rounds=() bare_rounds=()
            for round in $(seq "$rounds"); do
                gw_rounds+=("$(gateway_run "$window" "$pinned_port")")
                bare_rounds+=("$(gateway_run "$window" "$pinned_bare_port")")
            done
            pinned_rows+=("$size|$name|$c|$(combine_rounds "${gw_rounds[@]}")|$(combine_rounds "${bare_rounds[@]}")|$(cpu_per_request "${gw_rounds[@]}")|$(cpu_per_request "${bare_rounds[@]}")")
        done
    done
    stop "$pinned_bare_pid"; pinned_bare_pid=""
    measure_soak "$pinned_port" "$pinned_pid"
    stop "$pinned_pid"; pinned_pid=""
    database_on_cores "$all_cores"
}

# The feed read through a second gateway from a standby made for it, against the primary.
measure_feed_from_standby() {
    # The feed from the standby: a second gateway reads it there, the first from the
    # primary, in alternating rounds at 16 connections, while the lag is sampled. The standby is
    # made of the cluster as it is now and removed after, so it replays nothing while the other
    # routes are measured (and needs no replication slot: it is never far behind).
    "$cluster" standby
    local read_url; read_url="$("$cluster" standby-url "$db" ingest_gateway)"
    DATABASE_URL="$gateway_url" DATABASE_READ_URL="$read_url" DATABASE_READ_POOL_SIZE=64 \
        LISTEN_ADDR="127.0.0.1:$standby_gateway_port" RATE_LIMITS=off DATABASE_POOL_SIZE=64 CPU_SCHEDULING=batch \
        WEBHOOK_WORKER=off ADMIN_LISTEN_ADDR="127.0.0.1:$standby_admin_port" LOG_LEVEL=warn \
        "$ingest" serve >"$work/standby_gateway.log" 2>&1 &
    standby_gateway_pid=$!
    server_pid[$standby_gateway_port]=$standby_gateway_pid
    standby_caught_up
    serving "$standby_gateway_port"
    sleep 2   # a publication or two in place
    sample_standby_lag "$db" >"$work/lag.samples" &
    lag_sampler_pid=$!
    local feed_routes=("GET /bookings (500, following next)|/v1/bookings?limit=500" "GET /bookings (200, following next)|/v1/bookings?limit=200")
    local feed_route served_before fallbacks_before feed_rows=() name path method body_file writes c round
    for feed_route in "${feed_routes[@]}"; do
        IFS='|' read -r name path <<<"$feed_route"
        method=GET; body_file=""; writes=""; c=16
        echo "$size: $name from the standby at $c" >&2
        served_before="$(standby_gateway_metric ingest_standby_reads_total)"
        fallbacks_before="$(standby_gateway_metric ingest_standby_fallbacks_total)"
        gateway_run 1 >/dev/null
        gateway_run 1 "$standby_gateway_port" >/dev/null
        local primary_rounds=() standby_rounds=()
        for round in $(seq "$rounds"); do
            primary_rounds+=("$(gateway_run "$window")")
            standby_rounds+=("$(gateway_run "$window" "$standby_gateway_port")")
        done
        feed_rows+=("$size|$name|$c|$(combine_rounds "${primary_rounds[@]}")|$(combine_rounds "${standby_rounds[@]}")|$(( $(standby_gateway_metric ingest_standby_reads_total) - served_before ))|$(( $(standby_gateway_metric ingest_standby_fallbacks_total) - fallbacks_before ))")
    done
    stop "$lag_sampler_pid"; lag_sampler_pid=""
    # the lag's highest over this size's runs, on each of its rows
    local lag_max; lag_max="$(awk '{ if ($1 > age) age = $1; if ($2 > wal) wal = $2 } END { printf "%.2f|%d", age, wal }' "$work/lag.samples")"
    standby_rows+=("${feed_rows[@]/%/|$lag_max}")
    stop "$standby_gateway_pid"; standby_gateway_pid=""
    "$cluster" standby-stop
}

# The platform's booking writes against their floor, the endpoint armed, then not.
measure_booking_writes() {
    # Booking writes, as the platform makes them: one booking a transaction through
    # platform.booking_record and platform.booking_update (a status change, a date change), at 1 and
    # 16 connections, with the operator's webhook endpoint armed (bench/generate.sql armed it: every
    # write leaves a hint; no worker runs, so the hints pile up as they would behind a slow receiver),
    # then disarmed (its waiting hints die, as a disarm does). The platform's functions are SECURITY
    # DEFINER: pgbench calls them as the superuser, against the plainest SQL writing the same row with
    # every trigger on, the lot found by its key (bench/floor/booking_*.sql), run as a role that owns
    # nothing, under the same forced row-level security (bench/floor/booking_writer.sql). No gateway
    # side: no HTTP route writes bookings.
    local booking_writes=("platform.booking_record|booking_record.sql" "platform.booking_update, status|booking_status.sql"
                          "platform.booking_update, dates|booking_dates.sql")
    local booking_vars=(-D "operator=$operator" -D "lots=$lots" -D "bookings=$bookings")
    local armed entry script name c round
    for armed in "armed" "not armed"; do
        [ "$armed" = "not armed" ] && endpoint_disarm
        for entry in "${booking_writes[@]}"; do
            IFS='|' read -r name script <<<"$entry"
            for c in $connections; do
                [ "$c" -gt 16 ] && continue
                echo "$size: $name (endpoint $armed) at $c" >&2
                psql "$admin_url" -XqAt -c "VACUUM ANALYZE app.bookings, app.lot_booking_days, app.webhook_hints"
                local pg_rounds=() fl_rounds=()
                for round in $(seq "$rounds"); do
                    pg_rounds+=("$(run_pgbench "$c" "$admin_url" -f "$root/bench/pgbench/$script" "${booking_vars[@]}")")
                    fl_rounds+=("$(run_pgbench "$c" "$booking_floor_url" -f "$root/bench/floor/$script" "${booking_vars[@]}")")
                done
                rows+=("$size|$name (endpoint $armed)|$c|- - - - -|$(combine_rounds "${pg_rounds[@]}")|$(combine_rounds "${fl_rounds[@]}")||- - - - -")
            done
        done
    done
}

# An unchanged lot PUT and a GET of the lot in the same seconds.
measure_interleaved() {
    # An unchanged lot PUT against a GET of the lot: both scripts in one pgbench run at one connection,
    # interleaved at random, so that both are measured in the same seconds.
    echo "$size: PUT lot, unchanged and GET one lot, interleaved" >&2
    lot_json_written_last
    window="$duration" run_pgbench 1 "$gateway_url" -D "auth=$auth" \
        -f "$root/bench/pgbench/lot_put.sql" -D lot=lot-000002 -D "body=$(cat "$work/lot.json")" \
        -f "$root/bench/pgbench/lots_page.sql" -D after=lot-000001 -D limit=1 >/dev/null
    script_p50() { awk -v script="$1" '$4 == script { print $3 / 1000 }' "$work/pgb.counted" | percentile 50; }
    interleaved+=("$size: $(script_p50 0) / $(script_p50 1)")
}

# The gateway's and the pass-through's peak resident memory.
record_peaks() {
    peak_of() { awk '/VmHWM/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$1/status"; }
    peak_rss+=("$size: $(peak_of "$gateway_pid")")
    bare_peak_rss+=("$size: $(peak_of "$bare_pid")")
}

# After the last size: every route at once for BENCH_SOAK seconds at 64 connections to the gateway
# on port $1 (process $2), its resident memory sampled every 5 s. A leak, or buffers kept that grow
# with what the gateway has served, shows as growth after the first minute (by then every route's
# buffers are at their size).
measure_soak() {
    local soak_port="$1" soak_pid="$2"
    [ "$soak" -gt 0 ] && [ "$size" = "${sizes##* }" ] || return 0
    local scenario name method path body pgb floor writes body_file pgb_args extra floor_args
    : >"$work/mix"
    for scenario in "${route_scenarios[@]}"; do
        route_vars "$scenario"
        echo "$method $path $body_file" >>"$work/mix"
    done
    echo "$size: soak, every route at 64 connections for $soak s" >&2
    (
        local started=$SECONDS
        while true; do
            echo "$(( SECONDS - started )) $(awk '/VmRSS/ { print $2 }' "/proc/$soak_pid/status")"
            sleep 5
        done
    ) >"$work/rss.samples" &
    rss_sampler_pid=$!
    local measured
    measured="$(BENCH_MIX="$work/mix" BENCH_AUTHORIZATION="$auth" run_wrk 64 "$soak" "$soak_port")"
    stop "$rss_sampler_pid"; rss_sampler_pid=""
    # (the baseline: the first sample after a minute, or after half a soak shorter than two)
    local from=$(( soak < 120 ? soak / 2 : 60 ))
    local rss; rss="$(awk -v from="$from" '$1 >= from && !at_minute { at_minute = $2 } { last = $2; if ($2 > peak) peak = $2 }
                         END { printf "%.1f %.1f %.1f %s", at_minute / 1024, last / 1024, peak / 1024,
                               at_minute ? sprintf("%.1f", (last - at_minute) * 100 / at_minute) : "-" }' "$work/rss.samples")"
    read -r at_minute last peak growth <<<"$rss"
    read -r rate _ _ errors requests _ <<<"$measured"
    soak_line="$size, $soak s: $requests requests ($rate req/s), errors $errors; resident memory $at_minute MiB at $from s, $last MiB at the end, peak $peak MiB; growth $growth %"
}

# The gateway and the pass-through stopped.
stop_gateways() {
    stop "$gateway_pid"; gateway_pid=""
    stop "$bare_pid"; bare_pid=""
}

bench_size() {
    # (the size's variables, which the steps below read and set)
    local size="$1" lots bookings small db gateway_url bearer operator auth booking_floor_url
    case "$size" in
        small) lots=1000; bookings=10000; small=100 ;;
        large) lots=10000; bookings=1000000; small=1000 ;;
        *) echo "unknown size $size" >&2; exit 1 ;;
    esac
    make_database
    write_bodies
    start_gateways
    measure_routes
    measure_feed_from_standby
    measure_booking_writes
    measure_interleaved
    record_peaks
    # (the pinned pair's pools, 64 connections each, fit under max_connections only once these two
    # are gone; the soak runs on the pinned gateway when there is one)
    [ "$pin" = on ] || measure_soak "$port" "$gateway_pid"
    stop_gateways
    measure_pinned
}

for size in $sizes; do bench_size "$size"; done

# --- the table -----------------------------------------------------------------------------------

# The run before this one, for the targets' "earlier → now".
earlier="$work/earlier.md"
if [ -f "$out" ]; then cp "$out" "$earlier"; else : >"$earlier"; fi
{
    echo "## Results of the latest run"
    echo
    echo "Written by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD),"
    echo "$(nproc) cores, $(psql "$admin_url" -XAtqc 'SHOW server_version'), each side measured ${duration} s on a route,"
    echo "in $rounds alternating rounds of $window s (see bench/run.sh). **Rate limits"
    echo "lifted for the run (RATE_LIMITS=off).** Gateway: release build, pool of 64, every request line"
    echo "written to a file (LOG_LEVEL=warn quiets only the operational log), CPU_SCHEDULING=batch (it"
    echo "shares these cores with PostgreSQL; the default is normal); wrk over loopback. pgbench: the"
    echo "gateway's own SQL call as its role (\`-M prepared\`). Floor: the plainest SQL"
    echo "returning the same JSON, as the superuser (no row-level security; GET /lots checks the credential by"
    echo "key id and HMAC, the other floors none). req/s and tps: the rounds' mean; latencies in ms, p50 the"
    echo "rounds' median, p99 the highest of the rounds';"
    echo "gw/pg = gateway req/s ÷ pgbench tps; fn/floor = pgbench p50 ÷ floor p50; WAL = bytes the gateway's"
    echo "statements wrote per request (write routes; pg_stat_statements, commit records not included)."
    echo "Errors: non-2xx answers and socket errors (wrk), failed transactions (pgbench)."
    echo "Bare: the pass-through floor (bench/passthrough: the route's same call over a pool of 64, nothing"
    echo "else), driven by wrk like the gateway; gw/bare = gateway req/s ÷ bare req/s; bare/pg = bare req/s ÷"
    echo "pgbench tps."
    echo
    echo "Gateway peak resident memory: ${peak_rss[*]}."
    echo
    echo "Pass-through peak resident memory, the same requests: ${bare_peak_rss[*]}."
    echo
    echo "Soak, every route at once at 64 connections (the gateway's resident memory every 5 s): $soak_line."
    echo
    echo "PUT lot, unchanged / GET one lot, interleaved in one pgbench run at one connection (p50, ms): ${interleaved[*]}."
    echo
    echo "| size | route | conns | gateway req/s | p50 | p99 | errors | pgbench tps | p50 | p99 | errors | gw/pg | floor tps | floor p50 | fn/floor | WAL B/req | bare req/s | bare p50 | bare errors | gw/bare | bare/pg | gw CPU µs/req | bare CPU µs/req |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    # a ÷ b to two decimals, or "-" when either is missing
    ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "-" && b != "-" && b > 0) printf "%.2f", a / b; else print "-" }'; }
    for row in "${rows[@]}"; do
        IFS='|' read -r size name c gw pg fl wal bare gw_cpu bare_cpu <<<"$row"
        read -r g_rps g_p50 g_p99 g_err _ <<<"$gw"
        read -r p_tps p_p50 p_p99 p_err _ <<<"$pg"
        read -r f_tps f_p50 _ _ _ <<<"$fl"
        read -r b_rps b_p50 _ b_err _ <<<"${bare:-- - - - -}"
        floor_ratio="-"
        [ "$f_tps" != "-" ] && [ "$p_tps" != "-" ] && floor_ratio="$(ratio_of "$p_p50" "$f_p50")"
        echo "| $size | $name | $c | $g_rps | $g_p50 | $g_p99 | $g_err | $p_tps | $p_p50 | $p_p99 | $p_err | $(ratio_of "$g_rps" "$p_tps") | $f_tps | $f_p50 | $floor_ratio | ${wal:--} | $b_rps | $b_p50 | $b_err | $(ratio_of "$g_rps" "$b_rps") | $(ratio_of "$b_rps" "$p_tps") | ${gw_cpu:--} | ${bare_cpu:--} |"
    done
    if [ "${#pinned_rows[@]}" -gt 0 ]; then
        echo
        echo "## The gateway on a core of its own"
        echo
        echo "Every route again with the gateway, and in its turn the pass-through, on core $gateway_core alone (taskset,"
        echo "default CPU scheduling, one runtime thread), and PostgreSQL and wrk on the other cores: as in"
        echo "production, where the gateway does not share its cores with the database. The same rounds and"
        echo "figures as above; CPU µs/req: the process's user and system time over the requests it answered."
        echo
        echo "| size | route | conns | gateway req/s | p50 | p99 | errors | bare req/s | bare p50 | bare p99 | bare errors | gw/bare | gw CPU µs/req | bare CPU µs/req |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        for row in "${pinned_rows[@]}"; do
            IFS='|' read -r size name c gw bare gw_cpu bare_cpu <<<"$row"
            read -r g_rps g_p50 g_p99 g_err _ <<<"$gw"
            read -r b_rps b_p50 b_p99 b_err _ <<<"$bare"
            echo "| $size | $name | $c | $g_rps | $g_p50 | $g_p99 | $g_err | $b_rps | $b_p50 | $b_p99 | $b_err | $(ratio_of "$g_rps" "$b_rps") | $gw_cpu | $bare_cpu |"
        done
    fi
    echo
    echo "## One connection: where the added time goes"
    echo
    echo "The same requests seen from three clocks (means, ms): wrk's; the gateway's own, from a request's"
    echo "arrival to its answer; and the gateway's database call within it (its /metrics, read before and"
    echo "after the rounds). Gateway's own = request − database call: what the gateway's code costs. HTTP"
    echo "exchange = wrk − request: the second process's hop (sockets, wake-ups, parsing on both sides)."
    echo "Drift between rounds cannot enter these differences; it can enter gateway p50 − pgbench p50."
    echo
    # (route first: bench/targets.sh reads the rows that begin with a size as the main table's)
    echo "| route | size | body (KiB) | wrk mean | gateway request | database call | gateway's own (µs) | HTTP exchange (µs) |"
    echo "|---|---|---|---|---|---|---|---|"
    for row in "${one_connection[@]}"; do
        IFS='|' read -r size name kib client request call <<<"$row"
        read -r own hop <<<"$(awk -v client="$client" -v request="$request" -v call="$call" 'BEGIN {
            if (call == "-") print "- -"; else printf "%.0f %.0f\n", (request - call) * 1000, (client - request) * 1000 }')"
        echo "| $name | $size | $kib | $client | $request | $call | $own | $hop |"
    done
    echo
    echo "## The feed from a standby"
    echo
    echo "GET /bookings read through a second gateway from a hot standby of the cluster on this machine"
    echo "(sql/dev/cluster.sh standby: pg_basebackup -R; DATABASE_READ_URL, a publication of the booking writers"
    echo "every second), against the gateway above reading it from the primary, in $rounds alternating rounds"
    echo "of $window s after one unmeasured second each. A standby read is two calls: the primary's authentication"
    echo "and read assertion, then the standby's page. standby/primary = req/s ÷ req/s; errors: non-2xx answers"
    echo "and socket errors of both. Reads by the standby, and fallbacks (reads the primary served instead): the"
    echo "second gateway's counters over the rounds. Lag, sampled every half second over a size's runs: the"
    echo "highest age of the last publication the standby held, and the most WAL it had yet to replay."
    echo
    echo "| route | size | conns | primary req/s | p50 | standby req/s | p50 | standby/primary | errors | reads by the standby | fallbacks | max publication age (s) | max WAL to replay (bytes) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for row in "${standby_rows[@]}"; do
        IFS='|' read -r size name c primary standby served fallbacks age wal <<<"$row"
        read -r p_rps p_p50 _ p_err _ <<<"$primary"
        read -r s_rps s_p50 _ s_err _ <<<"$standby"
        errors="$(( ${p_err%%+*} + ${s_err%%+*} ))"
        [[ "$p_err$s_err" == *aborted* ]] && errors="$errors+aborted"
        echo "| $name | $size | $c | $p_rps | $p_p50 | $s_rps | $s_p50 | $(ratio_of "$s_rps" "$p_rps") | $errors | $served | $fallbacks | $age | $wal |"
    done
} >"$out.new"
{
    echo
    "$root/bench/targets.sh" "$out.new" "$earlier"
    echo
    echo "Decisions kept: [FINDINGS.md](FINDINGS.md)."
} >>"$out.new"
# The hand-written part of the file (how a run measures, what its results mean) is kept.
"$root/bench/results_file.sh" "$out" \
    '<!-- bench/run.sh keeps everything above this line and writes everything below it -->' Benchmarks <"$out.new"
rm "$out.new"
