//! The webhook tests' world: a test certificate authority, a local HTTPS receiver on 127.0.0.1 that
//! answers by path, a resolver with a fixed table, and a delivery worker wired to them (the address
//! check stays on: the loopback range is declared public for the test, as a staging deployment
//! would declare its own network with `WEBHOOK_PUBLIC_RANGES`).
//!
//! Receiver paths: `/status/<n>` answers n; `/delay/<ms>` waits that long, then 204; anything else
//! 204. Every request is kept (method, target, headers, body) for the assertions.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;
use uuid::Uuid;

use gateway::config::WebhookSettings;
use gateway::telemetry::LogSink;
use gateway::webhooks::address::AddressPolicy;
use gateway::webhooks::metrics::WebhookMetrics;
use gateway::webhooks::resolve::{Lookup, Resolve};
use gateway::webhooks::worker::{Worker, WorkerWiring};

use super::{Operator, TestApp};

/// The names the test server certificate holds: the receiver's, and the edge's of the deployment
/// test (`deploy.rs`), which serves the same certificate.
pub const RECEIVER_NAMES: [&str; 3] = ["hooks.example.test", "second.example.test", "edge.example.test"];

/// A certificate authority of the test, and the receiver's certificate it signed.
pub struct TestAuthority {
    pub root: CertificateDer<'static>,
    pub server_chain: Vec<CertificateDer<'static>>,
    server_key: Vec<u8>,
    /// The same three in PEM, for a receiver that is not this process (the example receiver).
    root_pem: String,
    server_chain_pem: String,
    server_key_pem: String,
}

impl TestAuthority {
    pub fn new() -> TestAuthority {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca.distinguished_name.push(rcgen::DnType::CommonName, "webhook tests CA");
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let server_key = rcgen::KeyPair::generate().unwrap();
        let server = rcgen::CertificateParams::new(RECEIVER_NAMES.map(String::from).to_vec()).unwrap();
        let server_cert = server.signed_by(&server_key, &ca_cert, &ca_key).unwrap();
        TestAuthority {
            root: ca_cert.der().clone(),
            server_chain: vec![server_cert.der().clone()],
            server_key: server_key.serialize_der(),
            root_pem: ca_cert.pem(),
            server_chain_pem: server_cert.pem(),
            server_key_pem: server_key.serialize_pem(),
        }
    }

    /// A TLS client's settings that trust this authority alone (a client of the receiver, or of an
    /// edge serving the same certificate).
    pub fn client_config(&self) -> Arc<rustls::ClientConfig> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.root.clone()).unwrap();
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        Arc::new(config)
    }

    /// Writes the receiver's certificate chain, its key and the authority's root as PEM files
    /// `server.pem`, `server.key` and `root.pem` in `dir`; answers their paths in that order.
    pub fn write_pem_files(&self, dir: &std::path::Path) -> [std::path::PathBuf; 3] {
        let files = [
            ("server.pem", &self.server_chain_pem),
            ("server.key", &self.server_key_pem),
            ("root.pem", &self.root_pem),
        ];
        files.map(|(name, contents)| {
            let path = dir.join(name);
            std::fs::write(&path, contents).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            path
        })
    }
}

/// One request the receiver got.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub target: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

pub struct Receiver {
    pub addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    task: JoinHandle<()>,
}

impl Receiver {
    pub async fn start(authority: &TestAuthority) -> Receiver {
        Self::start_on(authority, "127.0.0.1:0").await
    }

    /// As [`Receiver::start`], listening on `addr` (a worker outside this process sends to port 443
    /// only).
    pub async fn start_on(authority: &TestAuthority, addr: &str) -> Receiver {
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                authority.server_chain.clone(),
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(authority.server_key.clone())),
            )
            .unwrap();
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind(addr).await.unwrap_or_else(|e| panic!("the receiver on {addr}: {e}"));
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let kept = received.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let (acceptor, kept) = (acceptor.clone(), kept.clone());
                tokio::spawn(async move {
                    // A client that refuses our certificate ends here.
                    let Ok(tls) = acceptor.accept(stream).await else { return };
                    let service = service_fn(move |request| answer(request, kept.clone()));
                    let _ =
                        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tls), service).await;
                });
            }
        });
        Receiver { addr, received, task }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// The requests whose target starts with `path`.
    pub fn received_at(&self, path: &str) -> Vec<Received> {
        self.received().into_iter().filter(|r| r.target.starts_with(path)).collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn answer(
    request: Request<Incoming>,
    kept: Arc<Mutex<Vec<Received>>>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.map(|collected| collected.to_bytes()).unwrap_or_default();
    let target = parts.uri.path_and_query().map(|pq| pq.as_str().to_string()).unwrap_or_default();
    kept.lock().unwrap().push(Received {
        method: parts.method.to_string(),
        target: target.clone(),
        headers: parts.headers,
        body,
    });
    let mut status = 204;
    if let Some(code) = target.strip_prefix("/status/") {
        status = code.parse().unwrap_or(500);
    } else if let Some(ms) = target.strip_prefix("/delay/") {
        tokio::time::sleep(Duration::from_millis(ms.parse().unwrap_or(0))).await;
    }
    let mut response = Response::new(Full::new(Bytes::from_static(b"a body the worker never reads")));
    *response.status_mut() = http::StatusCode::from_u16(status).unwrap();
    if (300..400).contains(&status) {
        response.headers_mut().insert(http::header::LOCATION, "https://hooks.example.test/elsewhere".parse().unwrap());
    }
    Ok(response)
}

/// A resolver that answers from a table: a name not in it has no records.
#[derive(Default, Clone)]
pub struct FixedResolver(HashMap<String, Lookup>);

impl FixedResolver {
    pub fn with(mut self, host: &str, lookup: Lookup) -> Self {
        self.0.insert(host.to_string(), lookup);
        self
    }

    pub fn addresses(self, host: &str, addresses: &[&str]) -> Self {
        let addresses: Vec<IpAddr> = addresses.iter().map(|a| a.parse().unwrap()).collect();
        self.with(host, Lookup::Addresses(addresses))
    }
}

impl Resolve for FixedResolver {
    fn resolve<'a>(
        &'a self,
        host: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Lookup> + Send + 'a>> {
        Box::pin(async move { self.0.get(host).cloned().unwrap_or(Lookup::NoRecords) })
    }
}

/// The worker's settings for tests: the superuser URL, switching to `webhook_worker`; 8 attempts at
/// once, 2 per operator; sweeps every 50 ms; reads the backlog every 100 ms.
pub fn worker_settings(database_url: &str) -> WebhookSettings {
    WebhookSettings {
        database_url: database_url.to_string(),
        database_role: Some("webhook_worker".into()),
        concurrency: 8,
        per_operator: 2,
        sweep_interval: Duration::from_millis(50),
        backlog_interval: Duration::from_millis(100),
        public_ranges: Vec::new(),
        nat64_prefixes: Vec::new(),
        extra_roots: None,
    }
}

/// A running worker, stopped when dropped; its attempt lines are kept.
pub struct RunningWorker {
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    pub logs: Arc<Mutex<Vec<Value>>>,
    /// Its metrics (attempts, sweeps, backlog), as its admin listener would serve them.
    pub metrics: WebhookMetrics,
}

impl RunningWorker {
    /// A worker wired to `resolver`, the test authority, the receiver's port and `policy`.
    pub fn start(
        database_url: &str,
        authority: &TestAuthority,
        port: u16,
        resolver: FixedResolver,
        policy: AddressPolicy,
    ) -> RunningWorker {
        Self::start_resolving_with(database_url, authority, port, Arc::new(resolver), policy)
    }

    /// Stops claiming and waits for the attempts under way.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    pub fn log_lines(&self) -> Vec<Value> {
        self.logs.lock().unwrap().clone()
    }

    /// Waits (at most `limit`) until a whole sweep has run since this moment: two sweeps completed
    /// after it, so the second began after it. Whatever such a sweep claims is in the database
    /// then, so a test that finds nothing claimed has seen the worker decline it.
    pub async fn a_whole_sweep_from_now(&self, limit: Duration) {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
        let started = std::time::Instant::now();
        let mut completed = Vec::new();
        while completed.len() < 2 {
            let last = self.metrics.last_sweep();
            if last > now && completed.last() != Some(&last) {
                completed.push(last);
            }
            assert!(started.elapsed() < limit, "the worker did not sweep twice within {limit:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl Drop for RunningWorker {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// The loopback range, declared public as a staging deployment declares its network.
pub fn loopback_is_public() -> AddressPolicy {
    AddressPolicy::with_public_ranges(&["127.0.0.0/8".parse().unwrap()])
}

/// A hint as the database holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct HintRow {
    pub state: String,
    pub attempts: i32,
    pub last_status: Option<i32>,
    pub last_failure: Option<String>,
}

impl TestApp {
    /// A new operator with a lot `lot-1` and an armed endpoint at `url`; answers the operator and
    /// the endpoint's secret.
    pub async fn webhook_operator(&self, url: &str) -> (Operator, String) {
        let operator = self.make_operator().await;
        let credential = self.issue(&operator, &["write_supply"], None).await;
        let lot =
            json!({"name": "Hooked lot", "timezone": "Europe/London", "handover": "self", "online_bookable": true});
        let response = self.put_lot(&credential, "lot-1", &lot).await;
        assert_eq!(response.status.as_u16(), 201, "{}", response.text());
        let secret = format!("whsec_{}", Uuid::new_v4().simple().to_string().repeat(2));
        self.register_webhook(&operator, url, &secret).await;
        (operator, secret)
    }

    pub async fn register_webhook(&self, operator: &Operator, url: &str, secret: &str) {
        let rows = self
            .as_console(operator, "SELECT id FROM console.webhook_endpoint_register($1, $2)", &[&url, &secret])
            .await;
        assert_eq!(rows.len(), 1);
    }

    pub async fn disarm_webhook(&self, operator: &Operator) {
        let rows = self.as_console(operator, "SELECT id FROM console.webhook_endpoint_disarm()", &[]).await;
        assert_eq!(rows.len(), 1);
    }

    /// A booking on `lot-1`; answers its reference.
    pub async fn record_hooked_booking(&self, operator: &Operator) -> String {
        self.record(operator, &super::bookings::minimal_booking("lot-1", "2026-08-01T10:00:00", "2026-08-03T10:00:00"))
            .await
    }

    /// Every hint of a booking, oldest first.
    pub async fn hints_of(&self, reference: &str) -> Vec<HintRow> {
        self.superuser()
            .await
            .query(
                "SELECT state, attempts, last_status, last_failure FROM app.webhook_hints WHERE booking_reference = $1 ORDER BY id",
                &[&reference],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| HintRow { state: row.get(0), attempts: row.get(1), last_status: row.get(2), last_failure: row.get(3) })
            .collect()
    }

    /// The booking's change stamp as the hint body writes it.
    pub async fn occurred_at_text(&self, reference: &str) -> String {
        self.superuser()
            .await
            .query_one(
                "SELECT app.utc_text(occurred_at) FROM app.webhook_hints WHERE booking_reference = $1 ORDER BY id LIMIT 1",
                &[&reference],
            )
            .await
            .unwrap()
            .get(0)
    }

    /// Makes the operator's waiting hints due now (the retry schedule's clock, for tests).
    pub async fn make_hints_due(&self, operator: &Operator) {
        self.superuser()
            .await
            .execute(
                "UPDATE app.webhook_hints SET next_attempt_at = now() WHERE operator_id = $1 AND state = 'undelivered' AND NOT in_flight",
                &[&operator.id],
            )
            .await
            .unwrap();
    }

    /// Waits (at most `limit`) until the booking's hints satisfy `done`; answers them.
    pub async fn wait_for_hints(
        &self,
        reference: &str,
        limit: Duration,
        done: impl Fn(&[HintRow]) -> bool,
    ) -> Vec<HintRow> {
        let started = std::time::Instant::now();
        loop {
            let hints = self.hints_of(reference).await;
            if done(&hints) {
                return hints;
            }
            assert!(started.elapsed() < limit, "the hints of {reference} never got there: {hints:?}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

impl RunningWorker {
    /// A worker as [`RunningWorker::start`] wires it, resolving with `resolver` (the system's
    /// resolver of a test, say) rather than a fixed table.
    pub fn start_resolving_with(
        database_url: &str,
        authority: &TestAuthority,
        port: u16,
        resolver: Arc<dyn Resolve>,
        policy: AddressPolicy,
    ) -> RunningWorker {
        let (worker, logs) = wired_worker(database_url, authority, port, resolver, policy);
        let metrics = worker.metrics().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(worker.run(async move {
            let _ = stopped.await;
        }));
        RunningWorker { stop: Some(stop), task: Some(task), logs, metrics }
    }
}

/// A worker with the test's wiring (`resolver`, the test authority as an extra root, the receiver's
/// port, `policy`) and [`worker_settings`], not started; and its attempt lines as they come.
pub fn wired_worker(
    database_url: &str,
    authority: &TestAuthority,
    port: u16,
    resolver: Arc<dyn Resolve>,
    policy: AddressPolicy,
) -> (Worker, Arc<Mutex<Vec<Value>>>) {
    let wiring = WorkerWiring { resolver, extra_roots: vec![authority.root.clone()], port, policy };
    let logs = Arc::new(Mutex::new(Vec::new()));
    let worker = Worker::new(worker_settings(database_url), wiring, LogSink::Memory(logs.clone())).unwrap();
    (worker, logs)
}

/// A hosts file of the test's own (in the temporary directory), removed when dropped.
pub struct HostsFile(pub std::path::PathBuf);

impl HostsFile {
    pub fn new(contents: &str) -> HostsFile {
        let path = std::env::temp_dir().join(format!("webhook-test-hosts-{}", Uuid::new_v4().simple()));
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        HostsFile(path)
    }
}

impl Drop for HostsFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The system's resolver as production builds it, but reading `hosts` and asking a name server of
/// the test on 127.0.0.1 that never answers (the socket answered beside it: keep it): a name the
/// file does not list fails its lookup after 300 ms, whatever the machine's own DNS.
pub fn system_resolver_with_hosts(
    hosts: &HostsFile,
) -> (gateway::webhooks::resolve::SystemResolver, std::net::UdpSocket) {
    use hickory_resolver::config::{NameServerConfigGroup, ResolverConfig, ResolverOpts};

    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap();
    let servers = NameServerConfigGroup::from_ips_clear(&[addr.ip()], addr.port(), true);
    let mut options = ResolverOpts::default();
    options.timeout = Duration::from_millis(300);
    options.attempts = 1;
    let resolver = gateway::webhooks::resolve::SystemResolver::with(
        ResolverConfig::from_parts(None, vec![], servers),
        options,
        &hosts.0,
    );
    (resolver, silent)
}
