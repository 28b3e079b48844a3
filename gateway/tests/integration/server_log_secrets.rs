//! No secret reaches the PostgreSQL server log, however loudly a DBA configures it: every statement
//! logged with its parameters and duration, debug messages, verbose errors, and auto_explain
//! printing the analysed, verbose plan of every statement, nested ones included. Against such a
//! cluster (of this test's own), the logins the project creates authenticate a client, issue a
//! credential and register a webhook endpoint the way PostgREST does, issue and verify a bookings
//! cursor, and let the webhook worker claim a hint; then the log is searched for every secret used.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use uuid::Uuid;

use crate::common::{connect, PrivateCluster, TestApp};
use gateway::telemetry::LogSink;
use gateway::webhooks::address::AddressPolicy;
use gateway::webhooks::worker::{Worker, WorkerWiring};

const LOUD_LOGGING: &str = "
log_statement = 'all'
log_min_duration_statement = 0
log_min_messages = debug1
log_min_error_statement = debug1
log_error_verbosity = verbose
log_connections = on
log_parameter_max_length = -1
log_parameter_max_length_on_error = -1
shared_preload_libraries = 'auto_explain'
auto_explain.log_min_duration = 0
auto_explain.log_analyze = on
auto_explain.log_verbose = on
auto_explain.log_nested_statements = on
auto_explain.log_settings = on
";

/// Runs `sql` as the console does: logged in as PostgREST's `authenticator`, switched to
/// `authenticated`, the claims and headers in settings, every value a bind parameter.
async fn as_console(
    cluster: &PrivateCluster,
    user: Uuid,
    operator: Uuid,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Vec<tokio_postgres::Row> {
    let mut db = connect(&cluster.url_as("authenticator")).await;
    let transaction = db.transaction().await.unwrap();
    transaction.batch_execute("SET LOCAL ROLE authenticated").await.unwrap();
    let claims = json!({"sub": user.to_string(), "role": "authenticated"}).to_string();
    let headers = json!({"x-tenant-id": operator.to_string()}).to_string();
    transaction
        .execute(
            "SELECT set_config('request.jwt.claims', $1, true), set_config('request.headers', $2, true)",
            &[&claims, &headers],
        )
        .await
        .unwrap();
    let rows = transaction.query(sql, params).await.unwrap();
    transaction.commit().await.unwrap();
    rows
}

#[tokio::test]
async fn no_secret_reaches_the_server_log_at_any_logging_level() {
    let cluster = PrivateCluster::create_with(LOUD_LOGGING).await;
    cluster.start().await;
    gateway::migrate::run(&cluster.url()).await.expect("migrate");
    let admin = connect(&cluster.url()).await;

    // The platform's side, as the superuser.
    let owner = Uuid::new_v4();
    admin.execute("SELECT platform.user_upsert($1, 'owner@test.invalid', false)", &[&owner]).await.unwrap();
    let operator: Uuid = admin.query_one("SELECT platform.operator_create('Logged', 'EUR')", &[]).await.unwrap().get(0);
    admin.execute("SELECT platform.member_set($1, $2, 'owner')", &[&operator, &owner]).await.unwrap();

    // The console's side, through PostgREST's login.
    let scopes = vec!["read_supply".to_string(), "write_supply".to_string(), "read_bookings".to_string()];
    let issued = as_console(
        &cluster,
        owner,
        operator,
        "SELECT key_id, secret FROM console.api_credential_issue($1, $2, $3)",
        &[&"logged", &scopes, &None::<i32>],
    )
    .await;
    let (key_id, secret): (String, String) = (issued[0].get(0), issued[0].get(1));
    let webhook_secret = format!("whsec_{}", "7e".repeat(32));
    as_console(
        &cluster,
        owner,
        operator,
        "SELECT id FROM console.webhook_endpoint_register($1, $2)",
        &[&"https://hooks.example.test/in", &webhook_secret],
    )
    .await;

    // The API, through the gateway's own login; the feed through the standby's two calls (the
    // cluster serves as its own standby: the read assertion and its key pass through the log's reach).
    let app = TestApp::spawn_on(&cluster.url_as("ingest_gateway"), |settings| {
        settings.set("DATABASE_READ_URL", cluster.url_as("ingest_gateway"));
    })
    .await;
    let bearer = format!("Bearer {key_id}.{secret}");
    assert_eq!(app.get("/v1/ping", &[("authorization", &bearer)]).await.status, 200);
    let wrong = format!("Bearer {key_id}.pk_sec_{}", "0".repeat(64));
    assert_eq!(app.get("/v1/ping", &[("authorization", &wrong)]).await.status, 401);
    let lot = json!({"name": "Logged lot", "timezone": "Europe/London", "handover": "self", "online_bookable": true});
    let put = app
        .put("/v1/lots/lot-1", &[("authorization", &bearer), ("content-type", "application/json")], lot.to_string())
        .await;
    assert_eq!(put.status, 201, "{}", put.text());
    let booking = crate::common::bookings::minimal_booking("lot-1", "2026-08-01T10:00:00", "2026-08-03T10:00:00");
    admin.query_one("SELECT platform.booking_record($1, $2)", &[&operator, &booking]).await.unwrap();
    let first = app.get("/v1/bookings", &[("authorization", &bearer)]).await;
    assert_eq!(first.status, 200, "{}", first.text());
    let next = first.json()["next"].as_str().unwrap().to_string();
    let again = app.get(&format!("/v1/bookings?since={next}"), &[("authorization", &bearer)]).await;
    assert_eq!(again.status, 200, "{}", again.text());

    // The webhook worker, through its own login: it claims the hint (with its secret) and records
    // the outcome (the name has no records here, so nothing leaves the machine).
    let mut settings = crate::common::webhooks::worker_settings(&cluster.url_as("webhook_worker"));
    settings.database_role = None;
    let wiring = WorkerWiring {
        resolver: Arc::new(crate::common::webhooks::FixedResolver::default()),
        extra_roots: Vec::new(),
        port: 443,
        policy: AddressPolicy::production(),
    };
    let worker = Worker::new(settings, wiring, LogSink::Memory(Default::default())).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(worker.run(async move {
        let _ = stopped.await;
    }));
    let started = std::time::Instant::now();
    loop {
        let attempts: i32 =
            admin.query_one("SELECT coalesce(max(attempts), 0) FROM app.webhook_hints", &[]).await.unwrap().get(0);
        if attempts > 0 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the worker never attempted the hint");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = stop.send(());
    running.await.unwrap();

    let server_secrets: Vec<String> = admin
        .query("SELECT encode(value, 'hex') FROM app.server_secrets", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(server_secrets.len(), 3, "the credential pepper, the cursor key and the read assertion key");
    app.shutdown().await;
    drop(admin);

    // Every call above in the log (the server writes it on its own time), then the search.
    let expected = [
        "api.ping",
        "Query Text:",
        "webhook.claim_due_hints",
        "console.api_credential_issue",
        "api.bookings_read_assertion",
        "api.bookings_get_standby",
        "api.bookings_feed_publish",
    ];
    let reading = std::time::Instant::now();
    let log = loop {
        let log = cluster.server_log();
        let missing: Vec<&str> = expected.iter().copied().filter(|text| !log.contains(text)).collect();
        if missing.is_empty() {
            break log;
        }
        assert!(reading.elapsed() < Duration::from_secs(5), "statements and plans were logged: {missing:?} missing");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let mut needles = vec![
        secret.clone(),
        secret["pk_sec_".len()..].to_string(),
        webhook_secret.clone(),
        webhook_secret["whsec_".len()..].to_string(),
    ];
    needles.extend(server_secrets.iter().cloned());
    // Any read assertion: its payload begins "1|read_bookings", whose base64url is this.
    needles.push("MXxyZWFkX2Jvb2tpbmdz".to_string());
    let leaks: Vec<&str> =
        log.lines().filter(|line| needles.iter().any(|needle| line.contains(needle.as_str()))).collect();
    assert!(leaks.is_empty(), "secrets in the server log:\n{}", leaks.join("\n"));
}
