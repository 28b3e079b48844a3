//! The source address behind an edge (docs/design.md, Limits rule 4): the signed
//! `X-Forwarded-Client` names the source only when the connection's peer is in `EDGE_PEERS`, the
//! request carries exactly one such header, and it was signed within 10 s of the gateway's clock;
//! otherwise the peer (127.0.0.1 here) counts. Seen through the all-requests bucket (2 requests,
//! then one per 30 s): a source's third request is refused while another source's still passes.
//! `serve` warns at start when `EDGE_SECRET` is set without `EDGE_PEERS`, and refuses to start on a
//! bad `EDGE_PEERS`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::process::Child;
use tokio::time::timeout;

use crate::common::process::{serve, stdout_lines, until_serving};
use crate::common::{edge_forward, raw_get, TestApp};

const SECRET: &str = "the edge's shared secret";

/// A gateway with the edge secret, `EDGE_PEERS` as given (None: unset), and 2 requests a source.
async fn gateway(edge_peers: Option<&str>) -> TestApp {
    TestApp::spawn_with(|settings| {
        settings.set("RATE_LIMITS", "on").set("RATE_LIMIT_ALL_REQUESTS", "2/30s").set("EDGE_SECRET", SECRET);
        if let Some(ranges) = edge_peers {
            settings.set("EDGE_PEERS", ranges);
        }
    })
    .await
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// The header an edge holding the secret sends for a client at `ip`, signed at `ts`.
fn signed(ip: &str, ts: u64) -> String {
    edge_forward(SECRET, ip, ts)
}

/// The status of a GET of an unknown path carrying these `X-Forwarded-Client` values, each a
/// header line of its own: 404 while its source has requests left, then 429.
async fn nowhere(app: &TestApp, forwarded: &[&str]) -> u16 {
    let headers: Vec<(&str, &str)> = forwarded.iter().map(|value| ("x-forwarded-client", *value)).collect();
    app.get("/v1/nowhere", &headers).await.status.as_u16()
}

#[tokio::test]
async fn from_an_edge_peer_one_signed_header_names_the_source_and_two_leave_the_peer_counted() {
    let app = gateway(Some("127.0.0.0/8")).await;
    let (a, b, c) = (signed("203.0.113.5", now()), signed("203.0.113.6", now()), signed("203.0.113.7", now()));
    assert_eq!(nowhere(&app, &[&a]).await, 404);
    assert_eq!(nowhere(&app, &[&a]).await, 404);
    assert_eq!(nowhere(&app, &[&a]).await, 429, "203.0.113.5 is used up");
    assert_eq!(nowhere(&app, &[&b]).await, 404, "203.0.113.6 is counted apart");
    // Two headers, each validly signed: neither is believed, the peer counts.
    assert_eq!(nowhere(&app, &[&b, &c]).await, 404);
    assert_eq!(nowhere(&app, &[&b, &c]).await, 404, "not counted as 203.0.113.6, which had one left");
    assert_eq!(nowhere(&app, &[]).await, 429, "the two requests with two headers used up the peer");
    assert_eq!(nowhere(&app, &[&b]).await, 404, "203.0.113.6 still has its second request");
    assert_eq!(nowhere(&app, &[&c]).await, 404, "nor were they counted as 203.0.113.7");
}

#[tokio::test]
async fn a_header_signed_fifteen_seconds_ago_leaves_the_peer_counted() {
    let app = gateway(Some("127.0.0.0/8")).await;
    let fresh = signed("203.0.113.5", now());
    let stale = signed("203.0.113.6", now() - 15);
    assert_eq!(nowhere(&app, &[&fresh]).await, 404);
    assert_eq!(nowhere(&app, &[&stale]).await, 404);
    assert_eq!(nowhere(&app, &[&stale]).await, 404);
    assert_eq!(nowhere(&app, &[]).await, 429, "the stale header's requests used up the peer");
    assert_eq!(nowhere(&app, &[&fresh]).await, 404, "a fresh header still names its source");
}

#[tokio::test]
async fn from_a_peer_outside_edge_peers_a_signed_header_is_ignored() {
    // Neither 127.0.0.1 nor ::1 is in these ranges.
    let app = gateway(Some("10.0.0.0/8, 192.0.2.0/24, ::ffff:198.51.100.0/120, fd00::/8")).await;
    let (a, b) = (signed("203.0.113.5", now()), signed("203.0.113.6", now()));
    assert_eq!(nowhere(&app, &[&a]).await, 404);
    assert_eq!(nowhere(&app, &[&b]).await, 404);
    assert_eq!(nowhere(&app, &[&a]).await, 429, "both headers were counted as the peer");
    assert_eq!(nowhere(&app, &[]).await, 429);
}

#[tokio::test]
async fn with_edge_secret_and_no_edge_peers_a_signed_header_is_ignored() {
    for edge_peers in [None, Some("")] {
        let app = gateway(edge_peers).await;
        let (a, b) = (signed("203.0.113.5", now()), signed("203.0.113.6", now()));
        assert_eq!(nowhere(&app, &[&a]).await, 404);
        assert_eq!(nowhere(&app, &[&b]).await, 404);
        assert_eq!(nowhere(&app, &[&a]).await, 429, "{edge_peers:?}: both headers were counted as the peer");
    }
}

/// The signed header is checked as the request's head arrives, not after its wait for a turn
/// among the requests under way: a request that waited longer than the signature's 10 s still
/// counts against the client the edge signed for, not against the edge. The bound
/// (`MAX_CONNECTIONS`, 2 here) is held by two requests held in the database whose clients have
/// gone. (A database of its own: its credentials table is locked meanwhile.)
#[tokio::test]
async fn a_signed_source_is_checked_as_the_head_arrives_however_long_the_request_then_waits() {
    let app = TestApp::spawn_alone(|settings| {
        settings
            .limited_behind_edge(SECRET)
            .set("RATE_LIMIT_ALL_REQUESTS", "1/3600s")
            .set("MAX_CONNECTIONS", 2)
            .set("DATABASE_POOL_SIZE", 2)
            .set("DATABASE_TIMEOUT_MS", 30_000);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let locker = app.superuser().await;
    locker.batch_execute("BEGIN; LOCK TABLE app.api_credentials IN ACCESS EXCLUSIVE MODE").await.unwrap();
    let mut holders = Vec::new();
    for holder in ["203.0.113.1", "203.0.113.2"] {
        holders.push(raw_get(app.addr, "/v1/ping", &credential.bearer(), &signed(holder, now())).await);
    }
    let locker_pid = crate::common::backend_pid(&locker).await;
    crate::common::wait_for_sessions_blocked_by(&app.database_url, locker_pid, 2).await;
    drop(holders);
    app.metric_reaches("ingest_http_connections", 0.0).await;

    // Signed now; its turn comes only once the holders end, after the signature's 10 s.
    let waiting = tokio::spawn({
        let http = app.http();
        let header = signed("203.0.113.5", now());
        async move { http.get("/v1/nowhere", &[("x-forwarded-client", &header)]).await.status.as_u16() }
    });
    // A request whose client leaves while it waits for its turn is given up at once: logged 499,
    // with no outcome, while the holders still hold the bound.
    let leaving = raw_get(app.addr, "/v1/ping", &credential.bearer(), &signed("203.0.113.6", now())).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(leaving);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let given_up = loop {
        let lines = app.logs();
        if let Some(line) = lines.iter().find(|line| line["message"] == "request" && line["route"] == "/ping") {
            break line.clone();
        }
        assert!(std::time::Instant::now() < deadline, "no line for the request given up: {lines:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(given_up["status"], 499, "{given_up}");
    assert_eq!(given_up["cause"], "the client went away while the request waited for its turn", "{given_up}");
    assert!(given_up.get("outcome").is_none(), "{given_up}");

    tokio::time::sleep(Duration::from_secs(11)).await;
    assert!(!waiting.is_finished(), "the request waits for its turn");
    locker.batch_execute("COMMIT").await.unwrap();
    assert_eq!(waiting.await.unwrap(), 404);

    assert_eq!(nowhere(&app, &[&signed("203.0.113.5", now())]).await, 429, "it was counted as 203.0.113.5");
    assert_eq!(nowhere(&app, &[]).await, 404, "not as the edge (127.0.0.1), which has its request left");
}

/// The lines `serve` writes up to and including its "serving" line.
async fn start_lines(child: &mut Child) -> Vec<String> {
    until_serving(&mut stdout_lines(child)).await
}

/// The start's warnings that name `EDGE_PEERS`.
fn edge_warnings(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|line| serde_json::from_str::<Value>(line).unwrap_or_else(|_| panic!("a JSON line: {line}")))
        .filter(|line| line["level"] == "WARN" && line.to_string().contains("EDGE_PEERS"))
        .collect()
}

#[tokio::test]
async fn serve_warns_once_at_start_when_edge_secret_is_set_without_edge_peers_and_never_shows_the_secret() {
    let secret = "a-distinctive-edge-secret-0d4f";
    let mut child = serve(&[("EDGE_SECRET", secret)]);
    let lines = start_lines(&mut child).await;
    let warnings = edge_warnings(&lines);
    assert_eq!(warnings.len(), 1, "{lines:?}");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(message.contains("EDGE_SECRET is set without EDGE_PEERS"), "{message}");
    assert!(message.contains("X-Forwarded-Client is ignored"), "{message}");
    assert!(lines.iter().all(|line| !line.contains(secret)), "{lines:?}");

    let mut child = serve(&[("EDGE_SECRET", secret), ("EDGE_PEERS", "10.0.0.0/8")]);
    assert_eq!(edge_warnings(&start_lines(&mut child).await), Vec::<Value>::new(), "peers set: no warning");
    let mut child = serve(&[]);
    assert_eq!(edge_warnings(&start_lines(&mut child).await), Vec::<Value>::new(), "no secret: no warning");
}

#[tokio::test]
async fn serve_warns_at_start_when_edge_peers_are_set_without_a_secret_to_verify_their_header() {
    let mut child = serve(&[("EDGE_PEERS", "10.0.0.0/8")]);
    let warnings = edge_warnings(&start_lines(&mut child).await);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0]["setting"], "EDGE_SECRET");
    assert!(warnings[0]["message"].as_str().unwrap().starts_with("EDGE_PEERS is set without EDGE_SECRET"));
}

#[tokio::test]
async fn a_bad_edge_peers_value_stops_the_start_and_names_the_setting() {
    let mut child = serve(&[("EDGE_SECRET", "s"), ("EDGE_PEERS", "10.0.0.0/8, 10.1.2.3")]);
    let status = timeout(Duration::from_secs(10), child.wait()).await.expect("it stops").unwrap();
    assert_eq!(status.code(), Some(1));
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).await.unwrap();
    assert_eq!(
        stderr,
        "ingest: EDGE_PEERS is not valid: \"10.1.2.3\" is not a CIDR range (comma-separated, like 10.0.0.0/8, \
         fd00::/8 or 192.0.2.1/32)\n"
    );
}
