//! The operators' webhook receiver example (`gateway/examples/webhook_receiver.py`) against a real
//! delivery: the worker sends it a booking's hint over TLS, the example verifies the signature with
//! Stripe's verifier, pulls GET /bookings from the gateway and stores the booking; hints with a
//! wrong signature or a stale `t` are answered 401 and pull nothing.
//!
//! It runs the example's Python (`EXAMPLE_PYTHON`: the interpreter of a venv with
//! `gateway/examples/requirements.txt`), so it is ignored by plain `cargo test`; `make test-examples`
//! builds the venv and runs it. A database of its own, as every webhook test (a worker claims every
//! operator's hints).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use hmac::{Hmac, Mac};
use http::{Request, StatusCode};
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;
use serde_json::Value;
use sha2::Sha256;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_rustls::TlsConnector;
use uuid::Uuid;

use crate::common::webhooks::{loopback_is_public, FixedResolver, RunningWorker, TestAuthority};
use crate::common::{create_database, Credential, TestApp};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/webhook_receiver.py");

/// Every wait of this test ends by then (Python's start, a delivery, a pull).
const SETTLE: Duration = Duration::from_secs(15);

/// Long enough for the example to pull after a hint it accepted (it does so within milliseconds):
/// the window in which a refused hint must not cause one.
const QUIET: Duration = Duration::from_secs(1);

/// `EXAMPLE_PYTHON`; a relative path is taken from the workspace root, where cargo and make are run
/// (cargo runs the test itself in `gateway/`).
fn example_python() -> PathBuf {
    let python = std::env::var("EXAMPLE_PYTHON").ok().filter(|python| !python.is_empty()).unwrap_or_else(|| {
        panic!(
            "EXAMPLE_PYTHON is not set: run `make test-examples`, or point it at the python of a venv \
             with gateway/examples/requirements.txt installed (python3 -m venv target/examples-venv && \
             target/examples-venv/bin/pip install -r gateway/examples/requirements.txt)"
        )
    });
    let python = PathBuf::from(python);
    if python.is_relative() && python.components().count() > 1 {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root").join(python)
    } else {
        python // absolute, or a bare name looked up in PATH
    }
}

/// The example, running as a process of its own; killed (and its folder removed) when dropped.
struct ExampleReceiver {
    child: Child,
    dir: PathBuf,
    python: PathBuf,
    stdout: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<Vec<String>>>,
    port: u16,
}

impl ExampleReceiver {
    async fn start(python: PathBuf, authority: &TestAuthority, base_url: &str, credential: &str, secret: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("gw-webhook-example-{}", Uuid::new_v4().simple()));
        std::fs::create_dir(&dir).expect("the example's folder");
        let [cert, key, root] = authority.write_pem_files(&dir);
        let mut child = Command::new(&python)
            .arg(EXAMPLE)
            .env("INGEST_BASE_URL", base_url)
            .env("INGEST_CREDENTIAL", credential)
            .env("WEBHOOK_SECRET", secret)
            .env("LISTEN_ADDR", "127.0.0.1:0")
            .env("TLS_CERT", cert)
            .env("TLS_KEY", key)
            .env("INGEST_CA_FILE", root)
            .env("STATE_DB", dir.join("bookings.sqlite3"))
            // Hints only (and the pull at start): a timer's pull would blur what a hint caused.
            .env("POLL_SECONDS", "0")
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {} {EXAMPLE}: {e}", python.display()));
        let stdout = collect_lines(child.stdout.take().unwrap());
        let stderr = collect_lines(child.stderr.take().unwrap());
        let mut receiver = ExampleReceiver { child, dir, python, stdout, stderr, port: 0 };
        let lines = receiver.wait_for("listening on https://127.0.0.1:<port>", |lines| !lines.is_empty()).await;
        receiver.port = lines[0]
            .strip_prefix("listening on https://127.0.0.1:")
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("the first line is not `listening on https://127.0.0.1:<port>`: {lines:?}"));
        receiver
    }

    fn lines(&self) -> Vec<String> {
        self.stdout.lock().unwrap().clone()
    }

    /// The references of the `stored booking <reference>` lines, in order.
    fn stored(&self) -> Vec<String> {
        self.lines().iter().filter_map(|line| line.strip_prefix("stored booking ").map(String::from)).collect()
    }

    /// How many pages it has pulled (`pulled <n> booking(s)` lines).
    fn pulls(&self) -> usize {
        self.lines().iter().filter(|line| line.starts_with("pulled ")).count()
    }

    /// Waits (at most [`SETTLE`]) until its stdout lines satisfy `done`; fails at once if it exited.
    async fn wait_for(&mut self, what: &str, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        let started = Instant::now();
        loop {
            let lines = self.lines();
            if done(&lines) {
                return lines;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the example exited ({status}) before {what}:\n{}", self.output());
            }
            assert!(
                started.elapsed() < SETTLE,
                "the example never got to {what} within {SETTLE:?}:\n{}",
                self.output()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Both its streams, for failure messages.
    fn output(&self) -> String {
        format!("stdout:\n{}\nstderr:\n{}", self.lines().join("\n"), self.stderr.lock().unwrap().join("\n"))
    }

    /// Its storage read by SQLite itself: the bookings keyed on reference, and whether a cursor is saved.
    async fn storage(&self) -> (serde_json::Map<String, Value>, bool) {
        let read = "import json, sqlite3, sys\n\
                    db = sqlite3.connect(sys.argv[1])\n\
                    bookings = {r: json.loads(b) for r, b in db.execute('SELECT reference, booking FROM bookings')}\n\
                    cursor = db.execute('SELECT next FROM cursor').fetchone()\n\
                    print(json.dumps({'bookings': bookings, 'cursor_saved': bool(cursor and cursor[0])}))";
        let output = tokio::time::timeout(
            SETTLE,
            Command::new(&self.python).arg("-c").arg(read).arg(self.dir.join("bookings.sqlite3")).output(),
        )
        .await
        .expect("reading the example's storage took too long")
        .expect("running python to read the example's storage");
        assert!(output.status.success(), "reading the storage: {}", String::from_utf8_lossy(&output.stderr));
        let mut stored: Value = serde_json::from_slice(&output.stdout).expect("the storage as JSON");
        let bookings = stored["bookings"].as_object_mut().map(std::mem::take).unwrap_or_default();
        (bookings, stored["cursor_saved"] == Value::Bool(true))
    }
}

impl Drop for ExampleReceiver {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Lines of a child's stream, gathered by a task as they come.
fn collect_lines(stream: impl AsyncRead + Unpin + Send + 'static) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let kept = lines.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stream).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            kept.lock().unwrap().push(line);
        }
    });
    lines
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// A `Service-Signature` value for `body` signed at `t` with `secret`, as the worker writes it.
fn signature(secret: &str, t: u64, body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{body}").as_bytes());
    let hex: String = mac.finalize().into_bytes().iter().map(|byte| format!("{byte:02x}")).collect();
    format!("t={t},v1={hex}")
}

/// POSTs a hint to the example as the worker would (TLS to hooks.example.test, trusting the test
/// authority); answers the status.
async fn send_hint(authority: &TestAuthority, port: u16, body: &str, signature: &str) -> StatusCode {
    let config = authority.client_config();
    let request = Request::post("/booking-changed")
        .header("host", "hooks.example.test")
        .header("content-type", "application/json")
        .header("user-agent", "Service-Webhooks/1")
        .header("service-signature", signature)
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let exchange = async {
        let tcp = TcpStream::connect(("127.0.0.1", port)).await.expect("connecting to the example");
        let name = ServerName::try_from("hooks.example.test").unwrap();
        let tls = TlsConnector::from(config).connect(name, tcp).await.expect("the example's TLS");
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls)).await.unwrap();
        tokio::spawn(connection);
        sender.send_request(request).await.expect("an answer from the example").status()
    };
    tokio::time::timeout(SETTLE, exchange).await.expect("the example answered a hint within the deadline")
}

/// How many GET /bookings the gateway has answered (its request log).
fn feed_requests(app: &TestApp) -> usize {
    app.logs().iter().filter(|line| line["route"] == "/bookings").count()
}

#[tokio::test]
#[ignore = "needs the example's Python tools: make test-examples"]
async fn the_example_receiver_pulls_a_delivered_hints_booking_and_answers_401_to_a_wrong_or_stale_signature() {
    let python = example_python();
    let database = create_database(true).await;
    let app = TestApp::spawn_on(&database, |_| {}).await;
    let authority = TestAuthority::new();
    let (operator, secret) = app.webhook_operator("https://hooks.example.test/booking-changed").await;
    let reader = app.issue(&operator, &["read_bookings"], None).await;
    let Credential { key_id, secret: key_secret, .. } = &reader;
    let base_url = format!("{}/v1", app.base_url());
    let mut example =
        ExampleReceiver::start(python, &authority, &base_url, &format!("{key_id}.{key_secret}"), &secret).await;
    // Its pull at start, of nothing yet: what follows is the hint's doing.
    example.wait_for("its pull at start", |lines| lines.iter().any(|line| line == "pulled 0 booking(s)")).await;

    // A real delivery: the worker sends the booking's hint to the example's port.
    let worker = RunningWorker::start(
        &app.database_url,
        &authority,
        example.port,
        FixedResolver::default().addresses("hooks.example.test", &["127.0.0.1"]),
        loopback_is_public(),
    );
    let reference = app.record_hooked_booking(&operator).await;
    example
        .wait_for("storing the booking", |lines| {
            lines.iter().any(|line| *line == format!("stored booking {reference}"))
        })
        .await;
    let hints =
        app.wait_for_hints(&reference, SETTLE, |hints| hints.iter().all(|hint| hint.state == "delivered")).await;
    assert_eq!(hints.len(), 1, "{hints:?}");
    let deliveries = app
        .as_console(
            &operator,
            "SELECT booking_reference, state, attempts, last_status FROM console.webhook_deliveries()",
            &[],
        )
        .await;
    assert_eq!(deliveries.len(), 1, "one hint");
    let delivery: (String, String, i32, Option<i32>) =
        (deliveries[0].get(0), deliveries[0].get(1), deliveries[0].get(2), deliveries[0].get(3));
    assert_eq!(
        delivery,
        (reference.clone(), "delivered".into(), 1, Some(204)),
        "the example verified it and answered 204"
    );
    worker.stop().await;

    // What it stored is the feed's booking, keyed on its reference, with the cursor saved after it.
    let (stored, cursor_saved) = example.storage().await;
    let feed = app.bookings_page(&reader, "limit=10").await;
    assert_eq!(feed.bookings.len(), 1);
    assert_eq!(stored.keys().collect::<Vec<_>>(), [&reference]);
    assert_eq!(stored[&reference], feed.bookings[0], "the booking as the feed gives it");
    assert!(cursor_saved, "next was saved");
    assert_eq!(example.stored(), std::slice::from_ref(&reference), "one line per stored booking");

    // Hints it must refuse. The counts settle first: the gateway logs a request after answering it.
    let started = Instant::now();
    while feed_requests(&app) != example.pulls() + 1 {
        assert!(
            started.elapsed() < SETTLE,
            "the gateway logged {} pulls, the example {}",
            feed_requests(&app),
            example.pulls()
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let (lines_before, requests_before) = (example.lines(), feed_requests(&app));
    let body = format!(
        r#"{{"event":"booking.changed","booking_reference":"{reference}","occurred_at":"2026-08-01T09:00:00.000000Z"}}"#
    );
    let wrong_secret = format!("whsec_{}", "0".repeat(64));
    let refused = [
        ("a wrong signature", signature(&wrong_secret, unix_now(), &body)),
        ("a stale t, rightly signed", signature(&secret, unix_now() - 400, &body)),
        ("no v1 at all", format!("t={}", unix_now())),
    ];
    for (what, header) in &refused {
        assert_eq!(send_hint(&authority, example.port, &body, header).await, StatusCode::UNAUTHORIZED, "{what}");
    }
    tokio::time::sleep(QUIET).await;
    assert_eq!(example.lines(), lines_before, "nothing was pulled or stored:\n{}", example.output());
    assert_eq!(feed_requests(&app), requests_before, "the gateway saw no GET /bookings");

    // The same hint rightly signed and fresh is taken: the quiet above was not for want of time.
    let accepted = send_hint(&authority, example.port, &body, &signature(&secret, unix_now(), &body)).await;
    assert_eq!(accepted, StatusCode::NO_CONTENT);
    example.wait_for("a pull after the good hint", |lines| lines.len() > lines_before.len()).await;
}
