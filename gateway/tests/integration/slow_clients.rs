//! Slow and stuck clients cost only themselves: a body has a deadline, a client that goes away
//! mid-body gets no answer and writes nothing, a client that stops reading its answers is
//! disconnected, open connections are capped, and hundreds of stalled connections do not slow
//! anyone else down.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::common::TestApp;

/// Whatever the server sends until it closes (or `limit` passes: None).
async fn until_closed(stream: &mut TcpStream, limit: Duration) -> Option<Vec<u8>> {
    let mut received = Vec::new();
    tokio::time::timeout(limit, stream.read_to_end(&mut received)).await.ok().map(|_| received)
}

fn put_head(bearer: &str, length: usize) -> String {
    format!(
        "PUT /v1/lots/stalled HTTP/1.1\r\nhost: x\r\nauthorization: {bearer}\r\ncontent-type: application/json\r\ncontent-length: {length}\r\n\r\n"
    )
}

#[tokio::test]
async fn a_client_that_goes_away_mid_body_gets_no_answer_and_writes_nothing() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream.write_all(put_head(&credential.bearer(), 100).as_bytes()).await.unwrap();
    stream.write_all(br#"{"name": "St"#).await.unwrap();
    stream.shutdown().await.unwrap();
    let received = until_closed(&mut stream, Duration::from_secs(5)).await.expect("the server closes");
    assert!(received.is_empty(), "no answer: {:?}", String::from_utf8_lossy(&received));

    let line = app.request_line_of("/lots/{external_id}").await;
    assert_eq!(line["status"], 499, "logged as a client abort: {line}");
    assert!(app.lot_ids(&credential).await.is_empty(), "nothing was written");
}

#[tokio::test]
async fn a_body_that_stalls_past_its_deadline_is_dropped_without_an_answer() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("BODY_TIMEOUT_MS", 300);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream.write_all(put_head(&credential.bearer(), 100).as_bytes()).await.unwrap();
    stream.write_all(b"{").await.unwrap();
    let started = Instant::now();
    let received = until_closed(&mut stream, Duration::from_secs(5)).await.expect("the server closes");
    assert!(received.is_empty(), "no answer");
    assert!(started.elapsed() < Duration::from_secs(2), "closed after {:?}", started.elapsed());
}

/// The idle keep-alive timeout is the header timeout: the clock of the next request's head starts as
/// soon as the connection waits for it.
#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("HEADER_TIMEOUT_MS", 300);
    })
    .await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream.write_all(b"GET /v1/nope HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
    let answer = crate::common::read_raw_answer(&mut stream).await.expect("an answer");
    assert!(
        answer.starts_with("HTTP/1.1 404 ") && !answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
    let started = Instant::now();
    let received =
        until_closed(&mut stream, Duration::from_secs(5)).await.expect("the server closes the idle connection");
    assert!(received.is_empty(), "nothing more is sent");
    let idle = started.elapsed();
    assert!(idle >= Duration::from_millis(200) && idle < Duration::from_secs(2), "closed after {idle:?} idle");
}

#[tokio::test]
async fn three_hundred_stalled_connections_slow_no_one_down_and_are_gone_after_their_deadlines() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("BODY_TIMEOUT_MS", 1000).set("HEADER_TIMEOUT_MS", 1000);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let mut stalled = Vec::new();
    for n in 0..300 {
        let mut stream = TcpStream::connect(app.addr).await.unwrap();
        let partial = if n % 2 == 0 {
            "GET /v1/ping HTTP/1.1\r\nhost: x\r\nauthoriz".to_string()
        } else {
            put_head(&credential.bearer(), 100) + "{"
        };
        stream.write_all(partial.as_bytes()).await.unwrap();
        stalled.push(stream);
    }
    for _ in 0..10 {
        let asked = Instant::now();
        assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);
        assert!(asked.elapsed() < Duration::from_millis(500), "a ping took {:?}", asked.elapsed());
    }
    for stream in &mut stalled {
        let received = until_closed(stream, Duration::from_secs(4)).await;
        assert!(received.is_some(), "a stalled connection outlived its deadline");
    }
}

#[tokio::test]
async fn open_connections_are_capped_and_new_ones_wait_for_a_free_slot() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("MAX_CONNECTIONS", 3).set("BODY_TIMEOUT_MS", 800);
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let mut stalled = Vec::new();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(app.addr).await.unwrap();
        stream.write_all((put_head(&credential.bearer(), 100) + "{").as_bytes()).await.unwrap();
        stalled.push(stream);
    }
    // (every slot is taken once the three are accepted)
    app.metric_reaches("ingest_http_connections", 3.0).await;
    let asked = Instant::now();
    let response = app.ping(Some(&credential.bearer())).await;
    assert_eq!(response.status, 200);
    assert!(
        asked.elapsed() >= Duration::from_millis(500),
        "the fourth connection waited for a slot ({:?})",
        asked.elapsed()
    );
}

/// A client that pipelines requests and never reads an answer fills the socket buffers; the write
/// that then waits past SEND_TIMEOUT_MS fails and the connection closes, so its slot (here the only
/// one) goes to the next client. Without the deadline the next client waits for ever.
#[tokio::test]
async fn a_client_that_never_reads_its_answers_is_disconnected_after_the_send_timeout() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("MAX_CONNECTIONS", 1).set("SEND_TIMEOUT_MS", 300);
    })
    .await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut never_reads = socket.connect(app.addr).await.unwrap();
    // 200 answers of the ~77 KB OpenAPI document: ~15 MB, far more than the sockets' buffers hold.
    let requests = "GET /openapi.json HTTP/1.1\r\nhost: x\r\n\r\n".repeat(200);
    let writer = tokio::spawn(async move {
        // (fails, or blocks until the server closes: either way it never reads)
        let _ = tokio::time::timeout(Duration::from_secs(10), never_reads.write_all(requests.as_bytes())).await;
        never_reads
    });
    // (the only slot is taken once it is accepted)
    app.metric_reaches("ingest_http_connections", 1.0).await;

    let mut next = TcpStream::connect(app.addr).await.unwrap();
    next.write_all(b"GET /v1/nope HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(5), crate::common::read_raw_answer(&mut next))
        .await
        .expect("the next client is answered once the stalled one is disconnected")
        .expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
    drop(writer.await.unwrap());
}

#[tokio::test]
async fn a_request_head_over_16_kib_is_refused_431_and_one_under_it_is_served() {
    let app = TestApp::spawn().await;
    for (padding, expected) in [(15 * 1024, "HTTP/1.1 401"), (17 * 1024, "HTTP/1.1 431")] {
        let mut stream = TcpStream::connect(app.addr).await.unwrap();
        let head = format!("GET /v1/ping HTTP/1.1\r\nhost: x\r\nx-padding: {}\r\n\r\n", "a".repeat(padding));
        stream.write_all(head.as_bytes()).await.unwrap();
        let answer = crate::common::read_raw_answer(&mut stream).await.expect("an answer");
        assert!(answer.starts_with(expected), "a head with {padding} bytes of padding: {answer}");
    }
}
