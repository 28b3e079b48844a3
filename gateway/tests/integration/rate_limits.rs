//! The spec's rate limits over HTTP (Limits; docs/design.md): each bucket driven to 429
//! `rate_limited` with `Retry-After` from the refusing bucket and the rate-limit headers; a refused
//! request spends nothing and changes nothing; a wrong secret never spends the real key's tokens;
//! every 401 spends the source's failed-authentication budget, and an empty one refuses before the
//! database; the source is the peer or the signed edge header. Small limits are set per test
//! through the `RATE_LIMIT_*` settings (the harness lifts them for every other test).
//!
//! A request in flight holds one failed-authentication token of its source from step 2 to its
//! answer (docs/design.md): requests with slowly sent bodies, over raw connections, show that many
//! bad credentials at once fail authentication no more often than the bucket allows, that a source
//! with a full bucket still has 20 requests in flight (and no more), and that every answer but a
//! 401 gives the token back.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http::Method;
use serde_json::json;
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;

use crate::common::lots::json_headers;
use crate::common::{assert_uniform_401, edge_forward, read_raw_answer, Credential, TestApp, TestResponse};

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
    let app =
        app_with(&[("RATE_LIMIT_ALL_REQUESTS", "2/30s"), ("EDGE_SECRET", secret), ("EDGE_PEERS", "127.0.0.0/8")]).await;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    let signed = |ip: &str| edge_forward(secret, ip, now);
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

fn lot_body() -> Vec<u8> {
    json!({"name": "Limited", "timezone": "Europe/London", "handover": "self", "online_bookable": true})
        .to_string()
        .into_bytes()
}

/// A PUT head: `length` None sends the body chunked.
fn put_head(path: &str, authorization: &str, content_type: &str, length: Option<usize>) -> String {
    let framing = match length {
        Some(length) => format!("content-length: {length}"),
        None => "transfer-encoding: chunked".to_string(),
    };
    format!(
        "PUT {path} HTTP/1.1\r\nhost: x\r\nauthorization: {authorization}\r\ncontent-type: {content_type}\r\n{framing}\r\n\r\n"
    )
}

/// How a slowly sent request ends on the client's side: the rest of its body, or the client goes
/// away (shuts its side of the connection down) instead.
#[derive(Clone)]
enum Rest {
    Send(Vec<u8>),
    GoAway,
}

/// Sends `head` and `first` over a connection of its own, then `rest` `late` (unless the answer
/// came first: a refusal before the body is read). The raw answer, or None when the connection was
/// closed without one.
async fn slowly(addr: SocketAddr, head: String, first: Vec<u8>, rest: Rest, late: Duration) -> Option<String> {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("the head");
    stream.write_all(&first).await.expect("the first bytes of the body");
    if let Ok(early) = tokio::time::timeout(late, read_raw_answer(&mut stream)).await {
        return early;
    }
    match rest {
        Rest::Send(rest) => {
            let _ = stream.write_all(&rest).await;
        }
        Rest::GoAway => {
            let _ = stream.shutdown().await;
        }
    }
    read_raw_answer(&mut stream).await
}

/// A request sent slowly (the first byte of its body at once, the rest late) and the status it must
/// end in (None: the client goes away instead of sending the rest, and gets no answer).
struct SlowCase {
    name: &'static str,
    head: String,
    first: Vec<u8>,
    rest: Rest,
    expected: Option<u16>,
}

impl SlowCase {
    fn ending(name: &'static str, head: String, body: &[u8], expected: Option<u16>) -> SlowCase {
        let rest = match expected {
            Some(_) => Rest::Send(body[1..].to_vec()),
            None => Rest::GoAway,
        };
        SlowCase { name, head, first: body[..1].to_vec(), rest, expected }
    }
}

/// A slowly sent PUT of `body` (its first byte at once, the rest `late`).
fn slow_put(
    app: &TestApp,
    path: &str,
    authorization: &str,
    body: Vec<u8>,
    late: Duration,
) -> tokio::task::JoinHandle<Option<String>> {
    let head = put_head(path, authorization, "application/json", Some(body.len()));
    let (first, rest) = (body[..1].to_vec(), body[1..].to_vec());
    tokio::spawn(slowly(app.addr, head, first, Rest::Send(rest), late))
}

/// The status of a raw answer.
fn status_of(answer: &str) -> u16 {
    answer.split(' ').nth(1).and_then(|status| status.parse().ok()).unwrap_or_else(|| panic!("{answer:?}"))
}

/// The value of header `name` (lower case) in a raw answer.
fn header_of<'a>(answer: &'a str, name: &str) -> Option<&'a str> {
    let head = &answer[..answer.find("\r\n\r\n").unwrap_or(answer.len())];
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// A raw answer's body.
fn body_of(answer: &str) -> &str {
    answer.split_once("\r\n\r\n").map_or("", |(_, body)| body)
}

/// 429 `rate_limited` from `bucket`, with a Retry-After of at least a second.
fn assert_refused_by(response: &TestResponse, bucket: &str) {
    response.assert_error(429, "rate_limited", None);
    let retry_after: u64 = response.header("retry-after").expect("Retry-After").parse().unwrap();
    assert!(retry_after >= 1, "Retry-After {retry_after}");
    let policy = response.header("ratelimit-policy").expect("RateLimit-Policy on a 429");
    assert!(policy.starts_with(&format!("\"{bucket}\";q=")), "{policy}");
}

fn wrong_secret(credential: &Credential) -> String {
    format!("Bearer {}.pk_sec_{}", credential.key_id, "0".repeat(64))
}

/// A failed-authentication token is held while its request is in flight (spent by a 401, given
/// back otherwise), not merely looked at on arrival: else every request sent while one token was
/// left would pass, and all fail.
#[tokio::test]
async fn with_one_failed_auth_token_left_forty_slow_bad_credentials_at_once_fail_authentication_at_most_twice() {
    // The spec's buckets: 20 failed authentications, then one per 3 s.
    let app = app_with(&[]).await;
    let (_operator, credential) = app.operator_with_credential().await;
    let wrong = wrong_secret(&credential);
    let spending = Instant::now();
    for _ in 0..19 {
        assert_uniform_401(&app.ping(Some(&wrong)).await);
    }
    let spent_in = spending.elapsed();

    let late = Duration::from_secs(1);
    let in_flight: Vec<_> =
        (0..40).map(|n| slow_put(&app, &format!("/v1/lots/bad-{n}"), &wrong, lot_body(), late)).collect();
    let (mut unauthorized, mut refused) = (0, 0);
    for request in in_flight {
        let answer = request.await.unwrap().expect("every request is answered");
        match status_of(&answer) {
            401 => {
                assert_eq!(body_of(&answer), r#"{"error":"unauthorized"}"#);
                unauthorized += 1;
            }
            429 => {
                assert_eq!(body_of(&answer), r#"{"error":"rate_limited"}"#);
                let retry_after: u64 = header_of(&answer, "retry-after").expect("Retry-After").parse().unwrap();
                assert!(retry_after >= 1);
                assert!(header_of(&answer, "ratelimit-policy").unwrap().starts_with("\"failed_auth\";"), "{answer}");
                refused += 1;
            }
            _ => panic!("neither 401 nor 429: {answer}"),
        }
    }
    assert!(
        (1..=2).contains(&unauthorized),
        "{unauthorized} of 40 failed authentication with one token left (19 spent in {spent_in:?}): the bucket allows \
         one, plus what refills while they are in flight"
    );
    assert_eq!(unauthorized + refused, 40);
}

#[tokio::test]
async fn a_source_with_a_full_failed_auth_bucket_gets_twenty_slow_requests_through_at_once_and_no_more() {
    let app = app_with(&[("RATE_LIMIT_FAILED_AUTH", "20/60s")]).await;
    let (_operator, credential) = app.operator_with_credential().await;
    let late = Duration::from_millis(1500);
    let in_flight: Vec<_> = (0..20)
        .map(|n| slow_put(&app, &format!("/v1/lots/many-{n}"), &credential.bearer(), lot_body(), late))
        .collect();
    // All twenty hold a failed-authentication token while their bodies arrive: a 21st request of
    // the source in flight is refused, whatever its credential (docs/integrating.md, "Rate
    // limits"). Asked until all twenty have arrived (a ping before that passes, and gives its token
    // back), and before the first body is complete.
    let asking = Instant::now();
    let refused = loop {
        let answer = ping(&app, &credential).await;
        if answer.status == 429 || asking.elapsed() >= late / 2 {
            break answer;
        }
        assert_eq!(answer.status, 200, "{}", answer.text());
        // (a few pings a second: the credential's 120 reads last the whole wait)
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_refused_by(&refused, "failed_auth");
    for request in in_flight {
        let answer = request.await.unwrap().expect("every request is answered");
        assert_eq!(status_of(&answer), 201, "{answer}");
    }
    assert_eq!(app.lot_ids(&credential).await.len(), 20);
    // Every token is back: twenty failed authentications are still allowed, then no more.
    let wrong = wrong_secret(&credential);
    for _ in 0..20 {
        assert_uniform_401(&app.ping(Some(&wrong)).await);
    }
    assert_refused_by(&app.ping(Some(&wrong)).await, "failed_auth");
}

#[tokio::test]
async fn every_answer_but_a_401_gives_the_held_failed_auth_token_back() {
    // One failed-authentication token, as good as no refill during the test.
    let app = app_with(&[("RATE_LIMIT_FAILED_AUTH", "1/60s")]).await;
    let (_operator, credential) = app.operator_with_credential().await;
    let (bearer, wrong) = (credential.bearer(), wrong_secret(&credential));
    let late = Duration::from_millis(600);
    let lot = lot_body();
    let json = "application/json";
    // Each request holds the one token while its body arrives, then ends in something else than a
    // 401; the next one could not pass step 2 if the token had not been given back.
    let mut oversized = format!("{:x}\r\n", 64 * 1024 + 1).into_bytes();
    oversized.resize(oversized.len() + 64 * 1024 + 1, b'a');
    let cases = [
        SlowCase::ending("a write", put_head("/v1/lots/kept", &bearer, json, Some(lot.len())), &lot, Some(201)),
        SlowCase::ending(
            "a body that is not JSON",
            put_head("/v1/lots/kept", &bearer, json, Some(9)),
            b"{not json",
            Some(422),
        ),
        SlowCase::ending(
            "an unknown query parameter",
            put_head("/v1/lots/kept?bogus=1", &bearer, json, Some(lot.len())),
            &lot,
            Some(422),
        ),
        SlowCase::ending(
            "a body not declared JSON",
            put_head("/v1/lots/kept", &bearer, "text/plain", Some(lot.len())),
            &lot,
            Some(415),
        ),
        SlowCase::ending(
            "a body over 64 KiB, found while reading",
            put_head("/v1/lots/kept", &bearer, json, None),
            &oversized,
            Some(413),
        ),
        SlowCase::ending(
            "a client gone mid-body",
            put_head("/v1/lots/gone", &bearer, json, Some(lot.len())),
            &lot,
            None,
        ),
    ];
    for (n, SlowCase { name, head, first, rest, expected }) in cases.into_iter().enumerate() {
        let request = tokio::spawn(slowly(app.addr, head, first, rest, late));
        tokio::time::sleep(Duration::from_millis(300)).await;
        // While it is in flight the token is held: a bad credential is refused before the database.
        assert_refused_by(&app.ping(Some(&wrong)).await, "failed_auth");
        if n == 0 {
            // 404 and 405 come before step 2: they are answered as ever, and hold nothing.
            assert_eq!(app.get("/v1/nowhere", &[("authorization", &wrong)]).await.status, 404);
            assert_eq!(app.request(Method::DELETE, "/v1/ping", Default::default(), "").await.status, 405);
        }
        let answer = request.await.unwrap();
        assert_eq!(answer.as_deref().map(status_of), expected, "{name}: {answer:?}");
    }
    assert_eq!(app.lot_ids(&credential).await, ["kept"]);
    // A read, a query refusal: the token is still there.
    assert_eq!(ping(&app, &credential).await.status, 200);
    app.get("/v1/lots?limit=0", &[("authorization", &bearer)]).await.assert_error(422, "invalid_query", Some("limit"));
    // It is spent by a 401 only.
    assert_uniform_401(&app.ping(Some(&wrong)).await);
    assert_refused_by(&app.ping(Some(&wrong)).await, "failed_auth");
    assert_refused_by(&ping(&app, &credential).await, "failed_auth");
}

/// While the database cannot answer (here: the credentials table locked, as during an outage or a
/// failover), requests with a victim's key id and a wrong secret answer 503: they must not spend
/// the victim's buckets, which the database never verified them against; each still spends its
/// source's. (A database of its own: the lock holds every authentication.)
#[tokio::test]
async fn a_wrong_secret_answered_503_spends_the_sources_tokens_and_none_of_the_keys() {
    let secret = "the edge's shared secret";
    let app = TestApp::spawn_alone(|settings| {
        settings
            .limited_behind_edge(secret)
            .set("RATE_LIMIT_WRITES_BURST", "5/60s")
            .set("RATE_LIMIT_ALL_REQUESTS", "3/60s")
            .set("DATABASE_TIMEOUT_MS", 1000);
    })
    .await;
    let (_operator, victim) = app.operator_with_credential().await;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    let put_from = |source: &str, authorization: String| {
        let mut headers = json_headers(&victim);
        headers.insert("authorization", authorization.parse().unwrap());
        headers.insert("x-forwarded-client", edge_forward(secret, source, now).parse().unwrap());
        let body = json!({"name": "Limited", "timezone": "Europe/London", "handover": "self", "online_bookable": true});
        app.request(Method::PUT, "/v1/lots/held", headers, body.to_string())
    };

    let mut locker = crate::common::connect(&app.database_url).await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE app.api_credentials IN ACCESS EXCLUSIVE MODE").await.unwrap();
    // One after another (a request in flight holds its tokens), each held until the deadline:
    // nine, more than the victim's burst of five.
    for source in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        for _ in 0..3 {
            put_from(source, wrong_secret(&victim)).await.assert_error(503, "try_again", None);
        }
    }
    assert_refused_by(&put_from("203.0.113.1", wrong_secret(&victim)).await, "all_requests");
    lock.rollback().await.unwrap();

    // The victim, from addresses of its own: its five burst tokens are all there.
    for made in 0..5 {
        let status = put_from(&format!("198.51.100.{made}"), victim.bearer()).await.status;
        assert_eq!(status, if made == 0 { 201 } else { 200 }, "write {made} of the victim");
    }
    assert_refused_by(&put_from("198.51.100.9", victim.bearer()).await, "writes_burst");
}
