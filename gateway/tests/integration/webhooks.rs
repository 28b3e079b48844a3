//! Webhook hints end to end: a booking change, the worker, a local HTTPS receiver. Each test has a
//! database of its own (a worker claims every operator's hints, so tests must not share one).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::common::webhooks::{loopback_is_public, FixedResolver, HintRow, Receiver, RunningWorker, TestAuthority};
use crate::common::{create_database, TestApp};
use gateway::webhooks::address::AddressPolicy;
use gateway::webhooks::resolve::Lookup;

const SETTLE: Duration = Duration::from_secs(10);

struct World {
    app: TestApp,
    authority: TestAuthority,
    receiver: Receiver,
}

impl World {
    async fn new() -> World {
        let database = create_database(true).await;
        let app = TestApp::spawn_on(&database, |_| {}).await;
        let authority = TestAuthority::new();
        let receiver = Receiver::start(&authority).await;
        World { app, authority, receiver }
    }

    /// A worker whose names resolve by `resolver`, loopback declared public.
    fn worker(&self, resolver: FixedResolver) -> RunningWorker {
        self.worker_with_policy(resolver, loopback_is_public())
    }

    fn worker_with_policy(&self, resolver: FixedResolver, policy: AddressPolicy) -> RunningWorker {
        RunningWorker::start(&self.app.database_url, &self.authority, self.receiver.addr.port(), resolver, policy)
    }
}

fn to_receiver() -> FixedResolver {
    FixedResolver::default().addresses("hooks.example.test", &["127.0.0.1"])
}

fn hint(state: &str, attempts: i32, last_status: Option<i32>, last_failure: Option<&str>) -> HintRow {
    HintRow { state: state.into(), attempts, last_status, last_failure: last_failure.map(String::from) }
}

fn verify_signature(header: &str, secret: &str, body: &[u8]) -> u64 {
    let (t, v1) = header.split_once(",v1=").expect("t=…,v1=…");
    let t = t.strip_prefix("t=").expect("t= first");
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    let bytes: Vec<u8> = (0..v1.len()).step_by(2).map(|i| u8::from_str_radix(&v1[i..i + 2], 16).unwrap()).collect();
    mac.verify_slice(&bytes).expect("the signature verifies with the endpoint's secret");
    assert_eq!(v1, v1.to_lowercase(), "lowercase hex");
    t.parse().expect("whole seconds")
}

#[tokio::test]
async fn a_booking_change_is_delivered_signed_with_the_exact_body_and_headers() {
    let world = World::new().await;
    let (operator, secret) = world.app.webhook_operator("https://hooks.example.test/in?op=7").await;
    let worker = world.worker(to_receiver());
    let reference = world.app.record_hooked_booking(&operator).await;

    let hints = world.app.wait_for_hints(&reference, SETTLE, |h| h.iter().all(|h| h.state == "delivered")).await;
    assert_eq!(hints, [hint("delivered", 1, Some(204), None)]);
    let received = world.receiver.received();
    assert_eq!(received.len(), 1, "one POST");
    let post = &received[0];
    assert_eq!(post.method, "POST");
    assert_eq!(post.target, "/in?op=7");
    assert_eq!(post.headers["host"], "hooks.example.test");
    assert_eq!(post.headers["content-type"], "application/json");
    assert_eq!(post.headers["user-agent"], "Service-Webhooks/1");
    let expected = format!(
        r#"{{"event":"booking.changed","booking_reference":"{reference}","occurred_at":"{}"}}"#,
        world.app.occurred_at_text(&reference).await
    );
    assert_eq!(std::str::from_utf8(&post.body).unwrap(), expected, "exactly the three members");
    let t = verify_signature(post.headers["service-signature"].to_str().unwrap(), &secret, &post.body);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    assert!(now.abs_diff(t) <= 5, "t is the time of sending");

    // The line is written after the outcome is recorded: stop the worker (it waits for its attempts).
    let logs = worker.logs.clone();
    worker.stop().await;
    let lines = logs.lock().unwrap().clone();
    assert_eq!(lines.len(), 1, "one line per attempt: {lines:?}");
    assert_eq!(lines[0]["host"], "hooks.example.test");
    assert_eq!(lines[0]["booking_reference"], reference.as_str());
    assert_eq!(lines[0]["state"], "delivered");
    let text = lines[0].to_string();
    assert!(!text.contains(&secret) && !text.contains("v1=") && !text.contains("booking.changed"), "{text}");
}

#[tokio::test]
async fn every_failure_is_recorded_with_its_reason_and_scheduled_again() {
    let world = World::new().await;
    let cases = [
        ("https://hooks.example.test/status/500", hint("undelivered", 1, Some(500), Some("http_status"))),
        ("https://hooks.example.test/status/302", hint("undelivered", 1, Some(302), Some("redirect"))),
        ("https://hooks.example.test/status/404", hint("undelivered", 1, Some(404), Some("http_status"))),
        ("https://hooks.example.test/delay/6000", hint("undelivered", 1, None, Some("timeout"))),
        // A status no HTTP answer may have is recorded as a failed connection (never left unrecorded).
        ("https://hooks.example.test/status/600", hint("undelivered", 1, None, Some("connection_failed"))),
        ("https://dns-fails.example.test/in", hint("undelivered", 1, None, Some("dns_failed"))),
        ("https://no-records.example.test/in", hint("undelivered", 1, None, Some("unresolvable"))),
        ("https://private.example.test/in", hint("undelivered", 1, None, Some("private_address"))),
        ("https://refused.example.test/in", hint("undelivered", 1, None, Some("connection_refused"))),
        ("https://wrong-name.example.test/in", hint("undelivered", 1, None, Some("tls_failed"))),
    ];
    let resolver = to_receiver()
        .with("dns-fails.example.test", Lookup::Failed)
        .with("no-records.example.test", Lookup::NoRecords)
        // A public-looking answer beside a private one: nothing is sent at all.
        .addresses("private.example.test", &["127.0.0.1", "10.1.2.3"])
        // Loopback, but nothing listens on 127.0.0.2.
        .addresses("refused.example.test", &["127.0.0.2"])
        // The receiver, whose certificate does not name this host.
        .addresses("wrong-name.example.test", &["127.0.0.1"]);
    let mut bookings = Vec::new();
    for (url, _) in &cases {
        let (operator, _) = world.app.webhook_operator(url).await;
        bookings.push(world.app.record_hooked_booking(&operator).await);
    }
    let worker = world.worker(resolver);
    for ((url, expected), reference) in cases.iter().zip(&bookings) {
        let hints = world.app.wait_for_hints(reference, SETTLE, |h| h.iter().all(|h| h.attempts == 1)).await;
        assert_eq!(&hints, std::slice::from_ref(expected), "{url}");
    }
    assert!(world.receiver.received_at("/in").is_empty(), "nothing reached the receiver for the refused hosts");
    let timed_out = world.receiver.received_at("/delay/6000");
    assert_eq!(timed_out.len(), 1, "the slow endpoint got the request, then the worker gave up");
    worker.stop().await;
}

#[tokio::test]
async fn loopback_is_private_under_the_production_rules() {
    let world = World::new().await;
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/in").await;
    let reference = world.app.record_hooked_booking(&operator).await;
    let worker = world.worker_with_policy(to_receiver(), AddressPolicy::production());
    let hints = world.app.wait_for_hints(&reference, SETTLE, |h| h.iter().all(|h| h.attempts == 1)).await;
    assert_eq!(hints, [hint("undelivered", 1, None, Some("private_address"))]);
    assert!(world.receiver.received().is_empty(), "nothing was sent");
    worker.stop().await;
}

#[tokio::test]
async fn five_failures_make_a_hint_dead_and_it_is_never_sent_again() {
    let world = World::new().await;
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/status/503").await;
    let reference = world.app.record_hooked_booking(&operator).await;
    let worker = world.worker(to_receiver());
    for attempt in 1..=5 {
        let hints = world.app.wait_for_hints(&reference, SETTLE, |h| h[0].attempts == attempt).await;
        let state = if attempt == 5 { "dead" } else { "undelivered" };
        assert_eq!(hints, [hint(state, attempt, Some(503), Some("http_status"))]);
        // The schedule waits minutes; the test moves the next attempt to now.
        world.app.make_hints_due(&operator).await;
    }
    // A sweep after the hint died (made due again) claims nothing: it stays dead after five, as the
    // same sweeps above claimed each attempt while it was due.
    worker.a_whole_sweep_from_now(SETTLE).await;
    assert_eq!(world.app.hints_of(&reference).await, [hint("dead", 5, Some(503), Some("http_status"))]);
    assert_eq!(world.receiver.received().len(), 5, "five attempts, then none");
    worker.stop().await;
}

#[tokio::test]
async fn changes_while_a_hint_waits_merge_and_a_change_in_flight_leaves_a_successor() {
    let world = World::new().await;
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/delay/1500").await;
    let reference = world.app.record_hooked_booking(&operator).await;
    for n in 0..20 {
        world.app.update_booking(&operator, &reference, &serde_json::json!({"total": format!("{n}.50")})).await;
    }
    assert_eq!(world.app.hints_of(&reference).await.len(), 1, "a burst of changes is one waiting hint");

    let worker = world.worker(to_receiver());
    // The attempt is under way (the receiver holds it 1.5 s): change the booking again.
    let started = std::time::Instant::now();
    while world.receiver.received().is_empty() {
        assert!(started.elapsed() < SETTLE, "the first attempt never arrived");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    world.app.update_booking(&operator, &reference, &serde_json::json!({"status": "cancelled"})).await;
    let hints = world
        .app
        .wait_for_hints(&reference, SETTLE, |h| h.len() == 2 && h.iter().all(|h| h.state == "delivered"))
        .await;
    assert_eq!(hints, [hint("delivered", 1, Some(204), None), hint("delivered", 1, Some(204), None)]);
    assert_eq!(world.receiver.received().len(), 2, "the burst was one POST; the change in flight another");
    worker.stop().await;
}

#[tokio::test]
async fn a_disarmed_endpoints_hints_die_and_are_never_sent() {
    let world = World::new().await;
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/in").await;
    let reference = world.app.record_hooked_booking(&operator).await;
    world.app.disarm_webhook(&operator).await;
    let worker = world.worker(to_receiver());
    let hints = world.app.wait_for_hints(&reference, SETTLE, |h| h.iter().all(|h| h.state == "dead")).await;
    assert_eq!(hints, [hint("dead", 0, None, Some("endpoint_disarmed"))]);
    // Whole sweeps since claim nothing (the other tests' sweeps claim a due hint at once).
    worker.a_whole_sweep_from_now(SETTLE).await;
    assert_eq!(world.app.hints_of(&reference).await, [hint("dead", 0, None, Some("endpoint_disarmed"))]);
    assert!(world.receiver.received().is_empty());
    worker.stop().await;
}

/// A node that refuses every write (SQLSTATE 25006: a primary demoted by a failover, or a standby
/// a `target_session_attrs=any` URL reached) spends the worker's session: the worker drops it and
/// connects again at the next sweep, where a multi-host URL's read-write attribute finds the
/// primary, instead of sweeping a session that can never claim. Here every session is read-only,
/// so each sweep makes a new one and nothing is sent.
#[tokio::test]
async fn a_worker_refused_by_a_read_only_node_makes_its_session_again_at_the_next_sweep() {
    let world = World::new().await;
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/in").await;
    let reference = world.app.record_hooked_booking(&operator).await;
    let separator = if world.app.database_url.contains('?') { '&' } else { '?' };
    let read_only = format!("{}{separator}options=-c%20default_transaction_read_only%3Don", world.app.database_url);
    let worker = RunningWorker::start(
        &read_only,
        &world.authority,
        world.receiver.addr.port(),
        to_receiver(),
        loopback_is_public(),
    );

    let admin = world.app.superuser().await;
    let mut sessions = std::collections::BTreeSet::new();
    let started = std::time::Instant::now();
    while sessions.len() < 3 && started.elapsed() < SETTLE {
        let rows = admin
            .query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = 'ingest-webhooks' AND datname = current_database()",
                &[],
            )
            .await
            .unwrap();
        sessions.extend(rows.iter().map(|row| row.get::<_, i32>(0)));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(sessions.len() >= 3, "a new session at each sweep, not one kept: {sessions:?}");
    assert_eq!(world.app.hints_of(&reference).await, [hint("undelivered", 0, None, None)]);
    assert!(world.receiver.received().is_empty());
    worker.stop().await;
}

#[tokio::test]
async fn two_workers_racing_deliver_every_hint_exactly_once() {
    let world = World::new().await;
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/in").await;
    let mut references = Vec::new();
    for _ in 0..40 {
        references.push(world.app.record_hooked_booking(&operator).await);
    }
    let first = world.worker(to_receiver());
    let second = world.worker(to_receiver());
    for reference in &references {
        world.app.wait_for_hints(reference, SETTLE, |h| h.iter().all(|h| h.state == "delivered")).await;
    }
    let mut delivered: Vec<String> =
        world.receiver.received().iter().map(|r| r.json()["booking_reference"].as_str().unwrap().to_string()).collect();
    delivered.sort();
    references.sort();
    assert_eq!(delivered, references, "each booking's hint arrived once");
    let (first_logs, second_logs) = (first.logs.clone(), second.logs.clone());
    first.stop().await;
    second.stop().await;
    let attempts = first_logs.lock().unwrap().len() + second_logs.lock().unwrap().len();
    assert_eq!(attempts, 40, "forty attempts between the two workers");
}

#[tokio::test]
async fn a_slow_endpoint_of_one_operator_never_delays_another_operators_hints() {
    let world = World::new().await;
    let (slow, _) = world.app.webhook_operator("https://hooks.example.test/delay/4000").await;
    for _ in 0..10 {
        world.app.record_hooked_booking(&slow).await;
    }
    let (quick, _) = world.app.webhook_operator("https://hooks.example.test/in").await;
    let worker = world.worker(to_receiver());
    // The slow operator's hints take their two slots and hold them for 4 s each.
    let taking = std::time::Instant::now();
    while world.receiver.received_at("/delay/4000").len() < 2 {
        assert!(taking.elapsed() < SETTLE, "the slow operator's two attempts never arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let started = std::time::Instant::now();
    let reference = world.app.record_hooked_booking(&quick).await;
    world.app.wait_for_hints(&reference, SETTLE, |h| h.iter().all(|h| h.state == "delivered")).await;
    assert!(started.elapsed() < Duration::from_secs(2), "the other operator waited {:?}", started.elapsed());
    assert_eq!(
        world.receiver.received_at("/delay/4000").len(),
        2,
        "the slow operator has two attempts under way, not more"
    );
    worker.stop().await;
}

#[tokio::test]
async fn an_answer_within_the_five_seconds_is_delivered() {
    let world = World::new().await;
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/delay/4500").await;
    let reference = world.app.record_hooked_booking(&operator).await;
    let worker = world.worker(to_receiver());
    let hints = world.app.wait_for_hints(&reference, SETTLE, |h| h.iter().all(|h| h.attempts == 1)).await;
    assert_eq!(hints, [hint("delivered", 1, Some(204), None)], "4.5 s is inside the 5-second deadline");
    worker.stop().await;
}

/// `serve` and `webhooks` check the worker's role before they start: a role that cannot be taken, or
/// may not call the worker's functions, stops the start with a message; a database that cannot be
/// reached does not (an outage, not a misconfiguration).
#[tokio::test]
async fn a_worker_whose_role_cannot_claim_hints_refuses_to_start_but_an_unreachable_database_does_not() {
    let database = create_database(true).await;
    assert_eq!(worker(&database, "webhook_worker").check_role().await, Ok(()));
    let refused = worker(&database, "ingest_gateway").check_role().await.unwrap_err();
    assert_eq!(refused, "webhook worker: ingest_gateway may not call the webhook.* functions (WEBHOOK_DATABASE_ROLE)");
    let refused = worker(&database, "no_such_role").check_role().await.unwrap_err();
    assert!(
        refused.starts_with("webhook worker: the login of WEBHOOK_DATABASE_URL cannot take the role no_such_role"),
        "{refused}"
    );
    let unreachable = format!("postgres://postgres@127.0.0.1:{}/nowhere", crate::common::free_port());
    assert_eq!(worker(&unreachable, "webhook_worker").check_role().await, Ok(()));
}

/// A database (or a proxy before it) that takes the connection and never answers is an outage too:
/// the check gives up at the worker's database deadline (12 s) and the start goes on. (Paused
/// clock: the deadline passes at once; without it, the check waited for ever.)
#[tokio::test(start_paused = true)]
async fn a_database_that_never_answers_does_not_hold_up_the_start() {
    // Never accepted: the kernel completes the handshake and nothing ever answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("postgres://postgres@{}/nowhere", silent.local_addr().unwrap());
    let checked = tokio::time::timeout(Duration::from_secs(60), worker(&url, "webhook_worker").check_role()).await;
    assert_eq!(checked, Ok(Ok(())), "the check gave up within a minute and let the start go on");
}

/// A worker logged in with `url`, taking `role`, that nothing is sent to.
fn worker(url: &str, role: &str) -> gateway::webhooks::worker::Worker {
    use std::sync::Arc;

    use crate::common::webhooks::worker_settings;
    use gateway::telemetry::LogSink;
    use gateway::webhooks::worker::{Worker, WorkerWiring};

    let mut settings = worker_settings(url);
    settings.database_role = Some(role.to_string());
    let wiring = WorkerWiring {
        resolver: Arc::new(FixedResolver::default()),
        extra_roots: Vec::new(),
        port: 443,
        policy: AddressPolicy::production(),
    };
    Worker::new(settings, wiring, LogSink::Memory(Default::default())).unwrap()
}

/// The system's resolver reads the hosts file first (docker `--add-host`, Kubernetes
/// `hostAliases`), and what it finds there is checked like any DNS answer: 127.0.0.1 is private
/// under the production rules, nothing is sent; a name the file does not list goes to the name
/// servers (here one that never answers: `dns_failed`).
#[tokio::test]
async fn a_hosts_file_entry_is_used_and_its_loopback_address_is_private_under_the_production_rules() {
    use crate::common::webhooks::{system_resolver_with_hosts, HostsFile};

    let world = World::new().await;
    let hosts = HostsFile::new("127.0.0.1 hooks.example.test\n");
    let (resolver, _silent) = system_resolver_with_hosts(&hosts);
    let (listed, _) = world.app.webhook_operator("https://hooks.example.test/in").await;
    let (unlisted, _) = world.app.webhook_operator("https://unlisted.example.test/in").await;
    let listed = world.app.record_hooked_booking(&listed).await;
    let unlisted = world.app.record_hooked_booking(&unlisted).await;
    let worker = RunningWorker::start_resolving_with(
        &world.app.database_url,
        &world.authority,
        world.receiver.addr.port(),
        std::sync::Arc::new(resolver),
        AddressPolicy::production(),
    );
    let hints = world.app.wait_for_hints(&listed, SETTLE, |h| h.iter().all(|h| h.attempts == 1)).await;
    assert_eq!(hints, [hint("undelivered", 1, None, Some("private_address"))]);
    let hints = world.app.wait_for_hints(&unlisted, SETTLE, |h| h.iter().all(|h| h.attempts == 1)).await;
    assert_eq!(hints, [hint("undelivered", 1, None, Some("dns_failed"))]);
    assert!(world.receiver.received().is_empty(), "nothing was sent");
    worker.stop().await;
}

/// ...and once the range is declared public (`WEBHOOK_PUBLIC_RANGES`), the hosts file's address is
/// the one connected to.
#[tokio::test]
async fn a_hosts_file_entry_in_a_range_declared_public_is_delivered_to() {
    use crate::common::webhooks::{system_resolver_with_hosts, HostsFile};

    let world = World::new().await;
    let hosts = HostsFile::new("# staging\n127.0.0.1 other.example.test hooks.example.test\n");
    let (resolver, _silent) = system_resolver_with_hosts(&hosts);
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/in").await;
    let reference = world.app.record_hooked_booking(&operator).await;
    let worker = RunningWorker::start_resolving_with(
        &world.app.database_url,
        &world.authority,
        world.receiver.addr.port(),
        std::sync::Arc::new(resolver),
        loopback_is_public(),
    );
    let hints = world.app.wait_for_hints(&reference, SETTLE, |h| h.iter().all(|h| h.attempts == 1)).await;
    assert_eq!(hints, [hint("delivered", 1, Some(204), None)]);
    assert_eq!(world.receiver.received_at("/in").len(), 1);
    worker.stop().await;
}

/// `WEBHOOK_NAT64_PREFIXES` reaches the production wiring: an address in a listed prefix is judged
/// by the IPv4 address it carries (10.0.0.1 refused, 8.8.8.8 not).
#[tokio::test]
async fn the_production_wiring_reads_the_nat64_prefixes() {
    use gateway::webhooks::address::Nat64Prefix;
    use gateway::webhooks::worker::WorkerWiring;

    let mut settings = crate::common::webhooks::worker_settings("postgres://x@h/db");
    settings.nat64_prefixes = Nat64Prefix::parse_list("2a00:1450:4001:829::/64").unwrap();
    let wiring = WorkerWiring::production(&settings).unwrap();
    assert!(!wiring.policy.permits("2a00:1450:4001:829:a:0:100:0".parse().unwrap()), "carries 10.0.0.1");
    assert!(wiring.policy.permits("2a00:1450:4001:829:8:808:800:0".parse().unwrap()), "carries 8.8.8.8");
    assert!(!wiring.policy.permits("127.0.0.1".parse().unwrap()));
}

/// `serve` and `webhooks` warn at start while the platform's own domains are not set
/// (`webhook_platform_domains`, empty after `ingest migrate`: registrations on them are not refused
/// until then), and start all the same; once the deployment sets them, no warning. The warning names
/// the setting, never the database URL or anything read from the database. (Start-up lines go
/// through `tracing`, as every operational line does: caught here on this test's thread, in the
/// production JSON form.)
#[tokio::test]
async fn a_worker_warns_at_start_while_the_platform_domains_are_not_set_and_starts_all_the_same() {
    let database = create_database(true).await;
    let (checked, lines) = with_operational_lines(worker(&database, "webhook_worker").check_role()).await;
    assert_eq!(checked, Ok(()), "the warning stops nothing");
    let warnings: Vec<_> = lines.iter().filter(|line| line["level"] == "WARN").collect();
    assert_eq!(warnings.len(), 1, "{lines:?}");
    assert_eq!(warnings[0]["setting"], "webhook_platform_domains");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(message.contains("set webhook_platform_domains in app.settings"), "{message}");
    let mut keys: Vec<&str> = warnings[0].as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["level", "message", "setting", "target", "timestamp"], "nothing else is logged");
    let text = warnings[0].to_string();
    assert!(!text.contains(&database) && !text.contains("postgres"), "no URL or login: {text}");

    crate::common::connect(&database)
        .await
        .batch_execute("UPDATE app.settings SET value = 'parking.example' WHERE name = 'webhook_platform_domains'")
        .await
        .unwrap();
    let (checked, lines) = with_operational_lines(worker(&database, "webhook_worker").check_role()).await;
    assert_eq!(checked, Ok(()));
    assert!(lines.iter().all(|line| line["level"] != "WARN"), "no warning once they are set: {lines:?}");
}

/// What `work` logs through `tracing` on this thread, as the JSON lines `telemetry::init` writes.
async fn with_operational_lines<T>(work: impl std::future::Future<Output = T>) -> (T, Vec<serde_json::Value>) {
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Lines {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    let lines = Lines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_span_list(false)
        .with_env_filter(tracing_subscriber::EnvFilter::new("info,tokio_postgres=warn"))
        .with_writer(move || writer.clone())
        .finish();
    let outcome = {
        let _default = tracing::subscriber::set_default(subscriber);
        work.await
    };
    let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    (outcome, text.lines().map(|line| serde_json::from_str(line).unwrap()).collect())
}

#[tokio::test]
async fn the_worker_deletes_delivered_and_dead_hints_past_their_retention_and_no_others() {
    let world = World::new().await;
    let (operator, _) = world.app.webhook_operator("https://hooks.example.test/in").await;
    let mut references = Vec::new();
    for _ in 0..4 {
        references.push(world.app.record_hooked_booking(&operator).await);
    }
    // Backdated: delivered 40 days ago, dead 31 days ago (past the default 30 days); delivered 29
    // days ago; undelivered since 40 days ago (its next attempt an hour away, so no sweep takes it).
    let admin = crate::common::connect(&world.app.database_url).await;
    for (reference, days, state) in [
        (&references[0], 40, "delivered"),
        (&references[1], 31, "dead"),
        (&references[2], 29, "delivered"),
        (&references[3], 40, "undelivered"),
    ] {
        admin
            .execute(
                "UPDATE app.webhook_hints SET occurred_at = now() - make_interval(days => $2), state = $3, \
                        attempts = 1, last_attempt_at = now() - make_interval(days => $2), \
                        delivered_at = CASE WHEN $3 = 'delivered' THEN now() - make_interval(days => $2) END, \
                        next_attempt_at = CASE WHEN $3 = 'undelivered' THEN now() + interval '1 hour' END \
                  WHERE booking_reference = $1",
                &[reference, &days, &state],
            )
            .await
            .unwrap();
    }
    let worker = world.worker(to_receiver());
    let left = || async {
        let rows = admin
            .query("SELECT booking_reference FROM app.webhook_hints ORDER BY occurred_at DESC", &[])
            .await
            .unwrap();
        rows.iter().map(|row| row.get::<_, String>(0)).collect::<Vec<_>>()
    };
    let deadline = std::time::Instant::now() + SETTLE;
    while left().await.len() > 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        left().await,
        [references[2].clone(), references[3].clone()],
        "the hints past 30 days are gone, but not the undelivered one; the one of 29 days stays"
    );
    let metrics = gateway::metrics::Metrics::worker(&worker.metrics).render();
    assert!(metrics.contains("ingest_webhook_hints_expired_total 2\n"), "{metrics}");
    worker.stop().await;
}
