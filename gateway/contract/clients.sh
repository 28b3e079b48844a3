#!/usr/bin/env bash
# Clients generated from the published document the way integrators make them (pinned generators,
# output under target/contract/):
#   python      openapi-python-client: the package ingest_client (python/ingest_client), generated
#               with no warning, every module of which imports (python_client_check.py then calls a
#               gateway with it: make test-contract)
#   typescript  openapi-typescript: types (ts/openapi.d.ts); the document's own examples of every
#               request body and answer, written out by ts_examples.py as values of their schemas'
#               types (ts/examples.ts), compile under `tsc --strict`
#
#   gateway/contract/clients.sh DOCUMENT [python] [typescript]   (both when none is named; after tools.sh)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/target/contract"
document=$(realpath "$1")
shift

python_client() {
    # The generator runs ruff (a pinned requirement) over what it writes: the venv's bin goes on PATH.
    rm -rf "$out/python"
    PATH="$root/target/pytools/bin:$PATH" "$root/target/pytools/bin/openapi-python-client" generate \
        --path "$document" --config "$here/python-client.yaml" --meta none \
        --output-path "$out/python/ingest_client" --fail-on-warning
    (cd "$out/python" && "$root/target/pytools/bin/python" - <<'PY'
import importlib, pkgutil
import ingest_client
modules = [name for _, name, _ in pkgutil.walk_packages(ingest_client.__path__, "ingest_client.")]
for name in modules:
    importlib.import_module(name)
print(f"python client: {len(modules)} modules of ingest_client import")
PY
)
}

typescript_client() {
    local bin="$root/target/nodetools/node_modules/.bin"
    mkdir -p "$out/ts"
    "$bin/openapi-typescript" "$document" --output "$out/ts/openapi.d.ts"
    python3 "$here/ts_examples.py" "$document" "$out/ts/examples.ts"
    "$bin/tsc" --strict --noEmit --target es2022 "$out/ts/examples.ts"
    echo "typescript: every example of a request body and an answer compiles under tsc --strict"
}

[ $# -gt 0 ] || set -- python typescript
for kind in "$@"; do "${kind}_client"; done
