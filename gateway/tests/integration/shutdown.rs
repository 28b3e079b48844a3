//! Graceful shutdown: stop accepting, let the requests in flight finish (at most
//! SHUTDOWN_GRACE_SECONDS), then stop. Idle connections, and clients that have sent only part of a
//! request head or body, do not hold shutdown up.
//!
//! A request is held in flight deterministically: a fresh credential's first use writes its
//! last_used_at, so a test session holding that row's lock keeps GET /ping waiting inside the
//! database until the test lets go.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::{ping_held_in_the_database, TestApp};

/// Waits (at most 2 s) until connecting to `addr` is refused. A connection that the kernel
/// completed just before the listener closed is reset instead; that only means "not yet".
async fn wait_until_refused(addr: SocketAddr) {
    for _ in 0..200 {
        match TcpStream::connect(addr).await {
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionRefused => return,
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(error) => panic!("connecting failed otherwise: {error}"),
            Ok(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{addr} still accepts connections 2 s after shutdown began");
}

/// Asserts the server closes `stream` (EOF or reset) within `limit`.
async fn assert_closed_by_server(stream: &mut TcpStream, limit: Duration) {
    let mut buffer = [0u8; 64];
    match tokio::time::timeout(limit, stream.read(&mut buffer)).await {
        Ok(Ok(0)) | Ok(Err(_)) => {}
        Ok(Ok(n)) => panic!("unexpected bytes: {:?}", String::from_utf8_lossy(&buffer[..n])),
        Err(_) => panic!("the server kept the connection open for {limit:?} after shutdown"),
    }
}

#[tokio::test]
async fn shutdown_lets_a_request_in_flight_finish_and_refuses_new_connections() {
    let mut app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let (locker, in_flight) = ping_held_in_the_database(&app, &credential).await;

    app.begin_shutdown();
    wait_until_refused(app.addr).await;
    // Draining: no new connection, but the request in flight is still being served (the admin
    // listener, which answers until the API is done, counts it).
    assert_eq!(app.metric("ingest_http_requests_in_flight").await, 1.0, "the request in flight was cut off");
    assert!(!in_flight.is_finished(), "the request in flight was cut off");
    assert!(!app.is_stopped(), "serve returned with a request in flight");

    locker.batch_execute("COMMIT").await.unwrap();
    let response = in_flight.await.expect("the request task");
    assert_eq!(response.status, 200, "{:?}", response.text());
    assert_eq!(response.json()["key_id"], credential.key_id.as_str());
    assert_eq!(app.log_of(&response)["status"], 200);

    app.stopped(Duration::from_secs(5)).await;
    assert!(TcpStream::connect(app.addr).await.is_err(), "connections are refused after shutdown");
    let error = app.http().try_request(http::Method::GET, "/v1/ping", Default::default(), "").await;
    assert!(error.is_err(), "no answer after shutdown: {error:?}");
}

#[tokio::test]
async fn shutdown_does_not_wait_for_an_idle_keep_alive_connection() {
    let mut app = TestApp::spawn().await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream.write_all(b"GET /v1/nope HTTP/1.1\r\nHost: test\r\n\r\n").await.unwrap();
    let answer = crate::common::read_raw_answer(&mut stream).await.expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
    assert!(!answer.to_ascii_lowercase().contains("connection: close"), "kept alive: {answer}");

    let started = Instant::now();
    app.begin_shutdown();
    app.stopped(Duration::from_secs(3)).await;
    assert!(started.elapsed() < Duration::from_secs(2), "shutdown took {:?}", started.elapsed());
    assert_closed_by_server(&mut stream, Duration::from_secs(1)).await;
}

#[tokio::test]
async fn shutdown_does_not_wait_for_a_client_that_connected_and_sent_nothing() {
    let mut app = TestApp::spawn().await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    // The server has accepted the connection.
    app.metric_reaches("ingest_http_connections", 1.0).await;

    let started = Instant::now();
    app.begin_shutdown();
    app.stopped(Duration::from_secs(3)).await;
    assert!(started.elapsed() < Duration::from_secs(2), "shutdown took {:?}", started.elapsed());
    assert_closed_by_server(&mut stream, Duration::from_secs(1)).await;
}

#[tokio::test]
async fn half_sent_heads_and_bodies_are_dropped_at_once_while_a_request_in_flight_finishes() {
    // Deadlines far beyond the test's limits: only shutdown itself may end the half-sent requests.
    let mut app = TestApp::spawn_with(|settings| {
        settings.set("HEADER_TIMEOUT_MS", 60_000);
        settings.set("BODY_TIMEOUT_MS", 60_000);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let mut half_head = TcpStream::connect(app.addr).await.unwrap();
    half_head
        .write_all(
            b"GET /v1/ping HTTP/1.1
Host: te",
        )
        .await
        .unwrap();
    let mut half_body = TcpStream::connect(app.addr).await.unwrap();
    let head = format!(
        "PUT /v1/lots/half-sent HTTP/1.1\r\nHost: test\r\nAuthorization: {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\":",
        credential.bearer()
    );
    half_body.write_all(head.as_bytes()).await.unwrap();
    let (locker, in_flight) = ping_held_in_the_database(&app, &credential).await;

    app.begin_shutdown();
    assert_closed_by_server(&mut half_head, Duration::from_secs(2)).await;
    assert_closed_by_server(&mut half_body, Duration::from_secs(2)).await;
    assert!(!in_flight.is_finished(), "the request in flight was cut off");
    assert!(!app.is_stopped(), "serve returned with a request in flight");

    locker.batch_execute("COMMIT").await.unwrap();
    let response = in_flight.await.expect("the request task");
    assert_eq!(response.status, 200, "{:?}", response.text());
    app.stopped(Duration::from_secs(3)).await;
    let aborted = app.logs().into_iter().find(|line| line["route"] == "/lots/{external_id}");
    let aborted = aborted.expect("a log line for the PUT given up");
    assert_eq!(
        (aborted["status"].as_u64(), aborted["cause"].as_str()),
        (Some(499), Some("shutdown began before the body arrived"))
    );
    let lot =
        app.superuser().await.query_opt("SELECT 1 FROM app.lots WHERE external_id = 'half-sent'", &[]).await.unwrap();
    assert!(lot.is_none(), "nothing of the half-sent PUT was written");
}

#[tokio::test]
async fn shutdown_stops_waiting_for_requests_in_flight_after_the_grace_period() {
    let mut app = TestApp::spawn_with(|settings| {
        settings.set("SHUTDOWN_GRACE_SECONDS", 1);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let (locker, in_flight) = ping_held_in_the_database(&app, &credential).await;

    let started = Instant::now();
    app.begin_shutdown();
    app.stopped(Duration::from_secs(5)).await;
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(3),
        "serve returned after {elapsed:?}, not after the 1 s grace period"
    );
    in_flight.abort();
    locker.batch_execute("ROLLBACK").await.unwrap();
}
