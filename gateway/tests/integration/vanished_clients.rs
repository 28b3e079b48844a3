//! A client that closes its connection mid-request changes nothing of what the request costs: the
//! request runs to its end as a task of its own, and is settled on the answer the database gave
//! (docs/design.md; Limits rule 3: failed authentications count against the source, never the
//! key_id). Requests are held in the database (a superuser locks the credentials table, which every
//! authentication reads) while their clients, on raw connections behind the signed edge header,
//! close; the gateway is seen to drop the connections before the lock is let go.
//!
//! - The attack: many wrong-secret requests for one victim's key_id, from several sources, each
//!   closed while in flight. The victim's read bucket is untouched afterwards, and each vanished 401
//!   spent its source's failed-authentication token (the next request of that source is refused).
//! - The other side: vanishing with the right secret still spends the key's tokens.
//! - Each such request writes its one log line, status 499 with the answer it had in `outcome`, and
//!   is counted in the metrics under 499.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::common::{
    backend_pid, edge_forward, raw_get, wait_for_sessions_blocked_by, Credential, TestApp, TestResponse,
};

const EDGE_SECRET: &str = "the edge's shared secret";

/// Five failed authentications a source and 120 reads a key, neither refilled within a test.
async fn gateway() -> TestApp {
    TestApp::spawn_with(|settings| {
        settings
            .limited_behind_edge(EDGE_SECRET)
            .set("RATE_LIMIT_FAILED_AUTH", "5/3600s")
            .set("RATE_LIMIT_READS", "120/3600s")
            .set("DATABASE_POOL_SIZE", 32)
            // (the requests wait in the database while the test closes their clients: no deadline
            // of the call may end them first on a loaded machine)
            .set("DATABASE_TIMEOUT_MS", 30_000);
    })
    .await
}

fn forwarded(source: &str) -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    edge_forward(EDGE_SECRET, source, now)
}

/// Sends `GET /v1/lots` with each `(source, authorization)` on a connection of its own, holds them
/// in the database until every one is waiting there, closes every connection, waits until the
/// gateway has dropped them (while the requests are still held), then lets the database answer
/// and waits until every request has ended.
async fn requests_whose_clients_vanish(app: &TestApp, requests: &[(String, String)]) {
    let open_before = app.metric("ingest_http_connections").await;
    let locker = app.superuser().await;
    locker.batch_execute("BEGIN; LOCK TABLE app.api_credentials IN ACCESS EXCLUSIVE MODE").await.unwrap();
    let mut connections = Vec::new();
    for (source, authorization) in requests {
        connections.push(raw_get(app.addr, "/v1/lots", authorization, &forwarded(source)).await);
    }
    let count = i64::try_from(requests.len()).unwrap();
    wait_for_sessions_blocked_by(&app.database_url, backend_pid(&locker).await, count).await;
    drop(connections);
    app.metric_reaches("ingest_http_connections", open_before).await;
    assert_eq!(
        app.metric("ingest_http_requests_in_flight").await,
        count as f64,
        "the gateway dropped the connections; their requests still run"
    );
    locker.batch_execute("COMMIT").await.unwrap();
    app.metric_reaches("ingest_http_requests_in_flight", 0.0).await;
}

/// The request log lines of `GET /lots` written so far.
fn lines_of_lots(app: &TestApp) -> Vec<serde_json::Value> {
    app.logs().into_iter().filter(|line| line["message"] == "request" && line["route"] == "/lots").collect()
}

async fn lots(app: &TestApp, source: &str, credential: &Credential) -> TestResponse {
    let headers = [("authorization", credential.bearer()), ("x-forwarded-client", forwarded(source))];
    let headers: Vec<(&str, &str)> = headers.iter().map(|(name, value)| (*name, value.as_str())).collect();
    app.get("/v1/lots", &headers).await
}

#[tokio::test]
async fn wrong_secrets_whose_clients_vanish_leave_the_keys_reads_untouched_and_spend_their_sources_budget() {
    let app = gateway().await;
    let (_operator, victim) = app.operator_with_credential().await;
    let wrong = format!("Bearer {}.pk_sec_{}", victim.key_id, "0".repeat(64));
    let sources: Vec<String> = (1..=4).map(|n| format!("203.0.113.{n}")).collect();
    // Five from each source: its whole failed-authentication budget.
    let attack: Vec<(String, String)> =
        sources.iter().flat_map(|source| (0..5).map(|_| (source.clone(), wrong.clone()))).collect();
    requests_whose_clients_vanish(&app, &attack).await;

    let lines = lines_of_lots(&app);
    assert_eq!(lines.len(), 20, "each vanished request wrote its line: {lines:?}");
    for line in &lines {
        assert_eq!((line["status"].as_u64(), line["outcome"].as_u64()), (Some(499), Some(401)), "{line}");
        assert_eq!(line["key_id"], victim.key_id.as_str());
    }
    assert_eq!(app.metric("ingest_http_requests_total{route=\"/lots\",method=\"GET\",status=\"499\"}").await, 20.0);

    // The victim reads at once, from a source of its own, with every one of its 120 reads there.
    let read = lots(&app, "198.51.100.7", &victim).await;
    assert_eq!(read.status, 200, "{}", read.text());
    assert!(read.header("ratelimit-policy").is_some_and(|v| v.starts_with("\"reads\";q=120;")));
    assert!(
        read.header("ratelimit").is_some_and(|v| v.starts_with("\"reads\";r=119;")),
        "{:?}",
        read.header("ratelimit")
    );
    // Each attacking source spent its five failed authentications: its next request is refused
    // before the database is asked, whatever its credential.
    for source in &sources {
        let refused = lots(&app, source, &victim).await;
        refused.assert_error(429, "rate_limited", None);
        assert!(refused.header("ratelimit-policy").is_some_and(|v| v.starts_with("\"failed_auth\";")), "{source}");
    }
    app.shutdown().await;
}

#[tokio::test]
async fn right_secrets_whose_clients_vanish_still_spend_the_keys_reads() {
    let app = gateway().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let source = "203.0.113.9".to_string();
    let reads: Vec<(String, String)> = (0..5).map(|_| (source.clone(), credential.bearer())).collect();
    requests_whose_clients_vanish(&app, &reads).await;

    let lines = lines_of_lots(&app);
    assert_eq!(lines.len(), 5);
    assert!(lines.iter().all(|line| line["status"] == 499 && line["outcome"] == 200), "{lines:?}");
    let read = lots(&app, &source, &credential).await;
    assert_eq!(read.status, 200);
    assert!(
        read.header("ratelimit").is_some_and(|v| v.starts_with("\"reads\";r=114;")),
        "five vanished reads and this one were spent: {:?}",
        read.header("ratelimit")
    );
    app.shutdown().await;
}

/// The bound on requests under way (`MAX_CONNECTIONS`, 40 here) filled by two sources (20 each, as
/// many as their failed-authentication buckets let them have in flight) whose clients all close at
/// once: the two requests that reached the database (a pool of two) run to their end, while the 38
/// still waiting for a connection are given up at once (status 499, no outcome, their key's tokens
/// given back), so a third source is answered at once, not after the pool's deadline. (A database of
/// its own: its credentials table is locked throughout.)
#[tokio::test]
async fn requests_whose_clients_vanish_before_their_database_call_are_given_up_and_free_the_bound() {
    let app = TestApp::spawn_alone(|settings| {
        settings
            .limited_behind_edge(EDGE_SECRET)
            .set("RATE_LIMIT_READS", "60/3600s")
            .set("MAX_CONNECTIONS", 40)
            .set("DATABASE_POOL_SIZE", 2)
            .set("DATABASE_TIMEOUT_MS", 20_000);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let docs = || app.get("/docs", &[]);
    assert_eq!(docs().await.status, 200, "the page, made at its first request");

    let locker = app.superuser().await;
    locker.batch_execute("BEGIN; LOCK TABLE app.api_credentials IN ACCESS EXCLUSIVE MODE").await.unwrap();
    let mut connections = Vec::new();
    for source in ["203.0.113.1", "203.0.113.2"] {
        for _ in 0..20 {
            connections.push(raw_get(app.addr, "/v1/lots", &credential.bearer(), &forwarded(source)).await);
        }
    }
    wait_for_sessions_blocked_by(&app.database_url, backend_pid(&locker).await, 2).await;
    app.metric_reaches("ingest_http_requests_in_flight", 40.0).await;
    drop(connections);

    let started = Instant::now();
    let third = app.get("/docs", &[("x-forwarded-client", &forwarded("203.0.113.3"))]).await;
    let waited = started.elapsed();
    assert_eq!(third.status, 200);
    assert!(waited < Duration::from_secs(5), "the third source waited {waited:?}, as long as the pool's deadline");
    app.metric_reaches("ingest_http_requests_in_flight", 2.0).await;
    let given_up = lines_of_lots(&app);
    assert_eq!(given_up.len(), 38, "{given_up:?}");
    for line in &given_up {
        assert_eq!((line["status"].as_u64(), line.get("outcome")), (Some(499), None), "{line}");
        assert_eq!(line["cause"], "the client went away before its database call", "{line}");
    }

    // The two that reached the database run to their end, and spend their reads.
    locker.batch_execute("COMMIT").await.unwrap();
    app.metric_reaches("ingest_http_requests_in_flight", 0.0).await;
    let finished = lines_of_lots(&app);
    assert_eq!(finished.iter().filter(|line| line["outcome"] == 200).count(), 2, "{finished:?}");
    let read = lots(&app, "198.51.100.7", &credential).await;
    assert!(
        read.header("ratelimit").is_some_and(|v| v.starts_with("\"reads\";r=57;")),
        "the two that ran and this one spent reads, the 38 given up none: {:?}",
        read.header("ratelimit")
    );
    app.shutdown().await;
}
