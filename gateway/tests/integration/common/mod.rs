//! The harness of the integration tests (`main.rs`), compiled once for all of them.
//!
//! - [`test_database_url`]: ONE fresh database per test run (`gw_<binary>_<unix time>_<random>`),
//!   created from `TEST_DATABASE_URL` (a superuser URL of the local cluster) and migrated with
//!   `gateway::migrate::run`, once, on a thread of its own with its own short-lived runtime: every
//!   `#[tokio::test]` has its own runtime, so nothing async is shared between tests. Databases of
//!   earlier runs (older than [`STALE_AFTER`], never one in use) are dropped on the way.
//! - [`TestApp`]: the gateway serving on 127.0.0.1:0 against a database, its admin listener on
//!   another 127.0.0.1:0, with its request log lines captured in memory and a shutdown switch; a
//!   small HTTP client ([`Http`]) to talk to either.
//! - Fixtures through the documented SQL only: `platform.*` as the superuser, and
//!   `console.api_credential_*` the way PostgREST calls them (role `authenticated`, the JWT claims in
//!   `request.jwt.claims`, the lower-cased headers in `request.headers`).
//! - [`lots`] and [`supply`]: the lot routes' fixtures and answer shapes, and those of the routes
//!   under a lot (rates, blocked periods, bookings recorded for their counts).
//! - [`bookings`]: the bookings feed's fixtures, answer shapes, a polling client, and a database
//!   whose watermark lag is zero.
//! - [`assert_uniform_401`]: the one 401 every credential or lot refusal answers.
//! - [`webhooks`]: a test certificate authority, a local HTTPS receiver, a fixed resolver and a
//!   delivery worker wired to them.
//! - [`cluster`]: [`PrivateCluster`], a throwaway PostgreSQL cluster of a test's own, for tests that
//!   stop the database or need TLS (binaries from `PG_BIN`), and [`free_port`]; [`patroni`]: a high-availability cluster of a
//!   test's own (etcd, two nodes under Patroni) whose leader a test can kill.
//!
//! Each test makes its own operator and credentials, so tests of one binary never see each
//! other's rows, and each has its own gateway, so log lines are per test. (The bookings feed's
//! watermark is the one thing a database shares between operators: see [`bookings`].)

#![allow(dead_code)]

pub mod bookings;
pub mod cluster;
pub mod feed_stress;
pub mod lots;
pub mod patroni;
pub mod process;
pub mod supply;
pub mod webhooks;

pub use cluster::{free_port, PrivateCluster};

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use uuid::Uuid;

use gateway::admin::Admin;
use gateway::config::Config;
use gateway::db::Database;
use gateway::db_tls::DatabaseLink;
use gateway::readiness::Probe;
use gateway::server;
use gateway::standby::Standby;
use gateway::state::AppState;
use gateway::telemetry::LogSink;
use gateway::webhooks::worker::Worker;

/// The three scopes, in the enumeration's order.
pub const ALL_SCOPES: [&str; 3] = ["read_supply", "write_supply", "read_bookings"];

/// A test database older than this was left by an earlier run and may be dropped.
pub const STALE_AFTER: Duration = Duration::from_secs(15 * 60);

/// No single HTTP exchange in these tests may take longer; past it the test fails instead of hanging.
const REQUEST_DEADLINE: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------------------------
// The test database
// ---------------------------------------------------------------------------------------------

/// The superuser URL of the cluster the tests create their databases in.
pub fn admin_url() -> String {
    std::env::var("TEST_DATABASE_URL").ok().filter(|url| !url.is_empty()).unwrap_or_else(|| {
        panic!(
            "TEST_DATABASE_URL is not set: run `make test`, or \
             TEST_DATABASE_URL=$(sql/dev/cluster.sh url postgres) PG_BIN=/usr/lib/postgresql/15/bin cargo test"
        )
    })
}

/// The migrated database of this test binary (created on first use).
pub fn test_database_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        std::thread::spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime for the test database")
                .block_on(create_database(true))
        })
        .join()
        .expect("the test database could not be created")
    })
}

/// A new database of this test binary, migrated or left empty; answers its superuser URL.
pub async fn create_database(migrated: bool) -> String {
    let admin = admin_url();
    let client = connect(&admin).await;
    drop_stale_databases(&client).await;

    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    let random = &Uuid::new_v4().simple().to_string()[..8];
    let name = format!("gw_{}_{now}_{random}", binary_name());
    client
        .batch_execute(&format!("CREATE DATABASE \"{name}\""))
        .await
        .unwrap_or_else(|e| panic!("CREATE DATABASE {name}: {e}"));
    let url = with_database(&admin, &name);
    if migrated {
        gateway::migrate::run(&url).await.unwrap_or_else(|e| panic!("migrating {name}: {e}"));
    }
    url
}

/// The test binary's name without cargo's hash suffix, as a safe identifier part.
fn binary_name() -> String {
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "test".into());
    let stem = match stem.rsplit_once('-') {
        Some((name, hash)) if hash.bytes().all(|b| b.is_ascii_hexdigit()) => name.to_string(),
        _ => stem,
    };
    let mut safe: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    safe.truncate(30);
    safe
}

/// Drops `gw_<binary>_<unix time>_<random>` databases older than [`STALE_AFTER`]. Without FORCE,
/// so a database someone is still connected to is left alone; errors are ignored.
async fn drop_stale_databases(client: &tokio_postgres::Client) {
    let Ok(rows) = client
        .query("SELECT datname FROM pg_database WHERE datname ~ '^gw_[a-z0-9_]+_[0-9]{10}_[0-9a-f]{8}$'", &[])
        .await
    else {
        return;
    };
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    for row in rows {
        let name: String = row.get(0);
        let created = name.rsplit('_').nth(1).and_then(|t| t.parse::<u64>().ok());
        if created.is_some_and(|created| now.saturating_sub(created) > STALE_AFTER.as_secs()) {
            let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\"")).await;
        }
    }
}

/// `url` with its database name replaced by `database` (query parameters kept).
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority = base.find("://").map_or(0, |i| i + 3);
    let server = match base[authority..].find('/') {
        Some(slash) => &base[..authority + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{server}/{database}?{query}"),
        None => format!("{server}/{database}"),
    }
}

/// A connection on the current runtime; its driver task dies with the runtime. The URL's `sslmode`
/// and `sslrootcert` count, as for the gateway (`gateway::db_tls`).
pub async fn connect(url: &str) -> tokio_postgres::Client {
    let link = DatabaseLink::parse(url, "the test URL").unwrap_or_else(|e| panic!("{e}"));
    let (client, connection) =
        link.connect().await.unwrap_or_else(|e| panic!("connecting to {url}: {}", link.explain(&e)));
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

/// A connection (no TLS), or None when the server refuses it or does not answer within 2 s: for
/// tests that connect while a server may be down or failing over.
pub async fn try_connect(url: &str) -> Option<tokio_postgres::Client> {
    let attempt = tokio_postgres::connect(url, tokio_postgres::NoTls);
    let (client, connection) = tokio::time::timeout(Duration::from_secs(2), attempt).await.ok()?.ok()?;
    tokio::spawn(connection);
    Some(client)
}

/// The connection in `slot`, made when there is none; None (after a short pause, so a caller's
/// loop does not spin) while the server cannot be reached. A caller empties the slot after an
/// error, and the next call connects again.
pub async fn connected<'a>(
    slot: &'a mut Option<tokio_postgres::Client>,
    url: &str,
) -> Option<&'a mut tokio_postgres::Client> {
    if slot.is_none() {
        *slot = try_connect(url).await;
        if slot.is_none() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    slot.as_mut()
}

/// The backend pid of a session, to find the sessions it blocks.
pub async fn backend_pid(client: &tokio_postgres::Client) -> i32 {
    client.query_one("SELECT pg_backend_pid()", &[]).await.expect("pg_backend_pid").get(0)
}

/// Waits (at most 5 s) until some session of the cluster waits for a lock the session `holder_pid`
/// holds: the way to know a gateway request is in flight inside the database.
pub async fn wait_for_session_blocked_by(database_url: &str, holder_pid: i32) {
    wait_for_sessions_blocked_by(database_url, holder_pid, 1).await;
}

/// Waits (at most 5 s) until at least `count` sessions of the cluster wait for a lock the session
/// `holder_pid` holds.
pub async fn wait_for_sessions_blocked_by(database_url: &str, holder_pid: i32, count: i64) {
    let observer = connect(database_url).await;
    for _ in 0..500 {
        let blocked: i64 = observer
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))", &[&holder_pid])
            .await
            .expect("reading pg_stat_activity")
            .get(0);
        if blocked >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("fewer than {count} sessions waited for the lock of session {holder_pid} within 5 s");
}

/// A GET /ping held inside the database: a superuser session locks the credentials table (which
/// every authentication reads) in a transaction, and the ping waits on it until the test commits or
/// rolls back that session. Answers (the session, the ping's task), the ping already waiting.
pub async fn ping_held_in_the_database(
    app: &TestApp,
    credential: &Credential,
) -> (tokio_postgres::Client, tokio::task::JoinHandle<TestResponse>) {
    let locker = app.superuser().await;
    let pid = backend_pid(&locker).await;
    locker.batch_execute("BEGIN").await.unwrap();
    locker.batch_execute("LOCK TABLE app.api_credentials IN ACCESS EXCLUSIVE MODE").await.unwrap();
    let http = app.http();
    let bearer = credential.bearer();
    let in_flight = tokio::spawn(async move { http.ping(Some(&bearer)).await });
    wait_for_session_blocked_by(&app.database_url, pid).await;
    (locker, in_flight)
}

// ---------------------------------------------------------------------------------------------
// The gateway under test
// ---------------------------------------------------------------------------------------------

/// Environment settings for `Config::from_lookup`, on top of the harness defaults.
#[derive(Default)]
pub struct Settings(HashMap<String, String>);

impl Settings {
    pub fn set(&mut self, name: &str, value: impl ToString) -> &mut Self {
        self.0.insert(name.to_string(), value.to_string());
        self
    }

    /// Rate limits on, behind an edge on the loopback range that signs with `secret`: each request
    /// names its own source with [`edge_forward`].
    pub fn limited_behind_edge(&mut self, secret: &str) -> &mut Self {
        self.set("RATE_LIMITS", "on").set("EDGE_SECRET", secret).set("EDGE_PEERS", "127.0.0.0/8")
    }
}

pub struct TestApp {
    pub addr: SocketAddr,
    /// The admin listener (`/livez`, `/readyz`, `/metrics`).
    pub admin_addr: SocketAddr,
    /// The superuser URL of the database the gateway serves (fixtures use it).
    pub database_url: String,
    http: Http,
    admin: Http,
    logs: Arc<Mutex<Vec<Value>>>,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<()>>,
}

impl TestApp {
    /// The gateway with default settings against this binary's test database.
    pub async fn spawn() -> TestApp {
        Self::spawn_with(|_| {}).await
    }

    /// As [`TestApp::spawn`], with settings changed by `tweak`.
    pub async fn spawn_with(tweak: impl FnOnce(&mut Settings)) -> TestApp {
        let url = test_database_url().to_string();
        Self::spawn_on(&url, tweak).await
    }

    /// As [`TestApp::spawn_with`], against a fresh migrated database of its own: for a test that
    /// locks a table every request reads, or changes a setting of the whole database.
    pub async fn spawn_alone(tweak: impl FnOnce(&mut Settings)) -> TestApp {
        Self::spawn_on(&create_database(true).await, tweak).await
    }

    /// The gateway against the database at `database_url` (a superuser URL: the pool switches to
    /// `DATABASE_ROLE`, by default `ingest_gateway`).
    pub async fn spawn_on(database_url: &str, tweak: impl FnOnce(&mut Settings)) -> TestApp {
        Self::spawn_serving(database_url, tweak, None).await
    }

    /// As `ingest serve` runs with its webhook worker inside (`WEBHOOK_WORKER=on`): `worker` runs
    /// beside the API, its metrics on this gateway's `/metrics`, and stops when the gateway does.
    pub async fn spawn_with_worker(database_url: &str, worker: Worker) -> TestApp {
        Self::spawn_serving(database_url, |_| {}, Some(worker)).await
    }

    /// As [`TestApp::spawn_on`], with `worker` running inside as [`TestApp::spawn_with_worker`] runs it.
    pub async fn spawn_serving(
        database_url: &str,
        tweak: impl FnOnce(&mut Settings),
        worker: Option<Worker>,
    ) -> TestApp {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let admin_listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let admin_addr = admin_listener.local_addr().unwrap();
        let mut settings = Settings::default();
        // Every test's requests come from 127.0.0.1: the buckets are lifted unless a test (the
        // rate-limit tests) turns them on.
        settings
            .set("DATABASE_URL", database_url)
            .set("LISTEN_ADDR", addr)
            .set("ADMIN_LISTEN_ADDR", admin_addr)
            .set("RATE_LIMITS", "off");
        tweak(&mut settings);
        let config = Config::from_lookup(|name| settings.0.get(name).cloned()).expect("a valid test config");
        let db = Database::new(&config).expect("the pool");
        let standby = Standby::from_config(&config).expect("the standby's pool");
        let probe = Probe::new(&config).expect("the readiness probe");
        let logs = Arc::new(Mutex::new(Vec::new()));
        let mut state = AppState::new(config, db, LogSink::Memory(logs.clone())).with_standby(standby);
        if let Some(worker) = &worker {
            state = state.with_webhook_metrics(worker.metrics());
        }
        let state = Arc::new(state);
        let admin = Admin::gateway(state.clone(), probe);
        let (shutdown, stop) = oneshot::channel::<()>();
        let (stop_worker, worker_stopped) = oneshot::channel::<()>();
        let worker = worker.map(|worker| {
            tokio::spawn(worker.run(async move {
                let _ = worker_stopped.await;
            }))
        });
        let server = tokio::spawn(async move {
            server::serve_with_admin(listener, Some((admin_listener, admin)), state, async move {
                let _ = stop.await;
                let _ = stop_worker.send(());
            })
            .await;
            if let Some(worker) = worker {
                let _ = worker.await;
            }
        });
        TestApp {
            addr,
            admin_addr,
            database_url: database_url.to_string(),
            http: Http::new(addr),
            admin: Http::new(admin_addr),
            logs,
            shutdown: Some(shutdown),
            server: Some(server),
        }
    }

    /// A value of this gateway's `/metrics`: the one series `series` names with its labels
    /// (`name{label="v"}`), or the sum of every series of a name given alone; 0 when there is none.
    pub async fn metric(&self, series: &str) -> f64 {
        let response = self.admin.get("/metrics", &[]).await;
        let labelled = |rest: &str| !series.contains('{') && rest.starts_with('{');
        response
            .text()
            .lines()
            .filter_map(|line| line.strip_prefix(series).filter(|rest| rest.starts_with(' ') || labelled(rest)))
            .map(|rest| rest.rsplit_once(' ').map_or(rest, |(_, value)| value).trim().parse::<f64>().expect("a value"))
            .sum()
    }

    /// Waits (at most 10 s) until the gateway's metric `series` (as [`TestApp::metric`] reads it) is
    /// `value`.
    pub async fn metric_reaches(&self, series: &str, value: f64) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let now = self.metric(series).await;
            if now == value {
                return;
            }
            assert!(std::time::Instant::now() < deadline, "{series} is {now}, not {value}, after 10 s");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits (at most 5 s) for the request line of `route` and answers it.
    pub async fn request_line_of(&self, route: &str) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(line) =
                self.logs().into_iter().find(|line| line["message"] == "request" && line["route"] == route)
            {
                return line;
            }
            assert!(std::time::Instant::now() < deadline, "no request line of {route} within 5 s");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// A client for the admin listener.
    pub fn admin(&self) -> Http {
        self.admin.clone()
    }

    /// A cloneable client for this gateway (for requests run as tasks of their own).
    pub fn http(&self) -> Http {
        self.http.clone()
    }

    pub fn base_url(&self) -> String {
        self.http.base_url.clone()
    }

    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> TestResponse {
        self.http.get(path, headers).await
    }

    pub async fn put(&self, path: &str, headers: &[(&str, &str)], body: impl Into<Bytes>) -> TestResponse {
        self.http.request(Method::PUT, path, header_map(headers), body).await
    }

    pub async fn request(
        &self,
        method: Method,
        path: &str,
        headers: HeaderMap,
        body: impl Into<Bytes>,
    ) -> TestResponse {
        self.http.request(method, path, headers, body).await
    }

    /// GET /v1/ping with this Authorization value (or none).
    pub async fn ping(&self, authorization: Option<&str>) -> TestResponse {
        self.http.ping(authorization).await
    }

    /// Every request log line written so far, in order.
    pub fn logs(&self) -> Vec<Value> {
        self.logs.lock().unwrap().clone()
    }

    /// The one log line of the request that answered with `response`.
    pub fn log_of(&self, response: &TestResponse) -> Value {
        let id = response.request_id();
        let lines: Vec<Value> = self.logs().into_iter().filter(|line| line["request_id"] == id).collect();
        assert_eq!(lines.len(), 1, "exactly one log line for request {id}: {lines:?}");
        lines.into_iter().next().unwrap()
    }

    /// Signals shutdown without waiting for it (see [`TestApp::stopped`]).
    pub fn begin_shutdown(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }

    /// Whether `serve` has returned.
    pub fn is_stopped(&self) -> bool {
        self.server.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Waits (at most `limit`) for `serve` to return; panics if it does not.
    pub async fn stopped(&mut self, limit: Duration) {
        if let Some(server) = self.server.take() {
            tokio::time::timeout(limit, server)
                .await
                .unwrap_or_else(|_| panic!("serve did not return within {limit:?}"))
                .expect("serve panicked");
        }
    }

    /// Graceful shutdown: signal, then wait for `serve` to return.
    pub async fn shutdown(mut self) {
        self.begin_shutdown();
        self.stopped(Duration::from_secs(10)).await;
    }

    // -- fixtures -------------------------------------------------------------------------------

    /// A superuser connection to the gateway's database, on the current runtime.
    pub async fn superuser(&self) -> tokio_postgres::Client {
        connect(&self.database_url).await
    }

    /// A new active operator (settlement currency EUR) with an accepted owner.
    pub async fn make_operator(&self) -> Operator {
        let db = self.superuser().await;
        let owner = Uuid::new_v4();
        db.execute("SELECT platform.user_upsert($1, $2, false)", &[&owner, &format!("owner-{owner}@test.invalid")])
            .await
            .expect("platform.user_upsert");
        let name = format!("Test operator {}", Uuid::new_v4());
        let id: Uuid = db
            .query_one("SELECT platform.operator_create($1, 'EUR')", &[&name])
            .await
            .expect("platform.operator_create")
            .get(0);
        db.execute("SELECT platform.member_set($1, $2, 'owner')", &[&id, &owner]).await.expect("platform.member_set");
        Operator { id, owner }
    }

    /// Issues a credential as the operator's owner, through the console function.
    pub async fn issue(&self, operator: &Operator, scopes: &[&str], expires_in_days: Option<i32>) -> Credential {
        let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        let label = "black-box test".to_string();
        let rows = self
            .as_console(
                operator,
                "SELECT credential_id, key_id, secret, scopes, expires_at \
                   FROM console.api_credential_issue($1, $2, $3)",
                &[&label, &scopes, &expires_in_days],
            )
            .await;
        assert_eq!(rows.len(), 1, "api_credential_issue answers one row");
        let row = &rows[0];
        Credential {
            id: row.get(0),
            key_id: row.get(1),
            secret: row.get(2),
            scopes: row.get(3),
            expires_at: row.get(4),
        }
    }

    /// A credential holding every scope, for a new operator.
    pub async fn operator_with_credential(&self) -> (Operator, Credential) {
        let operator = self.make_operator().await;
        let credential = self.issue(&operator, &ALL_SCOPES, None).await;
        (operator, credential)
    }

    /// Revokes through the console function (the answer row must say `revoked`).
    pub async fn revoke(&self, operator: &Operator, credential: &Credential) {
        let rows =
            self.as_console(operator, "SELECT state FROM console.api_credential_revoke($1)", &[&credential.id]).await;
        assert_eq!(rows.len(), 1, "api_credential_revoke answers the revoked row");
        assert_eq!(rows[0].get::<_, String>(0), "revoked");
    }

    /// The console's credential list for the operator.
    pub async fn list_credentials(&self, operator: &Operator) -> Vec<Listed> {
        self.as_console(
            operator,
            "SELECT credential_id, key_id, last_used_at, revoked_at, state FROM console.api_credential_list()",
            &[],
        )
        .await
        .iter()
        .map(|row| Listed {
            id: row.get(0),
            key_id: row.get(1),
            last_used_at: row.get(2),
            revoked_at: row.get(3),
            state: row.get(4),
        })
        .collect()
    }

    pub async fn listed(&self, operator: &Operator, credential: &Credential) -> Listed {
        self.list_credentials(operator)
            .await
            .into_iter()
            .find(|listed| listed.id == credential.id)
            .expect("the credential is listed")
    }

    /// Suspends the operator account (the platform's call).
    pub async fn suspend(&self, operator: &Operator) {
        self.superuser()
            .await
            .execute("SELECT platform.operator_set_status($1, 'suspended')", &[&operator.id])
            .await
            .expect("platform.operator_set_status");
    }

    /// Moves the credential's expiry one second into the past. Issue only takes a day count
    /// (1..3650), so a test cannot wait for expiry; this is the one direct table write.
    pub async fn expire(&self, credential: &Credential) {
        let updated = self
            .superuser()
            .await
            .execute(
                "UPDATE app.api_credentials SET expires_at = now() - interval '1 second' WHERE id = $1",
                &[&credential.id],
            )
            .await
            .expect("expiring a credential");
        assert_eq!(updated, 1);
    }

    /// Runs `sql` as the console does through PostgREST, as the operator's owner, in one transaction:
    /// `SET LOCAL ROLE authenticated`, the JWT claims and the lower-cased request headers in settings.
    pub async fn as_console(
        &self,
        operator: &Operator,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Vec<tokio_postgres::Row> {
        let mut db = self.superuser().await;
        let transaction = db.transaction().await.unwrap();
        transaction.batch_execute("SET LOCAL ROLE authenticated").await.unwrap();
        let claims = serde_json::json!({ "sub": operator.owner.to_string(), "role": "authenticated" }).to_string();
        let headers = serde_json::json!({ "x-tenant-id": operator.id.to_string() }).to_string();
        transaction
            .execute(
                "SELECT set_config('request.jwt.claims', $1, true), set_config('request.headers', $2, true)",
                &[&claims, &headers],
            )
            .await
            .unwrap();
        let rows = transaction.query(sql, params).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        transaction.commit().await.unwrap();
        rows
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.begin_shutdown();
    }
}

#[derive(Clone, Debug)]
pub struct Operator {
    pub id: Uuid,
    pub owner: Uuid,
}

#[derive(Clone, Debug)]
pub struct Credential {
    pub id: Uuid,
    pub key_id: String,
    pub secret: String,
    pub scopes: Vec<String>,
    pub expires_at: Option<SystemTime>,
}

impl Credential {
    /// The Authorization header value.
    pub fn bearer(&self) -> String {
        format!("Bearer {}.{}", self.key_id, self.secret)
    }
}

/// A row of `console.api_credential_list()`.
#[derive(Clone, Debug)]
pub struct Listed {
    pub id: Uuid,
    pub key_id: String,
    pub last_used_at: Option<SystemTime>,
    pub revoked_at: Option<SystemTime>,
    pub state: String,
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

/// A client for one gateway. No connection is kept between requests, so every request opens a
/// connection of its own (what shutdown tests need, and no test depends on another's connection).
#[derive(Clone)]
pub struct Http {
    pub base_url: String,
    client: Client<HttpConnector, Full<Bytes>>,
}

impl Http {
    pub fn new(addr: SocketAddr) -> Http {
        let client = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(0).build_http();
        Http { base_url: format!("http://{addr}"), client }
    }

    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> TestResponse {
        self.request(Method::GET, path, header_map(headers), Bytes::new()).await
    }

    pub async fn ping(&self, authorization: Option<&str>) -> TestResponse {
        let headers: Vec<(&str, &str)> = authorization.map(|value| ("authorization", value)).into_iter().collect();
        self.get("/v1/ping", &headers).await
    }

    /// One exchange; `path` is the raw path and query (e.g. `/v1/ping?x=1`).
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        headers: HeaderMap,
        body: impl Into<Bytes>,
    ) -> TestResponse {
        self.try_request(method, path, headers, body)
            .await
            .unwrap_or_else(|error| panic!("request {path} failed: {error}"))
    }

    /// As [`Http::request`], but a transport failure (connection refused, reset) is returned.
    pub async fn try_request(
        &self,
        method: Method,
        path: &str,
        headers: HeaderMap,
        body: impl Into<Bytes>,
    ) -> Result<TestResponse, String> {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base_url))
            .body(Full::new(body.into()))
            .map_err(|e| e.to_string())?;
        *request.headers_mut() = headers;
        let exchange = async {
            let response = self.client.request(request).await.map_err(|e| format!("{e:?}"))?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
            Ok(TestResponse { status: parts.status, headers: parts.headers, body })
        };
        tokio::time::timeout(REQUEST_DEADLINE, exchange)
            .await
            .unwrap_or_else(|_| panic!("no answer to {path} within {REQUEST_DEADLINE:?}"))
    }
}

/// `GET <path>` with `authorization` and `X-Forwarded-Client: <forwarded>`, its head sent on a
/// connection of its own, which is left open and unread: the request goes on while the test holds
/// the connection, or drops it (the client vanishes).
pub async fn raw_get(addr: SocketAddr, path: &str, authorization: &str, forwarded: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt as _;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "GET {path} HTTP/1.1\r\nHost: gateway\r\nAuthorization: {authorization}\r\nX-Forwarded-Client: {forwarded}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// Reads one HTTP/1.1 answer with a Content-Length body (none: empty) off a raw connection, within
/// 5 s: its text, or None when the server closed the connection (or reset it) before answering.
pub async fn read_raw_answer(stream: &mut tokio::net::TcpStream) -> Option<String> {
    use tokio::io::AsyncReadExt as _;
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
            .await
            .expect("an answer or a close within 5 s")
            .unwrap_or(0);
        if n == 0 {
            assert!(received.is_empty(), "the connection closed mid-answer: {:?}", String::from_utf8_lossy(&received));
            return None;
        }
        received.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&received).into_owned();
        if let Some(head_end) = text.find("\r\n\r\n") {
            let length: usize = text[..head_end]
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            if received.len() >= head_end + 4 + length {
                return Some(text);
            }
        }
    }
}

/// The `X-Forwarded-Client` value an edge holding `secret` sends for a client at `ip`, signed at
/// `ts` (unix seconds).
pub fn edge_forward(secret: &str, ip: &str, ts: u64) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{ip}|{ts}").as_bytes());
    let sig: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    format!("ip={ip};ts={ts};sig={sig}")
}

/// A header map from pairs; a name given twice is sent twice.
pub fn header_map(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for (name, value) in pairs {
        headers.append(
            HeaderName::from_bytes(name.as_bytes()).expect("header name"),
            HeaderValue::from_str(value).expect("header value"),
        );
    }
    headers
}

#[derive(Debug)]
pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl TestResponse {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("a UTF-8 body")
    }

    /// The one value of header `name` (panics if repeated), or None.
    pub fn header(&self, name: &str) -> Option<&str> {
        let mut values = self.headers.get_all(name).iter();
        let value = values.next()?;
        assert!(values.next().is_none(), "header {name} is repeated");
        Some(value.to_str().expect("a visible-ASCII header value"))
    }

    pub fn request_id(&self) -> &str {
        let id = self.header("x-request-id").expect("every answer carries X-Request-Id");
        assert!(!id.is_empty(), "X-Request-Id is not empty");
        id
    }

    /// The header names, sorted (a repeated name appears once per value).
    pub fn header_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.headers.iter().map(|(name, _)| name.as_str().to_string()).collect();
        names.sort();
        names
    }

    /// Asserts `status` and the exact error body `{"error": code}` or `{"error": code, "field": f}`.
    pub fn assert_error(&self, status: u16, code: &str, field: Option<&str>) {
        assert_eq!(self.status.as_u16(), status, "status; body {:?}", String::from_utf8_lossy(&self.body));
        assert_eq!(self.header("content-type"), Some("application/json"));
        let expected = match field {
            Some(field) => serde_json::json!({ "error": code, "field": field }),
            None => serde_json::json!({ "error": code }),
        };
        assert_eq!(self.json(), expected);
    }
}

/// The uniform 401 body (spec, Authentication: six causes, one answer).
pub const UNAUTHORIZED_BODY: &[u8] = br#"{"error":"unauthorized"}"#;

/// Asserts the uniform 401: status, the byte-identical body, and exactly the uniform header set
/// (`WWW-Authenticate: Bearer`, JSON, its length, Date and a request id).
pub fn assert_uniform_401(response: &TestResponse) {
    assert_eq!(response.status, 401, "body {:?}", String::from_utf8_lossy(&response.body));
    assert_eq!(&response.body[..], UNAUTHORIZED_BODY, "byte-identical body, got {:?}", response.text());
    assert_eq!(
        response.header_names(),
        ["content-length", "content-type", "date", "www-authenticate", "x-request-id"],
        "exactly the uniform header set"
    );
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.header("www-authenticate"), Some("Bearer"));
    assert_eq!(response.header("content-length"), Some(UNAUTHORIZED_BODY.len().to_string().as_str()));
    response.request_id();
}

/// What two uniform answers must share: status, every header but X-Request-Id and Date (name and
/// bytes), and the body bytes.
pub fn comparable(response: &TestResponse) -> (StatusCode, Vec<(String, Vec<u8>)>, Bytes) {
    let mut headers: Vec<(String, Vec<u8>)> = response
        .headers
        .iter()
        .filter(|(name, _)| *name != "x-request-id" && *name != "date")
        .map(|(name, value)| (name.to_string(), value.as_bytes().to_vec()))
        .collect();
    headers.sort();
    (response.status, headers, response.body.clone())
}
