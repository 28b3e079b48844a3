#!/usr/bin/env bash
# The integrator's guide's Python section (docs/integrating.md, "In Python"), run as written: its
# shell block in a fresh folder (a venv, the pinned generator from PyPI, the client generated from
# the gateway's own document and installed), then its Python block with that venv's Python, against
# the gateway of gateway/contract/gateway.sh. The answers it prints are checked: the ping, the dry
# run and the PUT of a new lot, and the seed's two bookings read to the feed's end.
#
#   INGEST_BIN=target/debug/ingest gateway/contract/gateway.sh gateway/contract/guide_python.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
section=$(awk '/^## In Python$/ { inside = 1; next } /^## / { inside = 0 } inside' "$root/docs/integrating.md")
block() { printf '%s\n' "$section" | awk -v fence="\`\`\`$1" '$0 == fence { inside = 1; next } /^```$/ { inside = 0 } inside'; }
shell_block=$(block sh)
python_block=$(block python)
[ -n "$shell_block" ] && [ -n "$python_block" ] || { echo "guide: no sh and python blocks under '## In Python'" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export BASE="$INGEST_BASE_URL" TOKEN="$INGEST_BEARER"
bash -euo pipefail -c "$shell_block"
printf '%s\n' "$python_block" >guide.py
printed=$(ingest-client-venv/bin/python guide.py)

expect() {
    grep -qxE "$1" <<<"$printed" || { printf 'guide: no line matching %s in:\n%s\n' "$1" "$printed" >&2; exit 1; }
}
expect "ping: ${TOKEN%%.*}"
expect "dry run: created \[.*'name'.*\]"
expect "PUT: created"
[ "$(grep -c '^booking: ' <<<"$printed")" = 2 ] || { printf 'guide: not the two bookings:\n%s\n' "$printed" >&2; exit 1; }
echo "guide's Python section: runs as written (ping, dry run, PUT, the feed to its end)"
