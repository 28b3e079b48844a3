#!/usr/bin/env bash
# Installs from Debian whichever of the named packages is missing (make image: podman and runc;
# make test-deploy: haproxy too).
#
#   deploy/install.sh <package> ...
set -euo pipefail

missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
# Debian's haproxy package starts its own service where systemd runs; the tests start their own.
if [[ " ${missing[*]} " == *" haproxy "* && -d /run/systemd/system ]]; then
    $sudo systemctl disable --now haproxy >/dev/null 2>&1 || true
fi
