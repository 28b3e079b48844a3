//! The uniform 401: every credential refusal answers the same status, the same bytes and the same
//! headers; only X-Request-Id (and Date) differ.
//!
//! The spec lists six causes. Reachable through /ping and covered here: no or an unparseable header
//! (1), unknown key_id (2), wrong secret (3), revoked, expired, operator suspended (4). Missing scope
//! (5) through GET /lots (read_supply), PUT /lots/{external_id} (write_supply), and the routes under
//! a lot. An external_id that is not one of the caller's lots (6) on the routes under an existing
//! lot (PUT rates, GET and PUT blocked-periods): unknown, another operator's, too long, empty or
//! not UTF-8; answered before the body is looked at.

use http::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use http::Method;
use serde_json::{json, Value};

use crate::common::lots::{json_headers, minimal_lot};
use crate::common::supply::{closures, period, range, under_lot};
use crate::common::{assert_uniform_401, comparable, header_map, Credential, Operator, TestApp, TestResponse};

/// 64 lowercase hex characters that are nobody's secret.
fn other_secret() -> String {
    format!("pk_sec_{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

async fn ping_with_headers(app: &TestApp, headers: HeaderMap) -> TestResponse {
    app.request(Method::GET, "/v1/ping", headers, "").await
}

fn authorization_bytes(value: &[u8]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, HeaderValue::from_bytes(value).expect("an obs-text header value"));
    headers
}

/// A working credential: each cause first proves it, so the 401 is down to the cause alone.
async fn working_credential(app: &TestApp) -> (Operator, Credential) {
    let (operator, credential) = app.operator_with_credential().await;
    assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);
    (operator, credential)
}

#[tokio::test]
async fn no_authorization_header_answers_the_uniform_401() {
    let app = TestApp::spawn().await;
    assert_uniform_401(&app.ping(None).await);
}

#[tokio::test]
async fn unparseable_authorization_headers_answer_the_uniform_401() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = working_credential(&app).await;
    let garbage = [
        "Bearer".to_string(),
        "Bearer ".to_string(),
        "Basic x".to_string(),
        "Basic dXNlcjpwYXNz".to_string(),
        "Bearer nodot".to_string(),
        format!("Bearer {}", credential.key_id),
        format!("Bearer {}.", credential.key_id),
        format!("Bearer .{}", credential.secret),
        format!("Bearer{}.{}", credential.key_id, credential.secret),
        format!("Token {}.{}", credential.key_id, credential.secret),
        format!("{}.{}", credential.key_id, credential.secret),
        format!("Bearer {}.{}", credential.key_id, "x".repeat(2000)),
    ];
    for value in &garbage {
        let response = app.ping(Some(value)).await;
        assert_uniform_401(&response);
    }
}

#[tokio::test]
async fn an_opaque_non_ascii_authorization_value_answers_the_uniform_401() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = working_credential(&app).await;
    // Bytes a header may carry (obs-text) but that are not visible ASCII: the real credential with
    // a Latin-1 byte appended, and pure binary noise.
    let mut almost = credential.bearer().into_bytes();
    almost.push(0xe9);
    assert_uniform_401(&ping_with_headers(&app, authorization_bytes(&almost)).await);
    assert_uniform_401(&ping_with_headers(&app, authorization_bytes(b"Bearer \xff\xfe\x80.\xc3\xa9")).await);
    assert_uniform_401(&ping_with_headers(&app, authorization_bytes("Bearer clé.secrèt".as_bytes())).await);
}

#[tokio::test]
async fn two_authorization_headers_answer_the_uniform_401_even_when_both_are_valid() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = working_credential(&app).await;
    let mut headers = HeaderMap::new();
    let value = HeaderValue::from_str(&credential.bearer()).unwrap();
    headers.append(AUTHORIZATION, value.clone());
    headers.append(AUTHORIZATION, value);
    assert_uniform_401(&ping_with_headers(&app, headers).await);
}

#[tokio::test]
async fn an_unknown_key_id_answers_the_uniform_401() {
    let app = TestApp::spawn().await;
    let unknown = format!("Bearer pk_api_{}.{}", uuid::Uuid::new_v4().simple(), other_secret());
    assert_uniform_401(&app.ping(Some(&unknown)).await);
}

#[tokio::test]
async fn a_wrong_secret_answers_the_uniform_401() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = working_credential(&app).await;
    let (kept, last) = credential.secret.split_at(credential.secret.len() - 1);
    let off = if last == "0" { "1" } else { "0" };
    let wrong = [
        format!("Bearer {}.{}", credential.key_id, other_secret()),
        // one character off, and the secret's case changed
        format!("Bearer {}.{kept}{off}", credential.key_id),
        format!("Bearer {}.{}", credential.key_id, credential.secret.to_uppercase()),
        // further dots belong to the secret
        format!("Bearer {}.{}.", credential.key_id, credential.secret),
        // another operator's secret with this key id
        format!("Bearer {}.{}", credential.key_id, app.operator_with_credential().await.1.secret),
    ];
    for value in &wrong {
        assert_uniform_401(&app.ping(Some(value)).await);
    }
    // A wrong secret does not lock the real one out.
    assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);
}

#[tokio::test]
async fn a_revoked_credential_answers_the_uniform_401() {
    let app = TestApp::spawn().await;
    let (operator, credential) = working_credential(&app).await;
    app.revoke(&operator, &credential).await;
    assert_uniform_401(&app.ping(Some(&credential.bearer())).await);
}

#[tokio::test]
async fn an_expired_credential_answers_the_uniform_401() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let credential = app.issue(&operator, &crate::common::ALL_SCOPES, Some(30)).await;
    assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);
    app.expire(&credential).await;
    assert_uniform_401(&app.ping(Some(&credential.bearer())).await);
    assert_eq!(app.listed(&operator, &credential).await.state, "expired");
}

#[tokio::test]
async fn a_suspended_operators_credential_answers_the_uniform_401() {
    let app = TestApp::spawn().await;
    let (operator, credential) = working_credential(&app).await;
    app.suspend(&operator).await;
    assert_uniform_401(&app.ping(Some(&credential.bearer())).await);
}

#[tokio::test]
async fn every_cause_answers_identical_bytes_and_headers_but_the_request_id() {
    let app = TestApp::spawn().await;
    let (revoked_operator, revoked) = working_credential(&app).await;
    app.revoke(&revoked_operator, &revoked).await;
    let (_, expired) = working_credential(&app).await;
    app.expire(&expired).await;
    let (suspended_operator, suspended) = working_credential(&app).await;
    app.suspend(&suspended_operator).await;
    let (_, good) = working_credential(&app).await;

    let mut twice = HeaderMap::new();
    twice.append(AUTHORIZATION, HeaderValue::from_str(&good.bearer()).unwrap());
    twice.append(AUTHORIZATION, HeaderValue::from_str(&good.bearer()).unwrap());
    let responses = vec![
        ("no header", app.ping(None).await),
        ("Bearer", app.ping(Some("Bearer")).await),
        ("Basic x", app.ping(Some("Basic x")).await),
        ("Bearer nodot", app.ping(Some("Bearer nodot")).await),
        ("opaque", ping_with_headers(&app, authorization_bytes(b"Bearer \xff\xfe.\x80")).await),
        ("two headers", ping_with_headers(&app, twice).await),
        (
            "unknown key_id",
            app.ping(Some(&format!("Bearer pk_api_{}.{}", uuid::Uuid::new_v4().simple(), other_secret()))).await,
        ),
        ("wrong secret", app.ping(Some(&format!("Bearer {}.{}", good.key_id, other_secret()))).await),
        ("revoked", app.ping(Some(&revoked.bearer())).await),
        ("expired", app.ping(Some(&expired.bearer())).await),
        ("suspended", app.ping(Some(&suspended.bearer())).await),
    ];

    let (_, first) = &responses[0];
    for (cause, response) in &responses {
        assert_uniform_401(response);
        assert_eq!(comparable(response), comparable(first), "{cause} differs from no header");
    }
    let mut ids: Vec<&str> = responses.iter().map(|(_, response)| response.request_id()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), responses.len(), "every answer has its own request id");
}

async fn put_lot(app: &TestApp, credential: &Credential, query: &str) -> TestResponse {
    let lot = r#"{"name":"Harbour","timezone":"Europe/Lisbon","handover":"self","online_bookable":true}"#;
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, HeaderValue::from_str(&credential.bearer()).unwrap());
    headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    app.request(Method::PUT, &format!("/v1/lots/harbour-1{query}"), headers, lot).await
}

async fn list_lots(app: &TestApp, credential: &Credential) -> TestResponse {
    app.get("/v1/lots", &[("authorization", &credential.bearer())]).await
}

#[tokio::test]
async fn a_credential_without_the_routes_scope_answers_the_uniform_401() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let reader = app.issue(&operator, &["read_supply"], None).await;
    let bookings = app.issue(&operator, &["read_bookings"], None).await;
    let writer = app.issue(&operator, &["write_supply"], None).await;
    // Each credential is valid (ping), and does what its scope permits.
    for credential in [&reader, &bookings, &writer] {
        assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);
    }
    assert_eq!(list_lots(&app, &reader).await.status, 200);
    assert_eq!(put_lot(&app, &writer, "").await.status, 201);

    assert_uniform_401(&list_lots(&app, &writer).await);
    assert_uniform_401(&list_lots(&app, &bookings).await);
    assert_uniform_401(&put_lot(&app, &reader, "").await);
    assert_uniform_401(&put_lot(&app, &reader, "?dry_run=true").await);
    assert_uniform_401(&put_lot(&app, &bookings, "").await);
}

// ---------------------------------------------------------------------------------------------
// The sixth cause: routes under an existing lot
// ---------------------------------------------------------------------------------------------

/// The three routes under a lot, each with a body it would accept for a lot of the caller's
/// (None for the GET): (method, tail, body).
fn routes_under_a_lot() -> [(Method, &'static str, Option<Value>); 3] {
    [
        (Method::PUT, "rates", Some(range("10.00", "20.00", "30.00"))),
        (Method::GET, "blocked-periods", None),
        (Method::PUT, "blocked-periods", Some(closures(&[period("2026-03-01", "2026-03-02", None)]))),
    ]
}

async fn under_lot_request(
    app: &TestApp,
    credential: &Credential,
    method: &Method,
    path: &str,
    body: Option<&Value>,
) -> TestResponse {
    match body {
        Some(body) => app.request(method.clone(), path, json_headers(credential), body.to_string()).await,
        None => app.request(method.clone(), path, header_map(&[("authorization", &credential.bearer())]), "").await,
    }
}

/// An operator holding the lot `mine` (through PUT /lots), with an every-scope credential.
async fn operator_with_a_lot(app: &TestApp) -> (Operator, Credential) {
    let (operator, credential) = working_credential(app).await;
    app.put_lot_expecting(&credential, "mine", &minimal_lot("Mine"), 201).await;
    (operator, credential)
}

#[tokio::test]
async fn an_id_that_is_not_one_of_the_callers_lots_answers_the_uniform_401_on_every_route_under_a_lot() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = operator_with_a_lot(&app).await;
    let (_other, other_credential) = working_credential(&app).await;
    app.put_lot_expecting(&other_credential, "theirs", &minimal_lot("Theirs"), 201).await;

    // A bad-credential 401 of the same route is the reference the lot refusals must equal.
    let reference = app.request(Method::GET, "/v1/lots/mine/blocked-periods", header_map(&[]), "").await;
    assert_uniform_401(&reference);
    let wrong_secret = format!("Bearer {}.{}", credential.key_id, other_secret());
    let wrong = app
        .request(
            Method::PUT,
            "/v1/lots/mine/rates",
            header_map(&[("authorization", &wrong_secret), ("content-type", "application/json")]),
            "{}",
        )
        .await;
    assert_eq!(comparable(&wrong), comparable(&reference));

    let too_long = "x".repeat(201);
    let segments = [
        ("unknown", "nope"),
        ("another operator's", "theirs"),
        ("201 characters", too_long.as_str()),
        ("empty", ""),
        ("not UTF-8", "%FF"),
        ("case differs", "MINE"),
        ("encoded differently but another id", "mine%20"),
    ];
    for (method, tail, body) in routes_under_a_lot() {
        for (what, segment) in segments {
            for query in ["", "dry_run=true"] {
                if method == Method::GET && !query.is_empty() {
                    continue;
                }
                let path = under_lot(segment, tail, query);
                let response = under_lot_request(&app, &credential, &method, &path, body.as_ref()).await;
                assert_uniform_401(&response);
                assert_eq!(comparable(&response), comparable(&reference), "{method} {path} ({what})");
            }
        }
        // The caller's own lot is served (the credential and the body are good).
        let path = under_lot("mine", tail, "");
        let response = under_lot_request(&app, &credential, &method, &path, body.as_ref()).await;
        assert!(response.status.is_success(), "{method} {path}: {} {}", response.status, response.text());
    }
    // The other operator's lot was not touched.
    let response = app.get("/v1/lots/theirs/blocked-periods", &[("authorization", &other_credential.bearer())]).await;
    assert_eq!(response.json(), json!({ "external_id": "theirs", "blocked_periods": [] }));
    assert_eq!(app.listed_rates(&other_credential, "theirs").await, Value::Null);
}

#[tokio::test]
async fn the_lot_is_checked_before_the_body_so_a_bad_body_for_a_lot_not_the_callers_is_still_401() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = operator_with_a_lot(&app).await;
    let (_other, other_credential) = working_credential(&app).await;
    app.put_lot_expecting(&other_credential, "theirs", &minimal_lot("Theirs"), 201).await;

    let bad_bodies: [(&str, &[u8]); 8] = [
        ("not JSON", b"["),
        ("an array", b"[]"),
        ("empty object", b"{}"),
        ("unknown key", br#"{"colour":1}"#),
        ("three decimals", br#"{"fixed_price":"12.345"}"#),
        ("not a list", br#"{"blocked_periods":"x"}"#),
        ("not UTF-8", b"{\"reason\":\"caf\xe9\"}"),
        ("empty", b""),
    ];
    for tail in ["rates", "blocked-periods"] {
        for (what, body) in bad_bodies {
            for segment in ["nope", "theirs", ""] {
                let response = app
                    .request(Method::PUT, &under_lot(segment, tail, ""), json_headers(&credential), body.to_vec())
                    .await;
                assert_uniform_401(&response);
            }
            // The same body for the caller's own lot is refused for what it is.
            let response =
                app.request(Method::PUT, &under_lot("mine", tail, ""), json_headers(&credential), body.to_vec()).await;
            assert_eq!(response.status, 422, "{tail} {what}: {}", response.text());
        }
    }
}

#[tokio::test]
async fn a_credential_without_the_routes_scope_answers_the_uniform_401_on_the_routes_under_a_lot() {
    let app = TestApp::spawn().await;
    let (operator, owner) = operator_with_a_lot(&app).await;
    let reader = app.issue(&operator, &["read_supply"], None).await;
    let writer = app.issue(&operator, &["write_supply"], None).await;
    let bookings = app.issue(&operator, &["read_bookings"], None).await;
    let [rates, get_closures, put_closures] = routes_under_a_lot();

    // read_supply reads the list, and writes nothing.
    let response = under_lot_request(&app, &reader, &get_closures.0, "/v1/lots/mine/blocked-periods", None).await;
    assert_eq!(response.status, 200);
    for (method, tail, body) in [&rates, &put_closures] {
        for query in ["", "dry_run=true"] {
            let path = under_lot("mine", tail, query);
            assert_uniform_401(&under_lot_request(&app, &reader, method, &path, body.as_ref()).await);
            // Without the scope the body is never looked at.
            let response = app.request(method.clone(), &path, json_headers(&reader), "[").await;
            assert_uniform_401(&response);
        }
    }
    // write_supply writes, and does not read the list.
    assert_uniform_401(&under_lot_request(&app, &writer, &get_closures.0, "/v1/lots/mine/blocked-periods", None).await);
    // read_bookings does neither.
    for (method, tail, body) in [&rates, &get_closures, &put_closures] {
        assert_uniform_401(
            &under_lot_request(&app, &bookings, method, &under_lot("mine", tail, ""), body.as_ref()).await,
        );
    }
    // Nothing the refused requests carried was stored; the writer's own writes are.
    assert_eq!(app.listed_rates(&owner, "mine").await, Value::Null);
    assert_eq!(app.closure_list(&owner, "mine").await, json!([]));
    for (method, tail, body) in [&rates, &put_closures] {
        let response = under_lot_request(&app, &writer, method, &under_lot("mine", tail, ""), body.as_ref()).await;
        assert_eq!(response.status, 201, "{tail}: {}", response.text());
    }
    assert_eq!(app.closure_list(&reader, "mine").await.as_array().map(Vec::len), Some(1));
}
