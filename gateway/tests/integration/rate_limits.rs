//! The spec's rate limits over HTTP (Limits; DESIGN §5): each bucket driven to 429 `rate_limited`
//! with `Retry-After` from the refusing bucket and the rate-limit headers; a refused request spends
//! nothing and changes nothing; a wrong secret never spends the real key's tokens; every 401 spends
//! the source's failed-authentication budget, and an empty one refuses before the database; the
//! source is the peer or the signed edge header. Small limits are set per test through the
//! `RATE_LIMIT_*` settings (the harness lifts them for every other test).

use std::time::{SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use http::Method;
use serde_json::json;
use sha2::Sha256;

use crate::common::lots::json_headers;
use crate::common::{assert_uniform_401, Credential, TestApp, TestResponse};

async fn app_with(limits: &[(&str, &str)]) -> TestApp {
    let limits: Vec<(String, String)> = limits.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    TestApp::spawn_with(move |settings| {
        settings.set("RATE_LIMITS", "on");
        for (name, value) in &limits {
            settings.set(name, value);
        }
    })
    .await
}

fn assert_rate_limited(response: &TestResponse, bucket: &str, retry_after: u64) {
    response.assert_error(429, "rate_limited", None);
    assert_eq!(response.header("retry-after"), Some(retry_after.to_string().as_str()), "Retry-After");
    let policy = response.header("ratelimit-policy").expect("RateLimit-Policy on a 429");
    assert!(policy.starts_with(&format!("\"{bucket}\";q=")), "{policy}");
    let current = response.header("ratelimit").expect("RateLimit on a 429");
    assert!(current.starts_with(&format!("\"{bucket}\";r=0;t=")), "{current}");
}

async fn ping(app: &TestApp, credential: &Credential) -> TestResponse {
    app.ping(Some(&credential.bearer())).await
}

async fn put_lot(app: &TestApp, credential: &Credential, id: &str, query: &str) -> TestResponse {
    let body = json!({"name": "Limited", "timezone": "Europe/London", "handover": "self", "online_bookable": true});
    app.request(Method::PUT, &format!("/v1/lots/{id}{query}"), json_headers(credential), body.to_string()).await
}

#[tokio::test]
async fn all_requests_of_a_source_are_limited_404_and_options_included() {
    let app = app_with(&[("RATE_LIMIT_ALL_REQUESTS", "3/20s")]).await;
    let (_operator, credential) = app.operator_with_credential().await;
    assert_eq!(ping(&app, &credential).await.status, 200);
    assert_eq!(app.get("/v1/nowhere", &[]).await.status, 404);
    assert_eq!(app.request(Method::OPTIONS, "/v1/ping", Default::default(), "").await.status, 204);
    let refused = ping(&app, &credential).await;
    assert_rate_limited(&refused, "all_requests", 20);
    assert_eq!(refused.header("ratelimit-policy"), Some("\"all_requests\";q=3;w=60"));
}

#[tokio::test]
async fn reads_are_counted_per_credential_and_a_refused_read_spends_nothing() {
    let app = app_with(&[("RATE_LIMIT_READS", "2/30s")]).await;
    let (_operator, credential) = app.operator_with_credential().await;
    let (_other_operator, other) = app.operator_with_credential().await;
    let first = ping(&app, &credential).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.header("ratelimit-policy"), Some("\"reads\";q=2;w=60"), "the tightest bucket: reads");
    assert_eq!(first.header("ratelimit"), Some("\"reads\";r=1;t=30"));
    assert_eq!(app.get("/v1/lots", &[("authorization", &credential.bearer())]).await.status, 200);
    assert_rate_limited(&ping(&app, &credential).await, "reads", 30);
    assert_rate_limited(&app.get("/v1/bookings", &[("authorization", &credential.bearer())]).await, "reads", 30);
    // Another credential has its own bucket; the refusals took nothing from the source's bucket.
    let other_ping = ping(&app, &other).await;
    assert_eq!(other_ping.status, 200);
    // A query error is answered before the credential is counted.
    app.get("/v1/lots?limit=0", &[("authorization", &credential.bearer())]).await.assert_error(
        422,
        "invalid_query",
        Some("limit"),
    );
}

#[tokio::test]
async fn writes_spend_both_buckets_a_dry_run_only_the_burst_and_a_refused_write_changes_nothing() {
    let app = app_with(&[("RATE_LIMIT_WRITES_BURST", "3/30s"), ("RATE_LIMIT_WRITES_HOURLY", "1/3600s")]).await;
    let (_operator, credential) = app.operator_with_credential().await;
    assert_eq!(put_lot(&app, &credential, "lot-1", "").await.status, 201);
    // The hourly bucket is empty: a real write is refused by it and charged to neither bucket.
    let refused = put_lot(&app, &credential, "lot-2", "").await;
    assert_rate_limited(&refused, "writes_hourly", 3600);
    assert_eq!(app.lot_ids(&credential).await, ["lot-1"], "the refused write stored nothing");
    // Dry runs spend the burst bucket only: two are left (the refused write took none).
    assert_eq!(put_lot(&app, &credential, "lot-2", "?dry_run=true").await.status, 200);
    assert_eq!(put_lot(&app, &credential, "lot-3", "?dry_run=true").await.status, 200);
    assert_rate_limited(&put_lot(&app, &credential, "lot-4", "?dry_run=true").await, "writes_burst", 30);
}

#[tokio::test]
async fn a_wrong_secret_never_spends_the_real_keys_tokens_but_spends_the_sources_failed_auth_budget() {
    let app = app_with(&[("RATE_LIMIT_READS", "2/60s"), ("RATE_LIMIT_FAILED_AUTH", "2/30s")]).await;
    let (_operator, credential) = app.operator_with_credential().await;
    let wrong = format!("Bearer {}.pk_sec_{}", credential.key_id, "0".repeat(64));
    assert_uniform_401(&app.ping(Some(&wrong)).await);
    assert_eq!(ping(&app, &credential).await.status, 200, "the wrong secret took nothing from the key's reads");
    assert_eq!(ping(&app, &credential).await.status, 200, "… both of its tokens were there");
    // The reads bucket is empty now; a read refused for it is a 429, which spends nothing either.
    assert_rate_limited(&ping(&app, &credential).await, "reads", 60);
    // One failed-auth token is left; an unknown lot on a route under a lot spends it too (another
    // credential of the operator: this one's reads are used up).
    let (_other_operator, other) = app.operator_with_credential().await;
    assert_uniform_401(&app.get("/v1/lots/not-mine/blocked-periods", &[("authorization", &other.bearer())]).await);
    // Now the source is refused before the database is asked, even with a valid credential.
    let refused = app.get("/v1/lots", &[("authorization", &credential.bearer())]).await;
    assert_rate_limited(&refused, "failed_auth", 30);
}

#[tokio::test]
async fn the_source_is_the_signed_edge_header_when_valid_and_the_peer_otherwise() {
    let secret = "the edge's shared secret";
    let app = app_with(&[("RATE_LIMIT_ALL_REQUESTS", "2/30s"), ("EDGE_SECRET", secret)]).await;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    let signed = |ip: &str| {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{ip}|{now}").as_bytes());
        let sig: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
        format!("ip={ip};ts={now};sig={sig}")
    };
    let a = signed("203.0.113.5");
    let b = signed("2001:db8:1:2::5");
    let b_same_64 = signed("2001:db8:1:2:ffff::9");
    for _ in 0..2 {
        assert_eq!(app.get("/v1/nowhere", &[("x-forwarded-client", &a)]).await.status, 404);
    }
    assert_eq!(app.get("/v1/nowhere", &[("x-forwarded-client", &a)]).await.status, 429, "source a is used up");
    assert_eq!(app.get("/v1/nowhere", &[("x-forwarded-client", &b)]).await.status, 404, "source b is counted apart");
    assert_eq!(app.get("/v1/nowhere", &[("x-forwarded-client", &b_same_64)]).await.status, 404);
    assert_eq!(app.get("/v1/nowhere", &[("x-forwarded-client", &b)]).await.status, 429, "one /64 is one source");
    // A forged or stale header counts against the peer (127.0.0.1), which has its own bucket.
    let forged = a.replace("203.0.113.5", "203.0.113.6");
    assert_eq!(app.get("/v1/nowhere", &[("x-forwarded-client", &forged)]).await.status, 404);
    assert_eq!(app.get("/v1/nowhere", &[]).await.status, 404);
    assert_eq!(app.get("/v1/nowhere", &[("x-forwarded-client", &forged)]).await.status, 429, "the peer is used up");
}
