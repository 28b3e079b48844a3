//! JSON syntax of the write routes' bodies, end to end (the gateway reads it: src/json_syntax.rs;
//! the database raises its verdict in the order of checks). These are the body edge cases the
//! database answered when it read the JSON itself (the cases sql/tests/26-body-edge-cases.sql held then),
//! with the same codes and fields: a key given twice at any depth, tokens `jsonb` cannot hold,
//! numbers written with an exponent beyond ±20, the first of thousands of objects repeating a key,
//! nesting up to the reader's bound. Every case is a dry run on a lot the caller holds, so each one
//! is answered exactly as a real write would be, and nothing is stored either way.

use http::Method;

use crate::common::lots::json_headers;
use crate::common::{Credential, TestApp};

const LOT: &str = "/v1/lots/harbour-1?dry_run=true";
const RATES: &str = "/v1/lots/harbour-1/rates?dry_run=true";
const CLOSURES: &str = "/v1/lots/harbour-1/blocked-periods?dry_run=true";

/// `"<status> <error> <field or ->"`, or `"accepted"` for a 200 dry run.
async fn answer(app: &TestApp, credential: &Credential, path: &str, body: &str) -> String {
    let response = app.request(Method::PUT, path, json_headers(credential), body.to_string()).await;
    if response.status == 200 {
        return "accepted".to_string();
    }
    let json = response.json();
    format!(
        "{} {} {}",
        response.status.as_u16(),
        json["error"].as_str().unwrap_or("?"),
        json["field"].as_str().unwrap_or("-")
    )
}

/// A lot body with `members` (raw JSON text, a leading comma) after the four required fields.
fn lot_with(members: &str) -> String {
    format!(r#"{{"name": "Edge", "timezone": "Europe/London", "handover": "self", "online_bookable": true{members}}}"#)
}

async fn assert_answers(app: &TestApp, credential: &Credential, cases: &[(&str, String, &str)]) {
    for (path, body, expected) in cases {
        let got = answer(app, credential, path, body).await;
        assert_eq!(&got, expected, "{path} {}", &body[..body.len().min(300)]);
    }
}

#[tokio::test]
async fn a_key_given_twice_at_any_depth() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let cases = [
        (LOT, lot_with(r#", "cancellation": {"free_until_hours_before_check_in": 1, "free_until_hours_before_check_in": 2, "penalty_percent_after": "10.00", "no_show_forfeits_full": true}"#),
         "422 invalid_body cancellation.free_until_hours_before_check_in"),
        (LOT, lot_with(r#", "arrival": {"entrance": "North", "entrance": "South"}"#), "422 invalid_body arrival.entrance"),
        (LOT, lot_with(r#", "arrival": {"transfer": {"line": "7", "line": "8"}}"#), "422 invalid_body arrival"),
        (LOT, lot_with(r#", "media": {"heroUrl": "https://p.example/1.jpg", "heroUrl": "https://p.example/2.jpg"}"#), "422 invalid_body media.heroUrl"),
        (LOT, lot_with(r#", "arrival": {"entrance": "a", "entrance": "b"}, "media": {"heroUrl": "x", "heroUrl": "y"}"#), "422 invalid_body arrival.entrance"),
        (LOT, lot_with(r#", "arrival": {"transfer": {"line": "7"}, "line": "8"}"#), "accepted"),
        (LOT, lot_with(r#", "Zq": 1, "aq": 1, "aq": 2, "Zq": 2"#), "422 invalid_body Zq"),
        (LOT, lot_with(r#", "arrival": {"b": 1, "b": 2, "B": 1, "B": 2}"#), "422 invalid_body arrival.B"),
        (CLOSURES, r#"{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01"}, {"starts_on": "2026-02-01", "starts_on": "2026-02-02", "ends_on": "2026-02-03"}]}"#.to_string(),
         "422 invalid_blocked_periods blocked_periods[1].starts_on"),
        (CLOSURES, r#"{"blocked_periods": [], "blocked_periods": []}"#.to_string(), "422 invalid_body blocked_periods"),
        (RATES, r#"{"fixed_price": "10.00", "fixed_price": "11.00"}"#.to_string(), "422 invalid_body fixed_price"),
        (LOT, lot_with(r#", "city": ":x", "arrival": {"a": 1, "a": 2}"#), "422 invalid_body arrival.a"),
        (LOT, lot_with(r#", "city": "\u003a x", "arrival": {"a": 1, "a": 2}"#), "422 invalid_body arrival.a"),
        (LOT, lot_with(r#", "arrival": {"a": null, "a": 1}"#), "422 invalid_body arrival.a"),
        (LOT, lot_with(r#", "arrival": {"a": null, "a": null}"#), "422 invalid_body arrival.a"),
        (LOT, lot_with(r#", "arrival": {"null": "null", "0": 0, "x": [null, 0, {"null": null}]}"#), "accepted"),
        (CLOSURES, r#"{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-02", "reason": ":a"}, {"starts_on": "2026-01-03", "ends_on": "2026-01-04", "null": 1, "null": 2}]}"#.to_string(),
         "422 invalid_blocked_periods blocked_periods[1].null"),
        (LOT, lot_with(r#", "city": "Lake\nullswater", "arrival": {"note": "a\\null\\\nullage"}"#), "accepted"),
        (LOT, lot_with(r#", "city": "Lake\nullswater", "arrival": {"a": 1, "a": 2}"#), "422 invalid_body arrival.a"),
        (LOT, lot_with(r#", "arrival": {"a": "\":\":"}, "city": "\":\":", "media": {"x": 1}, "cancellation": {"b": 1, "b": 2}"#), "422 invalid_body cancellation.b"),
        (CLOSURES, r#"{"blocked_periods": [1, {}, {"reason": "x"}, "\":\":", {"starts_on": "2026-01-01", "ends_on": "2026-01-02"}, {"reason": "a", "reason": "b"}]}"#.to_string(),
         "422 invalid_blocked_periods blocked_periods[5].reason"),
    ];
    assert_answers(&app, &credential, &cases).await;
}

/// The cases of the field tables' files (sql/tests/09, 15 and 16) that were JSON syntax.
#[tokio::test]
async fn the_field_tables_syntax_cases() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let lot = |name: &str, city: &str, entrance: &str| {
        format!(
            r#"{{"name": {name}, "timezone": "Europe/London", "handover": "self", "online_bookable": true, "capacity": 120,
                "city": {city}, "arrival": {{"entrance": {entrance}}}}}"#
        )
    };
    let plain = lot(r#""Harbour Car Park""#, r#""London""#, r#""North gate, Dock Road""#);
    let many: String = (1..=2000).map(|i| format!(r#""k{i}": "A", "#)).collect();
    let cases = [
        (LOT, format!(r#"{{"name": "Other", {}"#, &plain[1..]), "422 invalid_body name"),
        (LOT, format!(r#"{{"city": null, {}"#, &plain[1..]), "422 invalid_body city"),
        (LOT, format!("{{\"city\"\n\t :  \"Leeds\", {}", &plain[1..]), "422 invalid_body city"),
        (LOT, lot(r#""H""#, r#""L""#, r#""a\": b", "entrance": ": \"x\": ""#), "422 invalid_body arrival.entrance"),
        (LOT, lot(r#""H""#, r#""a\": b\\\": c""#, r#""x""#), "accepted"),
        (LOT, lot(r#""Harbour\u0000Park""#, r#""London""#, r#""x""#), "422 invalid_body name"),
        (LOT, lot(r#""H""#, r#""Lon\ud800don""#, r#""x""#), "422 invalid_body city"),
        (LOT, lot(r#""H""#, r#""London\udc00""#, r#""x""#), "422 invalid_body city"),
        (LOT, lot(r#""H""#, r#""London""#, r#""North\u0000gate""#), "422 invalid_body arrival"),
        (LOT, plain.replace(r#""capacity": 120"#, r#""capacity": 1e1000000"#), "422 invalid_body capacity"),
        (LOT, plain.replace(r#""capacity": 120"#, r#""media": {"width": 1e1000000}"#), "422 invalid_body media"),
        (LOT, lot(r#""Harbour \"Car\" Park\u0000""#, r#""London""#, r#""x""#), "422 invalid_body name"),
        (
            LOT,
            lot(r#""H""#, r#""London""#, &format!(r#""North gate", {many}"last": "\u0000""#)),
            "422 invalid_body arrival",
        ),
        (
            LOT,
            lot(r#""Harbour ~3u0000 ~0~1~2 \\u0000 \\\" \\""#, r#""Lon\u0000don""#, r#""x""#),
            "422 invalid_body city",
        ),
        (LOT, r#"{"name": "x", "caf\u00e9~": "\u0000"}"#.to_string(), "422 invalid_body café~"),
        (LOT, r#"{"name": "x", "k\u0000": 1, "city": "\u0000"}"#.to_string(), "422 invalid_body -"),
        (LOT, lot(r#""H""#, r#""Lon\ud83d\ude97don""#, r#""x""#), "accepted"),
        (RATES, r#"{"fixed_price": "1", "fixed_price": "2"}"#.to_string(), "422 invalid_body fixed_price"),
    ];
    assert_answers(&app, &credential, &cases).await;
}

#[tokio::test]
async fn the_first_of_thousands_of_objects_repeating_a_key_is_named() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let entries = |count: usize, at: &[usize], entry: &str| {
        let plain = r#"{"starts_on": "2026-01-01", "ends_on": "2026-01-02"}"#;
        let list: Vec<&str> = (0..count).map(|i| if at.contains(&i) { entry } else { plain }).collect();
        format!(r#"{{"blocked_periods": [{}]}}"#, list.join(", "))
    };
    let twice = r#"{"reason": "a", "reason": "b"}"#;
    let arrival: Vec<String> = (1..=2000).map(|i| format!(r#""k{i}": {{"a": {i}}}"#)).collect();
    let cases = [
        (CLOSURES, entries(900, &[899], twice), "422 invalid_blocked_periods blocked_periods[899].reason"),
        (CLOSURES, entries(900, &[517, 13], twice), "422 invalid_blocked_periods blocked_periods[13].reason"),
        (
            CLOSURES,
            entries(900, &[0], r#"{"reason": "a", "\u0072eason": "b"}"#),
            "422 invalid_blocked_periods blocked_periods[0].reason",
        ),
        (CLOSURES, entries(900, &[700], r#"{"x": {"a": 1, "a": 2}}"#), "422 invalid_blocked_periods blocked_periods"),
        (
            LOT,
            lot_with(&format!(r#", "arrival": {{{}, "kz": {{"a": 1, "a": 2}}}}"#, arrival.join(", "))),
            "422 invalid_body arrival",
        ),
        (
            CLOSURES,
            format!(r#"{{"blocked_periods": [{}{twice}, {{"reason": "c", "reason": "d"}}]}}"#, "{}, ".repeat(1000)),
            "422 invalid_blocked_periods blocked_periods[1000].reason",
        ),
    ];
    assert_answers(&app, &credential, &cases).await;
}

#[tokio::test]
async fn tokens_jsonb_cannot_hold_and_exponents_beyond_20_name_the_top_level_member() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let digits = |count: usize| format!("1{}", "0".repeat(count - 1));
    let many: Vec<String> = (1..=3000).map(|i| format!(r#""k{i}": "{i}e99""#)).collect();
    let cases = [
        (RATES, r#"{"fixed_price": 1e1000000}"#.to_string(), "422 invalid_body fixed_price"),
        (LOT, lot_with(", \"latitude\": 1e1000000, \"longitude\": 0"), "422 invalid_body latitude"),
        (LOT, lot_with(r#", "city": "x\u0000y""#), "422 invalid_body city"),
        (LOT, lot_with(r#", "arrival": {"n\u0000": 1}"#), "422 invalid_body arrival"),
        (LOT, lot_with(r#", "a\u0000": 1"#), "422 invalid_body -"),
        (LOT, lot_with(r#", "city": "\udc00""#), "422 invalid_body city"),
        (
            CLOSURES,
            r#"{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01", "reason": "\u0000"}]}"#
                .to_string(),
            "422 invalid_body blocked_periods",
        ),
        (LOT, lot_with(", \"latitude\": 1e21, \"longitude\": 0"), "422 invalid_body latitude"),
        (LOT, lot_with(", \"latitude\": 1e20, \"longitude\": 0"), "422 invalid_coordinates latitude"),
        (LOT, lot_with(", \"latitude\": 4.5e-05, \"longitude\": 1.2246467991473532e-16"), "accepted"),
        (LOT, lot_with(r#", "arrival": {"entrance": "North", "n": 1e-21}"#), "422 invalid_body arrival"),
        (LOT, lot_with(r#", "arrival": {"entrance": "North", "n": 1E+0021}"#), "422 invalid_body arrival"),
        (LOT, lot_with(r#", "arrival": {"entrance": "North", "n": 2.5e0020}"#), "accepted"),
        (LOT, lot_with(r#", "arrival": {"entrance": "Gate E21 by 1e999 \"1e999\""}"#), "accepted"),
        (
            LOT,
            lot_with(r#", "city": "a \"1e21\" b", "arrival": {"note": "ref 0f7e29c1", "1e99": "x\\", "n": 3e25}"#),
            "422 invalid_body arrival",
        ),
        (LOT, lot_with(r#", "city": "a \"1e21\" b", "arrival": {"note": "ref 0f7e29c1", "1e99": "x\\"}"#), "accepted"),
        (
            LOT,
            lot_with(&format!(r#", {}, "z1": 7, "z2": [1, 1e-30], "z3": 1e21"#, many.join(", "))),
            "422 invalid_body z2",
        ),
        (LOT, lot_with(", \"zz\": 5E+100"), "422 invalid_body zz"),
        (LOT, lot_with(&format!(", \"zz\": [{}]", vec!["1e130000"; 7000].join(","))), "422 invalid_body zz"),
        (RATES, r#"{"fixed_price": 1e-21}"#.to_string(), "422 invalid_body fixed_price"),
        (
            CLOSURES,
            r#"{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01", "n": 1e999}]}"#.to_string(),
            "422 invalid_body blocked_periods",
        ),
        (LOT, "[1e999]".to_string(), "422 too_many_lots -"),
        // numbers of thousands of digits that jsonb holds are the value rules' to refuse
        (RATES, format!(r#"{{"fixed_price": {}}}"#, digits(20000)), "422 invalid_body fixed_price"),
        (
            LOT,
            lot_with(&format!(", \"latitude\": {}, \"longitude\": 0", digits(20000))),
            "422 invalid_coordinates latitude",
        ),
    ];
    assert_answers(&app, &credential, &cases).await;
}

#[tokio::test]
async fn nesting_is_read_up_to_the_readers_bound_and_deeper_is_invalid_json() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let nested = |depth: usize, repeat: bool| {
        lot_with(&format!(
            r#", "zz": {}{}{}"#,
            "[".repeat(depth - 1),
            "]".repeat(depth - 1),
            if repeat { r#", "zz": 1"# } else { "" }
        ))
    };
    let bound = gateway::json_syntax::MAX_DEPTH;
    let cases = [
        (LOT, nested(1001, false), "422 unknown_field zz"),
        (LOT, nested(bound, false), "422 unknown_field zz"),
        (LOT, nested(bound, true), "422 invalid_body zz"),
        (LOT, nested(bound + 1, false), "422 invalid_json -"),
        (LOT, nested(bound + 1, true), "422 invalid_json -"),
        (LOT, "[".repeat(65_536), "422 invalid_json -"),
    ];
    assert_answers(&app, &credential, &cases).await;
}

#[tokio::test]
async fn a_body_fault_is_answered_after_the_credential_and_the_lot_checks() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let stranger = app.issue(&app.make_operator().await, &["read_supply", "write_supply"], None).await;
    let faulty = r#"{"a": 1, "a": 2}"#;
    for path in [LOT, RATES, CLOSURES] {
        let mut headers = json_headers(&credential);
        headers.remove(http::header::AUTHORIZATION);
        let response = app.request(Method::PUT, path, headers, faulty).await;
        assert_eq!(response.status, 401, "{path}: no credential first");
        assert_eq!(answer(&app, &credential, path, "{").await, "422 invalid_json -", "{path}");
    }
    // under a lot that is not the caller's: the uniform 401 before the body is looked at
    for path in [RATES, CLOSURES] {
        assert_eq!(answer(&app, &stranger, path, faulty).await, "401 unauthorized -", "{path}");
    }
    // a path id that is no external id comes before the body (PUT /lots/{id} reads it first)
    let long_id = format!("/v1/lots/{}", "x".repeat(201));
    assert_eq!(answer(&app, &credential, &long_id, "{").await, "422 invalid_body external_id");
}
