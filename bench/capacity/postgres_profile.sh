#!/usr/bin/env bash
# Where PostgreSQL's time went over a capacity step (bench/capacity/run.sh calls it around each):
#
#   postgres_profile.sh start  ADMIN_URL POSTMASTERS SNAPSHOT   before the step: statements' counts
#                                                              reset, each server process's CPU noted
#   postgres_profile.sh report ADMIN_URL POSTMASTERS SNAPSHOT SECONDS
#                                                              after it: markdown, to standard output
#
# POSTMASTERS: process ids, comma-separated (a primary and its standby). The report has two tables:
# - the CPU of the servers' processes by kind (each login role's connections, autovacuum, the WAL
#   writer, …), in cores over the step; a process that ended within the step (an autovacuum worker
#   that finished) is not counted, so the kinds may add up to less than the step's PostgreSQL CPU;
#   with a standby, each server's own total beside it;
# - each route's call (the top-level statements) with its CPU per request: the connections' CPU
#   over the step shared among the calls by their execution time (an estimate: PostgreSQL counts
#   no CPU by statement, and a call's time includes its waits);
# - the statements that took the most execution time (pg_stat_statements, tracking nested
#   statements in this database: a function's own statements appear beside its call, whose time
#   includes theirs).
set -euo pipefail

command=$1 admin_url=$2 postmasters=$3 snapshot=$4

# "pid ticks kind" for each child of the postmasters (ticks: its user and system CPU time, from
# /proc); a connection's kind is its login role.
processes() {
    ps --ppid "${1:-$postmasters}" -o pid=,args= | while read -r pid args; do
        # (after "pid (command) ", utime and stime are the 12th and 13th fields)
        ticks=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null) || continue
        echo "$pid $ticks $args"
    done | awk '{
        kind = $4
        for (i = 5; i <= NF; i++) kind = kind " " $i
        if (kind ~ /^walsender/) kind = "WAL sender"
        else if (kind ~ /^autovacuum worker/) kind = "autovacuum workers"
        else if (kind ~ /^[^ ]+ [^ ]+ ([0-9a-f.:]+\([0-9]+\)|\[local\])/) kind = "connections of " $4
        else sub(/ [^ ]*[0-9\/].*$/, "", kind)
        print $1, $2, kind
    }'
}

case "$command" in
start)
    psql "$admin_url" -XAtqc "SELECT capacity.pg_stat_statements_reset()" >/dev/null
    processes >"$snapshot"
    ;;
report)
    seconds=$5
    echo "Where PostgreSQL's time went over the step (warm-up included):"
    echo
    echo "| server processes | cores |"
    echo "|---|---|"
    # "cores|kind" over the step of the children of one postmaster (each server read once)
    kinds() {
        processes "$1" | awk -v seconds="$(( seconds * $(getconf CLK_TCK) ))" '
            NR == FNR { before[$1] = $2; next }
            { kind = $3; for (i = 4; i <= NF; i++) kind = kind " " $i
              used[kind] += $2 - ($1 in before ? before[$1] : 0) }
            END { for (kind in used) if (used[kind] > 0) printf "%.6f|%s\n", used[kind] / seconds, kind }' \
            "$snapshot" -
    }
    primary=$(kinds "${postmasters%%,*}")
    standby="" with_standby=""
    [ "${postmasters#*,}" = "$postmasters" ] || { with_standby=1; standby=$(kinds "${postmasters#*,}"); }
    # both servers' kinds together, busiest first
    printf '%s\n%s\n' "$primary" "$standby" | awk -F'|' 'NF == 2 { cores[$2] += $1 }
        END { for (kind in cores) printf "%.6f|%s\n", cores[kind], kind }' |
        sort -t'|' -k1,1 -rn | awk -F'|' '{ printf "| %s | %.2f |\n", $2, $1 }'
    echo
    # With a standby, each server's own share (what each would need on a machine of its own)
    if [ -n "$with_standby" ]; then
        server_cores() { awk -F'|' '{ sum += $1 } END { printf "%.2f", sum }' <<<"$1"; }
        echo "The primary's processes: $(server_cores "$primary") cores; the standby's: $(server_cores "$standby") cores."
        echo
    fi
    # (the CPU of the primary's connections, in ms over the step, for the table of calls: the
    # statements are the primary's)
    connections_ms=$(awk -F'|' -v seconds="$seconds" '$2 ~ /^connections of / { sum += $1 } END { printf "%d", sum * seconds * 1000 }' <<<"$primary")
    echo "| each route's call (top level) | calls a second | mean ms | PostgreSQL CPU ms a call (estimated) |"
    echo "|---|---|---|---|"
    calls=$(cat <<'SQL'
SELECT left(regexp_replace(regexp_replace(s.query, '\s+', ' ', 'g'), '`', '', 'g'), 100),
       round(s.calls / :seconds::numeric, 1), round(s.mean_exec_time::numeric, 3),
       round((:connections_ms * s.total_exec_time / sum(s.total_exec_time) OVER () / s.calls)::numeric, 3)
  FROM capacity.pg_stat_statements AS s
 WHERE s.dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())
   AND s.toplevel AND s.calls > 0
   AND s.userid IN ('ingest_gateway'::regrole, 'capacity_platform'::regrole, 'webhook_worker'::regrole)
 ORDER BY s.total_exec_time DESC
 LIMIT 12
SQL
)
    psql "$admin_url" -XAtq -v ON_ERROR_STOP=1 -F $'\t' -v seconds="$seconds" -v connections_ms="$connections_ms" <<<"$calls" |
        awk -F'\t' '{ gsub(/\|/, "\\|", $1); printf "| `%s` | %s | %s | %s |\n", $1, $2, $3, $4 }'
    echo
    echo "| statement (the primary's) | calls a second | mean ms | ms a second |"
    echo "|---|---|---|---|"
    statements=$(cat <<'SQL'
SELECT left(regexp_replace(regexp_replace(s.query, '\s+', ' ', 'g'), '`', '', 'g'), 100),
       round(s.calls / :seconds::numeric, 1), round(s.mean_exec_time::numeric, 3),
       round((s.total_exec_time / :seconds)::numeric, 1)
  FROM capacity.pg_stat_statements AS s
 WHERE s.dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())
 ORDER BY s.total_exec_time DESC
 LIMIT 15
SQL
)
    psql "$admin_url" -XAtq -v ON_ERROR_STOP=1 -F $'\t' -v seconds="$seconds" <<<"$statements" |
        awk -F'\t' '{ gsub(/\|/, "\\|", $1); printf "| `%s` | %s | %s | %s |\n", $1, $2, $3, $4 }'
    echo
    ;;
*)
    echo "usage: $0 start|report ADMIN_URL POSTMASTERS SNAPSHOT [SECONDS]" >&2
    exit 2
    ;;
esac
