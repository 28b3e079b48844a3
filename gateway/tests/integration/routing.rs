//! Transport rules every route shares: 404 for unknown paths, 405 with `Allow`, OPTIONS 204,
//! `invalid_query`, the order of those checks, and a fresh X-Request-Id on every answer.

use std::collections::HashSet;

use http::Method;

use crate::common::{header_map, TestApp, TestResponse};

const PING_ALLOW: &str = "GET, OPTIONS";

#[tokio::test]
async fn unknown_paths_answer_404_not_found() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    // (/v1/lots/ is the lot route with an empty id, and /v1/lots//rates the rates
    // route with one, not unknown paths: lots.rs and unauthorized.rs cover them.) Under a lot only
    // `rates` and `blocked-periods` exist, exactly so spelled, without a trailing slash.
    let paths = [
        "/",
        "/v1",
        "/v1/",
        "/v1/nope",
        "/ping",
        "/v1/ping/",
        "/v1/PING",
        "/v1/ping/x",
        "/v1//ping",
        "/v2/ping",
        "/v1/pin",
        "/v1/ping%20",
        "/v1/lots/abc/",
        "/v1/lots/abc/nope",
        "/v1/lots/abc/rates/",
        "/v1/lots/abc/Rates",
        "/v1/lots/abc/blocked-periods/",
        "/v1/lots/abc/blocked_periods",
        "/v1/lots/a/b/rates",
        "/v1/lots/abc/rates/x",
    ];
    for path in paths {
        for authorization in [None, Some(bearer.as_str())] {
            let headers: Vec<(&str, &str)> = authorization.map(|a| ("authorization", a)).into_iter().collect();
            let response = app.get(path, &headers).await;
            assert_eq!(response.status, 404, "GET {path}");
            response.assert_error(404, "not_found", None);
            assert_eq!(response.header("allow"), None);
            response.request_id();
        }
    }
}

#[tokio::test]
async fn an_unknown_path_answers_404_whatever_the_method_or_query() {
    let app = TestApp::spawn().await;
    for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH, Method::OPTIONS] {
        let response = app.request(method.clone(), "/v1/nope?foo=1&foo=2", header_map(&[]), "").await;
        response.assert_error(404, "not_found", None);
        assert_eq!(response.header("allow"), None, "{method}");
    }
    let response = app.request(Method::HEAD, "/v1/nope", header_map(&[]), "").await;
    assert_eq!(response.status, 404);
    response.request_id();
}

#[tokio::test]
async fn other_methods_on_ping_answer_405_with_allow() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
        for headers in
            [header_map(&[]), header_map(&[("authorization", &bearer), ("content-type", "application/json")])]
        {
            let response = app.request(method.clone(), "/v1/ping", headers, "{}").await;
            response.assert_error(405, "method_not_allowed", None);
            assert_eq!(response.header("allow"), Some(PING_ALLOW), "{method}");
            response.request_id();
        }
    }
}

#[tokio::test]
async fn head_on_ping_answers_405_with_allow() {
    let app = TestApp::spawn().await;
    let response = app.request(Method::HEAD, "/v1/ping", header_map(&[]), "").await;
    assert_eq!(response.status, 405);
    assert_eq!(response.header("allow"), Some(PING_ALLOW));
    assert!(response.body.is_empty(), "HEAD answers carry no body");
    response.request_id();
}

#[tokio::test]
async fn options_on_ping_answers_204_with_allow_and_no_body() {
    let app = TestApp::spawn().await;
    for path in ["/v1/ping", "/v1/ping?anything=1"] {
        let response = app.request(Method::OPTIONS, path, header_map(&[]), "").await;
        assert_eq!(response.status, 204, "{path}");
        assert_eq!(response.header("allow"), Some(PING_ALLOW));
        assert!(response.body.is_empty());
        assert_eq!(response.header("content-type"), None);
        response.request_id();
    }
}

#[tokio::test]
async fn an_unknown_query_parameter_answers_422_invalid_query_naming_it() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    let cases = [
        ("foo=1", "foo"),
        ("foo", "foo"),
        ("foo=", "foo"),
        ("f%6Fo=1", "foo"),
        ("a+b=1", "a b"),
        ("dry_run=true", "dry_run"),
        ("limit=5", "limit"),
    ];
    for (query, field) in cases {
        let path = format!("/v1/ping?{query}");
        let response = app.get(&path, &[("authorization", &bearer)]).await;
        response.assert_error(422, "invalid_query", Some(field));
        response.request_id();
    }
}

#[tokio::test]
async fn a_repeated_query_parameter_answers_422_naming_it() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let response = app.get("/v1/ping?a=1&a=2", &[("authorization", &credential.bearer())]).await;
    response.assert_error(422, "invalid_query", Some("a"));
}

#[tokio::test]
async fn an_empty_query_string_is_no_parameter() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let response = app.get("/v1/ping?", &[("authorization", &credential.bearer())]).await;
    assert_eq!(response.status, 200);
}

#[tokio::test]
async fn checks_run_in_order_route_then_method_then_query_then_credential() {
    let app = TestApp::spawn().await;
    // 404 before 405 and before the query
    app.request(Method::POST, "/v1/nope?foo=1", header_map(&[]), "").await.assert_error(404, "not_found", None);
    // 405 before the query
    let response = app.request(Method::POST, "/v1/ping?foo=1", header_map(&[]), "").await;
    response.assert_error(405, "method_not_allowed", None);
    assert_eq!(response.header("allow"), Some(PING_ALLOW));
    // the query before the credential: no credential, a garbage one, neither is looked at yet
    app.get("/v1/ping?foo=1", &[]).await.assert_error(422, "invalid_query", Some("foo"));
    app.get("/v1/ping?foo=1", &[("authorization", "Bearer nodot")]).await.assert_error(
        422,
        "invalid_query",
        Some("foo"),
    );
    // and only then the credential
    app.get("/v1/ping", &[]).await.assert_error(401, "unauthorized", None);
}

#[tokio::test]
async fn the_base_path_comes_from_settings() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("BASE_PATH", "/api/v1");
    })
    .await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    let response = app.get("/api/v1/ping", &[("authorization", &bearer)]).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["key_id"], credential.key_id.as_str());
    app.get("/v1/ping", &[("authorization", &bearer)]).await.assert_error(404, "not_found", None);
    app.get("/api/ping", &[("authorization", &bearer)]).await.assert_error(404, "not_found", None);
    // The document sits at the root above the base and names the base relative to itself: /api/v1.
    let document = app.get("/api/openapi.json", &[]).await.json();
    assert_eq!(document["servers"][0]["url"], "./v1");
    assert!(document["paths"]["/ping"]["get"].is_object());
}

#[tokio::test]
async fn every_answer_carries_a_fresh_request_id_never_the_clients() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    let client_id = "client-chosen-request-id";
    let mut responses: Vec<TestResponse> = Vec::new();
    for round in 0..5 {
        let with_id = |extra: &[(&'static str, &str)]| {
            let mut pairs = vec![("x-request-id", client_id)];
            pairs.extend_from_slice(extra);
            header_map(&pairs)
        };
        let auth = [("authorization", bearer.as_str())];
        responses.push(app.request(Method::GET, "/v1/ping", with_id(&auth), "").await); // 200
        responses.push(app.request(Method::GET, "/v1/ping", with_id(&[]), "").await); // 401
        responses.push(app.request(Method::GET, "/v1/ping?x=1", with_id(&auth), "").await); // 422
        responses.push(app.request(Method::GET, "/v1/nope", with_id(&auth), "").await); // 404
        responses.push(app.request(Method::POST, "/v1/ping", with_id(&auth), "").await); // 405
        responses.push(app.request(Method::HEAD, "/v1/ping", with_id(&[]), "").await); // 405, no body
        responses.push(app.request(Method::OPTIONS, "/v1/ping", with_id(&[]), "").await); // 204
        responses.push(app.request(Method::DELETE, "/v1/ping", with_id(&[]), "").await); // 405
        responses.push(app.request(Method::GET, "/ping", with_id(&[]), "").await); // 404
        responses.push(app.request(Method::GET, "/v1/ping?a=1&a=2", with_id(&[]), "").await); // 422
        assert_eq!(responses.len(), (round + 1) * 10);
    }
    let statuses: HashSet<u16> = responses.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses, HashSet::from([200, 204, 401, 404, 405, 422]));

    let mut seen = HashSet::new();
    for response in &responses {
        let id = response.request_id();
        assert_ne!(id, client_id, "the client's X-Request-Id is never echoed");
        assert!(id.bytes().all(|b| b.is_ascii_graphic()), "{id:?}");
        assert!(seen.insert(id.to_string()), "request id {id} answered twice");
    }
    assert_eq!(seen.len(), 50);
}

#[tokio::test]
async fn the_openapi_document_is_served_at_the_root_without_a_credential() {
    let app = TestApp::spawn().await;
    let response = app.get("/openapi.json", &[]).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    let document = response.json();
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["info"]["version"], "v1");
    let paths: Vec<&String> = document["paths"].as_object().unwrap().keys().collect();
    for path in [
        "/ping",
        "/lots",
        "/lots/{external_id}",
        "/lots/{external_id}/rates",
        "/lots/{external_id}/blocked-periods",
        "/bookings",
    ] {
        assert!(paths.iter().any(|p| *p == path), "{path} in {paths:?}");
    }
    assert!(document["webhooks"]["booking.changed"]["post"].is_object());
    // The server URL is the base, relative to the document: a client resolving it calls the routes.
    assert_eq!(document["servers"][0]["url"], "./v1");
    app.get("/v1/ping", &[]).await.assert_error(401, "unauthorized", None);
    response.request_id();

    let refused = app.request(http::Method::POST, "/openapi.json", Default::default(), "").await;
    refused.assert_error(405, "method_not_allowed", None);
    assert_eq!(refused.header("allow"), Some("GET, OPTIONS"));
    app.get("/openapi.json?x=1", &[]).await.assert_error(422, "invalid_query", Some("x"));
    app.get("/v1/openapi.json", &[]).await.assert_error(404, "not_found", None);
}

#[tokio::test]
async fn the_documentation_page_is_served_at_the_root_without_a_credential_and_keeps_to_itself() {
    let app = TestApp::spawn().await;
    let response = app.get("/docs", &[]).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(response.header("x-content-type-options"), Some("nosniff"));
    let expected = gateway::openapi::page::page(&gateway::openapi::document("/v1"));
    assert_eq!(response.header("content-security-policy"), Some(expected.content_security_policy.as_str()));
    assert!(expected.content_security_policy.starts_with("default-src 'none'; script-src 'sha256-"));
    assert!(expected.content_security_policy.ends_with("; frame-ancestors 'none'"));
    let page = String::from_utf8(response.body.to_vec()).unwrap();
    assert_eq!(page, expected.html);
    // The document itself is in the page, so the page asks nothing of this host or any other.
    assert!(page.contains(r#"SwaggerUIBundle({ spec: {"#));
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
    response.request_id();
    // `ingest openapi --html` prints the same page.
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_ingest"))
        .args(["openapi", "--html"])
        .env("BASE_PATH", "/v1")
        .output()
        .unwrap();
    assert!(printed.status.success());
    assert!(printed.stdout == page.as_bytes(), "the printed page differs from the served one");

    // Kept by a client, it is asked again for nothing; taken as gzip, it is the same page, smaller.
    let etag = response.header("etag").unwrap().to_string();
    assert_eq!(response.header("cache-control"), Some("public, max-age=300"));
    assert_eq!(response.header("vary"), Some("accept-encoding"));
    let again = app.get("/docs", &[("if-none-match", &etag)]).await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    assert_eq!(app.get("/docs", &[("if-none-match", "\"other\"")]).await.status, 200);
    let compressed = app.get("/docs", &[("accept-encoding", "br;q=1, gzip;q=0.8")]).await;
    assert_eq!(compressed.header("content-encoding"), Some("gzip"));
    assert!(compressed.body.len() * 3 < page.len(), "{} bytes compressed", compressed.body.len());
    let mut unzipped = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&compressed.body[..]), &mut unzipped).unwrap();
    assert_eq!(unzipped, page);
    let refused_gzip = app.get("/docs", &[("accept-encoding", "gzip;q=0")]).await;
    assert_eq!(refused_gzip.header("content-encoding"), None);
    assert_eq!(refused_gzip.body.len(), page.len());

    let refused = app.request(http::Method::POST, "/docs", Default::default(), "").await;
    refused.assert_error(405, "method_not_allowed", None);
    assert_eq!(refused.header("allow"), Some("GET, OPTIONS"));
    assert_eq!(app.request(http::Method::OPTIONS, "/docs", Default::default(), "").await.status, 204);
    app.get("/docs?x=1", &[]).await.assert_error(422, "invalid_query", Some("x"));
    app.get("/v1/docs", &[]).await.assert_error(404, "not_found", None);
    app.get("/docs/", &[]).await.assert_error(404, "not_found", None);
}

#[tokio::test]
async fn an_unknown_parameter_name_is_echoed_only_when_short_and_free_of_control_characters() {
    let app = TestApp::spawn().await;
    let long = "n".repeat(10_000);
    let response = app.get(&format!("/v1/ping?{long}=1"), &[]).await;
    response.assert_error(422, "invalid_query", None);
    for byte in 0u8..0x20 {
        let response = app.get(&format!("/v1/ping?a%{byte:02X}b=1"), &[]).await;
        response.assert_error(422, "invalid_query", None);
    }
    app.get("/v1/ping?odd=1", &[]).await.assert_error(422, "invalid_query", Some("odd"));
}

/// Sends `request` on a new raw connection, then `GET /v1/ping` on the same connection, as a
/// keep-alive client would: answers the first answer's head (lower-cased), and the second answer's
/// status line or None when the server had closed the connection after the first.
async fn request_then_ping_on_one_connection(app: &TestApp, request: &[u8]) -> (String, Option<String>) {
    use tokio::io::AsyncWriteExt;
    let mut stream = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let first = crate::common::read_raw_answer(&mut stream).await.expect("an answer to the first request");
    let head = first.split("\r\n\r\n").next().unwrap_or("").to_lowercase();
    // Writing to a connection the server closed may fail (reset) or seem to succeed.
    let second = match stream.write_all(b"GET /v1/ping HTTP/1.1\r\nhost: x\r\n\r\n").await {
        Ok(()) => crate::common::read_raw_answer(&mut stream).await,
        Err(_) => None,
    };
    (head, second.map(|text| text.lines().next().unwrap_or("").to_string()))
}

/// A request with a body of `length` bytes announced by Content-Length.
fn with_body(method: &str, path: &str, extra_headers: &str, length: usize) -> Vec<u8> {
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nhost: x\r\ncontent-length: {length}\r\n{extra_headers}\r\n").into_bytes();
    request.resize(request.len() + length, b' ');
    request
}

/// Keep-alive a client can trust: every answer given without reading the request's body says
/// `Connection: close` and closes (a client that reused the connection would otherwise find it
/// closed under its next request); every answer given after reading it keeps the connection, and the
/// next request on it is answered.
#[tokio::test]
async fn an_answer_that_leaves_the_body_unread_says_connection_close_and_one_that_read_it_keeps_the_connection() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = format!("authorization: {}\r\n", credential.bearer());
    let json = "content-type: application/json\r\n";
    let json_with_bearer = format!("{json}{bearer}");
    let mut chunked_over_the_limit =
        format!("PUT /v1/lots/x HTTP/1.1\r\nhost: x\r\n{json}transfer-encoding: chunked\r\n\r\n").into_bytes();
    for _ in 0..3 {
        chunked_over_the_limit.extend_from_slice(format!("{:x}\r\n{}\r\n", 30_000, " ".repeat(30_000)).as_bytes());
    }
    let unread: Vec<(&str, Vec<u8>)> = vec![
        ("404", with_body("PUT", "/v1/nowhere", json, 5)),
        ("405", with_body("POST", "/v1/ping", json, 5)),
        ("204", with_body("OPTIONS", "/v1/lots/x", json, 5)),
        ("413", with_body("PUT", "/v1/lots/x", &json_with_bearer, 70_000)),
        // Found over the limit while reading: the rest stays unread.
        ("413", chunked_over_the_limit),
        // A GET whose route takes no body: it is never read.
        ("200", with_body("GET", "/v1/ping", &bearer, 5)),
        ("401", with_body("GET", "/v1/lots", json, 5)),
    ];
    for (status, request) in unread {
        let (head, second) = request_then_ping_on_one_connection(&app, &request).await;
        assert!(head.starts_with(&format!("http/1.1 {status}")), "{head}");
        assert!(head.contains("connection: close"), "{status} says Connection: close: {head}");
        assert_eq!(second, None, "{status}: the server closed the connection after answering");
    }

    let read: Vec<(&str, Vec<u8>)> = vec![
        ("415", with_body("PUT", "/v1/lots/x", &bearer, 5)),
        ("422", with_body("PUT", "/v1/lots/x?nope=1", &json_with_bearer, 5)),
        ("401", with_body("PUT", "/v1/lots/x", json, 5)),
    ];
    for (status, request) in read {
        let (head, second) = request_then_ping_on_one_connection(&app, &request).await;
        assert!(head.starts_with(&format!("http/1.1 {status}")), "{head}");
        assert!(!head.contains("connection: close"), "{status} keeps the connection: {head}");
        assert_eq!(
            second.as_deref(),
            Some("HTTP/1.1 401 Unauthorized"),
            "{status}: the next request on the connection is answered"
        );
    }
    let body = r#"{"name":"Kept","timezone":"Europe/Paris","handover":"self","online_bookable":false}"#;
    let mut put =
        format!("PUT /v1/lots/kept HTTP/1.1\r\nhost: x\r\n{json_with_bearer}content-length: {}\r\n\r\n", body.len())
            .into_bytes();
    put.extend_from_slice(body.as_bytes());
    let (head, second) = request_then_ping_on_one_connection(&app, &put).await;
    assert!(head.starts_with("http/1.1 201") && !head.contains("connection: close"), "{head}");
    assert_eq!(second.as_deref(), Some("HTTP/1.1 401 Unauthorized"), "after a write the connection is kept");
}

/// The rate-limit refusals come before the body is read (docs/design.md): they close too.
#[tokio::test]
async fn a_rate_limit_refusal_before_the_body_says_connection_close() {
    let app = TestApp::spawn_with(|settings| {
        settings.set("RATE_LIMITS", "on");
        settings.set("RATE_LIMIT_FAILED_AUTH", "1/3600s");
    })
    .await;
    let json = "content-type: application/json\r\n";
    let wrong = "authorization: Bearer pk_api_00000000000000000000000000000000.nope\r\n";
    // The source's one failed-authentication token is spent; the next PUT is refused before its body.
    let (head, _) =
        request_then_ping_on_one_connection(&app, &with_body("PUT", "/v1/lots/x", &format!("{json}{wrong}"), 5)).await;
    assert!(head.starts_with("http/1.1 401") && !head.contains("connection: close"), "{head}");
    let (head, second) = request_then_ping_on_one_connection(&app, &with_body("PUT", "/v1/lots/x", json, 5)).await;
    assert!(head.starts_with("http/1.1 429") && head.contains("connection: close"), "{head}");
    assert_eq!(second, None);

    let app = TestApp::spawn_with(|settings| {
        settings.set("RATE_LIMITS", "on");
        settings.set("RATE_LIMIT_ALL_REQUESTS", "1/3600s");
    })
    .await;
    let (head, _) = request_then_ping_on_one_connection(&app, b"GET /v1/nope HTTP/1.1\r\nhost: x\r\n\r\n").await;
    assert!(head.starts_with("http/1.1 404"), "{head}");
    let (head, second) = request_then_ping_on_one_connection(&app, &with_body("PUT", "/v1/lots/x", json, 5)).await;
    assert!(head.starts_with("http/1.1 429") && head.contains("connection: close"), "{head}");
    assert_eq!(second, None);
}
