#!/usr/bin/env bash
# The published document under the linters integrators use: Redocly CLI `lint` (recommended rules,
# redocly.yaml) and Spectral (spectral:oas, .spectral.yaml). Both run; any error or warning fails.
#
#   gateway/contract/lint.sh DOCUMENT      (after gateway/contract/tools.sh node)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../../target/nodetools/node_modules/.bin"
document="$1"

# No telemetry and no update check: the linter works offline. Its JSON report is read back because
# its exit code counts errors only.
report=$(REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    "$bin/redocly" lint --config "$here/redocly.yaml" --format=json "$document" || true)
status=0
python3 - "$report" <<'PY' || status=1
import json, sys
report = json.loads(sys.argv[1])
for problem in report["problems"]:
    where = ", ".join(location.get("pointer", "?") for location in problem["location"])
    print(f"redocly {problem['severity']}: {problem['ruleId']}: {problem['message']} at {where}")
totals = report["totals"]
print(f"redocly lint: {totals['errors']} errors, {totals['warnings']} warnings")
sys.exit(1 if totals["errors"] or totals["warnings"] else 0)
PY
"$bin/spectral" lint --ruleset "$here/.spectral.yaml" --fail-severity warn "$document" || status=1
exit $status
