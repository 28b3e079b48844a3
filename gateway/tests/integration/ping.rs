//! GET /ping: a valid credential answers 200 with ok, key_id, scopes and server_time.

use std::time::{Duration, SystemTime};

use crate::common::{TestApp, ALL_SCOPES};
use serde_json::{json, Value};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

/// The ping body's server_time: RFC 3339, in UTC written as `Z`.
fn server_time(body: &Value) -> OffsetDateTime {
    let text = body["server_time"].as_str().expect("server_time is a string");
    assert!(text.ends_with('Z'), "server_time {text:?} is UTC written with Z");
    let parsed = OffsetDateTime::parse(text, &Rfc3339).unwrap_or_else(|e| panic!("server_time {text:?}: {e}"));
    assert_eq!(parsed.offset(), UtcOffset::UTC);
    parsed
}

#[tokio::test]
async fn ping_answers_ok_key_id_scopes_and_server_time() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;

    let before = OffsetDateTime::now_utc();
    let response = app.ping(Some(&credential.bearer())).await;
    let after = OffsetDateTime::now_utc();

    assert_eq!(response.status, 200, "body {:?}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    response.request_id();
    let body = response.json();
    let keys: Vec<&str> = body.as_object().expect("an object").keys().map(String::as_str).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["key_id", "ok", "scopes", "server_time"], "exactly these keys");
    assert_eq!(body["ok"], json!(true));
    assert_eq!(body["key_id"], json!(credential.key_id));
    assert_eq!(body["scopes"], json!(ALL_SCOPES));
    // The same machine's clock: server_time lies within the exchange (1 s of slack for rounding).
    let time = server_time(&body);
    assert!(time >= before - Duration::from_secs(1) && time <= after + Duration::from_secs(1), "{time} not now");
}

#[tokio::test]
async fn ping_lists_scopes_in_the_enumeration_order_whatever_order_they_were_issued_in() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let cases: [(&[&str], &[&str]); 4] = [
        (&["read_bookings", "read_supply"], &["read_supply", "read_bookings"]),
        (&["read_bookings", "write_supply", "read_supply"], &["read_supply", "write_supply", "read_bookings"]),
        (&["write_supply"], &["write_supply"]),
        (&["read_bookings"], &["read_bookings"]),
    ];
    for (issued, expected) in cases {
        let credential = app.issue(&operator, issued, None).await;
        let response = app.ping(Some(&credential.bearer())).await;
        assert_eq!(response.status, 200);
        assert_eq!(response.json()["scopes"], json!(expected), "issued as {issued:?}");
        assert_eq!(response.json()["key_id"], json!(credential.key_id));
    }
}

#[tokio::test]
async fn ping_records_last_used_at_on_first_use() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_credential().await;
    let listed = app.listed(&operator, &credential).await;
    assert_eq!(listed.last_used_at, None, "a fresh credential was never used");
    assert_eq!(listed.state, "active");

    let before = SystemTime::now() - Duration::from_secs(1);
    assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);
    let after = SystemTime::now() + Duration::from_secs(1);

    let listed = app.listed(&operator, &credential).await;
    let used = listed.last_used_at.expect("last_used_at is recorded by ping");
    assert!(used >= before && used <= after, "last_used_at {used:?} is the time of the ping");
    assert_eq!(listed.key_id, credential.key_id);
}

#[tokio::test]
async fn ping_accepts_a_credential_that_expires_in_the_future() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let credential = app.issue(&operator, &["read_supply"], Some(1)).await;
    assert!(credential.expires_at.is_some_and(|at| at > SystemTime::now()));
    let response = app.ping(Some(&credential.bearer())).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["scopes"], json!(["read_supply"]));
}

#[tokio::test]
async fn ping_reads_the_bearer_scheme_case_insensitively() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    for scheme in ["bearer", "BEARER", "BeArEr"] {
        let value = format!("{scheme} {}.{}", credential.key_id, credential.secret);
        let response = app.ping(Some(&value)).await;
        assert_eq!(response.status, 200, "scheme {scheme}");
        assert_eq!(response.json()["key_id"], json!(credential.key_id));
    }
}

#[tokio::test]
async fn two_credentials_of_one_operator_work_side_by_side_for_rotation() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let old = app.issue(&operator, &ALL_SCOPES, None).await;
    let new = app.issue(&operator, &ALL_SCOPES, None).await;
    assert_eq!(app.ping(Some(&old.bearer())).await.json()["key_id"], json!(old.key_id));
    assert_eq!(app.ping(Some(&new.bearer())).await.json()["key_id"], json!(new.key_id));

    app.revoke(&operator, &old).await;
    assert_eq!(app.ping(Some(&old.bearer())).await.status, 401);
    assert_eq!(app.ping(Some(&new.bearer())).await.status, 200);
}
