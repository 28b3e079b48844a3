//! One JSON log line per request: request_id (the answer's X-Request-Id), key_id as presented (or
//! null), method, route template (or null), status, duration_ms. Never a secret, never the
//! Authorization header, not even on a 401.

mod common;

use http::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use http::Method;
use serde_json::{json, Value};

use common::{header_map, TestApp, TestResponse};

/// The keys of a request line (a 5xx adds `cause`).
const KEYS: [&str; 9] =
    ["duration_ms", "key_id", "level", "message", "method", "request_id", "route", "status", "timestamp"];

fn assert_line(
    line: &Value,
    response: &TestResponse,
    method: &str,
    route: Option<&str>,
    key_id: Option<&str>,
) {
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
        for forbidden in [
            credential.secret.as_str(),
            revoked.secret.as_str(),
            &other_secret,
            "pk_sec_",
            "hunter2",
            "my-password",
        ] {
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
