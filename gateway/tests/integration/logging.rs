//! One JSON log line per request: request_id (the answer's X-Request-Id), key_id as presented (or
//! null), method, route template (or null), status, duration_ms. Never a secret, never the
//! Authorization header, not even on a 401.
//!
//! Each write (the three PUT routes, dry runs included) writes a second line: request_id, key_id,
//! route, result, review_voided, dry_run, and what it did without a value: the changed field names
//! for a lot, the changed names and envelope_widened for rates, the added and removed counts for a
//! closure list. A refused write, and a read, write the request line only. No line carries a
//! price, a reason or any other value.

use http::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use http::Method;
use serde_json::{json, Value};

use crate::common::lots::{full_lot, minimal_lot, ALL_CHANGED};
use crate::common::supply::{closures, period, range, ALL_RATES_CHANGED};
use tokio::io::AsyncReadExt as _;

use crate::common::process::{serve, stdout_lines, terminate, until_serving};
use crate::common::{header_map, test_database_url, Http, TestApp, TestResponse};

/// The keys of a request line (a 5xx adds `cause`).
const KEYS: [&str; 9] =
    ["duration_ms", "key_id", "level", "message", "method", "request_id", "route", "status", "timestamp"];

fn assert_line(line: &Value, response: &TestResponse, method: &str, route: Option<&str>, key_id: Option<&str>) {
    let mut keys: Vec<&str> = line.as_object().expect("a JSON object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, KEYS, "the request line's keys: {line}");
    assert_eq!(line["message"], "request");
    assert_eq!(line["request_id"], response.request_id());
    assert_eq!(line["method"], method);
    assert_eq!(line["route"], json!(route));
    assert_eq!(line["key_id"], json!(key_id));
    assert_eq!(line["status"], response.status.as_u16());
    let duration = line["duration_ms"].as_f64().expect("duration_ms is a number");
    assert!((0.0..10_000.0).contains(&duration), "duration_ms {duration}");
}

#[tokio::test]
async fn a_ping_writes_one_line_with_its_request_id_key_id_route_and_status() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    assert!(app.logs().is_empty(), "fixtures go around the gateway");

    let response = app.ping(Some(&credential.bearer())).await;
    assert_eq!(response.status, 200);
    let lines = app.logs();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_line(&lines[0], &response, "GET", Some("/ping"), Some(&credential.key_id));
}

#[tokio::test]
async fn every_request_writes_exactly_one_line() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    let auth = [("authorization", bearer.as_str())];

    // method, path, headers, then the expected route and key_id
    type Case<'a> = (Method, &'a str, HeaderMap, Option<&'a str>, Option<&'a str>);
    let cases: Vec<Case> = vec![
        (Method::GET, "/v1/ping", header_map(&auth), Some("/ping"), Some(credential.key_id.as_str())),
        (Method::GET, "/v1/ping", header_map(&[]), Some("/ping"), None),
        (Method::GET, "/v1/nope", header_map(&auth), None, Some(credential.key_id.as_str())),
        (Method::GET, "/ping", header_map(&[]), None, None),
        (Method::POST, "/v1/ping", header_map(&auth), Some("/ping"), Some(credential.key_id.as_str())),
        (Method::OPTIONS, "/v1/ping", header_map(&[]), Some("/ping"), None),
        (Method::HEAD, "/v1/ping", header_map(&[]), Some("/ping"), None),
        (Method::GET, "/v1/ping?foo=1", header_map(&auth), Some("/ping"), Some(credential.key_id.as_str())),
    ];
    let mut answered = Vec::new();
    for (method, path, headers, route, key_id) in cases {
        let response = app.request(method.clone(), path, headers, "").await;
        answered.push((response, method, route, key_id));
    }
    let lines = app.logs();
    assert_eq!(lines.len(), answered.len(), "one line per request: {lines:?}");
    for (line, (response, method, route, key_id)) in lines.iter().zip(&answered) {
        assert_line(line, response, method.as_str(), *route, *key_id);
        assert_eq!(app.log_of(response), *line);
    }
    let statuses: Vec<u64> = lines.iter().map(|line| line["status"].as_u64().unwrap()).collect();
    assert_eq!(statuses, [200, 401, 404, 404, 405, 204, 405, 422]);
}

#[tokio::test]
async fn key_id_is_the_presented_one_for_a_well_formed_bearer_and_null_otherwise() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let unknown_key = format!("pk_api_{}", uuid::Uuid::new_v4().simple());

    // Well-formed: the key id as presented, whether or not the credential is good.
    let presented = [
        (credential.bearer(), credential.key_id.clone()),
        (format!("Bearer {}.wrong-secret", credential.key_id), credential.key_id.clone()),
        (format!("Bearer {unknown_key}.pk_sec_0000"), unknown_key.clone()),
    ];
    for (value, key_id) in &presented {
        let response = app.ping(Some(value)).await;
        assert_line(&app.log_of(&response), &response, "GET", Some("/ping"), Some(key_id));
    }

    // Absent or garbage: null, never the text the client typed.
    let garbage = [
        "Bearer",
        "Bearer nodot",
        "Basic dXNlcjpwYXNz",
        "Bearer my-password.hunter2",
        "Bearer pk_api_NOTHEX.secret",
        "Bearer pk_sec_0123456789abcdef0123456789abcdef.x",
    ];
    let absent = app.ping(None).await;
    assert_line(&app.log_of(&absent), &absent, "GET", Some("/ping"), None);
    for value in garbage {
        let response = app.ping(Some(value)).await;
        assert_eq!(response.status, 401);
        assert_line(&app.log_of(&response), &response, "GET", Some("/ping"), None);
    }
    let mut opaque = HeaderMap::new();
    opaque.insert(AUTHORIZATION, HeaderValue::from_bytes(b"Bearer \xff\xfe.\x80").unwrap());
    let response = app.request(Method::GET, "/v1/ping", opaque, "").await;
    assert_line(&app.log_of(&response), &response, "GET", Some("/ping"), None);
    // Two headers are no credential, even when both are the real one.
    let mut twice = HeaderMap::new();
    twice.append(AUTHORIZATION, HeaderValue::from_str(&credential.bearer()).unwrap());
    twice.append(AUTHORIZATION, HeaderValue::from_str(&credential.bearer()).unwrap());
    let response = app.request(Method::GET, "/v1/ping", twice, "").await;
    assert_line(&app.log_of(&response), &response, "GET", Some("/ping"), None);
}

#[tokio::test]
async fn no_line_ever_carries_a_secret_or_the_authorization_header() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_credential().await;
    let revoked = app.issue(&operator, &["read_supply"], None).await;
    app.revoke(&operator, &revoked).await;

    let other_secret = format!("pk_sec_{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple());
    let values = vec![
        credential.bearer(),
        format!("bearer   {}.{}", credential.key_id, credential.secret),
        format!("Bearer {}.{other_secret}", credential.key_id),
        revoked.bearer(),
        format!("Bearer {}", credential.secret),
        format!("Bearer {}.{}", credential.secret, credential.secret),
        format!("Basic {}", credential.secret),
        "Bearer my-password.hunter2".to_string(),
    ];
    for value in &values {
        for path in ["/v1/ping", "/v1/ping?foo=1", "/v1/nope"] {
            app.get(path, &[("authorization", value)]).await;
        }
        app.request(Method::POST, "/v1/ping", header_map(&[("authorization", value)]), value.clone()).await;
    }

    let lines = app.logs();
    assert_eq!(lines.len(), values.len() * 4);
    for line in &lines {
        let text = line.to_string();
        for forbidden in
            [credential.secret.as_str(), revoked.secret.as_str(), &other_secret, "pk_sec_", "hunter2", "my-password"]
        {
            assert!(!text.contains(forbidden), "{forbidden:?} leaked into {text}");
        }
        for value in &values {
            assert!(!text.contains(value.as_str()), "an Authorization value leaked into {text}");
        }
        assert!(!text.to_ascii_lowercase().contains("bearer"), "{text}");
        assert!(!text.to_ascii_lowercase().contains("authorization"), "{text}");
    }
    // The 401s (every value but the first two) were logged too, with the key id at most.
    let unauthorized = lines.iter().filter(|line| line["status"] == 401).count();
    assert_eq!(unauthorized, values.len() - 2);
}

// ---------------------------------------------------------------------------------------------
// Writes: a second line
// ---------------------------------------------------------------------------------------------

/// The keys of a write line.
const WRITE_KEYS: [&str; 10] =
    ["changed", "dry_run", "key_id", "level", "message", "request_id", "result", "review_voided", "route", "timestamp"];

/// The two lines of a write, in order: the request line, then the write line with these values.
fn assert_write_lines(
    app: &TestApp,
    response: &TestResponse,
    key_id: &str,
    result: &str,
    changed: &[&str],
    review_voided: bool,
    dry_run: bool,
) {
    let lines = app.lines_of(response);
    assert_eq!(lines.len(), 2, "a request line and a write line: {lines:?}");
    assert_line(&lines[0], response, "PUT", Some("/lots/{external_id}"), Some(key_id));
    let write = &lines[1];
    let mut keys: Vec<&str> = write.as_object().expect("a JSON object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, WRITE_KEYS, "the write line's keys: {write}");
    assert_eq!(write["message"], "write");
    assert_eq!(write["level"], "INFO");
    assert_eq!(write["request_id"], response.request_id());
    assert_eq!(write["key_id"], key_id);
    assert_eq!(write["route"], "/lots/{external_id}");
    assert_eq!(write["result"], result);
    assert_eq!(write["changed"], json!(changed));
    assert_eq!(write["review_voided"], review_voided);
    assert_eq!(write["dry_run"], dry_run);
}

#[tokio::test]
async fn a_write_writes_a_request_line_and_a_write_line_naming_what_it_did() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_credential().await;
    let key_id = credential.key_id.as_str();

    let response = app.put_lot(&credential, "harbour-1", &full_lot(&operator)).await;
    assert_eq!(response.status, 201);
    assert_write_lines(&app, &response, key_id, "created", &ALL_CHANGED, false, false);

    let mut body = full_lot(&operator);
    body["capacity"] = json!(99);
    body["online_bookable"] = json!(false);
    let response = app.put_lot(&credential, "harbour-1", &body).await;
    assert_eq!(response.status, 200);
    assert_write_lines(&app, &response, key_id, "updated", &["online_bookable", "capacity"], false, false);

    let response = app.put_lot(&credential, "harbour-1", &body).await;
    assert_write_lines(&app, &response, key_id, "unchanged", &[], false, false);

    // A reviewed change of a lot under review voids it, and the line says so. (A price in force is
    // a listing requirement: its write adds two lines of its own.)
    app.put_rates_expecting(&credential, "harbour-1", &json!({ "fixed_price": "20.00" }), 201).await;
    app.submit_for_review(&operator, "harbour-1").await;
    body["city"] = json!("Lisboa");
    let response = app.put_lot(&credential, "harbour-1", &body).await;
    assert_eq!(response.json()["listing_review_superseded"], true);
    assert_write_lines(&app, &response, key_id, "updated", &["city"], true, false);

    assert_eq!(app.logs().len(), 10, "two lines per write and nothing else");
}

#[tokio::test]
async fn a_dry_runs_write_line_is_marked_dry_run() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_credential().await;
    let key_id = credential.key_id.as_str();

    let response = app.put_lot_query(&credential, "harbour-1", "dry_run=true", &full_lot(&operator)).await;
    assert_eq!(response.status, 200);
    assert_write_lines(&app, &response, key_id, "created", &ALL_CHANGED, false, true);

    app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;
    app.put_rates_expecting(&credential, "harbour-1", &json!({ "fixed_price": "20.00" }), 201).await;
    app.submit_for_review(&operator, "harbour-1").await;
    let mut body = full_lot(&operator);
    body["name"] = json!("Renamed");
    let response = app.put_lot_query(&credential, "harbour-1", "dry_run=true", &body).await;
    assert_write_lines(&app, &response, key_id, "updated", &["name"], true, true);
}

#[tokio::test]
async fn a_refused_write_writes_only_the_request_line() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_credential().await;
    let reader = app.issue(&operator, &["read_supply"], None).await;
    let bearer = credential.bearer();
    let auth_json = [("authorization", bearer.as_str()), ("content-type", "application/json")];
    let lot = minimal_lot("Harbour").to_string();
    let over = crate::common::lots::padded(&minimal_lot("Harbour"), 64 * 1024 + 1);

    let refusals: Vec<(TestResponse, u16)> = vec![
        (app.request(Method::PUT, "/v1/lots/a", header_map(&[("authorization", &bearer)]), lot.clone()).await, 415),
        (app.request(Method::PUT, "/v1/lots/a", header_map(&auth_json), over).await, 413),
        (app.request(Method::PUT, "/v1/lots/a?dry_run=1", header_map(&auth_json), lot.clone()).await, 422),
        (app.request(Method::PUT, "/v1/lots/a", header_map(&auth_json[1..]), lot.clone()).await, 401),
        (app.put_lot(&reader, "a", &minimal_lot("Harbour")).await, 401),
        (app.request(Method::PUT, "/v1/lots/a", header_map(&auth_json), "{").await, 422),
        (app.request(Method::PUT, "/v1/lots/a", header_map(&auth_json), "[]").await, 422),
        (app.request(Method::PUT, "/v1/lots/a?dry_run=true", header_map(&auth_json), "[]").await, 422),
        (app.put_lot(&credential, "a", &json!({ "name": "Harbour", "colour": "blue" })).await, 422),
        (app.put_lot(&credential, "%FF", &minimal_lot("Harbour")).await, 422),
        (app.request(Method::GET, "/v1/lots/a", header_map(&auth_json), "").await, 405),
        (app.request(Method::OPTIONS, "/v1/lots/a", header_map(&[]), "").await, 204),
    ];
    for (response, status) in &refusals {
        assert_eq!(response.status.as_u16(), *status, "{}", String::from_utf8_lossy(&response.body));
        let lines = app.lines_of(response);
        assert_eq!(lines.len(), 1, "only the request line: {lines:?}");
        assert_eq!(lines[0]["message"], "request");
        assert_eq!(lines[0]["status"], *status);
    }
    assert_eq!(app.logs().len(), refusals.len());
    assert!(app.logs().iter().all(|line| line["message"] == "request"));
}

#[tokio::test]
async fn no_line_carries_a_value_of_the_lot() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_credential().await;
    let secret_values = ["Quokka-Zanzibar-7f3e", "Quiltbridge-on-Sea", "Behind-the-purple-kiosk", "zz-opaque-lot-9c1"];
    let [name, city, entrance, external_id] = secret_values;
    let mut body = full_lot(&operator);
    body["name"] = json!(name);
    body["city"] = json!(city);
    body["arrival"] = json!({ "entrance": entrance });

    app.put_lot_expecting(&credential, external_id, &body, 201).await;
    body["city"] = json!(format!("{city}-North"));
    app.put_lot_expecting(&credential, external_id, &body, 200).await;
    app.put_lot_query(&credential, external_id, "dry_run=true", &body).await;
    // Refusals carrying the values too.
    let mut refused = body.clone();
    refused["rates"] = json!({ "fixed_price": name });
    app.put_lot(&credential, external_id, &refused).await.assert_error(
        422,
        "field_belongs_to_another_route",
        Some("rates"),
    );
    let mut refused = body.clone();
    refused[name] = json!(city);
    app.put_lot(&credential, external_id, &refused).await.assert_error(422, "unknown_field", Some(name));
    app.list_lots(&credential, &format!("after={external_id}")).await;

    let lines = app.logs();
    assert_eq!(lines.len(), 9, "{lines:?}");
    for line in &lines {
        let text = line.to_string();
        for value in secret_values {
            assert!(!text.contains(value), "{value:?} leaked into {text}");
        }
        assert!(!text.contains("lot-media"), "{text}");
        assert!(!text.contains(&credential.secret), "{text}");
    }
}

// ---------------------------------------------------------------------------------------------
// The routes under a lot
// ---------------------------------------------------------------------------------------------

/// The keys of a rates write line.
const RATES_WRITE_KEYS: [&str; 11] = [
    "changed",
    "dry_run",
    "envelope_widened",
    "key_id",
    "level",
    "message",
    "request_id",
    "result",
    "review_voided",
    "route",
    "timestamp",
];

/// The keys of a closure write line: counts, never `changed`.
const CLOSURES_WRITE_KEYS: [&str; 11] = [
    "added",
    "dry_run",
    "key_id",
    "level",
    "message",
    "removed",
    "request_id",
    "result",
    "review_voided",
    "route",
    "timestamp",
];

/// The write line of a PUT on `route` (after its request line), with exactly `keys` and the fields
/// every write line shares.
fn write_line(app: &TestApp, response: &TestResponse, route: &str, key_id: &str, keys: &[&str]) -> Value {
    let lines = app.lines_of(response);
    assert_eq!(lines.len(), 2, "a request line and a write line: {lines:?}");
    assert_line(&lines[0], response, "PUT", Some(route), Some(key_id));
    let write = lines[1].clone();
    let mut names: Vec<&str> = write.as_object().expect("a JSON object").keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, keys, "the write line's keys: {write}");
    assert_eq!(write["message"], "write");
    assert_eq!(write["level"], "INFO");
    assert_eq!(write["request_id"], response.request_id());
    assert_eq!(write["key_id"], key_id);
    assert_eq!(write["route"], route);
    write
}

#[tokio::test]
async fn a_rates_write_line_carries_changed_envelope_widened_and_review_voided_false() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_credential().await;
    let key_id = credential.key_id.as_str();
    let route = "/lots/{external_id}/rates";
    app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;
    let summary = |line: &Value| {
        (
            line["result"].clone(),
            line["changed"].clone(),
            line["envelope_widened"].clone(),
            line["review_voided"].clone(),
            line["dry_run"].clone(),
        )
    };

    let response = app.put_rates(&credential, "harbour-1", "dry_run=true", &range("10", "20", "30")).await;
    assert_eq!(response.status, 200);
    let line = write_line(&app, &response, route, key_id, &RATES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("created"), json!(ALL_RATES_CHANGED), json!(true), json!(false), json!(true)));

    let response = app.put_rates(&credential, "harbour-1", "", &range("10", "20", "30")).await;
    assert_eq!(response.status, 201);
    let line = write_line(&app, &response, route, key_id, &RATES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("created"), json!(ALL_RATES_CHANGED), json!(true), json!(false), json!(false)));

    let response = app.put_rates(&credential, "harbour-1", "", &range("12", "20", "30")).await;
    let line = write_line(&app, &response, route, key_id, &RATES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("updated"), json!(["floor_price"]), json!(false), json!(false), json!(false)));

    let response = app.put_rates(&credential, "harbour-1", "", &range("12", "20", "30")).await;
    let line = write_line(&app, &response, route, key_id, &RATES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("unchanged"), json!([]), json!(false), json!(false), json!(false)));

    // Under an approved review, a widening voids nothing: the line says it widened, not voided.
    app.submit_for_review(&operator, "harbour-1").await;
    app.approve_review(&operator, "harbour-1").await;
    let response = app.put_rates(&credential, "harbour-1", "", &range("5", "20", "30")).await;
    let line = write_line(&app, &response, route, key_id, &RATES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("updated"), json!(["floor_price"]), json!(true), json!(false), json!(false)));
    let response = app.put_rates(&credential, "harbour-1", "dry_run=true", &range("5", "20", "40")).await;
    let line = write_line(&app, &response, route, key_id, &RATES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("updated"), json!(["ceiling_price"]), json!(true), json!(false), json!(true)));
}

#[tokio::test]
async fn a_closures_write_line_carries_the_added_and_removed_counts_and_no_changed() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let key_id = credential.key_id.as_str();
    let route = "/lots/{external_id}/blocked-periods";
    app.put_lot_expecting(&credential, "harbour-1", &minimal_lot("Harbour"), 201).await;
    let summary = |line: &Value| {
        (
            line["result"].clone(),
            line["added"].clone(),
            line["removed"].clone(),
            line["review_voided"].clone(),
            line["dry_run"].clone(),
        )
    };
    let two = closures(&[period("2026-01-01", "2026-01-02", Some("A")), period("2026-02-01", "2026-02-02", None)]);

    let response = app.put_closures(&credential, "harbour-1", "dry_run=true", &two).await;
    assert_eq!(response.status, 200);
    let line = write_line(&app, &response, route, key_id, &CLOSURES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("created"), json!(2), json!(0), json!(false), json!(true)));

    let response = app.put_closures(&credential, "harbour-1", "", &two).await;
    assert_eq!(response.status, 201);
    let line = write_line(&app, &response, route, key_id, &CLOSURES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("created"), json!(2), json!(0), json!(false), json!(false)));

    let one = closures(&[period("2026-03-01", "2026-03-02", None)]);
    let response = app.put_closures(&credential, "harbour-1", "", &one).await;
    let line = write_line(&app, &response, route, key_id, &CLOSURES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("updated"), json!(1), json!(2), json!(false), json!(false)));

    let response = app.put_closures(&credential, "harbour-1", "", &one).await;
    let line = write_line(&app, &response, route, key_id, &CLOSURES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("unchanged"), json!(0), json!(0), json!(false), json!(false)));

    let response = app.put_closures(&credential, "harbour-1", "dry_run=true", &closures(&[])).await;
    let line = write_line(&app, &response, route, key_id, &CLOSURES_WRITE_KEYS);
    assert_eq!(summary(&line), (json!("updated"), json!(0), json!(1), json!(false), json!(true)));

    // A read writes its request line only.
    let response = app.get_closures(&credential, "harbour-1", "").await;
    let lines = app.lines_of(&response);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_line(&lines[0], &response, "GET", Some(route), Some(key_id));
}

#[tokio::test]
async fn a_refused_write_under_a_lot_writes_only_the_request_line() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    app.put_lot_expecting(&credential, "harbour-1", &minimal_lot("Harbour"), 201).await;
    let bearer = credential.bearer();
    let text = [("authorization", bearer.as_str()), ("content-type", "text/plain")];

    let refusals: Vec<(TestResponse, u16)> = vec![
        (app.put_rates(&credential, "harbour-1", "", &json!({ "fixed_price": "12.345" })).await, 422),
        (app.put_rates(&credential, "nope", "", &range("10", "20", "30")).await, 401),
        (app.put_rates(&credential, "harbour-1", "dry_run=1", &range("10", "20", "30")).await, 422),
        (app.request(Method::PUT, "/v1/lots/harbour-1/rates", header_map(&text), "{}").await, 415),
        (
            app.put_closures(&credential, "harbour-1", "", &closures(&[period("2026-01-02", "2026-01-01", None)]))
                .await,
            422,
        ),
        (app.put_closures(&credential, "", "dry_run=true", &closures(&[])).await, 401),
        (app.request(Method::POST, "/v1/lots/harbour-1/blocked-periods", header_map(&text), "{}").await, 405),
    ];
    for (response, status) in &refusals {
        assert_eq!(response.status.as_u16(), *status, "{}", String::from_utf8_lossy(&response.body));
        let lines = app.lines_of(response);
        assert_eq!(lines.len(), 1, "only the request line: {lines:?}");
        assert_eq!(lines[0]["message"], "request");
        assert_eq!(lines[0]["status"], *status);
    }
    // The empty id is the route's (its template is logged), refused as a lot not the caller's.
    assert_line(
        &app.lines_of(&refusals[5].0)[0],
        &refusals[5].0,
        "PUT",
        Some("/lots/{external_id}/blocked-periods"),
        Some(&credential.key_id),
    );
}

#[tokio::test]
async fn no_line_carries_a_price_or_a_reason() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let external_id = "zz-opaque-lot-4d2";
    let reason = "Quokka-resurfacing-behind-kiosk-91";
    let prices = ["76543.21", "76543.25", "76549.99", "76544.44"];
    app.put_lot_expecting(&credential, external_id, &minimal_lot("Harbour"), 201).await;
    let before = app.logs().len();

    let mut rates = range(prices[0], prices[1], prices[2]);
    rates["min_first_day_price"] = json!(prices[3]);
    app.put_rates(&credential, external_id, "dry_run=true", &rates).await;
    app.put_rates_expecting(&credential, external_id, &rates, 201).await;
    app.put_rates(&credential, external_id, "", &json!({ "fixed_price": "76543.219" })).await.assert_error(
        422,
        "invalid_body",
        Some("fixed_price"),
    );
    app.put_rates(&credential, "nope", "", &rates).await;
    let listed = app.all_lots(&credential).await;
    assert_eq!(listed[0]["rates"]["base_price"], prices[1]);

    let list = closures(&[
        period("2026-01-01", "2026-01-02", Some(reason)),
        period("2026-02-01", "2026-02-02", Some(&format!("{reason}-2"))),
    ]);
    app.put_closures(&credential, external_id, "dry_run=true", &list).await;
    app.put_closures(&credential, external_id, "", &list).await;
    app.get_closures(&credential, external_id, "").await;
    let refused = closures(&[period("2026-01-01", "2026-01-02", Some(&format!("{reason}{}", "x".repeat(200))))]);
    app.put_closures(&credential, external_id, "", &refused).await.assert_error(
        422,
        "invalid_blocked_periods",
        Some("blocked_periods[0].reason"),
    );

    let lines = app.logs();
    assert!(lines.len() > before + 10, "{lines:?}");
    for line in &lines {
        let text = line.to_string();
        for value in prices.iter().copied().chain(["76543.219", "76543.2", reason, external_id, "2026-01-01"]) {
            assert!(!text.contains(value), "{value:?} leaked into {text}");
        }
    }
}

/// `LOG_LEVEL=debug` or `trace` opens every crate's operational lines but the database driver's:
/// at debug it would write each statement's parameters (the Authorization header, a PUT's body).
/// The real binary, its standard output and error read whole after a ping and a PUT.
#[tokio::test]
async fn at_log_level_debug_or_trace_no_line_carries_a_secret_or_a_body_value() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let name = "Distinctive Harbour 4c1e";
    for level in ["debug", "trace"] {
        let port = crate::common::free_port();
        let listen = format!("127.0.0.1:{port}");
        let mut child = serve(&[("DATABASE_URL", test_database_url()), ("LISTEN_ADDR", &listen), ("LOG_LEVEL", level)]);
        let mut lines = stdout_lines(&mut child);
        let mut written = until_serving(&mut lines).await;
        let http = Http::new(listen.parse().unwrap());
        assert_eq!(http.ping(Some(&credential.bearer())).await.status, 200, "{level}");
        let lot = json!({"name": name, "timezone": "Europe/Lisbon", "handover": "self", "online_bookable": true});
        let bearer = credential.bearer();
        let headers = header_map(&[("authorization", &bearer), ("content-type", "application/json")]);
        let put = http.request(Method::PUT, &format!("/v1/lots/log-{level}"), headers, lot.to_string()).await;
        assert_eq!(put.status, 201, "{level}");

        terminate(&child);
        tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while let Some(line) = lines.next_line().await.unwrap() {
                written.push(line);
            }
        })
        .await
        .expect("the process ends and closes its output");
        let mut errors = String::new();
        child.stderr.take().unwrap().read_to_string(&mut errors).await.unwrap();
        written.push(errors);
        let written = written.join("\n");

        assert!(written.contains(r#""message":"request""#), "{level}: the request lines are there");
        for secret in [credential.secret.as_str(), name, "Europe/Lisbon"] {
            assert!(!written.contains(secret), "{level}: {secret:?} in the log:\n{written}");
        }
    }
}
