"""Per-field forms: every value the published document allows for one field of a write body is taken
by the server for that field.

    gateway/contract/gateway.sh target/pytools/bin/python gateway/contract/field_forms.py   (make test-contract)

For every property of LotWriteBody, RatesWriteBody and BlockedPeriodsWriteBody, and of the objects
inside them with properties of their own (a lot's cancellation, arrival and media, a closure entry), it generates
values valid for that property's schema in the served document (its own example, examples, enum,
const and default; the EDGES below that it allows; then hypothesis-jsonschema's, derandomized), puts
each into an otherwise minimal valid body and sends it as a `?dry_run=true` PUT. The answer must be 200 or 201, or one of the
refusals below that a JSON Schema of one field cannot express; any other refusal naming the field
(or a path inside it) is a mismatch between the document and the server, listed with the value and
the answer (all of them in target/contract/field_forms.json), and fails the run. Any other answer
(another field named, a 5xx, ...) fails it too, and so does any refusal of the document's own
examples of the three bodies, sent whole.

Refusals allowed, each a rule between fields or against stored data:
  invalid_timezone                      the zone must be one of tzdata's names (a list the server holds)
  invalid_country_code                  the code must be an assigned ISO 3166-1 code (a list)
  currency_is_not_settlement_currency   the operator's own settlement currency (stored data)
  invalid_stay_bounds                   min_stay_days against max_stay_days
  incomplete_cancellation_policy        all three cancellation keys or none
  invalid_price_envelope                floor <= base <= ceiling
  invalid_first_day_price               min_first_day_price within floor..ceiling
  invalid_validity_window               valid_to not before valid_from
  invalid_coordinates                   only when the body holds one coordinate without the other
                                        (out of range is the field's own form, not allowed)
  invalid_blocked_periods               only for entries that overlap, or one that ends before it starts
  invalid_body, field media             only when a string in media mentions lot-media (the media
                                        rule: the caller's own folder)
  missing_field, field a price          only when the rates body (null counting as absent) holds
                                        neither fixed_price alone nor the three range prices: the
                                        two shapes of a rates body
Two rules of the whole body (app.json_body), which no one field's schema spells out on every string
and number inside arrival or media:
  U+0000 in a string       not tried: PostgreSQL cannot hold it, so the server refuses it anywhere
                           (invalid_body, naming the member)
  a number written with an exponent beyond ±20 (1e21, 5e-30)   invalid_body naming the member is
                           allowed: no field takes one, and written out in full it could be huge
Not tried: arrival and media over 16 KiB of compact JSON (refused invalid_body; a size no schema
keyword states, said in the fields' descriptions).
FIELD_FORMS_EXAMPLES sets the generated values per field (default 100).
"""

import copy
import json
import os
import re
import sys
import urllib.parse
from decimal import Decimal

# hypothesis keeps its caches under target/, not in the folder it is run from (before it is imported)
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../target/hypothesis")
)

import httpx
import hypothesis
import jsonschema
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis_jsonschema import from_schema
from ts_examples import body_examples, resolve

EXAMPLES = int(os.environ.get("FIELD_FORMS_EXAMPLES", "100"))
ALWAYS_ALLOWED = {
    "invalid_timezone", "invalid_country_code", "currency_is_not_settlement_currency", "invalid_stay_bounds",
    "incomplete_cancellation_policy", "invalid_price_envelope", "invalid_first_day_price", "invalid_validity_window",
}
PRICES = {"fixed_price", "floor_price", "base_price", "ceiling_price"}
LOT = "lot-1"  # seeded (seed.sql): the rates and closure routes answer only for an existing lot
MAX_MONEY = "9999999999.99"
CANCELLATION = {"free_until_hours_before_check_in": 24, "penalty_percent_after": "50.00", "no_show_forfeits_full": True}
# Values on or just past the server's own limits, tried for every property whose schema allows them
# (random generation seldom lands on them): blanks, signs, a third decimal, exponents, coordinate and
# percent bounds, letter case and padding, the closure calendar's first and last days and their
# neighbours, a timestamp for a date, the media shapes.
EDGES = [
    None, True, False, 0, 1, -1, 0.5, 12.34, 12.345, 12.340, 1e-7, 1e21, 90, 90.5, -90.5, 180.5, 100.01,
    8760, 8761, 1000000, 1000001,
    "", " ", "\t", "\u00a0", "a", " a ", "0", "-0", "1", "-1", "+1", "1.", ".5", "12.34", "12.340", "12.345",
    "50.005", "1e3", "0.10", "100.00", "100.01", "10000000000.00", "9999999999.99", "90", "90.0000001",
    "-90", "180", "-180.5", "gb", " GB ", "GB", "XX", "EUR", "eur", "Europe/London",
    "2019-12-31", "2020-01-01", "2032-12-31", "2033-01-01", "2026-02-30", "2026-07-01T00:00:00Z",
    "https://example.test/lot-media/x.jpg", "self", "valet",
    {}, {"heroUrl": 1}, {"heroUrl": "http://example.test/a.jpg"}, {"galleryUrls": "x"}, {"galleryUrls": [1]},
    [], ["indoor", "indoor"],
]
# OpenAPI's own keyword, not JSON Schema's: the generator would not know it.
NOT_JSON_SCHEMA = {"example", "discriminator", "xml", "externalDocs"}


def inline(document, schema, depth=0):
    """The schema with every local reference replaced by what it points at, and OpenAPI-only keywords dropped."""
    if depth > 20:
        sys.exit("field_forms: references nest too deep (a cycle?)")
    if isinstance(schema, list):
        return [inline(document, item, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        target = resolve(document, {"$ref": schema["$ref"]})
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return inline(document, {**copy.deepcopy(target), **rest}, depth + 1)
    return {k: inline(document, v, depth) for k, v in schema.items() if k not in NOT_JSON_SCHEMA}


def properties(schema):
    """A body schema's properties, with those of the branches of allOf, anyOf and oneOf."""
    found = dict(schema.get("properties", {}))
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, []):
            for name, sub in properties(branch).items():
                found.setdefault(name, sub)
    return found


def object_branch(schema):
    """The object form of a property that may also be null (`anyOf: [object, null]`), if it has properties."""
    for candidate in [schema, *schema.get("anyOf", []), *schema.get("oneOf", [])]:
        if candidate.get("properties"):
            return candidate
    return None


def values(schema, original):
    """The property's values to try, each once: the document's own (examples, enum, const, default),
    then the EDGES its schema allows, then EXAMPLES generated from its schema."""
    found = []
    for key in ("examples", "enum"):
        found.extend(original.get(key, []) if isinstance(original.get(key), list) else [])
    found.extend(original[key] for key in ("example", "const", "default") if key in original)
    validator = Validator(schema, format_checker=Validator.FORMAT_CHECKER)
    found.extend(edge for edge in EDGES if validator.is_valid(edge))

    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(from_schema(without_format_beside_pattern(schema), allow_x00=False))
    def collect(value):
        if validator.is_valid(value):
            found.append(value)

    collect()
    unique = {}
    for value in found:
        text = json.dumps(value, sort_keys=True)
        if "\\u0000" not in text:  # (free-form members are generated with U+0000 all the same)
            unique.setdefault(text, value)
    return list(unique.values())


def exact_multiple_of(validator, divisor, instance, schema):
    """multipleOf as JSON Schema means it, on the number as it is written: jsonschema divides floats,
    so 90.32000000000001 passes as a multiple of 0.01 (and hypothesis-jsonschema makes such values),
    while the server reads the digits sent."""
    if validator.is_type(instance, "number") and Decimal(repr(instance)) % Decimal(repr(divisor)) != 0:
        yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {divisor!r}")


Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"multipleOf": exact_multiple_of})


def without_format_beside_pattern(schema):
    """The schema for the generator: where a string has both a format and a pattern, the pattern alone.
    hypothesis-jsonschema draws such a string from the format and filters it by the pattern, which
    finds nothing for a narrow pattern (a date of 2020..2032); values are checked against the whole
    schema, format included, after."""
    if isinstance(schema, list):
        return [without_format_beside_pattern(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: without_format_beside_pattern(value) for key, value in schema.items()
            if not (key == "format" and "pattern" in schema)}


def mentions_lot_media(value):
    text = json.dumps(value)
    return "lot-media" in urllib.parse.unquote(text.replace("\\\\", "/"))


def overlapping_or_reversed(periods):
    """Whether closure entries (as sent) collide with one another or one ends before it starts."""
    if not isinstance(periods, list):
        return False
    spans = [(p.get("starts_on"), p.get("ends_on")) for p in periods if isinstance(p, dict)]
    spans = [(s, e) for s, e in spans if isinstance(s, str) and isinstance(e, str)]
    if any(e < s for s, e in spans):
        return True
    ordered = sorted(spans)
    return any(later[0] <= earlier[1] for earlier, later in zip(ordered, ordered[1:]))


def far_exponents(value):
    """Whether a number in the value is written (as Python writes JSON) with an exponent beyond ±20."""
    if isinstance(value, dict):
        return any(far_exponents(v) for v in value.values())
    if isinstance(value, list):
        return any(far_exponents(v) for v in value)
    text = repr(value) if isinstance(value, float) else ""
    return "e" in text and abs(int(text.split("e")[1])) > 20


def allowed(answer, body):
    """Whether a 422 is one of the refusals a one-field schema cannot express (the module's list)."""
    code, field = answer.get("error"), answer.get("field") or ""
    if code in ALWAYS_ALLOWED:
        return True
    if code == "invalid_body" and far_exponents(body):
        return True
    if code == "invalid_coordinates":
        return (body.get("latitude") is None) != (body.get("longitude") is None)
    if code == "invalid_blocked_periods":
        return overlapping_or_reversed(body.get("blocked_periods"))
    if code == "invalid_body" and field == "media":
        return mentions_lot_media(body.get("media"))
    if code == "missing_field" and field in PRICES:
        present = {key for key in PRICES if body.get(key) is not None}
        return present != {"fixed_price"} and present != PRICES - {"fixed_price"}
    return False


def names(field, path):
    """Whether a refusal's `field` names this property (or something inside it)."""
    return field == path or field.startswith(path + ".") or field.startswith(path + "[")


class Case:
    """One property of one body: its schema as the document writes it (`original`) and with its
    references inlined (`schema`), how to build a body around a value, and the PUT route."""

    def __init__(self, body_name, path, original, schema, build, route):
        self.body_name, self.path, self.original, self.schema = body_name, path, original, schema
        self.build, self.route = build, route


def lot_body(name, value):
    body = {"name": "Field forms lot", "timezone": "Europe/London", "handover": "self", "online_bookable": True}
    body[name] = value
    partner = {"latitude": "longitude", "longitude": "latitude"}.get(name)
    if partner and value is not None:
        body[partner] = "0"  # the pair rule holds, so only the value's own form is judged
    return body


def rates_body(name, value):
    if name == "fixed_price":
        return {"fixed_price": value}
    # a range in which any valid money fits: floor 0, ceiling the most a price may be
    body = {"floor_price": "0.00", "base_price": "0.00", "ceiling_price": MAX_MONEY}
    if name == "floor_price":
        body["base_price"] = MAX_MONEY
    body[name] = value
    return body


def write_routes(document):
    """{body schema name: (route, application/json media)} of the PUT operations."""
    routes = {}
    for template, item in document["paths"].items():
        operation = item.get("put")
        if operation and "requestBody" in operation:
            media = resolve(document, operation["requestBody"])["content"]["application/json"]
            reference = media.get("schema", {}).get("$ref", "")
            if reference.startswith("#/components/schemas/"):
                routes[reference.rsplit("/", 1)[1]] = (template, media)
    return routes


def cases(document):
    """Every property of the three write bodies (and of their objects with properties), with its route."""
    schemas = document["components"]["schemas"]
    routes = {name: route for name, (route, _) in write_routes(document).items()}
    found = []
    for body_name in ("LotWriteBody", "RatesWriteBody", "BlockedPeriodsWriteBody"):
        if body_name not in schemas or body_name not in routes:
            sys.exit(f"field_forms: the document has no PUT whose body is {body_name}")
        route = routes[body_name]
        for name, original in properties(schemas[body_name]).items():
            schema = inline(document, original)
            if body_name == "LotWriteBody":
                found.append(Case(body_name, name, original, schema, lambda v, n=name: lot_body(n, v), route))
                # an object member: the other keys as a valid object has them (none but cancellation's)
                for key, sub in (object_branch(schema) or {}).get("properties", {}).items():
                    around = CANCELLATION if name == "cancellation" else {}
                    found.append(Case(body_name, f"{name}.{key}", sub, sub,
                                      lambda v, n=name, k=key, o=around: lot_body(n, {**o, k: v}), route))
            elif body_name == "RatesWriteBody":
                found.append(Case(body_name, name, original, schema, lambda v, n=name: rates_body(n, v), route))
            else:
                found.append(Case(body_name, name, original, schema, lambda v, n=name: {n: v}, route))
                entry = object_branch(schema.get("items", {}))
                for key, sub in (entry or {}).get("properties", {}).items():
                    # both dates of the one entry take the value, so no rule between them can refuse it
                    def build(v, k=key):
                        period = {"starts_on": "2030-01-01", "ends_on": "2030-01-01", k: v}
                        if k in ("starts_on", "ends_on"):
                            period["starts_on"] = period["ends_on"] = v
                        return {"blocked_periods": [period]}
                    found.append(Case(body_name, f"blocked_periods[0].{key}", sub, sub, build, route))
    return found


def url_for(base, route, external_id):
    # every character but letters, digits, "-", "_" and "~" percent-encoded: no "." or ".." segment either
    path = route.replace("{external_id}", urllib.parse.quote(external_id, safe="").replace(".", "%2E"))
    return f"{base.rstrip('/')}{path}?dry_run=true"


def main():
    base = os.environ["INGEST_BASE_URL"]
    document = httpx.get(os.environ["INGEST_DOCUMENT_URL"]).json()
    client = httpx.Client(headers={"Authorization": f"Bearer {os.environ['INGEST_BEARER']}"}, timeout=30)
    mismatches, failures, sent, allowed_seen = [], [], 0, {}
    # the document's own examples of the whole bodies, as they stand
    for body_name, (route, media) in write_routes(document).items():
        for label, example in body_examples(document, media):
            external_id = example.get("external_id") if isinstance(example.get("external_id"), str) else LOT
            response = client.put(url_for(base, route, external_id), json=example)
            sent += 1
            if response.status_code not in (200, 201):
                failures.append((body_name, f"(its example {label})", example, response.status_code, response.text[:300]))
    for case in cases(document):
        try:
            tried = values(case.schema, case.original)
        except hypothesis.errors.Unsatisfiable:
            sys.exit(f"field_forms: the generator finds no value for {case.body_name}.{case.path}: {case.schema}")
        for value in tried:
            body = case.build(value)
            # a lot's external_id is checked against the path: the value goes in both
            external_id = value if case.path == "external_id" and isinstance(value, str) else (
                "field-forms" if case.body_name == "LotWriteBody" else LOT)
            response = client.put(url_for(base, case.route, external_id), json=body)
            sent += 1
            if response.status_code in (200, 201):
                continue
            try:
                answer = response.json()
            except ValueError:
                answer = {}
            row = (case.body_name, case.path, value, response.status_code, response.text[:300])
            if response.status_code == 422 and allowed(answer, body):
                allowed_seen.setdefault((case.path, answer.get("error")), value)
            elif response.status_code == 422 and names(answer.get("field") or "", case.path.split(".")[0].split("[")[0]):
                mismatches.append(row)
            elif response.status_code == 422 and answer.get("error") == "invalid_json":
                mismatches.append(row)  # names no field, but only the value differs from a body that is taken
            else:
                failures.append(row)
    for (path, code), value in sorted(allowed_seen.items(), key=str):
        print(f"field_forms: allowed {code} for {path}, e.g. {shown(value)[:120]}")
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "target", "contract", "field_forms.json"), "w") as file:
        json.dump({"mismatches": mismatches, "unexpected": failures}, file, indent=1, ensure_ascii=False)
    report("MISMATCH (the document allows it, the server refuses it)", mismatches)
    report("UNEXPECTED ANSWER", failures)
    print(f"field_forms: {sent} dry-run PUTs; {len(mismatches)} mismatches, {len(failures)} unexpected answers")
    if mismatches or failures:
        sys.exit(1)


def shown(value):
    """A value as JSON, readable: other letters as they are, but any space other than " " and any
    unprintable character escaped."""
    text = json.dumps(value, ensure_ascii=False)
    return "".join(c if c == " " or (c.isprintable() and not c.isspace()) else f"\\u{ord(c):04x}" for c in text)


def report(title, rows):
    """Each field's refused values with the server's answer: one of each shape (digits and letters
    alike), the shortest first, at most eight a field."""
    by_field = {}
    for row in rows:
        by_field.setdefault((row[0], row[1]), []).append(row)
    for (body_name, path), found in sorted(by_field.items()):
        found.sort(key=lambda row: len(json.dumps(row[2])))
        shapes = {}
        for row in found:
            shape = re.sub(r"[A-Za-z]+", "a", re.sub(r"[0-9]+", "9", json.dumps(row[2])))
            shapes.setdefault(shape, row)
        print(f"field_forms {title}: {body_name}.{path}: {len(found)} values, e.g.")
        for _, _, value, status, text in list(shapes.values())[:8]:
            print(f"    {shown(value)[:160]}  ->  {status} {text}")


if __name__ == "__main__":
    main()
