#!/usr/bin/env bash
# The vendored Swagger UI files are exactly the pinned release's (PIN; the bundle and the style
# sheet are embedded in the binary by gateway/src/openapi/page.rs).
#
#   gateway/vendor/swagger-ui/check.sh              each file against its SHA-256 in PIN (no network)
#   gateway/vendor/swagger-ui/check.sh --registry   also: the release's tarball from the npm registry,
#                                                   checked against PIN's integrity, holds these files
#   gateway/vendor/swagger-ui/check.sh --update     after changing the version in PIN: copies the
#                                                   release's files here and writes their sums
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
version=$(sed -n 's/^version=//p' "$here/PIN")
integrity=$(sed -n 's/^integrity=//p' "$here/PIN")
files=(swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css LICENSE NOTICE)

if [ "${1:-}" = --registry ] || [ "${1:-}" = --update ]; then
    command -v npm >/dev/null || { echo "npm is required (Debian: apt-get install npm)" >&2; exit 1; }
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    tarball=$(cd "$work" && npm pack --silent "swagger-ui-dist@$version" | tail -1)
    actual="sha512-$(openssl dgst -sha512 -binary "$work/$tarball" | base64 -w0)"
    if [ "$1" = --registry ] && [ "$actual" != "$integrity" ]; then
        echo "swagger-ui-dist@$version: the registry's tarball is $actual, PIN says $integrity" >&2
        exit 1
    fi
    tar -xzf "$work/$tarball" -C "$work"
    for file in "${files[@]}"; do
        if [ "$1" = --update ]; then
            cp "$work/package/$file" "$here/$file"
        elif ! cmp -s "$work/package/$file" "$here/$file"; then
            echo "gateway/vendor/swagger-ui/$file differs from swagger-ui-dist@$version's" >&2
            exit 1
        fi
    done
    if [ "$1" = --update ]; then
        sed -i -e '/^sha256 /d' -e "s|^integrity=.*|integrity=$actual|" "$here/PIN"
        (cd "$here" && sha256sum "${files[@]}" | sed 's/^/sha256 /') >>"$here/PIN"
    fi
fi
(cd "$here" && sed -n 's/^sha256 //p' PIN | sha256sum --quiet --check -) ||
    { echo "gateway/vendor/swagger-ui: a file differs from its sum in PIN" >&2; exit 1; }
echo "gateway/vendor/swagger-ui: swagger-ui-dist@$version, as pinned"
