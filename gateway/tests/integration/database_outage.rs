//! Faults: when the database goes away under a running gateway, requests answer 503 `try_again`
//! with `Retry-After` within a bounded time (never a hang, never a 500); when it comes back, the same
//! gateway serves again without a restart.
//!
//! Stopping a database must not break the other test binaries, so these tests run a PostgreSQL
//! cluster of their own ([`crate::common::PrivateCluster`]), removed when the test ends, panics included.

use std::time::{Duration, Instant};

use crate::common::{PrivateCluster, TestApp, TestResponse};

/// DATABASE_TIMEOUT_MS for these gateways.
const DATABASE_TIMEOUT_MS: u64 = 2000;
/// No answer may take longer than this while the database is down.
const BOUND: Duration = Duration::from_secs(6);

fn assert_try_again(response: &TestResponse) {
    response.assert_error(503, "try_again", None);
    let retry_after: u64 =
        response.header("retry-after").expect("Retry-After on a 503").parse().expect("Retry-After is whole seconds");
    assert!(retry_after >= 1, "Retry-After {retry_after}");
    response.request_id();
}

/// A ping that must answer 503 `try_again` within [`BOUND`].
async fn ping_answers_try_again(app: &TestApp, authorization: &str) {
    let started = Instant::now();
    let response = app.ping(Some(authorization)).await;
    let elapsed = started.elapsed();
    assert_try_again(&response);
    assert!(elapsed < BOUND, "the 503 took {elapsed:?}");
    let line = app.log_of(&response);
    assert_eq!(line["status"], 503);
    assert!(line["cause"].is_string(), "a 503's cause is logged: {line}");
}

/// Pings until 200 (at most ~10 s); every answer before it must be a prompt 503, never a 500.
async fn ping_recovers(app: &TestApp, authorization: &str) -> TestResponse {
    for _ in 0..40 {
        let started = Instant::now();
        let response = app.ping(Some(authorization)).await;
        assert!(started.elapsed() < BOUND, "an answer took {:?}", started.elapsed());
        if response.status == 200 {
            return response;
        }
        assert_try_again(&response);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("ping did not answer 200 after the database came back");
}

async fn gateway_on(cluster: &PrivateCluster) -> TestApp {
    TestApp::spawn_on(&cluster.url(), |settings| {
        settings.set("DATABASE_TIMEOUT_MS", DATABASE_TIMEOUT_MS).set("DATABASE_POOL_SIZE", 4);
    })
    .await
}

#[tokio::test]
async fn stopping_the_database_answers_503_try_again_and_starting_it_again_recovers() {
    let cluster = PrivateCluster::create().await;
    cluster.start().await;
    gateway::migrate::run(&cluster.url()).await.expect("migrate the private cluster");
    let app = gateway_on(&cluster).await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    // Several requests, so the pool holds connections when the server goes away.
    for _ in 0..3 {
        assert_eq!(app.ping(Some(&bearer)).await.status, 200);
    }

    cluster.stop().await;
    for _ in 0..5 {
        ping_answers_try_again(&app, &bearer).await;
    }
    // Requests that never reach the database are untouched by the outage.
    app.get("/v1/nope", &[]).await.assert_error(404, "not_found", None);
    app.get("/v1/ping?x=1", &[]).await.assert_error(422, "invalid_query", Some("x"));

    cluster.start().await;
    let response = ping_recovers(&app, &bearer).await;
    assert_eq!(response.json()["key_id"], credential.key_id.as_str());
    // And it stays up: the pool holds no dead connection any more.
    for _ in 0..5 {
        assert_eq!(app.ping(Some(&bearer)).await.status, 200);
    }
    assert!(app.logs().iter().all(|line| line["status"] != 500), "never a 500: {:?}", app.logs());
    app.shutdown().await;
}

#[tokio::test]
async fn a_request_in_flight_when_the_database_crashes_answers_503_and_the_gateway_recovers() {
    let cluster = PrivateCluster::create().await;
    cluster.start().await;
    gateway::migrate::run(&cluster.url()).await.expect("migrate the private cluster");
    let app = gateway_on(&cluster).await;
    let (operator, credential) = app.operator_with_credential().await;
    assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);

    // Held inside the database: a session of the test locks the credentials table, which every
    // authentication reads. The crash (immediate stop) ends every process at once, so
    // the request cannot slip through when the lock holder goes first, as it can with a fast stop.
    let stuck = app.issue(&operator, &["read_supply"], None).await;
    let mut locker = crate::common::connect(&cluster.url()).await;
    let locker_pid = crate::common::backend_pid(&locker).await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE app.api_credentials IN ACCESS EXCLUSIVE MODE").await.unwrap();
    let http = app.http();
    let stuck_bearer = stuck.bearer();
    let in_flight = tokio::spawn(async move {
        let started = Instant::now();
        let response = http.ping(Some(&stuck_bearer)).await;
        (response, started.elapsed())
    });
    crate::common::wait_for_session_blocked_by(&cluster.url(), locker_pid).await;

    cluster.crash().await;
    let (response, elapsed) = in_flight.await.unwrap();
    assert_try_again(&response);
    assert!(elapsed < BOUND, "the in-flight request answered after {elapsed:?}");
    drop(lock);
    ping_answers_try_again(&app, &credential.bearer()).await;

    cluster.start().await;
    let response = ping_recovers(&app, &stuck.bearer()).await;
    assert_eq!(response.json()["key_id"], stuck.key_id.as_str());
    assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);
    assert!(app.logs().iter().all(|line| line["status"] != 500), "never a 500: {:?}", app.logs());
    app.shutdown().await;
}

#[tokio::test]
async fn a_database_down_at_gateway_start_answers_503_until_it_comes_up() {
    let cluster = PrivateCluster::create().await;
    let app = gateway_on(&cluster).await;
    // Well-formed but not yet issued: the database decides, so the answer is the database's state.
    let unknown = format!("Bearer pk_api_{}.pk_sec_{}", uuid::Uuid::new_v4().simple(), "0".repeat(64));
    for _ in 0..3 {
        ping_answers_try_again(&app, &unknown).await;
    }

    cluster.start().await;
    gateway::migrate::run(&cluster.url()).await.expect("migrate the private cluster");
    let (_operator, credential) = app.operator_with_credential().await;
    let response = ping_recovers(&app, &credential.bearer()).await;
    assert_eq!(response.json()["key_id"], credential.key_id.as_str());
    app.ping(Some(&unknown)).await.assert_error(401, "unauthorized", None);
    assert!(app.logs().iter().all(|line| line["status"] != 500), "never a 500: {:?}", app.logs());
    app.shutdown().await;
}

/// A statement that cannot finish (here: blocked by a row lock) answers 503 once DATABASE_TIMEOUT_MS
/// is spent, instead of holding the request; the shared test database is enough for this one.
#[tokio::test]
async fn a_request_stuck_in_the_database_answers_503_after_the_database_timeout() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("DATABASE_TIMEOUT_MS", 500);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;

    // Every authentication reads the credentials table; a session of the test holds it locked.
    let mut locker = app.superuser().await;
    let lock = locker.transaction().await.unwrap();
    lock.batch_execute("LOCK TABLE app.api_credentials IN ACCESS EXCLUSIVE MODE").await.unwrap();

    let started = Instant::now();
    let response = app.ping(Some(&credential.bearer())).await;
    let elapsed = started.elapsed();
    assert_try_again(&response);
    assert!(elapsed >= Duration::from_millis(400) && elapsed < Duration::from_secs(3), "503 after {elapsed:?}");

    lock.rollback().await.unwrap();
    let response = ping_recovers(&app, &credential.bearer()).await;
    assert_eq!(response.json()["key_id"], credential.key_id.as_str());
}

/// A write that runs past the deadline is cancelled on the server before the 503 is answered: when
/// the lock that held it is released, it does not go on to commit. The write first waits for the
/// pool's only connection, so its statement starts late and the server's own statement_timeout
/// would fire well after the gateway gave up: only the cancel stops it in time.
#[tokio::test]
async fn a_write_past_the_deadline_answers_503_and_never_commits() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("DATABASE_TIMEOUT_MS", 1000).set("DATABASE_POOL_SIZE", 1);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let headers = crate::common::lots::json_headers(&credential);
    let lot = |name: &str| {
        serde_json::json!({"name": name, "timezone": "Europe/London", "handover": "self", "online_bookable": true})
            .to_string()
    };
    for id in ["held", "other"] {
        assert_eq!(
            app.request(http::Method::PUT, &format!("/v1/lots/{id}"), headers.clone(), lot("Before")).await.status,
            201
        );
    }

    // Sessions of the test hold both lots' rows.
    let mut held_locker = app.superuser().await;
    let held = held_locker.transaction().await.unwrap();
    held.batch_execute("SELECT 1 FROM app.lots WHERE external_id = 'held' FOR UPDATE").await.unwrap();
    let mut other_locker = app.superuser().await;
    let other = other_locker.transaction().await.unwrap();
    other.batch_execute("SELECT 1 FROM app.lots WHERE external_id = 'other' FOR UPDATE").await.unwrap();

    // The first write takes the only connection and waits for `other`; the second waits for the
    // connection, which `other`'s release frees 500 ms later, then for `held`.
    let http = app.http();
    let (first_headers, second_headers) = (headers.clone(), headers.clone());
    let first = tokio::spawn({
        let http = http.clone();
        let body = lot("After");
        async move { http.request(http::Method::PUT, "/v1/lots/other", first_headers, body).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = tokio::spawn({
        let body = lot("After");
        async move { http.request(http::Method::PUT, "/v1/lots/held", second_headers, body).await }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    other.rollback().await.unwrap();
    assert_eq!(first.await.unwrap().status, 200);

    // The gateway gives up at 1 s; the statement started at about 0.6 s, so the server's own
    // statement_timeout would only fire at about 1.6 s. Release the lock in between.
    let response = second.await.unwrap();
    assert_try_again(&response);
    tokio::time::sleep(Duration::from_millis(200)).await;
    held.rollback().await.unwrap();

    tokio::time::sleep(Duration::from_millis(1500)).await;
    let name: String = app
        .superuser()
        .await
        .query_one("SELECT name FROM app.lots WHERE external_id = 'held'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(name, "Before", "the write the client was told failed did not commit");
}

/// While the database cannot be reached, requests under load answer 503 at once and connection
/// attempts stay at a few a second (the backoff), instead of one attempt per request.
#[tokio::test]
async fn while_the_database_cannot_be_reached_connection_attempts_stay_at_a_few_a_second() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    // A "database" that accepts every connection and closes it at once: each attempt is counted.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let attempts = Arc::new(AtomicUsize::new(0));
    let counted = attempts.clone();
    let server = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    let app = TestApp::spawn_on(&format!("postgres://postgres@127.0.0.1:{port}/nowhere"), |settings| {
        settings.set("DATABASE_TIMEOUT_MS", DATABASE_TIMEOUT_MS).set("DATABASE_POOL_SIZE", 16);
    })
    .await;

    let started = Instant::now();
    let mut clients = Vec::new();
    for _ in 0..16 {
        let http = app.http();
        clients.push(tokio::spawn(async move {
            let mut answered = 0;
            while started.elapsed() < Duration::from_secs(2) {
                let asked = Instant::now();
                let response = http.ping(Some("Bearer pk_api_x.y")).await;
                assert_try_again(&response);
                assert!(asked.elapsed() < Duration::from_secs(1), "a 503 took {:?}", asked.elapsed());
                answered += 1;
            }
            answered
        }));
    }
    // At the outage's start, up to a pool's worth of requests try at once; after that, a few a second.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after_start = attempts.load(Ordering::SeqCst);
    let mut answered = 0;
    for client in clients {
        answered += client.await.unwrap();
    }
    let later = attempts.load(Ordering::SeqCst) - after_start;
    assert!(answered > 200, "the load was real: {answered} answers");
    assert!(after_start <= 16 + 4, "{after_start} attempts in the first half second");
    assert!(later <= 8, "{later} connection attempts in 1.5 s under {answered} requests");
    server.abort();
}

/// The outage as an operator of the service meets it: 16 clients keep pinging while the database is
/// stopped and started again. Every answer is a 200 or a prompt 503 `try_again` (never a 500, never
/// a hang), and within two seconds of the database accepting connections again the gateway serves
/// every request, without a restart.
#[tokio::test]
async fn under_load_a_stopped_and_restarted_database_costs_prompt_503s_and_service_returns_within_two_seconds() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let cluster = PrivateCluster::create().await;
    cluster.start().await;
    gateway::migrate::run(&cluster.url()).await.expect("migrate the private cluster");
    let app = TestApp::spawn_on(&cluster.url(), |settings| {
        settings.set("DATABASE_TIMEOUT_MS", DATABASE_TIMEOUT_MS).set("DATABASE_POOL_SIZE", 16);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;

    let done = Arc::new(AtomicBool::new(false));
    let mut clients = Vec::new();
    for _ in 0..16 {
        let (http, bearer, done) = (app.http(), credential.bearer(), done.clone());
        clients.push(tokio::spawn(async move {
            // (when it was asked, how long it took, the status)
            let mut answers = Vec::new();
            while !done.load(Ordering::SeqCst) {
                let asked = Instant::now();
                let response = http.ping(Some(&bearer)).await;
                if response.status != 200 {
                    assert_try_again(&response);
                }
                answers.push((asked, asked.elapsed(), response.status.as_u16()));
            }
            answers
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    cluster.stop().await;
    let stopped = Instant::now();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let restarting = Instant::now();
    cluster.start().await;
    let back = Instant::now();
    tokio::time::sleep(Duration::from_secs(4)).await;
    done.store(true, Ordering::SeqCst);
    let mut answers = Vec::new();
    for client in clients {
        answers.extend(client.await.expect("a client panicked"));
    }

    let slowest = answers.iter().map(|(_, took, _)| *took).max().unwrap();
    assert!(slowest < Duration::from_millis(DATABASE_TIMEOUT_MS + 500), "an answer took {slowest:?}");
    let during: Vec<u16> = answers
        .iter()
        .filter(|(asked, _, _)| *asked > stopped + Duration::from_millis(100) && *asked < restarting)
        .map(|a| a.2)
        .collect();
    let served_during = during.iter().filter(|&&status| status != 503).count();
    assert!(during.len() > 100, "the load was real: {} requests during the outage", during.len());
    assert_eq!(served_during, 0, "{served_during} of {} requests during the outage did not answer 503", during.len());
    let first_served = answers.iter().filter(|(asked, _, status)| *asked >= back && *status == 200).map(|a| a.0).min();
    let first_served = first_served.expect("served again after the database came back");
    assert!(
        first_served - back < Duration::from_secs(2),
        "served again {:?} after the database came back",
        first_served - back
    );
    let late_refusals =
        answers.iter().filter(|(asked, _, status)| *asked > back + Duration::from_secs(3) && *status != 200).count();
    assert_eq!(late_refusals, 0, "every request is served once the gateway has noticed the database is back");
    assert!(app.logs().iter().all(|line| line["status"] != 500), "never a 500");
    app.shutdown().await;
}

/// A loopback address that takes no connection and answers nothing: a listener with the shortest
/// backlog, filled, so the kernel drops every further SYN (as a machine that died silently does).
/// Answers its port and what keeps it so.
async fn silent_host() -> (u16, Vec<tokio::net::TcpStream>, tokio::net::TcpListener) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut held = Vec::new();
    for _ in 0..4 {
        if let Ok(Ok(stream)) =
            tokio::time::timeout(Duration::from_millis(300), tokio::net::TcpStream::connect(("127.0.0.1", port))).await
        {
            held.push(stream);
        }
    }
    let attempt = tokio::time::timeout(Duration::from_millis(500), tokio::net::TcpStream::connect(("127.0.0.1", port)));
    assert!(attempt.await.is_err(), "the silent host answered a connection attempt");
    (port, held, listener)
}

#[tokio::test]
async fn a_first_host_that_drops_connection_attempts_is_passed_over_within_the_deadline() {
    // DATABASE_URL names a silent host first, then the database, as a deployment names the old and
    // the new primary after a failover: each connect gets a share of the deadline, so the second
    // host is reached in time, and every answer is a 200, within the deadline.
    let (port, _held, _listener) = silent_host().await;
    let on_database = TestApp::spawn().await;
    let (_operator, credential) = on_database.operator_with_credential().await;
    let url = crate::common::test_database_url().replacen('@', &format!("@127.0.0.1:{port},"), 1);
    let url = format!("{url}{}target_session_attrs=read-write", if url.contains('?') { '&' } else { '?' });
    let app = TestApp::spawn_on(&url, |settings| {
        settings.set("DATABASE_TIMEOUT_MS", 3000);
    })
    .await;
    for _ in 0..3 {
        let started = Instant::now();
        let response = app.ping(Some(&credential.bearer())).await;
        assert_eq!(response.status, 200, "{}", response.text());
        assert!(started.elapsed() < Duration::from_secs(3), "answered after {:?}", started.elapsed());
    }
    app.shutdown().await;
    on_database.shutdown().await;
}
