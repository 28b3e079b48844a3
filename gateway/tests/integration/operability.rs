//! Operability: the admin listener beside the API. `/livez` and `/readyz` with their
//! exact answers; readiness following a database stopped and started, a schema behind the binary,
//! and a shutdown (503 first, the admin listener last); `/metrics` counting known requests exactly;
//! and no label value ever taken from a request.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::Method;
use serde_json::json;

use crate::common::lots::{json_headers, minimal_lot};
use crate::common::{create_database, header_map, ping_held_in_the_database, PrivateCluster, TestApp, TestResponse};

/// The exposition's content type.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

async fn admin_get(app: &TestApp, path: &str) -> TestResponse {
    app.admin().get(path, &[]).await
}

/// `/readyz` answers exactly 200 `{"status":"ready"}`.
fn assert_ready(response: &TestResponse) {
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.json(), json!({"status": "ready"}));
}

/// `/readyz` answers exactly 503 `{"status":"unready","reason":<reason>}`.
fn assert_unready(response: &TestResponse, reason: &str) {
    assert_eq!(response.status, 503, "{}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.json(), json!({"status": "unready", "reason": reason}));
}

/// The scrape's text, checked for its content type and its end.
async fn scrape(app: &TestApp) -> String {
    let response = admin_get(app, "/metrics").await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some(OPENMETRICS));
    let text = response.text().to_string();
    assert!(text.ends_with("# EOF\n"), "an OpenMetrics exposition ends with # EOF");
    text
}

/// The value of one series (`name{labels}` exactly as exposed), or None when absent.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn value(text: &str, series: &str) -> f64 {
    sample(text, series).unwrap_or_else(|| panic!("no series {series} in:\n{text}"))
}

/// Asks `/readyz` until it answers `status` (at most `limit`); answers the last answer.
async fn readyz_until(app: &TestApp, status: u16, limit: Duration) -> TestResponse {
    let started = Instant::now();
    loop {
        let response = admin_get(app, "/readyz").await;
        if response.status == status || started.elapsed() > limit {
            return response;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn livez_and_readyz_answer_exactly_and_the_admin_paths_are_not_the_apis() {
    let app = TestApp::spawn().await;
    let live = admin_get(&app, "/livez").await;
    assert_eq!((live.status.as_u16(), live.json()), (200, json!({"status": "live"})));
    assert_eq!(live.header("cache-control"), Some("no-store"));
    assert_ready(&admin_get(&app, "/readyz").await);

    let unknown = admin_get(&app, "/v1/ping").await;
    assert_eq!((unknown.status.as_u16(), unknown.json()), (404, json!({"error": "not_found"})));
    let wrong_verb = app.admin().request(Method::POST, "/metrics", Default::default(), "").await;
    assert_eq!((wrong_verb.status.as_u16(), wrong_verb.json()), (405, json!({"error": "method_not_allowed"})));
    assert_eq!(wrong_verb.header("allow"), Some("GET"));

    // The API's routes and 404 rule are unchanged: the admin paths are not on its port.
    for path in ["/livez", "/readyz", "/metrics", "/v1/livez", "/v1/metrics"] {
        app.get(path, &[]).await.assert_error(404, "not_found", None);
    }
    app.shutdown().await;
}

#[tokio::test]
async fn metrics_count_a_few_known_requests_exactly() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    for _ in 0..3 {
        assert_eq!(app.ping(Some(&bearer)).await.status, 200);
    }
    assert_eq!(app.ping(None).await.status, 401);
    app.get("/v1/nope", &[]).await.assert_error(404, "not_found", None);
    app.request(Method::DELETE, "/v1/ping", Default::default(), "").await.assert_error(405, "method_not_allowed", None);
    assert_eq!(app.put_lot(&credential, "counted", &minimal_lot("Counted")).await.status, 201);
    let text_plain = header_map(&[("authorization", &bearer), ("content-type", "text/plain")]);
    let refused = app.request(Method::PUT, "/v1/lots/counted", text_plain, "{}").await;
    refused.assert_error(415, "unsupported_media_type", None);
    let too_large = app.request(Method::PUT, "/v1/lots/counted", json_headers(&credential), vec![b' '; 70_000]).await;
    too_large.assert_error(413, "payload_too_large", None);

    let text = scrape(&app).await;
    let requests = |route: &str, method: &str, status: u16| {
        value(
            &text,
            &format!("ingest_http_requests_total{{route=\"{route}\",method=\"{method}\",status=\"{status}\"}}"),
        )
    };
    assert_eq!(requests("/ping", "GET", 200), 3.0);
    assert_eq!(requests("/ping", "GET", 401), 1.0);
    assert_eq!(requests("unmatched", "GET", 404), 1.0);
    assert_eq!(requests("/ping", "DELETE", 405), 1.0);
    assert_eq!(requests("/lots/{external_id}", "PUT", 201), 1.0);
    assert_eq!(requests("/lots/{external_id}", "PUT", 415), 1.0);
    assert_eq!(requests("/lots/{external_id}", "PUT", 413), 1.0);
    let all: f64 = text
        .lines()
        .filter(|line| line.starts_with("ingest_http_requests_total{"))
        .map(|line| line.rsplit_once(' ').unwrap().1.parse::<f64>().unwrap())
        .sum();
    assert_eq!(all, 9.0, "nothing else was counted (the admin listener's own requests are not)");

    assert_eq!(value(&text, "ingest_http_request_duration_seconds_count{route=\"/ping\"}"), 5.0);
    assert_eq!(value(&text, "ingest_http_request_duration_seconds_count{route=\"/lots/{external_id}\"}"), 3.0);
    assert_eq!(value(&text, "ingest_http_request_duration_seconds_count{route=\"unmatched\"}"), 1.0);
    assert!(text.contains("ingest_http_request_duration_seconds_bucket{le=\"0.0001\",route=\"/ping\"}"));
    assert_eq!(value(&text, "ingest_http_bodies_refused_total{reason=\"too_large\"}"), 1.0);
    assert_eq!(value(&text, "ingest_http_bodies_refused_total{reason=\"unsupported_media_type\"}"), 1.0);

    // Five requests reached the database: three pings and the PUT answered, the 401 refused.
    assert_eq!(value(&text, "ingest_db_calls_total{outcome=\"ok\"}"), 4.0);
    assert_eq!(value(&text, "ingest_db_calls_total{outcome=\"refused\"}"), 1.0);
    assert_eq!(sample(&text, "ingest_db_calls_total{outcome=\"try_again\"}"), None);
    assert_eq!(value(&text, "ingest_db_call_duration_seconds_count"), 5.0);
    assert_eq!(value(&text, "ingest_db_pool_wait_seconds_count"), 5.0);
    assert_eq!(value(&text, "ingest_db_pool_max"), 16.0);
    assert!(value(&text, "ingest_db_pool_connections") >= 1.0);
    assert_eq!(value(&text, "ingest_db_pool_in_use"), 0.0);
    assert_eq!(value(&text, "ingest_db_pool_waiting"), 0.0);
    // The harness lifts the rate limits: no bucket is held.
    assert_eq!(value(&text, "ingest_rate_limit_buckets"), 0.0);

    // A scrape counts nothing of its own.
    assert_eq!(scrape(&app).await.lines().filter(|l| l.starts_with("ingest_http_requests_total")).count(), 7);
    app.shutdown().await;
}

#[tokio::test]
async fn rate_limit_refusals_are_counted_by_bucket_and_the_buckets_held_are_visible() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("RATE_LIMITS", "on").set("RATE_LIMIT_READS", "2/60s");
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    assert_eq!(app.ping(Some(&bearer)).await.status, 200);
    assert_eq!(app.ping(Some(&bearer)).await.status, 200);
    app.ping(Some(&bearer)).await.assert_error(429, "rate_limited", None);

    let text = scrape(&app).await;
    assert_eq!(value(&text, "ingest_rate_limit_refusals_total{bucket=\"reads\"}"), 1.0);
    assert_eq!(text.lines().filter(|l| l.starts_with("ingest_rate_limit_refusals_total{")).count(), 1);
    assert_eq!(value(&text, "ingest_http_requests_total{route=\"/ping\",method=\"GET\",status=\"429\"}"), 1.0);
    // The source's all-requests and failed-authentication buckets, and the credential's reads.
    assert_eq!(value(&text, "ingest_rate_limit_buckets"), 3.0);
    app.shutdown().await;
}

/// Every label set of the exposition: (metric name, label name, label value).
fn labels(text: &str) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    for line in text.lines().filter(|line| !line.starts_with('#')) {
        let Some((name, rest)) = line.split_once('{') else { continue };
        let (set, _) = rest.rsplit_once('}').expect("a closed label set");
        for pair in set.split("\",") {
            let (label, value) = pair.split_once("=\"").expect("label=\"value\"");
            found.push((name.to_string(), label.to_string(), value.trim_end_matches('"').to_string()));
        }
    }
    found
}

#[tokio::test]
async fn no_metric_label_ever_carries_a_value_taken_from_a_request() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let mark = format!("zq{}", uuid::Uuid::new_v4().simple());
    let lot_id = format!("lot-{mark}");
    let unknown_key_id = format!("pk_api_{}", &mark[2..34]);
    let unknown_key = format!("Bearer {unknown_key_id}.pk_sec_{}", "0".repeat(64));

    let body = serde_json::to_vec(&minimal_lot(&mark)).unwrap();
    assert_eq!(app.put_lot(&credential, &lot_id, &minimal_lot(&mark)).await.status, 201);
    let path = format!("/v1/lots/{lot_id}/rates?{mark}=1");
    app.request(Method::PUT, &path, json_headers(&credential), body.clone()).await.assert_error(
        422,
        "invalid_query",
        Some(&mark),
    );
    app.get(&format!("/v1/{mark}"), &[]).await.assert_error(404, "not_found", None);
    app.get(&format!("/{mark}/openapi.json"), &[]).await.assert_error(404, "not_found", None);
    app.ping(Some(&unknown_key)).await.assert_error(401, "unauthorized", None);
    let forwarded = format!("ip=203.0.113.77;ts=1;sig={mark}");
    let bearer = credential.bearer();
    let odd = header_map(&[("user-agent", &mark), ("x-forwarded-client", &forwarded), ("authorization", &bearer)]);
    assert_eq!(app.request(Method::GET, "/v1/ping", odd, Bytes::new()).await.status, 200);
    let verb = Method::from_bytes(mark.to_uppercase().as_bytes()).unwrap();
    app.request(verb, "/v1/ping", Default::default(), "").await.assert_error(405, "method_not_allowed", None);
    let closures = app.get(&format!("/v1/lots/{lot_id}/blocked-periods"), &[("authorization", &bearer)]).await;
    assert_eq!(closures.status, 200);

    let text = scrape(&app).await;
    for needle in
        [mark.as_str(), &mark.to_uppercase(), &lot_id, &credential.key_id, &unknown_key_id, "203.0.113.77", "127.0.0.1"]
    {
        assert!(!text.contains(needle), "{needle:?} is in the metrics:\n{text}");
    }
    // And positively: every label value is one of ours.
    let routes: BTreeSet<String> = gateway::routes::ROUTES.iter().map(|spec| spec.template.to_string()).collect();
    let methods = ["GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS", "CONNECT", "TRACE", "other"];
    for (metric, label, value) in labels(&text) {
        let ours = match label.as_str() {
            "route" => {
                routes.contains(&value) || ["unmatched", "unknown", "/openapi.json", "/docs"].contains(&value.as_str())
            }
            "method" => methods.contains(&value.as_str()),
            "status" => value.parse::<u16>().is_ok_and(|status| (100..600).contains(&status)),
            "le" => value == "+Inf" || value.parse::<f64>().is_ok(),
            "outcome" => ["ok", "refused", "try_again", "internal"].contains(&value.as_str()),
            "reason" => ["too_large", "unsupported_media_type"].contains(&value.as_str()),
            "bucket" => {
                ["all_requests", "failed_auth", "reads", "writes_burst", "writes_hourly"].contains(&value.as_str())
            }
            _ => false,
        };
        assert!(ours, "{metric}: label {label}={value:?} is not one of the service's own values");
    }
    assert_eq!(value(&text, "ingest_http_requests_total{route=\"/ping\",method=\"other\",status=\"405\"}"), 1.0);
    assert_eq!(value(&text, "ingest_http_requests_total{route=\"unmatched\",method=\"GET\",status=\"404\"}"), 2.0);
    app.shutdown().await;
}

#[tokio::test]
async fn readiness_follows_a_database_stopped_and_started() {
    let cluster = PrivateCluster::create().await;
    cluster.start().await;
    gateway::migrate::run(&cluster.url()).await.expect("migrate the private cluster");
    let app = TestApp::spawn_on(&cluster.url(), |settings| {
        settings.set("DATABASE_TIMEOUT_MS", 2000).set("DATABASE_POOL_SIZE", 4);
    })
    .await;
    assert_ready(&admin_get(&app, "/readyz").await);

    cluster.stop().await;
    for _ in 0..3 {
        let started = Instant::now();
        assert_unready(&admin_get(&app, "/readyz").await, "database_unreachable");
        assert!(started.elapsed() < Duration::from_millis(1500), "the probe took {:?}", started.elapsed());
    }
    let live = admin_get(&app, "/livez").await;
    assert_eq!(live.status, 200, "the process still serves: live, not ready");
    // The metrics are still served, and show the outage's calls as try_again.
    let unknown = format!("Bearer pk_api_{}.pk_sec_{}", "0".repeat(32), "0".repeat(64));
    assert_eq!(app.ping(Some(&unknown)).await.status, 503);
    assert_eq!(value(&scrape(&app).await, "ingest_db_calls_total{outcome=\"try_again\"}"), 1.0);

    cluster.start().await;
    assert_ready(&readyz_until(&app, 200, Duration::from_secs(10)).await);
    assert_ready(&admin_get(&app, "/readyz").await);
    app.shutdown().await;
}

#[tokio::test]
async fn readiness_is_503_schema_behind_against_functions_older_than_the_binary() {
    let database = create_database(true).await;
    let app = TestApp::spawn_on(&database, |_| {}).await;
    let owner = app.superuser().await;
    let latest = gateway::migrate::latest_version();
    let deployed: Option<i32> =
        owner.query_one("SELECT schema_version FROM app.deployed_rules", &[]).await.unwrap().get(0);
    assert_eq!(deployed.map(i64::from), Some(latest), "migrate recorded the version its functions were made for");
    assert_ready(&admin_get(&app, "/readyz").await);

    // Functions made for a newer schema (migrated before this binary was replaced) are ready.
    owner.execute("UPDATE app.deployed_rules SET schema_version = $1", &[&(deployed.unwrap() + 1)]).await.unwrap();
    assert_ready(&admin_get(&app, "/readyz").await);

    // The binary is a migration ahead of the functions in place.
    owner.execute("UPDATE app.deployed_rules SET schema_version = $1", &[&(deployed.unwrap() - 1)]).await.unwrap();
    assert_unready(&admin_get(&app, "/readyz").await, "schema_behind");
    // The newest migration applied counts for nothing until its functions are: a database whose
    // functions were never applied since the version was recorded (V18) is behind.
    owner.execute("UPDATE app.deployed_rules SET schema_version = NULL", &[]).await.unwrap();
    assert_unready(&admin_get(&app, "/readyz").await, "schema_behind");

    // Functions older than api.functions_version(), whose api.schema_version() already reports the
    // newest migration applied (a run whose functions were not applied yet): behind.
    owner
        .batch_execute(
            "CREATE OR REPLACE FUNCTION api.schema_version() RETURNS integer SECURITY DEFINER LANGUAGE sql \
                 SET search_path = pg_catalog, pg_temp AS 'SELECT max(version)::integer FROM app.migration_history'; \
             DROP FUNCTION api.functions_version()",
        )
        .await
        .unwrap();
    assert_unready(&admin_get(&app, "/readyz").await, "schema_behind");

    // A database migrated by a binary before readiness existed has neither.
    owner.batch_execute("DROP FUNCTION api.schema_version()").await.unwrap();
    assert_unready(&admin_get(&app, "/readyz").await, "schema_behind");
    assert_unready(&admin_get(&app, "/readyz").await, "schema_behind");
    app.shutdown().await;
}

#[tokio::test]
async fn readyz_turns_503_as_shutdown_begins_and_the_admin_listener_stops_after_the_api() {
    let mut app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    assert_ready(&admin_get(&app, "/readyz").await);
    let (locker, in_flight) = ping_held_in_the_database(&app, &credential).await;

    app.begin_shutdown();
    // The API drains its request in flight; meanwhile the balancer is told: not ready.
    for _ in 0..3 {
        assert_unready(&admin_get(&app, "/readyz").await, "shutting_down");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(admin_get(&app, "/livez").await.status, 200, "the admin listener answers while the API drains");
    assert!(!in_flight.is_finished(), "the request in flight is still served");

    locker.batch_execute("COMMIT").await.unwrap();
    assert_eq!(in_flight.await.unwrap().status, 200);
    app.stopped(Duration::from_secs(5)).await;
    let after = app.admin().try_request(Method::GET, "/readyz", Default::default(), "").await;
    assert!(after.is_err(), "the admin listener stopped once the API was done: {after:?}");
}

#[tokio::test]
async fn during_the_drain_period_readyz_answers_503_while_the_api_still_takes_requests() {
    let mut app = TestApp::spawn_with(|settings| {
        settings.set("SHUTDOWN_DRAIN_SECONDS", 2);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let started = Instant::now();
    app.begin_shutdown();
    assert_unready(&admin_get(&app, "/readyz").await, "shutting_down");
    let response = app.ping(Some(&credential.bearer())).await;
    assert_eq!(response.status, 200, "a request during the drain period is served");
    assert!(started.elapsed() < Duration::from_millis(1500), "(the checks ran within the drain period)");

    app.stopped(Duration::from_secs(6)).await;
    assert!(
        started.elapsed() >= Duration::from_millis(1900),
        "stopped after {:?}, before the drain period",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_worker_counts_its_attempts_reads_the_backlog_and_serves_them_on_an_admin_listener_of_its_own() {
    use crate::common::webhooks::{loopback_is_public, FixedResolver, Receiver, RunningWorker, TestAuthority};
    use gateway::admin::{self, Admin};
    use gateway::metrics::Metrics;
    use gateway::webhooks::metrics::WebhookMetrics;

    // A database of its own: a worker claims every operator's hints.
    let database = create_database(true).await;
    let app = TestApp::spawn_on(&database, |_| {}).await;
    let authority = TestAuthority::new();
    let receiver = Receiver::start(&authority).await;
    let (delivered, _) = app.webhook_operator("https://hooks.example.test/in").await;
    let (failing, _) = app.webhook_operator("https://hooks.example.test/status/500").await;
    let delivered_reference = app.record_hooked_booking(&delivered).await;
    let failing_reference = app.record_hooked_booking(&failing).await;
    let resolver = FixedResolver::default().addresses("hooks.example.test", &["127.0.0.1"]);
    let worker = RunningWorker::start(&database, &authority, receiver.addr.port(), resolver, loopback_is_public());
    let settle = Duration::from_secs(10);
    app.wait_for_hints(&delivered_reference, settle, |h| h.iter().all(|h| h.state == "delivered")).await;
    app.wait_for_hints(&failing_reference, settle, |h| h.iter().all(|h| h.attempts == 1)).await;

    // The worker alone, as `ingest webhooks` serves it.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let admin_http = crate::common::Http::new(listener.local_addr().unwrap());
    let (stopping, stopping_seen) = tokio::sync::watch::channel(false);
    let (stop_admin, admin_stopped) = tokio::sync::oneshot::channel::<()>();
    let admin =
        Admin::worker(worker.metrics.clone(), Duration::from_millis(50), stopping_seen, Duration::from_secs(10));
    let served = tokio::spawn(admin::serve(listener, std::sync::Arc::new(admin), async move {
        let _ = admin_stopped.await;
    }));

    // The backlog is read every 100 ms here: one hint waits for its retry, none is in flight.
    let started = Instant::now();
    let text = loop {
        let response = admin_http.get("/metrics", &[]).await;
        assert_eq!(response.header("content-type"), Some(OPENMETRICS));
        let text = response.text().to_string();
        if sample(&text, "ingest_webhook_hints{state=\"waiting\"}") == Some(1.0) || started.elapsed() > settle {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(value(&text, "ingest_webhook_attempts_total{outcome=\"delivered\",reason=\"none\"}"), 1.0);
    assert_eq!(value(&text, "ingest_webhook_attempts_total{outcome=\"retry\",reason=\"http_status\"}"), 1.0);
    assert_eq!(text.lines().filter(|line| line.starts_with("ingest_webhook_attempts_total{")).count(), 2);
    assert_eq!(value(&text, "ingest_webhook_attempt_duration_seconds_count"), 2.0);
    assert_eq!(value(&text, "ingest_webhook_hints{state=\"waiting\"}"), 1.0);
    assert_eq!(value(&text, "ingest_webhook_hints{state=\"in_flight\"}"), 0.0);
    assert!(value(&text, "ingest_webhook_oldest_undelivered_seconds") > 0.0);
    assert_eq!(value(&text, "ingest_webhook_hints_dead_last_day"), 0.0);
    assert!(value(&text, "ingest_webhook_last_sweep_timestamp_seconds") > 1.7e9);
    assert!(value(&text, "ingest_webhook_backlog_read_timestamp_seconds") > 1.7e9);
    for needle in [delivered_reference.as_str(), &failing_reference, "hooks.example.test", "/status/500"] {
        assert!(!text.contains(needle), "{needle:?} is in the worker's metrics");
    }
    assert!(!text.contains("ingest_http_requests"), "the worker alone has no API to count");

    // Ready while its sweeps reach the database; 503 once its stop is asked for.
    assert_ready(&admin_http.get("/readyz", &[]).await);
    stopping.send_replace(true);
    assert_unready(&admin_http.get("/readyz", &[]).await, "shutting_down");
    stop_admin.send(()).unwrap();
    served.await.unwrap();
    worker.stop().await;

    // A worker that has not reached the database is not ready.
    let never = Admin::worker(
        WebhookMetrics::default(),
        Duration::from_millis(50),
        tokio::sync::watch::channel(false).1,
        Duration::from_secs(10),
    );
    assert_eq!(never.ready().await.unwrap_err().as_str(), "database_unreachable");
    assert!(Metrics::worker(&WebhookMetrics::default()).render().ends_with("# EOF\n"));
    app.shutdown().await;
}

/// The admin listener has the API's deadline on a stalled answer: 64 clients that
/// pipeline `/metrics` requests and never read the answers hold every admin slot, so `/readyz` waits
/// in the backlog; once their writes have stalled for SEND_TIMEOUT_MS they are cut off, `/readyz`
/// and `/livez` answer again, and every slot is free. Without the deadline they never were (the
/// balancer dropped the instance). Two worker threads: the clients keep going while the server fills
/// their buffers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_clients_that_never_read_their_answers_are_cut_off_after_the_send_timeout() {
    use tokio::io::AsyncWriteExt;
    use tokio::net::{TcpSocket, TcpStream};

    const ADMIN_SLOTS: usize = 64;
    let send_timeout = Duration::from_secs(3);
    let app = TestApp::spawn_with(|settings| {
        settings.set("SEND_TIMEOUT_MS", send_timeout.as_millis());
    })
    .await;
    // Far more answers than the sockets' buffers hold.
    let requests = "GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n".repeat(4 * 1024 * 1024 / scrape(&app).await.len() + 1);
    // No write of the server can have waited SEND_TIMEOUT_MS before this instant plus that.
    let started = Instant::now();
    let mut never_read = Vec::new();
    for _ in 0..ADMIN_SLOTS {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        small_segments(&socket);
        let mut stream = socket.connect(app.admin_addr).await.unwrap();
        let requests = requests.clone();
        never_read.push(tokio::spawn(async move {
            // (sent, or blocked until the server closes: either way it never reads)
            let _ = tokio::time::timeout(Duration::from_secs(10), stream.write_all(requests.as_bytes())).await;
            stream
        }));
    }

    let ask = |path: &'static str| async move {
        let mut stream = TcpStream::connect(app.admin_addr).await.unwrap();
        stream.write_all(format!("GET {path} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes()).await.unwrap();
        stream
    };
    let mut readyz = ask("/readyz").await;
    let early = tokio::time::timeout(Duration::from_millis(500), readyz.peek(&mut [0u8; 1])).await;
    assert!(
        started.elapsed() < send_timeout,
        "(the clients took {:?} to fill the slots: too late to tell whether they held them)",
        started.elapsed()
    );
    assert!(early.is_err(), "every admin slot is held by the clients that never read, so /readyz waits");

    let answer = tokio::time::timeout(Duration::from_secs(4), crate::common::read_raw_answer(&mut readyz))
        .await
        .expect("/readyz answers once the clients that never read are cut off")
        .expect("an answer");
    assert!(started.elapsed() >= send_timeout, "answered after the send deadline, not before");
    assert!(answer.starts_with("HTTP/1.1 200 ") && answer.ends_with(r#"{"status":"ready"}"#), "{answer}");
    drop(readyz);
    let answer = crate::common::read_raw_answer(&mut ask("/livez").await).await.expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 200 ") && answer.ends_with(r#"{"status":"live"}"#), "{answer}");

    // Every one of them was cut off: 64 connections held open at once are all answered (asked again
    // until they are, within 10 s: the last cut-offs may still be under way; the clients keep their
    // ends open, so a free slot is one the server closed).
    let deadline = Instant::now() + Duration::from_secs(10);
    let held = loop {
        let mut held = Vec::new();
        for _ in 0..ADMIN_SLOTS {
            let mut stream = ask("/livez").await;
            match tokio::time::timeout(Duration::from_millis(500), crate::common::read_raw_answer(&mut stream)).await {
                Ok(Some(answer)) if answer.starts_with("HTTP/1.1 200 ") => held.push(stream),
                _ => break,
            }
        }
        if held.len() == ADMIN_SLOTS {
            break held;
        }
        assert!(Instant::now() < deadline, "only {} of 64 connections at once were answered", held.len());
    };
    drop((held, never_read));
    app.shutdown().await;
}

/// Asks for TCP segments of 536 bytes (the IPv4 minimum) on a connection about to be made: the
/// server's send buffer, sized from the segment size, then holds a few dozen kilobytes, not the
/// megabytes of a loopback connection, so a client that never reads stalls the server's writes after
/// a few answers instead of thousands.
fn small_segments(socket: &tokio::net::TcpSocket) {
    use std::os::fd::AsRawFd;

    let segment: libc::c_int = 536;
    // SAFETY: a valid socket, and a pointer to a c_int with its exact size, as TCP_MAXSEG takes.
    let set = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            (&segment as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    assert_eq!(set, 0, "TCP_MAXSEG: {}", std::io::Error::last_os_error());
}
