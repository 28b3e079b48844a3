#!/usr/bin/env bash
# make image: the OCI image of `ingest` (deploy/image/Containerfile), built by Debian's podman from a
# root filesystem made here from this machine's files: no base image and nothing else from a registry.
#
#   deploy/image/build.sh            builds localhost/ingest:<version> (and :latest), prints its digest and size
#   IMAGE_CHECK_REPRODUCIBLE=1 ...   builds it twice from the tree and fails unless both digests agree
#   IMAGE_PROFILE=debug ...          from the debug build instead of the release one (make test-deploy:
#                                    the build make test has already made; the same tree otherwise)
#
# The tree holds the stripped release binary at /usr/local/bin/ingest, the shared libraries `ldd`
# names (glibc's own; glibc resolves names through its built-in files and dns services, read from
# /etc/nsswitch.conf), Debian's CA bundle, and a passwd and group entry for the numeric user the
# image runs as (65532). Every file's time is the epoch and the image's creation time is the last
# commit's, so two builds of one commit give one digest. Labels: version, source revision, licence.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work="$root/target/image"
podman="$root/deploy/podman.sh"
image=localhost/ingest

version=$(sed -n 's/^version = "\(.*\)"/\1/p' gateway/Cargo.toml | head -n 1)
revision=$(git rev-parse HEAD)
# Uncommitted changes would not be in the revision the label names.
[ -z "$(git status --porcelain -- gateway sql Cargo.lock deploy/image)" ] || revision="$revision-modified"
created=$(git log -1 --format=%ct)

"$root/deploy/install.sh" podman runc
profile=${IMAGE_PROFILE:-release}
case "$profile" in
    release) cargo build --release --locked --bin ingest ;;
    debug) cargo build --locked --bin ingest ;;
    *) echo "image: IMAGE_PROFILE must be release or debug" >&2; exit 2 ;;
esac
binary="target/$profile/ingest"

# tree <dir>: the image's root filesystem.
tree() {
    local dir=$1
    rm -rf "$dir"
    install -d -m 0755 "$dir/usr/local/bin" "$dir/etc/ssl/certs" "$dir/tmp"
    strip -o "$dir/usr/local/bin/ingest" "$binary"
    local library
    for library in $(ldd "$binary" | grep -o '/[^ ]*'); do
        install -D -m 0644 "$(readlink -f "$library")" "$dir$library"
    done
    chmod 0755 "$dir"/lib64/ld-linux-* 2>/dev/null || true
    install -m 0644 /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
    printf 'root:x:0:0:root:/nonexistent:/usr/sbin/nologin\ningest:x:65532:65532:ingest:/nonexistent:/usr/sbin/nologin\n' \
        >"$dir/etc/passwd"
    printf 'root:x:0:\ningest:x:65532:\n' >"$dir/etc/group"
    printf 'hosts: files dns\n' >"$dir/etc/nsswitch.conf"
    chmod 1777 "$dir/tmp"
    find "$dir" -exec touch -h -d @0 {} +
    # Nothing else: no secret, no file of the build machine's but these.
    local unexpected
    unexpected=$(cd "$dir" && find . -type f | grep -Ev '^\./(usr/local/bin/ingest|(usr/)?lib(64)?/[^ ]+\.so[.0-9]*|etc/(passwd|group|nsswitch\.conf|ssl/certs/ca-certificates\.crt))$' || true)
    [ -z "$unexpected" ] || { echo "image: unexpected files in the tree: $unexpected" >&2; exit 1; }
}

# build <tag>: the image from a fresh tree; prints its image id.
build() {
    tree "$work/rootfs"
    "$podman" build --quiet --no-cache --timestamp "$created" \
        --label "org.opencontainers.image.title=ingest" \
        --label "org.opencontainers.image.version=$version" \
        --label "org.opencontainers.image.revision=$revision" \
        --label "org.opencontainers.image.licenses=LicenseRef-Proprietary" \
        --tag "$1" -f deploy/image/Containerfile "$work"
}

id=$(build "$image:$version")
"$podman" tag "$id" "$image:latest"
if [ "${IMAGE_CHECK_REPRODUCIBLE:-0}" = 1 ]; then
    again=$(build "$image:rebuilt")
    "$podman" rmi "$image:rebuilt" >/dev/null
    [ "$again" = "$id" ] || { echo "image: two builds of one tree differ ($id, $again)" >&2; exit 1; }
    echo "image: built twice, one digest"
fi
size=$("$podman" image inspect --format '{{.Size}}' "$id")
echo "image: $image:$version ($revision, $profile) $id, $((size / 1000000)) MB ($size bytes)"
