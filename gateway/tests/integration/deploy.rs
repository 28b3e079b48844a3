//! The deployment as production runs it (deploy/; `make test-deploy`, ignored by plain `cargo
//! test`): the image (`make image`) migrates the database, then two gateway containers (podman, the
//! host's network, a read-only root filesystem, the image's own user) serve behind HAProxy
//! (deploy/haproxy/haproxy.cfg), which terminates TLS and signs each client's address.
//!
//! Under steady load through HAProxy (lot writers, feed readers following their cursors, bookings
//! recorded by the platform for an operator whose endpoint is armed, every client from a loopback
//! address of its own, rate limits on):
//! - two full rolling upgrades (each container stopped with SIGTERM and a new one started in its
//!   place, one after the other) answer every request as they would without the roll: no 5xx from
//!   a gateway or HAProxy, no reset;
//! - a container killed with SIGKILL may fail only the requests in flight on it (counted, printed);
//!   HAProxy routes around it within its checks;
//! - afterwards nothing acknowledged is lost, every reader's cursor reaches every booking, and the
//!   containers' workers delivered every hint;
//! - the rate limits count each client's own address through HAProxy (a client past its
//!   failed-authentication budget is refused by whichever gateway answers, another is not), and an
//!   `X-Forwarded-Client` a client sends is replaced at the edge.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;
use serde_json::json;
use tokio::net::TcpSocket;
use tokio_rustls::TlsConnector;

use crate::common::bookings::minimal_booking;
use crate::common::webhooks::{Receiver, TestAuthority};
use crate::common::{create_database, edge_forward, free_port, read_raw_answer, Credential, Operator, TestApp};

const IMAGE: &str = "localhost/ingest:latest";
/// The public path prefix: HAProxy passes paths unchanged, and the gateways serve under it.
const BASE_PATH: &str = "/parking/v1";
const EDGE_SECRET: &str = "the deployment test's edge secret";
/// The name the edge's certificate holds (the test authority's server certificate).
const EDGE_NAME: &str = "edge.example.test";
/// The receiver of the hints, on port 443 as production requires (the containers' hosts file
/// names it `hooks.example.test`).
const RECEIVER_ADDR: &str = "127.0.3.1:443";
/// How long a gateway told to stop keeps answering while `/readyz` says 503: above HAProxy's time
/// to mark it down (fall 2 × inter 1 s).
const DRAIN_SECONDS: u64 = 5;

/// The phase the load is in: failures count against the roll, are allowed (the kill's window), or
/// count against the recovery.
const ROLLING: u8 = 0;
const KILLED: u8 = 1;
const RECOVERED: u8 = 2;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

/// `deploy/podman.sh <args>` (podman as this machine runs it): its standard output, or a panic
/// with its error.
fn podman(args: &[&str]) -> String {
    let output = std::process::Command::new(repository().join("deploy/podman.sh"))
        .args(args)
        .output()
        .expect("deploy/podman.sh");
    assert!(output.status.success(), "podman {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Whether the admin listener on `port` answers `/readyz` with 200 (not yet listening: no).
async fn ready(port: u16) -> bool {
    use tokio::io::AsyncWriteExt as _;
    let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else { return false };
    let asked = stream.write_all(b"GET /readyz HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n").await;
    asked.is_ok() && read_raw_answer(&mut stream).await.is_some_and(|answer| answer.starts_with("HTTP/1.1 200"))
}

/// Where one gateway container listens: its API and its admin listener.
#[derive(Clone, Copy)]
struct Slot {
    api: u16,
    admin: u16,
}

/// HAProxy and the two gateway containers on the test's own database; everything is removed when
/// dropped.
struct Deployment {
    database: String,
    files: PathBuf,
    slots: [Slot; 2],
    /// The container serving each slot now, if one does.
    running: [Option<String>; 2],
    started: usize,
    prefix: String,
    haproxy: tokio::process::Child,
    edge: SocketAddr,
}

impl Deployment {
    async fn start(database: &str, authority: &TestAuthority) -> Deployment {
        let prefix = format!("ingest-deploy-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        let files = std::env::temp_dir().join(&prefix);
        std::fs::create_dir_all(&files).unwrap();
        let [chain, key, _root] = authority.write_pem_files(&files);
        let edge_pem = files.join("edge.pem");
        let combined = std::fs::read_to_string(&chain).unwrap() + &std::fs::read_to_string(&key).unwrap();
        std::fs::write(&edge_pem, combined).unwrap();
        // Read by the image's user.
        for file in std::fs::read_dir(&files).unwrap() {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(file.unwrap().path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        }

        let slots = [0, 1].map(|_| Slot { api: free_port(), admin: free_port() });
        let edge: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let base64 = {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.encode(EDGE_SECRET)
        };
        let haproxy = tokio::process::Command::new("haproxy")
            .args(["-db", "-f"])
            .arg(repository().join("deploy/haproxy/haproxy.cfg"))
            .env("EDGE_BIND", edge.to_string())
            .env("EDGE_CERTIFICATE", &edge_pem)
            .env("EDGE_SECRET_BASE64", base64)
            .env("GATEWAY_1", format!("127.0.0.1:{}", slots[0].api))
            .env("GATEWAY_2", format!("127.0.0.1:{}", slots[1].api))
            .env("GATEWAY_1_ADMIN_PORT", slots[0].admin.to_string())
            .env("GATEWAY_2_ADMIN_PORT", slots[1].admin.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("haproxy (make test-deploy installs it)");
        let mut deployment = Deployment {
            database: database.to_string(),
            files,
            slots,
            running: [None, None],
            started: 0,
            prefix,
            haproxy,
            edge,
        };
        for slot in 0..2 {
            deployment.run(slot).await;
        }
        deployment.routed().await;
        deployment
    }

    /// A new container in `slot`, once it is ready.
    async fn run(&mut self, slot: usize) {
        self.started += 1;
        let name = format!("{}-{}", self.prefix, self.started);
        let Slot { api, admin } = self.slots[slot];
        let settings = [
            format!("DATABASE_URL={}", self.database),
            format!("LISTEN_ADDR=127.0.0.1:{api}"),
            format!("ADMIN_LISTEN_ADDR=127.0.0.1:{admin}"),
            format!("BASE_PATH={BASE_PATH}"),
            format!("EDGE_SECRET={EDGE_SECRET}"),
            "EDGE_PEERS=127.0.0.0/8".to_string(),
            format!("SHUTDOWN_DRAIN_SECONDS={DRAIN_SECONDS}"),
            "WEBHOOK_PUBLIC_RANGES=127.0.0.0/8".to_string(),
            "WEBHOOK_EXTRA_ROOTS=/etc/ingest/root.pem".to_string(),
            "WEBHOOK_SWEEP_INTERVAL_MS=200".to_string(),
        ];
        let mut args: Vec<String> =
            ["run", "--detach", "--name", &name, "--network", "host", "--read-only"].map(String::from).to_vec();
        args.push(format!("--add-host=hooks.example.test:{}", RECEIVER_ADDR.split(':').next().unwrap()));
        args.push(format!("--volume={}:/etc/ingest/root.pem:ro", self.files.join("root.pem").display()));
        for setting in settings {
            args.extend(["--env".to_string(), setting]);
        }
        args.extend([IMAGE.to_string(), "serve".to_string()]);
        podman(&args.iter().map(String::as_str).collect::<Vec<_>>());
        self.running[slot] = Some(name.clone());
        let deadline = Instant::now() + Duration::from_secs(30);
        while !ready(admin).await {
            assert!(Instant::now() < deadline, "{name} not ready within 30 s: {}", podman(&["logs", &name]));
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Waits until HAProxy's checks have seen every change: `rise` (2) checks a second apart.
    async fn routed(&self) {
        tokio::time::sleep(Duration::from_secs(3)).await;
    }

    /// SIGTERM to the container in `slot`, as an orchestrator stops it; returns once it has ended.
    async fn stop(&mut self, slot: usize) {
        let name = self.running[slot].take().expect("a container in the slot");
        tokio::task::spawn_blocking(move || {
            podman(&["stop", "--time", "30", &name]);
            podman(&["rm", &name]);
        })
        .await
        .unwrap();
    }

    /// SIGKILL to the container in `slot`: the machine under it dies.
    fn kill(&mut self, slot: usize) {
        let name = self.running[slot].take().expect("a container in the slot");
        podman(&["kill", "--signal", "KILL", &name]);
        podman(&["rm", "--force", &name]);
    }

    /// One rolling upgrade: each slot's container stopped, and a new one started in its place.
    async fn roll(&mut self) {
        for slot in 0..2 {
            self.stop(slot).await;
            self.run(slot).await;
            self.routed().await;
        }
    }
}

impl Drop for Deployment {
    fn drop(&mut self) {
        let names: Vec<&str> = self.running.iter().flatten().map(String::as_str).collect();
        if !names.is_empty() {
            let _ = std::process::Command::new(repository().join("deploy/podman.sh"))
                .args(["rm", "--force"])
                .args(&names)
                .output();
        }
        let _ = self.haproxy.start_kill();
        let _ = std::fs::remove_dir_all(&self.files);
    }
}

/// A client of the edge over TLS, from a loopback address of its own, on one kept-alive connection
/// (made again after an error).
struct EdgeClient {
    local: IpAddr,
    edge: SocketAddr,
    tls: TlsConnector,
    sender: Option<SendRequest<Full<Bytes>>>,
}

/// An answer: its status and body, or what went wrong on the way.
type Exchange = Result<(StatusCode, Bytes), String>;

impl EdgeClient {
    fn new(local: &str, edge: SocketAddr, authority: &TestAuthority) -> EdgeClient {
        EdgeClient {
            local: local.parse().unwrap(),
            edge,
            tls: TlsConnector::from(authority.client_config()),
            sender: None,
        }
    }

    async fn connect(&self) -> Result<SendRequest<Full<Bytes>>, String> {
        let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
        socket.bind(SocketAddr::new(self.local, 0)).map_err(|e| e.to_string())?;
        let stream = socket.connect(self.edge).await.map_err(|e| format!("connect: {e}"))?;
        let name = ServerName::try_from(EDGE_NAME).unwrap();
        let tls = self.tls.connect(name, stream).await.map_err(|e| format!("tls: {e}"))?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(tls)).await.map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(connection);
        Ok(sender)
    }

    async fn send(&mut self, method: Method, path: &str, headers: &[(&str, &str)], body: &str) -> Exchange {
        if self.sender.as_ref().is_none_or(|sender| sender.is_closed()) {
            self.sender = Some(self.connect().await?);
        }
        let mut request = Request::builder().method(method).uri(path).header("host", EDGE_NAME);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(Bytes::from(body.to_string()))).unwrap();
        let sender = self.sender.as_mut().unwrap();
        let exchanged = async {
            sender.ready().await.map_err(|e| format!("ready: {e}"))?;
            let response = sender.send_request(request).await.map_err(|e| format!("send: {e}"))?;
            let status = response.status();
            let body = response.into_body().collect().await.map_err(|e| format!("body: {e}"))?.to_bytes();
            Ok((status, body))
        };
        let outcome = tokio::time::timeout(Duration::from_secs(30), exchanged).await.unwrap_or(Err("timeout".into()));
        if outcome.is_err() {
            self.sender = None;
        }
        outcome
    }
}

/// What the load saw, by phase: answers, and every failure (not a 2xx) with what it was.
#[derive(Default)]
struct Tally {
    answered: [u64; 3],
    failures: [Vec<String>; 3],
}

struct Load {
    phase: AtomicU8,
    stop: AtomicBool,
    tally: Mutex<Tally>,
}

impl Load {
    fn count(&self, what: &str, exchange: &Exchange) {
        let phase = usize::from(self.phase.load(Ordering::Relaxed));
        let mut tally = self.tally.lock().unwrap();
        tally.answered[phase] += 1;
        match exchange {
            Ok((status, _)) if status.is_success() => {}
            Ok((status, body)) => {
                tally.failures[phase].push(format!("{what}: {status} {}", String::from_utf8_lossy(body)))
            }
            Err(error) => tally.failures[phase].push(format!("{what}: {error}")),
        }
    }
}

/// A lot writer: PUTs its lot again and again, named `w-<n>`; answers the last n acknowledged and
/// the last n sent.
async fn writer(load: Arc<Load>, mut client: EdgeClient, credential: Credential) -> (u64, u64) {
    let (mut acknowledged, mut sent) = (0, 0);
    let bearer = credential.bearer();
    let headers = [("authorization", bearer.as_str()), ("content-type", "application/json")];
    while !load.stop.load(Ordering::Relaxed) {
        sent += 1;
        let body = json!({"name": format!("w-{sent}"), "timezone": "Europe/Lisbon", "handover": "self", "online_bookable": true});
        let exchange =
            client.send(Method::PUT, &format!("{BASE_PATH}/lots/written"), &headers, &body.to_string()).await;
        load.count("PUT /lots/written", &exchange);
        if exchange.as_ref().is_ok_and(|(status, _)| status.is_success()) {
            acknowledged = sent;
        }
        // Within the writes' burst bucket's refill (one a second, per gateway).
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    (acknowledged, sent)
}

/// A feed reader following its cursor as the spec's polling pattern does; once the load stops, it
/// catches up (pulls until a page brings nothing new and has_more is false). Answers the
/// references it holds.
async fn reader(load: Arc<Load>, mut client: EdgeClient, credential: Credential) -> BTreeMap<String, ()> {
    let bearer = credential.bearer();
    let mut held = BTreeMap::new();
    let mut cursor: Option<String> = None;
    while !load.stop.load(Ordering::Relaxed) {
        let exchange = pull(&mut client, &bearer, &mut cursor, &mut held).await;
        load.count("GET /bookings", &exchange);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    for _ in 0..200 {
        let before = held.len();
        let (status, body) = pull(&mut client, &bearer, &mut cursor, &mut held).await.expect("a pull after the load");
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        let has_more = serde_json::from_slice::<serde_json::Value>(&body).unwrap()["has_more"] == true;
        if !has_more && held.len() == before {
            return held;
        }
    }
    panic!("the reader did not catch up within 200 pulls");
}

/// One pull: the page stored, then its `next` saved.
async fn pull(
    client: &mut EdgeClient,
    bearer: &str,
    cursor: &mut Option<String>,
    held: &mut BTreeMap<String, ()>,
) -> Exchange {
    let path = match cursor {
        Some(since) => format!("{BASE_PATH}/bookings?limit=50&since={since}"),
        None => format!("{BASE_PATH}/bookings?limit=50"),
    };
    let exchange = client.send(Method::GET, &path, &[("authorization", bearer)], "").await;
    if let Ok((StatusCode::OK, body)) = &exchange {
        let page: serde_json::Value = serde_json::from_slice(body).expect("a page");
        for booking in page["bookings"].as_array().unwrap() {
            held.insert(booking["reference"].as_str().unwrap().to_string(), ());
        }
        *cursor = Some(page["next"].as_str().unwrap().to_string());
    }
    exchange
}

/// The platform records bookings for each operator, one at a time, until the load stops; answers
/// every reference recorded per operator.
async fn platform(load: Arc<Load>, fixtures: Arc<TestApp>, operators: Vec<Operator>) -> Vec<Vec<String>> {
    let mut recorded = vec![Vec::new(); operators.len()];
    let mut day = 0u32;
    while !load.stop.load(Ordering::Relaxed) {
        day = day % 27 + 1;
        for (index, operator) in operators.iter().enumerate() {
            let booking = minimal_booking(
                "lot-1",
                &format!("2026-09-{day:02}T10:00:00"),
                &format!("2026-09-{:02}T10:00:00", day + 1),
            );
            recorded[index].push(fixtures.record(operator, &booking).await);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    recorded
}

/// `config`, `openapi` and `webhooks` from the same image, as `migrate` and `serve` are: the
/// settings in force (no secret), the document, and a worker that starts and stops on SIGTERM.
fn the_images_other_commands_run(database: &str) {
    let url = format!("DATABASE_URL={database}");
    let config = podman(&["run", "--rm", "--network", "host", "--read-only", "--env", &url, IMAGE, "config"]);
    assert!(
        config.contains("DATABASE_URL=host=127.0.0.1 ") && config.contains(" target_session_attrs=any "),
        "{config}"
    );
    let document: serde_json::Value =
        serde_json::from_str(&podman(&["run", "--rm", "--read-only", IMAGE, "openapi"])).expect("the document");
    assert_eq!(document["openapi"], "3.1.0");
    let name = format!("ingest-deploy-webhooks-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    podman(&["run", "--detach", "--name", &name, "--network", "host", "--read-only", "--env", &url, IMAGE, "webhooks"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !podman(&["logs", &name]).contains("delivering webhook hints") {
        assert!(Instant::now() < deadline, "the worker did not start: {}", podman(&["logs", &name]));
        std::thread::sleep(Duration::from_millis(200));
    }
    podman(&["stop", "--time", "20", &name]);
    let exit = podman(&["inspect", "--format", "{{.State.ExitCode}}", &name]);
    podman(&["rm", &name]);
    assert_eq!(exit.trim(), "0", "the worker stopped cleanly on SIGTERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs the image, podman and HAProxy: make test-deploy"]
async fn behind_haproxy_two_rolling_upgrades_and_a_killed_container_lose_nothing() {
    // The database, migrated by the image, with the feed's lag at zero so the readers' cursors move.
    let database = create_database(false).await;
    podman(&[
        "run",
        "--rm",
        "--network",
        "host",
        "--read-only",
        "--env",
        &format!("DATABASE_URL={database}"),
        IMAGE,
        "migrate",
    ]);
    crate::common::connect(&database)
        .await
        .execute("UPDATE app.settings SET value = '0 seconds' WHERE name = 'bookings_watermark_lag'", &[])
        .await
        .unwrap();
    the_images_other_commands_run(&database);
    // Fixtures through the documented functions (a gateway of the test's, never loaded).
    let fixtures = Arc::new(TestApp::spawn_on(&database, |_| {}).await);
    let authority = TestAuthority::new();
    let receiver = Receiver::start_on(&authority, RECEIVER_ADDR).await;
    let (hooked, _secret) = fixtures.webhook_operator("https://hooks.example.test/hooks").await;
    let mut deployment = Deployment::start(&database, &authority).await;
    let edge = deployment.edge;

    let load = Arc::new(Load { phase: AtomicU8::new(ROLLING), stop: AtomicBool::new(false), tally: Mutex::default() });
    let mut writers = Vec::new();
    for n in 1..=3 {
        let (_, credential) = fixtures.operator_with_credential().await;
        let client = EdgeClient::new(&format!("127.0.1.{n}"), edge, &authority);
        writers.push(tokio::spawn(writer(load.clone(), client, credential)));
    }
    let mut readers = Vec::new();
    let mut read_operators = Vec::new();
    for n in 1..=2 {
        let (operator, credential) = fixtures.operator_with_credential().await;
        fixtures.put_lot_expecting(&credential, "lot-1", &crate::common::lots::minimal_lot("Read lot"), 201).await;
        let client = EdgeClient::new(&format!("127.0.1.{}", 10 + n), edge, &authority);
        readers.push(tokio::spawn(reader(load.clone(), client, credential)));
        read_operators.push(operator);
    }
    let platform_operators = [read_operators.clone(), vec![hooked.clone()]].concat();
    let recording = tokio::spawn(platform(load.clone(), fixtures.clone(), platform_operators));

    // Two rolling upgrades under the load.
    tokio::time::sleep(Duration::from_secs(2)).await;
    for _ in 0..2 {
        deployment.roll().await;
    }
    // A container killed: requests in flight on it may fail while HAProxy notices (fall 2 × 1 s).
    load.phase.store(KILLED, Ordering::Relaxed);
    deployment.kill(0);
    tokio::time::sleep(Duration::from_secs(4)).await;
    load.phase.store(RECOVERED, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_secs(3)).await;
    deployment.run(0).await;
    deployment.routed().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    load.stop.store(true, Ordering::Relaxed);

    let mut written = Vec::new();
    for writer in writers {
        written.push(writer.await.unwrap());
    }
    let recorded = recording.await.unwrap();
    let mut held = Vec::new();
    for reader in readers {
        held.push(reader.await.unwrap());
    }
    let tally = std::mem::take(&mut *load.tally.lock().unwrap());
    println!(
        "deploy: {} answers while rolling, {} in the kill's window ({} failed: {:?}), {} after",
        tally.answered[0],
        tally.answered[1],
        tally.failures[1].len(),
        tally.failures[1],
        tally.answered[2]
    );
    assert!(tally.answered[0] > 100, "a steady load while rolling: {}", tally.answered[0]);
    assert_eq!(tally.failures[ROLLING as usize], Vec::<String>::new(), "every request answered through both rolls");
    assert_eq!(tally.failures[RECOVERED as usize], Vec::<String>::new(), "every request answered after the kill");

    // Nothing acknowledged lost: each writer's lot holds its last acknowledged write or a later one.
    let db = fixtures.superuser().await;
    let names: Vec<String> = db
        .query("SELECT name FROM app.lots WHERE external_id = 'written' ORDER BY name", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    for (acknowledged, sent) in &written {
        let holds = |name: &String| {
            name.strip_prefix("w-")
                .and_then(|n| n.parse::<u64>().ok())
                .is_some_and(|n| n >= *acknowledged && n <= *sent)
        };
        assert!(names.iter().any(holds), "a lot holds a write from {acknowledged} to {sent}: {names:?}");
    }
    // Every cursor reached every booking of its operator.
    for (held, references) in held.iter().zip(&recorded) {
        let missing: Vec<&String> = references.iter().filter(|r| !held.contains_key(*r)).collect();
        assert!(missing.is_empty(), "a reader misses {missing:?}");
    }
    // Every hint delivered by the containers' workers (one in flight on the killed container comes
    // after its lease).
    let hooked_references = recorded.last().unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    let arrivals = loop {
        let mut arrivals: BTreeMap<String, usize> = BTreeMap::new();
        for received in receiver.received() {
            *arrivals.entry(received.json()["booking_reference"].as_str().unwrap().to_string()).or_default() += 1;
        }
        if hooked_references.iter().all(|r| arrivals.contains_key(r)) {
            break arrivals;
        }
        assert!(Instant::now() < deadline, "hints undelivered after 90 s");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let twice: Vec<(&String, &usize)> = arrivals.iter().filter(|(_, n)| **n > 1).collect();
    println!("deploy: {} hints delivered, {} more than once: {twice:?}", arrivals.len(), twice.len());
    assert!(twice.iter().all(|(_, n)| **n == 2), "a hint is sent again only after an attempt the kill cut short");

    // The rate limits count each client's own address: 50 wrong secrets from one address, with or
    // without a header of its own naming another, fail authentication at most 20 times per gateway.
    let (_, victim) = fixtures.operator_with_credential().await;
    let wrong = format!("Bearer {}.pk_sec_{}", victim.key_id, "0".repeat(64));
    for (address, forge) in [("127.0.2.1", false), ("127.0.2.2", true)] {
        let mut client = EdgeClient::new(address, edge, &authority);
        let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
        for n in 0..50 {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
            let forged = edge_forward(EDGE_SECRET, &format!("203.0.113.{n}"), now);
            let mut headers = vec![("authorization", wrong.as_str())];
            if forge {
                headers.push(("x-forwarded-client", forged.as_str()));
            }
            let (status, _) =
                client.send(Method::GET, &format!("{BASE_PATH}/ping"), &headers, "").await.expect("an answer");
            *statuses.entry(status.as_u16()).or_default() += 1;
        }
        let failed = statuses.get(&401).copied().unwrap_or(0);
        assert!((20..=42).contains(&failed), "{address} (forging: {forge}): {statuses:?}");
        assert!(statuses.get(&429).copied().unwrap_or(0) >= 8, "{address} (forging: {forge}): {statuses:?}");
    }
    let mut other = EdgeClient::new("127.0.2.3", edge, &authority);
    let (status, _) = other
        .send(Method::GET, &format!("{BASE_PATH}/ping"), &[("authorization", &victim.bearer())], "")
        .await
        .unwrap();
    assert_eq!(status, StatusCode::OK, "another client's address has its own budget");
}
