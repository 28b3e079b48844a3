//! The published OpenAPI 3.1 document (`GET <root>/openapi.json`, no credential; `ingest openapi`
//! prints it). Paths, operations, parameters, request bodies, responses and error codes come from
//! the route table ([`crate::routes::ROUTES`]); the body schemas from the database's field
//! registries ([`schemas`]). What every answer carries (headers, the error shape, the statuses the
//! gateway gives before a route runs) is written once here, as the server sends it
//! ([`crate::response`], [`crate::admission`]).
//!
//! The server URL is the base path's last segment written relative to the document (`./v1`): the
//! document sits at `<root>/openapi.json` and the API at `<root>/v1`, behind any prefix an edge adds,
//! so a client given the spec's `{base_url}` calls `{base_url}/ping`.

pub mod exchanges;
pub mod page;
pub mod schemas;

use serde_json::{json, Map, Value};

use crate::query::Rule;
use crate::registry::{ErrorCode, ERROR_CODES};
use crate::routes::{Operation, RouteSpec, ROUTES};
use schemas::reference;

/// `<root>`: the base path without its last segment (`/v1` → ``, `/api/v1` → `/api`).
pub fn root(base_path: &str) -> &str {
    base_path.rfind('/').map_or("", |at| &base_path[..at])
}

/// Where the document is served.
pub fn path(base_path: &str) -> String {
    format!("{}/openapi.json", root(base_path))
}

pub fn document(base_path: &str) -> Value {
    let mut paths = Map::new();
    for spec in ROUTES {
        paths.insert(spec.template.into(), path_item(spec));
    }
    let version_segment = &base_path[root(base_path).len()..];
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Operator Ingest API",
            "version": "v1",
            "summary": "Push lots, price envelopes and closures; pull bookings through a cursor.",
            "description": INFO_DESCRIPTION,
            "contact": { "name": "Operator integrations: in the console, Account, then Support" },
            "license": { "name": "Proprietary: the marketplace's operator terms", "identifier": "LicenseRef-Proprietary" },
        },
        "servers": [{
            "url": format!(".{version_segment}"),
            "description": "This deployment's {base_url}, written relative to the document: the document is at <root>/openapi.json, the API at <root>/v1.",
        }],
        "security": [{ "bearer": [] }],
        "tags": [
            { "name": "Credential", "description": "Diagnose a credential." },
            { "name": "Lots", "description": "The operator's car parks." },
            { "name": "Rates", "description": "Each lot's marketplace price envelope." },
            { "name": "Blocked periods", "description": "Each lot's closure list." },
            { "name": "Bookings", "description": "The operator's bookings of every channel, pulled through a cursor." },
        ],
        "paths": paths,
        "webhooks": { "booking.changed": webhook() },
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "`Authorization: Bearer <key_id>.<secret>` (the first dot separates the halves). Credentials are issued in the console (Account, then API keys); every credential fault is the same 401.",
                },
            },
            "schemas": components_schemas(),
            "responses": shared_responses(),
            "headers": headers(),
        },
    })
}

const INFO_DESCRIPTION: &str = "Push your car parks (lots), each lot's marketplace price envelope and closure \
list, and pull your bookings through a cursor. Every request acts on the one operator its credential belongs to; \
no body or query string carries an operator id.\n\n\
**Errors**: every error body is `{\"error\": <code>, \"field\": <your field or parameter>}`; branch on `error` \
and treat an unknown code as its HTTP status (the codes are listed in `ErrorCode`). `field` names a body member \
by its path in your request (`cancellation.penalty_percent_after`, `blocked_periods[0].ends_on`) or a query \
parameter by its name. A path that is not a route answers 404 `not_found`; 404 is never an answer about a \
resource. Every path also answers `OPTIONS` with 204 and `Allow` (no credential), left out of this document \
so that clients are not generated for it. Every answer carries `X-Request-Id`. In any body, a string holding `\\u0000` or a lone \
surrogate, a key given twice in one object, and a number written with an exponent beyond ±20 (`1e21`) are \
`invalid_body` naming the member, whatever the field's own form allows.\n\n\
**Dry runs**: `?dry_run=true` on the three PUT routes runs the write against real data and rolls it back. There \
is no sandbox.\n\n\
**Rate limits** (token buckets, per edge worker): all requests 240 then 4/s per source address; failed \
authentications 20 then 1 per 3 s per source address; reads 120 then 2/s per credential; writes 60 then 1/s and \
1000 per hour per credential. A refused request is 429 with `Retry-After` and spends nothing.";

/// The schemas of bodies and answers, and the error shape.
fn components_schemas() -> Map<String, Value> {
    let mut all = schemas::all();
    let table: Vec<String> =
        ERROR_CODES.iter().map(|code| format!("| {} | `{}` | {} |", code.status, code.code, code.meaning)).collect();
    all.insert(
        "ErrorCode".into(),
        json!({
            "type": "string",
            "description": format!(
                "A stable error code: branch on it. New codes may be added; treat an unknown one as its HTTP status.\n\n| HTTP | error | meaning |\n|---|---|---|\n{}",
                table.join("\n")
            ),
            "examples": ERROR_CODES.iter().map(|code| code.code).collect::<Vec<_>>(),
        }),
    );
    all.insert(
        "Error".into(),
        json!({
            "type": "object",
            "description": "Every error body.",
            "properties": {
                "error": reference("ErrorCode"),
                "field": {
                    "type": "string",
                    "description": "Your own field or parameter name, never a database message: a body member by its path (`cancellation.penalty_percent_after`, `blocked_periods[0].ends_on`), a query parameter by its name (`limit`), `external_id` for the path's id. Absent when no one field is at fault.",
                },
            },
            "required": ["error"],
            "additionalProperties": false,
        }),
    );
    all
}

/// The headers the server sends, by the answers that carry them.
fn headers() -> Value {
    json!({
        "X-Request-Id": {
            "description": "On every answer: the request's id, generated by the service; quote it when reporting a fault.",
            "required": true,
            "schema": { "type": "string", "format": "uuid" },
        },
        "Retry-After": {
            "description": "Whole seconds to wait before retrying (at least 1).",
            "required": true,
            "schema": { "type": "integer", "minimum": 1 },
        },
        "WWW-Authenticate": {
            "description": "The authentication scheme.",
            "required": true,
            "schema": { "type": "string", "const": "Bearer" },
        },
        "Allow": {
            "description": "The path's verbs, then OPTIONS.",
            "required": true,
            "schema": { "type": "string", "examples": ["GET, PUT, OPTIONS"] },
        },
        "RateLimit-Policy": {
            "description": "The bucket that refused the request, or the tightest it counted against: `\"<bucket>\";q=<burst>;w=<seconds to refill from empty>`. Not sent on 401 and 404, nor while rate limits are off.",
            "schema": { "type": "string", "examples": ["\"reads\";q=120;w=60"] },
        },
        "RateLimit": {
            "description": "That bucket's standing: `\"<bucket>\";r=<whole tokens left>;t=<seconds until full>`.",
            "schema": { "type": "string", "examples": ["\"reads\";r=119;t=1"] },
        },
    })
}

fn header(name: &str) -> Value {
    json!({ "$ref": format!("#/components/headers/{name}") })
}

/// The headers of an answer of `status`: the request id always; the rate-limit standing but on 401;
/// the status's own.
fn response_headers(status: &str) -> Value {
    let mut headers = Map::new();
    headers.insert("X-Request-Id".into(), header("X-Request-Id"));
    match status {
        "401" => {
            headers.insert("WWW-Authenticate".into(), header("WWW-Authenticate"));
        }
        "405" => {
            headers.insert("Allow".into(), header("Allow"));
        }
        "409" | "429" | "503" => {
            headers.insert("Retry-After".into(), header("Retry-After"));
        }
        _ => {}
    }
    if status != "401" && status != "404" {
        headers.insert("RateLimit-Policy".into(), header("RateLimit-Policy"));
        headers.insert("RateLimit".into(), header("RateLimit"));
    }
    Value::Object(headers)
}

/// An error answer of `status` whose body is one of `codes`, each shown by an example.
fn error_response(status: &str, description: &str, codes: &[&str]) -> Value {
    let mut examples = Map::new();
    for code in codes {
        let known = error_code(code);
        let mut body = json!({ "error": code });
        if let Some(field) = known.example_field {
            body["field"] = field.into();
        }
        examples.insert((*code).into(), json!({ "summary": known.meaning, "value": body }));
    }
    json!({
        "description": description,
        "headers": response_headers(status),
        "content": { "application/json": { "schema": reference("Error"), "examples": examples } },
    })
}

/// The row of `code` in the table of error codes.
fn error_code(code: &str) -> &'static ErrorCode {
    ERROR_CODES.iter().find(|known| known.code == code).unwrap_or_else(|| panic!("{code} is not an error code"))
}

/// The answers every operation shares, and the 404 of a path that is not a route.
fn shared_responses() -> Value {
    let mut responses = Map::new();
    for (name, status, description, code) in SHARED {
        responses.insert((*name).into(), error_response(status, description, &[code]));
    }
    Value::Object(responses)
}

/// (component name, status, description, code) of the shared error answers.
const SHARED: &[(&str, &str, &str, &str)] = &[
    ("Unauthorized", "401", "The uniform credential refusal, whatever its cause.", "unauthorized"),
    ("NotFound", "404", "A path that is not a route of this document (never an answer about a resource).", "not_found"),
    ("MethodNotAllowed", "405", "A verb the path does not take; `Allow` lists those it does.", "method_not_allowed"),
    ("PayloadTooLarge", "413", "Body over 64 KiB (not read past 64 KiB).", "payload_too_large"),
    ("UnsupportedMediaType", "415", "Content-Type was not application/json.", "unsupported_media_type"),
    ("RateLimited", "429", "Over a rate limit; nothing was spent. Retry after `Retry-After`.", "rate_limited"),
    ("InternalError", "500", "Service fault; quote the X-Request-Id.", "internal_error"),
    ("TryAgain", "503", "Transient database condition. Retry after `Retry-After`.", "try_again"),
];

fn shared(name: &str) -> Value {
    json!({ "$ref": format!("#/components/responses/{name}") })
}

fn path_item(spec: &RouteSpec) -> Value {
    let mut item = Map::new();
    if spec.template.contains("{external_id}") {
        item.insert("parameters".into(), json!([external_id_parameter()]));
    }
    for operation in spec.operations {
        item.insert(operation.method.as_str().to_lowercase(), operation_object(operation));
    }
    Value::Object(item)
}

fn external_id_parameter() -> Value {
    json!({
        "name": "external_id",
        "in": "path",
        "required": true,
        "description": "Your own opaque id of the lot: 1-200 characters; a slash or a space must be percent-encoded. Platform-internal ids are never sent or accepted.",
        "schema": { "type": "string", "minLength": 1, "maxLength": 200 },
        "example": "lot-1",
    })
}

fn operation_object(operation: &Operation) -> Value {
    let parameters: Vec<Value> = operation
        .query
        .iter()
        .map(|param| {
            let schema = match param.rule {
                // (a boolean that can only be true: generators give a boolean parameter, sent as `true`)
                Rule::DryRun => json!({ "type": "boolean", "enum": [true] }),
                Rule::Limit { default, max } => {
                    json!({ "type": "integer", "minimum": 1, "maximum": max, "default": default })
                }
                Rule::Text { max_chars } => json!({ "type": "string", "minLength": 1, "maxLength": max_chars }),
                Rule::Cursor { max_chars } => json!({ "type": "string", "maxLength": max_chars }),
            };
            json!({ "name": param.name, "in": "query", "required": false, "description": param.description, "schema": schema })
        })
        .collect();
    let mut responses = Map::new();
    let answer = |status: u16, description: &str| {
        json!({
            "description": description,
            "headers": response_headers("200"),
            "content": { "application/json": {
                "schema": reference(operation.answer),
                "examples": examples_of(operation, |exchange| (exchange.status == status).then(|| exchange.answer.clone())),
            } },
        })
    };
    responses.insert("200".into(), answer(200, "Done."));
    if operation.body.is_some() {
        responses.insert("201".into(), answer(201, "Created (a dry run answers 200)."));
    }
    responses.insert("401".into(), shared("Unauthorized"));
    responses.insert("405".into(), shared("MethodNotAllowed"));
    let mut unprocessable: Vec<&str> = vec!["invalid_query"];
    unprocessable.extend(operation.errors);
    let listed: Vec<String> = unprocessable.iter().map(|code| format!("`{code}`")).collect();
    responses.insert(
        "422".into(),
        error_response(
            "422",
            &format!("Unusable input; `field` names it. Known codes here: {}.", listed.join(", ")),
            &unprocessable,
        ),
    );
    responses.insert("429".into(), shared("RateLimited"));
    responses.insert("500".into(), shared("InternalError"));
    responses.insert("503".into(), shared("TryAgain"));
    if let Some(conflict) = operation.conflict {
        let mut response = error_response("409", conflict, &["conflict"]);
        // the route's own case, not the table's general meaning
        response["content"]["application/json"]["examples"]["conflict"]["summary"] = conflict.into();
        responses.insert("409".into(), response);
        responses.insert("413".into(), shared("PayloadTooLarge"));
        responses.insert("415".into(), shared("UnsupportedMediaType"));
    }
    let mut object = json!({
        "operationId": operation.operation_id,
        "tags": [operation.tag],
        "summary": operation.summary,
        "description": operation.description,
        "parameters": parameters,
        "responses": responses,
    });
    if let Some(body) = operation.body {
        object["requestBody"] = json!({
            "required": true,
            "description": "JSON (`Content-Type: application/json`), at most 64 KiB.",
            "content": { "application/json": {
                "schema": reference(body),
                "examples": examples_of(operation, |exchange| exchange.body.clone()),
            } },
        });
    }
    object
}

/// The operation's examples taken from the real exchanges ([`exchanges`]): `pick` gives the value an
/// exchange shows here (its body, or its answer when it had the status), by the exchange's name.
fn examples_of(operation: &Operation, pick: impl Fn(&exchanges::Exchange) -> Option<Value>) -> Value {
    let mut examples = Map::new();
    for exchange in exchanges::exchanges().filter(|exchange| exchange.operation == operation.operation_id) {
        if let Some(value) = pick(exchange) {
            examples.insert(exchange.name.clone(), json!({ "summary": exchange.summary, "value": value }));
        }
    }
    Value::Object(examples)
}

fn webhook() -> Value {
    json!({
        "post": {
            "operationId": "bookingChanged",
            "summary": "A booking of yours was created or changed: pull GET /bookings",
            "description": "Sent to the one HTTPS endpoint registered in the console (port 443) when a booking of the operator is created or changes, on any channel. A hint, never a data carrier: pull the feed. Hints for one booking merge while one is undelivered; delivery is at-least-once (de-duplicate on booking_reference), unordered, with no replay: re-pull the cursor. An integration must work with hints switched off. Verify `Service-Signature` before anything else (the scheme of the widely used payment provider's webhooks, so its libraries' verifiers work): compare in constant time, reject a `t` older than about 300 seconds, accept if any `v1` matches; a delivery that fails verification is answered 401 and nothing else is done. Any 2xx within 5 seconds delivers it; the answer's body is never read and redirects are not followed. A failed attempt is tried again after 1 minute, 5 minutes, 30 minutes and 2 hours; after the fifth the hint is dead.",
            "security": [],
            "parameters": [
                {
                    "name": "Service-Signature",
                    "in": "header",
                    "required": true,
                    "description": "`t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 over \"<t>.\" followed by the raw body, keyed with the endpoint's whsec_ secret>`.",
                    "schema": { "type": "string", "pattern": "^t=[0-9]+(,v1=[0-9a-f]{64})+$" },
                },
                {
                    "name": "User-Agent",
                    "in": "header",
                    "required": true,
                    "description": "The sender.",
                    "schema": { "type": "string", "const": "Service-Webhooks/1" },
                },
            ],
            "requestBody": {
                "required": true,
                "content": {
                    "application/json": {
                        "schema": reference("BookingChanged"),
                        "example": hint_example(),
                    },
                },
            },
            "responses": {
                "2XX": { "description": "Delivered (answered within 5 seconds)." },
                "401": { "description": "The signature did not verify: nothing was done." },
            },
        },
    })
}

/// The hint the booking of the exchanges' feed page was sent with.
fn hint_example() -> Value {
    let page = exchanges::exchanges().find(|exchange| exchange.operation == "listBookings").expect("a feed page");
    let booking = &page.answer["bookings"][0];
    json!({ "event": "booking.changed", "booking_reference": booking["reference"], "occurred_at": booking["created_at"] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_json_states_the_json_readers_nesting_bound() {
        let text = error_code("invalid_json").meaning;
        let bound = crate::json_syntax::MAX_DEPTH.to_string();
        let written = format!("{} {}", &bound[..bound.len() - 3], &bound[bound.len() - 3..]);
        assert!(text.contains(&format!("deeper than {written} levels")), "{text}");
    }

    #[test]
    fn the_document_is_served_at_the_root_above_the_base_path_and_names_the_base_relative_to_itself() {
        assert_eq!(path("/v1"), "/openapi.json");
        assert_eq!(path("/api/v1"), "/api/openapi.json");
        assert_eq!(document("/v1")["servers"][0]["url"], "./v1");
        assert_eq!(document("/api/v1")["servers"][0]["url"], "./v1");
    }

    #[test]
    fn the_document_and_the_route_table_agree() {
        let document = document("/v1");
        assert_eq!(document["openapi"], "3.1.0");
        assert_eq!(document["info"]["version"], "v1");
        let schemas = document["components"]["schemas"].as_object().unwrap();
        let paths = document["paths"].as_object().unwrap();
        assert_eq!(paths.len(), ROUTES.len());
        let mut operation_ids = vec![document["webhooks"]["booking.changed"]["post"]["operationId"].clone()];
        for spec in ROUTES {
            let item = &paths[spec.template];
            let verbs: Vec<String> = item.as_object().unwrap().keys().filter(|k| *k != "parameters").cloned().collect();
            assert_eq!(verbs.len(), spec.operations.len(), "{}: OPTIONS is answered, not listed", spec.template);
            for operation in spec.operations {
                let object = &item[operation.method.as_str().to_lowercase()];
                operation_ids.push(object["operationId"].clone());
                let names: Vec<&str> =
                    object["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
                let expected: Vec<&str> = operation.query.iter().map(|p| p.name).collect();
                assert_eq!(names, expected, "{} {}", operation.method, spec.template);
                assert!(schemas.contains_key(operation.answer), "{}", operation.answer);
                if let Some(body) = operation.body {
                    assert!(schemas.contains_key(body), "{body}");
                    assert!(object["responses"]["201"].is_object());
                    assert!(object["responses"]["409"].is_object() && object["responses"]["415"].is_object());
                }
                let codes = object["responses"]["422"]["content"]["application/json"]["examples"].as_object().unwrap();
                assert_eq!(codes.len(), 1 + operation.errors.len());
                for code in codes.keys() {
                    assert_eq!(error_code(code).status, 422, "{code}");
                }
                assert_eq!(object["responses"]["405"]["$ref"], "#/components/responses/MethodNotAllowed");
            }
        }
        let count = operation_ids.len();
        operation_ids.sort_by_key(|id| id.to_string());
        operation_ids.dedup();
        assert_eq!(operation_ids.len(), count, "operationIds are unique");
        assert!(operation_ids.iter().all(Value::is_string));
        // Every reference points at a component of the document.
        let text = document.to_string();
        for (kind, known) in [
            ("schemas", schemas),
            ("responses", document["components"]["responses"].as_object().unwrap()),
            ("headers", document["components"]["headers"].as_object().unwrap()),
        ] {
            for reference in text.split(&format!("\"#/components/{kind}/")).skip(1) {
                let name = &reference[..reference.find('"').unwrap()];
                assert!(known.contains_key(name), "a reference to a missing {kind} {name}");
            }
        }
    }

    #[test]
    fn every_answer_carries_its_request_id_and_the_statuses_their_own_headers() {
        let document = document("/v1");
        let responses = &document["components"]["responses"];
        assert!(responses["Unauthorized"]["headers"]["WWW-Authenticate"].is_object());
        assert!(responses["MethodNotAllowed"]["headers"]["Allow"].is_object());
        for name in ["RateLimited", "TryAgain"] {
            assert!(responses[name]["headers"]["Retry-After"].is_object(), "{name}");
        }
        assert_eq!(document["components"]["headers"]["Retry-After"]["required"], true);
        for (name, response) in responses.as_object().unwrap() {
            assert!(response["headers"]["X-Request-Id"].is_object(), "{name}");
        }
        let lot = &document["paths"]["/lots/{external_id}"]["put"]["responses"];
        assert!(lot["409"]["headers"]["Retry-After"].is_object());
        assert!(lot["200"]["headers"]["X-Request-Id"].is_object());
    }

    #[test]
    fn error_codes_are_an_open_string_and_the_spec_table_is_listed_once() {
        let document = document("/v1");
        let code = &document["components"]["schemas"]["ErrorCode"];
        assert_eq!(code["type"], "string");
        assert!(code.get("enum").is_none(), "a code added later must not break a generated client");
        assert_eq!(code["examples"].as_array().unwrap().len(), ERROR_CODES.len());
        assert!(!document.to_string().contains("\"enum\":[\"unauthorized\""));
    }

    #[test]
    fn every_operation_shows_a_real_exchange_of_each_answer_and_body_whose_keys_its_schema_has() {
        let document = document("/v1");
        let schemas = &document["components"]["schemas"];
        let keys_are_properties = |example: &Value, schema: &str, what: &str| {
            for key in example.as_object().unwrap_or_else(|| panic!("{what}: an object")).keys() {
                assert!(schemas[schema]["properties"].get(key).is_some(), "{key} in {what}");
            }
        };
        for spec in ROUTES {
            for operation in spec.operations {
                let object = &document["paths"][spec.template][operation.method.as_str().to_lowercase()];
                let statuses: &[&str] = if operation.body.is_some() { &["200", "201"] } else { &["200"] };
                for status in statuses {
                    let examples = object["responses"][status]["content"]["application/json"]["examples"].as_object();
                    let what = format!("{} {status}", operation.operation_id);
                    assert!(!examples.unwrap().is_empty(), "{what}: no example of its answer");
                    for example in examples.unwrap().values() {
                        keys_are_properties(&example["value"], operation.answer, &what);
                    }
                }
                if let Some(body) = operation.body {
                    assert_eq!(schemas[body]["additionalProperties"], false);
                    let examples = object["requestBody"]["content"]["application/json"]["examples"].as_object();
                    assert!(!examples.unwrap().is_empty(), "{}: no example of its body", operation.operation_id);
                    for example in examples.unwrap().values() {
                        keys_are_properties(&example["value"], body, operation.operation_id);
                    }
                }
            }
        }
    }

    #[test]
    fn every_exchange_is_of_an_operation_of_the_route_table_by_its_own_method() {
        for exchange in exchanges::exchanges() {
            let operation = ROUTES
                .iter()
                .flat_map(|spec| spec.operations)
                .find(|operation| operation.operation_id == exchange.operation)
                .unwrap_or_else(|| panic!("{}: not an operation", exchange.operation));
            assert_eq!(operation.method.as_str(), exchange.method, "{}", exchange.name);
            assert_eq!(operation.body.is_some(), exchange.body.is_some(), "{} {}", exchange.operation, exchange.name);
        }
    }
}
