#!/usr/bin/env bash
# The local development and test PostgreSQL cluster under .pg/ (never for production).
#
#   sql/dev/cluster.sh install   install missing Debian packages (PostgreSQL 15, pgTAP, pg_prove, plpgsql_check,
#                                locales) and the en_US.UTF-8 locale (the tests' second database uses it)
#   sql/dev/cluster.sh install tests   the same, and the failover tests' (patroni, etcd-server, faketime)
#   sql/dev/cluster.sh start     install, create the cluster if missing, start it if not running (and
#                                restart it if it runs without the allocator settings below)
#   sql/dev/cluster.sh stop      stop it
#   sql/dev/cluster.sh restart   stop it and start it (a setting read only at start: make bench's)
#   sql/dev/cluster.sh url [db] [login]  print the URL of a database (default: ingest) for a login
#                                       (default: the superuser postgres)
#   sql/dev/cluster.sh standby   make a hot standby of the running cluster afresh (pg_basebackup -R:
#                                streaming replication) under .pg/standby and start it (make bench's)
#   sql/dev/cluster.sh standby-stop     stop and remove it
#   sql/dev/cluster.sh standby-url [db] [login]  as url, for the standby
#   sql/dev/cluster.sh statements  preload pg_stat_statements (a restart, once), tracking nothing
#                                unless a database sets pg_stat_statements.track (the benchmarks')
#
# The cluster listens on 127.0.0.1:$PG_PORT (default 15432: below the kernel's ephemeral port range,
# 32768-60999 on Linux, so no client connection's own port can ever take it while the server is
# down) and on a socket under .pg/run, with trust authentication: loopback only, for local
# development and tests. The port it was last started on is kept in .pg/port and is the default
# from then on, so `url` (make demo-booking, make hints-up, the tests) finds the cluster that
# `PG_PORT=… make run` started without being told again. initdb refuses to run as root, so as root
# the cluster belongs to the `postgres` OS user.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
pg_dir="$root/.pg"
port="${PG_PORT:-$(cat "$pg_dir/port" 2>/dev/null || echo 15432)}"
standby_dir="$pg_dir/standby"
standby_port="${PG_STANDBY_PORT:-15433}"   # below the ephemeral range too
bin="/usr/lib/postgresql/15/bin"
packages=(postgresql-15 postgresql-15-pgtap postgresql-15-plpgsql-check libtap-parser-sourcehandler-pgtap-perl locales)
# The failover tests' high-availability cluster: make test's alone.
test_packages=(patroni etcd-server faketime)

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# glibc's allocator in the server's processes (docs/operating.md, "The database and its roles"):
# blocks of up to 4 MiB from the heap rather than from a fresh mapping each time, and up to 8 MiB of
# freed heap kept, so a backend's large request (a 64 KiB body, a page of 500 bookings) does not
# fault in fresh pages at every call, and costs the same on a new backend as on one that served a
# larger request before (glibc's own thresholds move with what a backend freed last). Elsewhere than
# glibc, ignored.
server_malloc="glibc.malloc.mmap_threshold=4194304:glibc.malloc.trim_threshold=8388608"
# The settings the running server was started with, and which server that was (removed when it
# stops): `start` restarts a server that runs without them, or was started some other way.
malloc_marker="$pg_dir/run/server-malloc"

# pg_ctl, its server started with the allocator's settings.
pg_ctl() {
    as_owner env GLIBC_TUNABLES="$server_malloc" "$bin/pg_ctl" "$@"
}

# The settings and the server they were given to (its postmaster.pid's PID and start time), so a
# marker left behind by a server stopped or restarted some other way vouches for no other server.
server_identity() {
    printf '%s %s' "$server_malloc" "$(as_owner sed -n '1p;3p' "$pg_dir/data/postmaster.pid" 2>/dev/null | tr '\n' ' ')"
}

mark_started() {
    server_identity | as_owner tee "$malloc_marker" >/dev/null
}

install() {
    [ "${1:-}" = tests ] && packages+=("${test_packages[@]}")
    install_packages
    # A non-C locale for the body-validation tests' second database (pgtap/run.sh).
    if ! locale -a 2>/dev/null | grep -qix 'en_US.utf-\?8'; then
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo localedef -i en_US -f UTF-8 en_US.UTF-8
        # A server started before the locale existed cannot see it until it restarts.
        if [ -f "$pg_dir/data/PG_VERSION" ] && pg_ctl -D "$pg_dir/data" status >/dev/null 2>&1; then
            pg_ctl -D "$pg_dir/data" -l "$pg_dir/server.log" -o "-p $port" -w -t 60 restart >/dev/null
            mark_started
        fi
    fi
}

install_packages() {
    local missing=()
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Debian's package starts a default cluster on 5432; this project uses its own on a private port.
    # etcd-server, just installed, starts a member on 2379 where systemd runs; the tests start their own.
    if [[ " ${missing[*]} " == *" etcd-server "* && -d /run/systemd/system ]]; then
        $sudo systemctl disable --now etcd >/dev/null 2>&1 || true
    fi
}

create() {
    [ -f "$pg_dir/data/PG_VERSION" ] && return 0
    mkdir -p "$pg_dir"
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$pg_dir"
        if ! runuser -u postgres -- test -w "$pg_dir"; then
            echo "the postgres OS user cannot reach $pg_dir (a parent folder is closed to it);" \
                 "clone the project where other users can traverse, or set DATABASE_URL" >&2
            exit 1
        fi
    fi
    as_owner "$bin/initdb" -D "$pg_dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    as_owner mkdir -p "$pg_dir/run"
    cat >>"$pg_dir/data/postgresql.conf" <<CONF
# sql/dev/cluster.sh: a loopback-only development cluster
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$pg_dir/run'
max_connections = 200
synchronous_commit = off
CONF
}

start() {
    install
    create
    if pg_ctl -D "$pg_dir/data" status >/dev/null 2>&1; then
        if [ "$(as_owner sed -n '4p' "$pg_dir/data/postmaster.pid")" != "$port" ]; then
            echo "restarting the development cluster on port $port" >&2
        elif [ "$(cat "$malloc_marker" 2>/dev/null)" != "$(server_identity)" ]; then
            echo "restarting the development cluster: started without its allocator settings" >&2
        else
            echo "$port" >"$pg_dir/port"
            return 0
        fi
        stop
    fi
    # The port on the command line: a cluster made when the default port was another keeps working.
    pg_ctl -D "$pg_dir/data" -l "$pg_dir/server.log" -o "-p $port" -w -t 60 start >/dev/null
    mark_started
    echo "$port" >"$pg_dir/port"
    as_owner "$bin/psql" -h "$pg_dir/run" -p "$port" -U postgres -d postgres -Atqc \
        "SELECT 1 FROM pg_database WHERE datname = 'ingest'" | grep -q 1 ||
        as_owner "$bin/createdb" -h "$pg_dir/run" -p "$port" -U postgres ingest
}

# Restarts a running cluster (a setting that only takes effect at start, such as
# shared_preload_libraries); starts a stopped one.
restart() {
    stop
    start
}

stop() {
    [ -f "$pg_dir/data/PG_VERSION" ] || return 0
    pg_ctl -D "$pg_dir/data" -w -m fast stop >/dev/null 2>&1 || true
    pg_ctl -D "$pg_dir/data" status >/dev/null 2>&1 || rm -f "$malloc_marker"
}

# pg_stat_statements preloaded in the running cluster (restarting it the first time), its tracking
# off wherever a database does not turn it on: the benchmarks read their own databases' statements.
statements() {
    local psql=(as_owner "$bin/psql" -h "$pg_dir/run" -p "$port" -U postgres -d postgres -XAtq)
    if [[ "$("${psql[@]}" -c "SHOW shared_preload_libraries")" != *pg_stat_statements* ]]; then
        echo "preloading pg_stat_statements in the development cluster (restart)" >&2
        "${psql[@]}" -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
        restart
    fi
    if [ "$("${psql[@]}" -c "SHOW pg_stat_statements.track")" != none ]; then
        "${psql[@]}" -c "ALTER SYSTEM SET pg_stat_statements.track = 'none'" -c "SELECT pg_reload_conf()" >/dev/null
    fi
}

# A fresh hot standby of the running cluster: every database, streaming from it and replaying as it
# comes, readable (hot_standby), and with hot_standby_feedback so the primary's vacuum does not
# cancel the standby's queries.
standby() {
    standby_stop
    as_owner mkdir -p "$standby_dir/run"
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$port" -U postgres -D "$standby_dir/data" -R -X stream -c fast
    as_owner tee -a "$standby_dir/data/postgresql.conf" >/dev/null <<CONF
# sql/dev/cluster.sh standby: a hot standby of the development cluster
port = $standby_port
unix_socket_directories = '$standby_dir/run'
hot_standby = on
hot_standby_feedback = on
CONF
    pg_ctl -D "$standby_dir/data" -l "$standby_dir/server.log" -o "-p $standby_port" -w -t 120 start >/dev/null
}

standby_stop() {
    if [ -f "$standby_dir/data/PG_VERSION" ]; then
        pg_ctl -D "$standby_dir/data" -w -m fast stop >/dev/null 2>&1 || true
        if pg_ctl -D "$standby_dir/data" status >/dev/null 2>&1; then
            echo "the standby under $standby_dir did not stop: left in place" >&2
            return 1
        fi
    fi
    rm -rf "$standby_dir"
}

case "${1:-}" in
    install) install "${2:-}" ;;
    start) start ;;
    stop) stop ;;
    restart) restart ;;
    url) echo "postgres://${3:-postgres}@127.0.0.1:$port/${2:-ingest}" ;;
    standby) standby ;;
    standby-stop) standby_stop ;;
    standby-url) echo "postgres://${3:-postgres}@127.0.0.1:$standby_port/${2:-ingest}" ;;
    statements) statements ;;
    *) echo "usage: $0 install|start|stop|restart|url [db] [login]|standby|standby-stop|standby-url [db] [login]|statements" >&2; exit 2 ;;
esac
