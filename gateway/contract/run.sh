#!/usr/bin/env bash
# Contract tests: schemathesis (pinned, requirements.txt) against a gateway on a fresh database
# (gateway.sh: a seeded credential holding every scope, a lot and two bookings), over every route of
# the published OpenAPI document: no 500, every response conforms to the document, every error body
# has the documented shape, and every request the document forbids is refused
# (negative_data_rejection). positive_data_acceptance stays off: its generated bodies break rules
# between fields and against stored data (the price envelope, the settlement currency, time zones)
# that no schema can state; field_forms.py checks each field's own form instead.
#
#   gateway/contract/run.sh          (after `cargo build --bin ingest`; `make test-contract` runs it)
#
# CONTRACT_EXAMPLES: test cases per operation and phase (default 300).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
"$here/tools.sh" python
. "$here/gateway.sh"
gateway_start schemathesis

# (its cache folder goes under target/)
cd "$contract_root/target"
"$contract_root/target/pytools/bin/schemathesis" run "$INGEST_DOCUMENT_URL" \
    --url "$INGEST_BASE_URL" \
    --header "Authorization: Bearer $INGEST_BEARER" \
    --checks all --exclude-checks positive_data_acceptance \
    --mode all \
    --max-examples "${CONTRACT_EXAMPLES:-300}" \
    --seed 20261123 --generation-deterministic \
    --no-color
