#!/usr/bin/env bash
# Webhook hints from `make run` to a receiver on this machine (docs/integrating.md, "Receiving a hint
# locally"): `make hints-up`, then the two commands it prints; `make hints-down` undoes it all.
#
#   sql/dev/local_hints.sh up [ADDRESS]   ADDRESS: the loopback address the receiver listens on, port
#                                         443 (default 127.0.0.2, so 127.0.0.1:443 may stay taken)
#   sql/dev/local_hints.sh down
#
# up: under .pg/hooks/, a certificate authority of its own and a certificate it signs for
# hooks.example.test; a line in /etc/hosts sending that name to ADDRESS (marked, so down finds it);
# the demo operator's endpoint registered at https://hooks.example.test/booking-changed with a fresh
# secret (kept in .pg/hooks/secret, mode 600, never printed), as the console registers one; the
# example receiver's virtual environment. The service must then run with two staging settings, never
# set in production: the loopback range counted as public, and the authority trusted.
# down: the endpoint disarmed, the hosts line removed, .pg/hooks/ removed.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cluster="$root/sql/dev/cluster.sh"
dir="$root/.pg/hooks"
name=hooks.example.test
marker="# ingest: make hints-up"
demo_user=00000000-0000-4000-8000-00000000de00
url="${DATABASE_URL:-$("$cluster" url)}"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

# console <sql>: runs sql as the demo owner through the console's functions, as PostgREST does.
console() {
    psql "$url" -qAtX -v ON_ERROR_STOP=1 -v user="$demo_user" "$@" <<SQL
\\set QUIET 1
SELECT operator_id AS operator FROM app.memberships WHERE user_id = :'user' LIMIT 1 \\gset
BEGIN;
SET LOCAL ROLE authenticated;
SELECT set_config('request.jwt.claims', json_build_object('sub', :'user', 'role', 'authenticated')::text, true),
       set_config('request.headers', json_build_object('x-tenant-id', :'operator')::text, true) \\g /dev/null
SELECT count(*) FROM console.webhook_endpoint_disarm() \\g /dev/null
$(cat)
COMMIT;
SQL
}

up() {
    local address=${1:-127.0.0.2}
    [[ "$address" =~ ^127\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "hints: $address is not a loopback address" >&2; exit 2; }
    psql "$url" -qAtX -c "SELECT 1 FROM app.memberships WHERE user_id = '$demo_user'" | grep -q 1 \
        || { echo "hints: no demo operator: run make run first" >&2; exit 1; }
    mkdir -p "$dir"
    chmod 700 "$dir"
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=local hooks CA" \
        -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=$name" \
        -addext "subjectAltName=DNS:$name" -addext "basicConstraints=CA:FALSE" \
        -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -keyout "$dir/hook.key" -out "$dir/hook.pem" 2>/dev/null
    (umask 077 && printf 'whsec_%s' "$(openssl rand -hex 32)" >"$dir/secret")

    $sudo sed -i "/$marker\$/d" /etc/hosts
    echo "$address $name $marker" | $sudo tee -a /etc/hosts >/dev/null

    console -v secret="$(cat "$dir/secret")" <<'SQL'
SELECT count(*) FROM console.webhook_endpoint_register('https://hooks.example.test/booking-changed', :'secret') \g /dev/null
SQL

    if [ ! -x "$dir/venv/bin/python" ]; then
        python3 -m venv "$dir/venv"
        "$dir/venv/bin/pip" install -q -r "$root/gateway/examples/requirements.txt"
    fi

    # (on the addresses make run served last; the cluster's port the cluster itself remembers)
    local served
    served=$(cat "$root/.pg/listen" 2>/dev/null || true)
    cat <<EOT
Hints go to https://$name/booking-changed, which this machine's hosts file sends to $address.
1. The service, with the staging settings (stop a running make run first):

  ${served:+$served }WEBHOOK_PUBLIC_RANGES=127.0.0.0/8 WEBHOOK_EXTRA_ROOTS=$dir/ca.pem make run

2. In a second shell, with BASE and TOKEN exported as make run printed them, the example receiver
   (port 443: as root, or after sudo sysctl net.ipv4.ip_unprivileged_port_start=443):

  INGEST_BASE_URL=\$BASE INGEST_CREDENTIAL=\$TOKEN WEBHOOK_SECRET=\$(cat $dir/secret) LISTEN_ADDR=$address:443 \\
      TLS_CERT=$dir/hook.pem TLS_KEY=$dir/hook.key STATE_DB=$dir/bookings.sqlite3 \\
      $dir/venv/bin/python gateway/examples/webhook_receiver.py

Then make demo-booking: make run logs a "webhook attempt" with status 204, the receiver "stored booking".
make hints-down undoes it.
EOT
}

down() {
    console <<'SQL' || true
SQL
    $sudo sed -i "/$marker\$/d" /etc/hosts
    rm -rf "$dir"
    echo "hints: endpoint disarmed, hosts line and .pg/hooks/ removed"
}

case "${1:-}" in
    up) up "${2:-}" ;;
    down) down ;;
    *) sed -n '2,9p' "$0" >&2; exit 2 ;;
esac
