//! The published OpenAPI 3.1 document (`GET <root>/openapi.json`, no credential; `ingest openapi`
//! prints it). Paths, operations, parameters, request bodies, responses and error codes come from
//! the route table ([`crate::routes::ROUTES`]); the schemas of bodies and answers are written here,
//! beside it, from the spec's field tables.

use serde_json::{json, Map, Value};

use crate::query::Rule;
use crate::routes::{Operation, ROUTES};

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
        let mut item = Map::new();
        if spec.template.contains("{external_id}") {
            item.insert("parameters".into(), json!([external_id_parameter()]));
        }
        for operation in spec.operations {
            item.insert(operation.method.as_str().to_lowercase(), operation_object(operation));
        }
        paths.insert(format!("{base_path}{}", spec.template), Value::Object(item));
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Operator Ingest API",
            "version": "v1",
            "description": "Push lots, their marketplace price envelopes and closure lists; pull bookings through a cursor. Every request acts on the one operator its credential belongs to.",
        },
        "servers": [{ "url": "/" }],
        "security": [{ "bearer": [] }],
        "paths": paths,
        "webhooks": { "booking.changed": webhook() },
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "`Authorization: Bearer <key_id>.<secret>`; every credential fault is the same 401.",
                },
            },
            "schemas": schemas(),
        },
    })
}

fn external_id_parameter() -> Value {
    json!({
        "name": "external_id",
        "in": "path",
        "required": true,
        "description": "The operator's own id of the lot: 1-200 characters, percent-encoded in the path.",
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
                Rule::DryRun => json!({ "type": "string", "enum": ["true"] }),
                Rule::Limit { default, max } => json!({ "type": "integer", "minimum": 1, "maximum": max, "default": default }),
                Rule::Text { max_chars } => json!({ "type": "string", "minLength": 1, "maxLength": max_chars }),
                Rule::Cursor { max_chars } => json!({ "type": "string", "maxLength": max_chars }),
            };
            json!({ "name": param.name, "in": "query", "required": false, "description": param.description, "schema": schema })
        })
        .collect();
    let mut responses = Map::new();
    let answer = json!({ "content": { "application/json": { "schema": reference(operation.answer) } } });
    if operation.body.is_some() {
        let mut created = answer.clone();
        created["description"] = "Created (a dry run answers 200).".into();
        responses.insert("201".into(), created);
    }
    let mut ok = answer;
    ok["description"] = "Done.".into();
    responses.insert("200".into(), ok);
    let mut unprocessable: Vec<&str> = vec!["invalid_query"];
    unprocessable.extend(operation.errors);
    let mut errors: Vec<(&str, Vec<&str>, &str)> = vec![
        ("401", vec!["unauthorized"], "The uniform credential refusal (WWW-Authenticate: Bearer)."),
        ("422", unprocessable, "Unusable input; `field` names it."),
        ("429", vec!["rate_limited"], "Over a rate limit; Retry-After says when to retry."),
        ("500", vec!["internal_error"], "Service fault; quote the X-Request-Id."),
        ("503", vec!["try_again"], "Transient database condition; Retry-After present."),
    ];
    if operation.body.is_some() {
        errors.push(("409", vec!["conflict"], "Two pushes created the same external_id at once; retry."));
        errors.push(("413", vec!["payload_too_large"], "Body over 64 KiB."));
        errors.push(("415", vec!["unsupported_media_type"], "Content-Type was not application/json."));
    }
    for (status, codes, description) in errors {
        let mut schema = reference("Error");
        if !codes.is_empty() {
            schema = json!({ "allOf": [reference("Error"), { "properties": { "error": { "enum": codes } } }] });
        }
        let mut response =
            json!({ "description": description, "content": { "application/json": { "schema": schema } } });
        if matches!(status, "409" | "429" | "503") {
            response["headers"] = json!({ "Retry-After": { "schema": { "type": "integer", "minimum": 1 } } });
        }
        responses.insert(status.into(), response);
    }
    let mut object = json!({
        "operationId": operation.call.function().trim_start_matches("api."),
        "summary": operation.summary,
        "description": match operation.scope {
            Some(scope) => format!("Scope `{scope}`."),
            None => "Any valid credential.".to_string(),
        },
        "parameters": parameters,
        "responses": responses,
    });
    if let Some(body) = operation.body {
        let mut media = json!({ "schema": reference(body) });
        if let Some(example) = example(body) {
            media["example"] = example;
        }
        object["requestBody"] = json!({ "required": true, "content": { "application/json": media } });
    }
    object
}

/// A request body an operator might send, for the document's readers (and schemathesis's first cases).
fn example(body: &str) -> Option<Value> {
    Some(match body {
        "LotWriteBody" => json!({
            "name": "Harbour Car Park",
            "timezone": "Europe/London",
            "handover": "self",
            "online_bookable": true,
            "capacity": 120,
            "latitude": "51.5",
            "longitude": "-0.127758",
            "city": "London",
            "country_code": "GB",
            "features": ["cameras", "indoor"],
            "arrival": { "entrance": "North gate, Dock Road" },
            "min_advance_days": 0,
            "min_stay_days": 1,
            "max_stay_days": 30,
            "cancellation": { "free_until_hours_before_check_in": 24, "penalty_percent_after": "50.00", "no_show_forfeits_full": true },
        }),
        "RatesWriteBody" => {
            json!({ "floor_price": "10.00", "base_price": "15.00", "ceiling_price": "20.00", "dynamic": false })
        }
        "BlockedPeriodsWriteBody" => json!({
            "blocked_periods": [{ "starts_on": "2026-12-24", "ends_on": "2026-12-26", "reason": "Christmas closure" }],
        }),
        _ => return None,
    })
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn webhook() -> Value {
    json!({
        "post": {
            "summary": "A booking of the operator was created or changed: pull GET /bookings.",
            "parameters": [{
                "name": "Service-Signature",
                "in": "header",
                "required": true,
                "description": "`t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(whsec_ secret, \"<t>.\" + raw body)>`.",
                "schema": { "type": "string", "pattern": "^t=[0-9]+(,v1=[0-9a-f]{64})+$" },
            }],
            "requestBody": {
                "required": true,
                "content": { "application/json": { "schema": reference("BookingChanged") } },
            },
            "responses": { "2XX": { "description": "Delivered (answer within 5 seconds)." } },
        },
    })
}

fn nullable(schema: Value) -> Value {
    json!({ "anyOf": [schema, { "type": "null" }] })
}

fn decimal() -> Value {
    json!({ "type": "string", "pattern": "^[0-9]+\\.[0-9]{2}$", "example": "12.50" })
}

fn decimal_input() -> Value {
    json!({ "anyOf": [{ "type": "number" }, { "type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$" }] })
}

fn date() -> Value {
    json!({ "type": "string", "format": "date", "example": "2026-07-01" })
}

fn object(properties: Value, required: &[&str], closed: bool) -> Value {
    let mut schema = json!({ "type": "object", "properties": properties, "required": required });
    if closed {
        schema["additionalProperties"] = false.into();
    }
    schema
}

const FEATURES: [&str; 9] = [
    "indoor",
    "security",
    "cameras",
    "gate_automation",
    "plate_recognition",
    "ev_charging",
    "disabled_access",
    "oversize_vehicle",
    "valet",
];

fn schemas() -> Value {
    let lot_properties = json!({
        "external_id": { "type": "string", "minLength": 1, "maxLength": 200 },
        "name": { "type": "string", "minLength": 1, "maxLength": 200 },
        "timezone": { "type": "string", "minLength": 1, "maxLength": 64, "example": "Europe/London" },
        "handover": { "type": "string", "enum": ["self", "attended"] },
        "online_bookable": { "type": "boolean" },
        "capacity": nullable(json!({ "type": "integer", "minimum": 0, "maximum": 1_000_000 })),
        "latitude": nullable(json!({ "type": "string", "example": "51.5" })),
        "longitude": nullable(json!({ "type": "string", "example": "-0.127758" })),
        "city": nullable(json!({ "type": "string", "maxLength": 120 })),
        "country_code": nullable(json!({ "type": "string", "pattern": "^[A-Z]{2}$" })),
        "features": { "type": "array", "items": { "type": "string", "enum": FEATURES }, "uniqueItems": true },
        "arrival": nullable(json!({ "type": "object" })),
        "media": nullable(json!({ "type": "object" })),
        "min_advance_days": { "type": "integer", "minimum": 0, "maximum": 365 },
        "min_stay_days": nullable(json!({ "type": "integer", "minimum": 1, "maximum": 365 })),
        "max_stay_days": nullable(json!({ "type": "integer", "minimum": 1, "maximum": 365 })),
        "cancellation": nullable(reference("Cancellation")),
    });
    let keys_of = |properties: &Value| -> Vec<String> {
        properties.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
    };
    let lot_keys = keys_of(&lot_properties);
    let mut lot_list_properties = lot_properties.clone();
    lot_list_properties["rates"] = nullable(reference("Rates"));
    let lot_list_keys = keys_of(&lot_list_properties);
    let lot_keys: Vec<&str> = lot_keys.iter().map(String::as_str).collect();
    let lot_list_keys: Vec<&str> = lot_list_keys.iter().map(String::as_str).collect();
    let blocked_period = object(
        json!({
            "starts_on": date(),
            "ends_on": date(),
            "reason": nullable(json!({ "type": "string", "minLength": 1, "maxLength": 200 })),
            "overlapping_bookings": { "type": "integer", "minimum": 0 },
        }),
        &["starts_on", "ends_on", "reason", "overlapping_bookings"],
        true,
    );
    let write_result = |extra: Value, required: &[&str]| {
        let mut properties = json!({
            "external_id": { "type": "string" },
            "result": { "type": "string", "enum": ["created", "updated", "unchanged"] },
            "dry_run": { "const": true },
        });
        for (key, value) in extra.as_object().unwrap() {
            properties[key] = value.clone();
        }
        let mut keys = vec!["external_id", "result"];
        keys.extend(required);
        object(properties, &keys, true)
    };
    json!({
        "Error": object(
            json!({ "error": { "type": "string" }, "field": { "type": "string" } }),
            &["error"],
            true,
        ),
        "PingResult": object(
            json!({
                "ok": { "const": true },
                "key_id": { "type": "string", "pattern": "^pk_api_[0-9a-f]{32}$" },
                "scopes": { "type": "array", "items": { "type": "string", "enum": ["read_supply", "write_supply", "read_bookings"] } },
                "server_time": { "type": "string", "format": "date-time" },
            }),
            &["ok", "key_id", "scopes", "server_time"],
            true,
        ),
        "Cancellation": object(
            json!({
                "free_until_hours_before_check_in": { "type": "integer", "minimum": 0, "maximum": 8760 },
                "penalty_percent_after": decimal(),
                "no_show_forfeits_full": { "type": "boolean" },
            }),
            &["free_until_hours_before_check_in", "penalty_percent_after", "no_show_forfeits_full"],
            true,
        ),
        "Lot": object(lot_properties, &lot_keys, true),
        "LotListEntry": object(lot_list_properties, &lot_list_keys, true),
        "LotPage": object(
            json!({
                "lots": { "type": "array", "items": reference("LotListEntry") },
                "next_after": nullable(json!({ "type": "string" })),
            }),
            &["lots", "next_after"],
            true,
        ),
        "LotWriteBody": object(
            json!({
                "external_id": nullable(json!({ "type": "string", "minLength": 1, "maxLength": 200 })),
                "name": { "type": "string", "minLength": 1, "maxLength": 200 },
                "timezone": { "type": "string", "minLength": 1, "maxLength": 64 },
                "handover": { "type": "string", "enum": ["self", "attended"] },
                "online_bookable": { "type": "boolean" },
                "capacity": nullable(json!({ "type": "integer", "minimum": 0, "maximum": 1_000_000 })),
                "latitude": nullable(decimal_input()),
                "longitude": nullable(decimal_input()),
                "city": nullable(json!({ "type": "string", "maxLength": 120 })),
                "country_code": nullable(json!({ "type": "string" })),
                "features": nullable(json!({ "type": "array", "maxItems": 32, "items": { "type": "string", "enum": FEATURES } })),
                "arrival": nullable(json!({ "type": "object" })),
                "media": nullable(json!({ "type": "object" })),
                "min_advance_days": nullable(json!({ "type": "integer", "minimum": 0, "maximum": 365 })),
                "min_stay_days": nullable(json!({ "type": "integer", "minimum": 1, "maximum": 365 })),
                "max_stay_days": nullable(json!({ "type": "integer", "minimum": 1, "maximum": 365 })),
                "cancellation": nullable(object(
                    json!({
                        "free_until_hours_before_check_in": { "type": "integer", "minimum": 0, "maximum": 8760 },
                        "penalty_percent_after": decimal_input(),
                        "no_show_forfeits_full": { "type": "boolean" },
                    }),
                    &[],
                    true,
                )),
            }),
            &["name", "timezone", "handover", "online_bookable"],
            true,
        ),
        "LotWriteResult": write_result(
            json!({
                "changed": { "type": "array", "items": { "type": "string" } },
                "listing_review_superseded": { "type": "boolean" },
                "lot": reference("Lot"),
            }),
            &["changed", "listing_review_superseded", "lot"],
        ),
        "Rates": object(
            json!({
                "channel": { "const": "marketplace" },
                "currency": { "type": "string", "pattern": "^[A-Z]{3}$" },
                "base_price": decimal(),
                "floor_price": decimal(),
                "ceiling_price": decimal(),
                "min_first_day_price": nullable(decimal()),
                "dynamic": { "type": "boolean" },
                "valid_from": nullable(date()),
                "valid_to": nullable(date()),
            }),
            &["channel", "currency", "base_price", "floor_price", "ceiling_price", "min_first_day_price", "dynamic", "valid_from", "valid_to"],
            true,
        ),
        "RatesWriteBody": object(
            json!({
                "fixed_price": decimal_input(),
                "floor_price": decimal_input(),
                "base_price": decimal_input(),
                "ceiling_price": decimal_input(),
                "currency": nullable(json!({ "type": "string", "minLength": 3, "maxLength": 3 })),
                "min_first_day_price": nullable(decimal_input()),
                "dynamic": nullable(json!({ "type": "boolean" })),
                "valid_from": nullable(date()),
                "valid_to": nullable(date()),
            }),
            &[],
            true,
        ),
        "RatesWriteResult": write_result(
            json!({
                "changed": { "type": "array", "items": { "type": "string" } },
                "envelope_widened": { "type": "boolean" },
                "rates": reference("Rates"),
            }),
            &["changed", "envelope_widened", "rates"],
        ),
        "BlockedPeriod": blocked_period,
        "BlockedPeriodList": object(
            json!({
                "external_id": { "type": "string" },
                "blocked_periods": { "type": "array", "items": reference("BlockedPeriod") },
            }),
            &["external_id", "blocked_periods"],
            true,
        ),
        "BlockedPeriodsWriteBody": object(
            json!({
                "blocked_periods": {
                    "type": "array",
                    "maxItems": 100,
                    "items": object(
                        json!({
                            "starts_on": date(),
                            "ends_on": date(),
                            "reason": nullable(json!({ "type": "string", "minLength": 1, "maxLength": 200 })),
                        }),
                        &["starts_on", "ends_on"],
                        true,
                    ),
                },
            }),
            &["blocked_periods"],
            true,
        ),
        "BlockedPeriodsWriteResult": write_result(
            json!({
                "added": { "type": "integer", "minimum": 0 },
                "removed": { "type": "integer", "minimum": 0 },
                "blocked_periods": { "type": "array", "items": reference("BlockedPeriod") },
            }),
            &["added", "removed", "blocked_periods"],
        ),
        "Booking": object(
            json!({
                "reference": { "type": "string" },
                "external_reference": nullable(json!({ "type": "string" })),
                "lot_external_id": { "type": "string" },
                "lot_name": { "type": "string" },
                "timezone": { "type": "string" },
                "check_in_local": { "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$" },
                "check_out_local": { "type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$" },
                "parking_days": { "type": "integer" },
                "status": { "type": "string", "enum": ["pending", "confirmed", "checked_in", "completed", "cancelled"] },
                "payment_status": { "type": "string", "enum": ["pending", "paid", "partial", "refunded", "expired", "not_required"] },
                "currency": { "type": "string" },
                "total": decimal(),
                "channel": { "type": "string" },
                "flight_number": nullable(json!({ "type": "string" })),
                "customer": object(
                    json!({
                        "first_name": nullable(json!({ "type": "string" })),
                        "last_name": nullable(json!({ "type": "string" })),
                        "email": nullable(json!({ "type": "string" })),
                        "phone": nullable(json!({ "type": "string" })),
                    }),
                    &["first_name", "last_name", "email", "phone"],
                    true,
                ),
                "vehicle_plates": { "type": "array", "items": { "type": "string" } },
                "created_at": { "type": "string", "format": "date-time" },
                "cancelled_at": nullable(json!({ "type": "string", "format": "date-time" })),
            }),
            &["reference", "external_reference", "lot_external_id", "lot_name", "timezone", "check_in_local",
              "check_out_local", "parking_days", "status", "payment_status", "currency", "total", "channel",
              "flight_number", "customer", "vehicle_plates", "created_at", "cancelled_at"],
            true,
        ),
        "BookingPage": object(
            json!({
                "bookings": { "type": "array", "items": reference("Booking") },
                "next": { "type": "string" },
                "has_more": { "type": "boolean" },
            }),
            &["bookings", "next", "has_more"],
            true,
        ),
        "BookingChanged": object(
            json!({
                "event": { "const": "booking.changed" },
                "booking_reference": { "type": "string" },
                "occurred_at": { "type": "string", "format": "date-time" },
            }),
            &["event", "booking_reference", "occurred_at"],
            true,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_served_at_the_root_above_the_base_path() {
        assert_eq!(path("/v1"), "/openapi.json");
        assert_eq!(path("/api/v1"), "/api/openapi.json");
    }

    #[test]
    fn the_document_and_the_route_table_agree() {
        let document = document("/v1");
        assert_eq!(document["openapi"], "3.1.0");
        assert_eq!(document["info"]["version"], "v1");
        let schemas = document["components"]["schemas"].as_object().unwrap();
        let paths = document["paths"].as_object().unwrap();
        assert_eq!(paths.len(), ROUTES.len());
        for spec in ROUTES {
            let item = &paths[&format!("/v1{}", spec.template)];
            let verbs: Vec<String> = item.as_object().unwrap().keys().filter(|k| *k != "parameters").cloned().collect();
            assert_eq!(verbs.len(), spec.operations.len(), "{}", spec.template);
            for operation in spec.operations {
                let object = &item[operation.method.as_str().to_lowercase()];
                let names: Vec<&str> =
                    object["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
                let expected: Vec<&str> = operation.query.iter().map(|p| p.name).collect();
                assert_eq!(names, expected, "{} {}", operation.method, spec.template);
                assert!(schemas.contains_key(operation.answer), "{}", operation.answer);
                if let Some(body) = operation.body {
                    assert!(schemas.contains_key(body), "{body}");
                    assert!(object["responses"]["201"].is_object());
                }
                let codes = &object["responses"]["422"]["content"]["application/json"]["schema"]["allOf"][1]
                    ["properties"]["error"]["enum"];
                assert_eq!(codes.as_array().unwrap().len(), 1 + operation.errors.len());
            }
        }
        // Every reference points at a schema of the document.
        let text = document.to_string();
        for reference in text.split("\"#/components/schemas/").skip(1) {
            let name = &reference[..reference.find('"').unwrap()];
            assert!(schemas.contains_key(name), "a reference to a missing schema {name}");
        }
    }

    #[test]
    fn every_write_body_has_an_example() {
        for spec in ROUTES {
            for operation in spec.operations.iter().filter(|operation| operation.body.is_some()) {
                assert!(example(operation.body.unwrap()).is_some(), "{}", spec.template);
            }
        }
    }

    #[test]
    fn bodies_that_refuse_unknown_keys_say_so() {
        let document = document("/v1");
        for name in ["LotWriteBody", "RatesWriteBody", "BlockedPeriodsWriteBody"] {
            assert_eq!(document["components"]["schemas"][name]["additionalProperties"], false, "{name}");
        }
    }
}
