#!/usr/bin/env bash
# podman as this machine can run it, for make image and make test-deploy: with its own defaults
# where a container starts with them, else with the settings a container needs here, in a
# containers.conf of our own (target/podman/containers.conf, named by CONTAINERS_CONF for our
# commands only; the host's container configuration is never changed): runc instead of crun
# (crun refuses hosts with hybrid cgroups), cgroupfs instead of systemd, and no default ulimits
# (a sandbox may refuse setrlimit). The finding is kept in target/podman/needs.
#
#   deploy/podman.sh <podman arguments>
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/target/podman"
mkdir -p "$dir"

if [ ! -f "$dir/needs" ]; then
    # A container from an empty image that runs nothing: whether the runtime starts one at all.
    probe=$(mktemp -d)
    trap 'rm -rf "$probe"' EXIT
    printf 'FROM scratch\n' >"$probe/Containerfile"
    podman build --quiet --tag localhost/ingest-podman-probe "$probe" >/dev/null
    if podman run --rm --network host --entrypoint /nonexistent localhost/ingest-podman-probe 2>&1 \
        | grep -q 'no such file or directory'; then
        echo defaults >"$dir/needs"
    else
        cat >"$dir/containers.conf" <<'CONF'
[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
        echo own >"$dir/needs"
    fi
    podman rmi localhost/ingest-podman-probe >/dev/null 2>&1 || true
fi

if [ "$(cat "$dir/needs")" = own ]; then
    export CONTAINERS_CONF="$dir/containers.conf"
fi
exec podman "$@"
