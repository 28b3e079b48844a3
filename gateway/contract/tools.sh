#!/usr/bin/env bash
# Installs the pinned tools that check the published OpenAPI document, all under target/, once and
# again whenever a pin changes:
#   python  target/pytools: a virtual environment from requirements.txt (every version pinned)
#   node    target/nodetools: `npm ci` from package.json and package-lock.json (Node.js and npm from
#           Debian if absent: Debian 12's Node 18 runs every pinned version)
#   browser Chromium from Debian's packages, for the documentation page's check (docs_page.py)
#
#   gateway/contract/tools.sh [python] [node] [browser]      (python and node when none is named)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
target="$(cd "$here/../.." && pwd)/target"

apt_install() {
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "installing: $*" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

python_tools() {
    local venv="$target/pytools"
    cmp -s "$here/requirements.txt" "$venv/installed-requirements.txt" && return 0
    if [ ! -x "$venv/bin/pip" ]; then
        python3 -m venv "$venv" 2>/dev/null || { apt_install python3-venv && rm -rf "$venv" && python3 -m venv "$venv"; }
    fi
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$venv/installed-requirements.txt"
}

node_tools() {
    local prefix="$target/nodetools"
    cmp -s "$here/package-lock.json" "$prefix/installed-lock.json" && return 0
    command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm
    mkdir -p "$prefix"
    cp "$here/package.json" "$here/package-lock.json" "$prefix/"
    # No install scripts: none of these tools needs one.
    (cd "$prefix" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$here/package-lock.json" "$prefix/installed-lock.json"
}

browser_tools() {
    command -v chromium >/dev/null || apt_install chromium
}

[ $# -gt 0 ] || set -- python node
for kind in "$@"; do "${kind}_tools"; done
