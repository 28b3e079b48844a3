#!/usr/bin/env bash
# The vendored Swagger UI files are exactly the pinned release's (PIN): fetches the package tarball
# from the npm registry with `npm pack`, checks it against the pinned integrity, and compares its
# files with the copies here (the bundle and the style sheet are embedded in the binary by
# gateway/src/openapi/page.rs).
#
#   gateway/vendor/swagger-ui/check.sh            fails on any difference
#   gateway/vendor/swagger-ui/check.sh --update   after changing PIN: copies the pinned release's files here
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. <(grep -E '^(version|integrity)=' "$here/PIN")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v npm >/dev/null || { echo "npm is required (Debian: apt-get install npm)" >&2; exit 1; }
tarball=$(cd "$work" && npm pack --silent "swagger-ui-dist@$version" 2>/dev/null | tail -1)
actual="sha512-$(openssl dgst -sha512 -binary "$work/$tarball" | base64 -w0)"
if [ "$actual" != "$integrity" ]; then
    echo "swagger-ui-dist@$version: the registry's tarball is $actual, PIN says $integrity" >&2
    exit 1
fi
tar -xzf "$work/$tarball" -C "$work"
for file in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css LICENSE NOTICE; do
    if [ "${1:-}" = --update ]; then
        cp "$work/package/$file" "$here/$(basename "$file")"
    elif ! cmp -s "$work/package/$file" "$here/$(basename "$file")"; then
        echo "gateway/vendor/swagger-ui/$(basename "$file") differs from swagger-ui-dist@$version's $file: run check.sh --update" >&2
        exit 1
    fi
done
echo "gateway/vendor/swagger-ui: swagger-ui-dist@$version, as pinned"
