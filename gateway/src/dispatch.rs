//! One request, from arrival to answer, in the order of checks docs/design.md fixes: the source's
//! all-requests bucket (429), route (404), verb (405, OPTIONS), the source's failed-authentication
//! bucket (429), body size (413) and content type (415) on the write routes, query syntax (422
//! `invalid_query`), the credential's buckets (429), then the route's single database call. Every
//! answer gets a fresh `X-Request-Id`; every request writes one log line, and every write a second
//! one.
//!
//! Once its database call has begun, a request runs to its end whatever its client does
//! ([`handle_to_the_end`]): hyper drops a request's future when the connection closes under it, so
//! each request is a task of its own, and the connection only waits for its answer. Its database
//! call, the settlement of its rate-limit buckets on the real outcome (a 401 gives the key's tokens
//! back and spends the source's failed-authentication token; a success spends the key's), its log
//! line and its metrics all happen; a request whose client had gone is logged and counted with
//! status 499 ("client closed request"), the answer it would have had in the line's `outcome`.
//! Before that, while it waits for its turn among the requests under way or for a pooled
//! connection, a request whose client goes is given up ([`ClientWatch`]): logged 499 with a
//! `cause` and no `outcome`, its credential's tokens given back; clients that vanish so hold no
//! more of the bound than the pool's connections.

use std::future::Future;
use std::net::IpAddr;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use futures_util::FutureExt as _;
use http::header::{HeaderValue, CONNECTION, CONTENT_LENGTH, TRANSFER_ENCODING};
use http::request::Parts;
use http::{Method, Request, Response, StatusCode};

use crate::admission::{Admission, Cost};
use crate::body;
use crate::client_watch::ClientWatch;
use crate::config::Config;
use crate::credential::presented_key_id;
use crate::db::{Answer, Database};
use crate::errors::ApiError;
use crate::handlers;
use crate::metrics::{self, Metrics, WebhookMetrics};
use crate::openapi;
use crate::query;
use crate::ratelimit::RateLimiter;
use crate::response::{self, Body, REQUEST_ID};
use crate::routes::{self, Bucket, Matched};
use crate::source::{source_address, FORWARDED_CLIENT};
use crate::standby::Standby;
use crate::telemetry::{LogSink, RequestLine, WriteLine};
use tokio::sync::{watch, Semaphore};
use tokio_util::task::TaskTracker;

pub struct AppState {
    pub config: Config,
    pub db: Database,
    /// The hot standby that serves the feed (`DATABASE_READ_URL`), when set.
    pub standby: Option<Standby>,
    pub log: LogSink,
    /// None when `RATE_LIMITS=off`.
    pub limiter: Option<RateLimiter>,
    /// What the admin listener's `/metrics` serves (requests, rate limits, the pool; the webhook
    /// worker's too when it runs in this process).
    pub metrics: Metrics,
    /// The OpenAPI document and its page, made once, and where they are served.
    published: Published,
    /// Turns true when shutdown begins: a request whose body is still arriving is given up.
    draining: watch::Sender<bool>,
    /// Turns true when a shutdown is announced (the signal), before draining begins: `/readyz`
    /// answers 503 from then on.
    stopping: AtomicBool,
    /// Every request's task, those whose client has gone included: shutdown waits for them.
    requests: TaskTracker,
    /// One permit per request under way, those whose client went after their database call began
    /// included: at most `MAX_CONNECTIONS`, so clients that vanish cannot leave more work behind
    /// them than open connections could have (a request past it waits for one to end, or for its
    /// client to go).
    in_flight: Arc<Semaphore>,
    /// The API listener's connections: one permit each (at most `MAX_CONNECTIONS`), and how many
    /// are open (`crate::listener`).
    pub connection_slots: Arc<Semaphore>,
    pub open_connections: Arc<AtomicUsize>,
}

impl AppState {
    pub fn new(config: Config, db: Database, log: LogSink) -> AppState {
        let limiter = config.rate_limits.clone().map(RateLimiter::new);
        let bound = config.max_connections;
        let published = Published::new(&config.base_path);
        let metrics = Metrics::gateway(db.metrics());
        AppState {
            config,
            db,
            standby: None,
            log,
            limiter,
            metrics,
            published,
            draining: watch::Sender::new(false),
            stopping: AtomicBool::new(false),
            requests: TaskTracker::new(),
            in_flight: Arc::new(Semaphore::new(bound)),
            connection_slots: Arc::new(Semaphore::new(bound)),
            open_connections: Arc::default(),
        }
    }

    /// Serves the feed from `standby` (see [`Standby::from_config`]), and counts it.
    pub fn with_standby(mut self, standby: Option<Standby>) -> Self {
        if let Some(standby) = &standby {
            self.metrics.add_standby(standby.metrics());
        }
        self.standby = standby;
        self
    }

    /// Adds the metrics of the webhook worker running in this process.
    pub fn with_webhook_metrics(mut self, webhooks: &WebhookMetrics) -> Self {
        self.metrics.add_webhooks(webhooks);
        self
    }

    /// The metrics' exposition, the gauges read now (the pool, the rate-limit buckets held).
    pub fn render_metrics(&self) -> String {
        self.db.observe_pool();
        if let Some(standby) = &self.standby {
            standby.observe_pool();
        }
        self.metrics.rate_limits.buckets_held(self.limiter.as_ref().map_or(0, RateLimiter::held));
        let in_flight = self.config.max_connections.saturating_sub(self.in_flight.available_permits());
        self.metrics.http.load(self.open_connections.load(Ordering::Relaxed), in_flight);
        self.metrics.render()
    }

    /// The source a request from `peer` counts against: the peer, or the client the edge signed for
    /// (`crate::source`), checked against the clock now.
    pub fn source_of(&self, headers: &http::HeaderMap, peer: IpAddr) -> IpAddr {
        let now_unix = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs());
        let forwarded = headers.get_all(FORWARDED_CLIENT).iter().map(HeaderValue::as_bytes);
        let config = &self.config;
        source_address(peer, forwarded, config.edge_secret.as_deref(), &config.edge_peers, now_unix)
    }

    /// A shutdown was asked for: `/readyz` answers 503 from now on, while requests are still taken
    /// (for `SHUTDOWN_DRAIN_SECONDS`, then draining begins).
    pub fn announce_shutdown(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Whether a shutdown was announced or draining has begun.
    pub fn shutting_down(&self) -> bool {
        self.stopping.load(Ordering::Relaxed) || *self.draining.borrow()
    }

    /// Shutdown has begun: requests not yet fully received are given up (see [`Self::draining`]).
    pub fn begin_draining(&self) {
        self.announce_shutdown();
        self.draining.send_replace(true);
    }

    /// Completes once every request's task has ended. (Called once the connections are done, so
    /// that no request starts meanwhile.)
    pub async fn requests_finished(&self) {
        self.requests.close();
        self.requests.wait().await;
    }

    /// Completes once shutdown has begun (at once if it already has).
    pub fn draining(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut receiver = self.draining.subscribe();
        async move {
            let _ = receiver.wait_for(|draining| *draining).await;
        }
    }
}

/// A request whose client stalled or went away mid-body (status 499 in its log line): the
/// connection is dropped without an answer.
#[derive(Debug)]
pub struct ClientGone;

impl std::fmt::Display for ClientGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client went away before its request arrived")
    }
}

impl std::error::Error for ClientGone {}

/// nginx's "client closed request": the status logged for a request whose client went away.
const CLIENT_CLOSED: u16 = 499;

/// What the connection does with a handled request: answer it, or drop the connection.
pub fn answer_or_drop(response: Response<Body>) -> Result<Response<Body>, ClientGone> {
    match response.status().as_u16() {
        CLIENT_CLOSED => Err(ClientGone),
        _ => Ok(response),
    }
}

/// [`handle_guarded`] as a task of its own, so that it runs to its end even when the connection
/// drops this future (its client closed mid-request): see the module's documentation. The source
/// the request counts against is read here, as its head arrives, before any wait: a signed forward
/// is checked against the moment the edge signed it.
pub async fn handle_to_the_end<B>(state: Arc<AppState>, request: Request<B>, peer: IpAddr) -> Response<Body>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let client = ClientWatch::default();
    let _gone_when_dropped = client.gone_when_dropped();
    let source = state.source_of(request.headers(), peer);
    let log = state.log.clone();
    let requests = state.requests.clone();
    let task = requests.spawn(handle_guarded(state, request, source, client));
    match task.await {
        Ok(response) => response,
        // (handle_guarded answers a panic itself; this is one outside it)
        Err(error) if error.is_panic() => panic_answer(&log),
        // The runtime is shutting down.
        Err(_) => response::error(&ApiError::database_unavailable("the runtime is shutting down")),
    }
}

/// [`handle`], with a panic anywhere in it answered to that request as the stable 500 (and logged
/// with a request id) rather than tearing down the connection; the process goes on serving.
pub async fn handle_guarded<B>(
    state: Arc<AppState>,
    request: Request<B>,
    source: IpAddr,
    client: ClientWatch,
) -> Response<Body>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let log = state.log.clone();
    let (started, method, counted) = (Instant::now(), request.method().clone(), state.clone());
    let panicked = move || counted.metrics.http.request(Some(metrics::UNKNOWN), &method, 500, started.elapsed());
    answer_even_if_it_panics(&log, handle(state, request, source, client), panicked).await
}

/// Runs `handling`; if it panics, answers 500 `internal_error` with a fresh `X-Request-Id`, writes
/// the request line for it (cause `panic`) and calls `panicked` (which counts it).
pub async fn answer_even_if_it_panics(
    log: &LogSink,
    handling: impl Future<Output = Response<Body>>,
    panicked: impl FnOnce(),
) -> Response<Body> {
    match AssertUnwindSafe(handling).catch_unwind().await {
        Ok(response) => response,
        Err(_) => {
            panicked();
            panic_answer(log)
        }
    }
}

/// The stable 500 for a request whose handling panicked, with a fresh `X-Request-Id`, and its request
/// line (cause `panic`).
fn panic_answer(log: &LogSink) -> Response<Body> {
    let request_id = uuid::Uuid::new_v4().to_string();
    let mut response = response::error(&ApiError::internal("panic"));
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    log.write(serde_json::json!({
        "message": "request",
        "request_id": request_id,
        "status": 500,
        "cause": "panic",
    }));
    response
}

/// One request, counted against `source` ([`AppState::source_of`]).
pub async fn handle<B>(state: Arc<AppState>, request: Request<B>, source: IpAddr, client: ClientWatch) -> Response<Body>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let started = Instant::now();
    let request_id = uuid::Uuid::new_v4().to_string();
    let (parts, body) = request.into_parts();
    let matched = routes::match_path(&state.config.base_path, parts.uri.path());
    let publication = state.published.at(parts.uri.path());
    let route = matched.as_ref().map(|m| m.route.template()).or(publication.map(Publication::route));
    // The key id the request presents: its credential's rate-limit buckets, and its log line.
    let key_id = presented_key_id(handlers::authorization(&parts));
    let mut admission = Admission::new(state.limiter.as_ref(), source, key_id);

    let mut body_read = false;
    // Its turn among the requests under way (`MAX_CONNECTIONS`), held to its end; a request whose
    // client leaves while it waits is abandoned.
    let in_flight = tokio::select! {
        biased;
        () = client.gone() => None,
        permit = state.in_flight.clone().acquire_owned() => Some(permit.expect("the semaphore is never closed")),
    };
    let outcome = match &in_flight {
        None => Err(ApiError::client_abort("the client went away while the request waited for its turn")),
        Some(_) => match admission.request() {
            Ok(()) => match publication {
                Some(publication) => state.published.answer(publication, &parts),
                None => answer(&state, &mut admission, matched, &parts, body, &mut body_read, &client).await,
            },
            Err(refusal) => Err(refusal),
        },
    };
    let (mut response, cause, answer_body) = match outcome {
        Ok((response, answer_body)) => (response, None, answer_body),
        Err(error) => (response::error(&error), error.cause, None),
    };
    if let Some(bucket) = admission.refused_bucket() {
        state.metrics.rate_limits.refused(bucket);
    }
    admission.settle(response.status(), response.headers_mut());
    // An answer that leaves a body unread (404, 405, 413, 429, …) ends the connection, and says so:
    // a client that reused it would otherwise find it closed under its next request.
    if announces_body(&parts.headers) && !body_read {
        response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    }
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }

    let elapsed = started.elapsed();
    // The answer no one is waiting for any more: logged and counted as the client's close.
    let answered = response.status().as_u16();
    let outcome = (client.has_gone() && answered != CLIENT_CLOSED).then_some(answered);
    let status = if outcome.is_some() { CLIENT_CLOSED } else { answered };
    state.metrics.http.request(route, &parts.method, status, elapsed);
    let line = RequestLine {
        request_id: &request_id,
        key_id,
        method: parts.method.as_str(),
        route,
        status,
        duration_ms: elapsed.as_secs_f64() * 1000.0,
        cause: cause.as_deref(),
        outcome,
    };
    state.log.write_request(&line);
    if let (Some(route), Some(report)) = (route, answer_body) {
        if let Some(line) = WriteLine::from_report(&request_id, key_id, route, &report[..]) {
            state.log.write(line);
        }
    }
    response
}

/// The response, and for a successful write the report it carries (for the write log line).
async fn answer<B>(
    state: &AppState,
    admission: &mut Admission<'_>,
    matched: Option<Matched>,
    parts: &Parts,
    body: B,
    body_read: &mut bool,
    client: &ClientWatch,
) -> Result<(Response<Body>, Option<Bytes>), ApiError>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let Matched { route, external_id } = matched.ok_or_else(ApiError::not_found)?;
    if parts.method == Method::OPTIONS {
        return Ok((response::options(&route.allow()), None));
    }
    let Some(operation) = route.operation(&parts.method) else {
        return Ok((response::method_not_allowed(&route.allow()), None));
    };
    admission.source_may_authenticate()?;
    // An operation with a body is a write: a JSON body, `dry_run`, and a write log line. 413
    // (announced, then found while reading) before 415; a body that is not UTF-8 reaches the
    // database as NULL, which refuses it as `invalid_json` after the credential like any other
    // body fault.
    let writes = operation.body.is_some();
    let text = if writes {
        body::check_length(&parts.headers)?;
        let text = body::read(body, state.config.body_timeout, state.draining()).await?;
        *body_read = true;
        body::check_content_type(&parts.headers)?;
        text
    } else {
        None
    };
    // Every query value is checked before the credential is counted (docs/design.md).
    let query = query::check(parts.uri.query(), operation.query)?;
    admission.credential(match (operation.bucket, query.dry_run) {
        (Bucket::Read, _) => Cost::Read,
        (Bucket::Write, false) => Cost::Write,
        (Bucket::Write, true) => Cost::DryRunWrite,
    })?;
    let authorization = handlers::authorization(parts);
    let values = handlers::values(&operation.call, authorization, external_id.as_deref(), &query, text.as_deref());
    let answer = match (&state.standby, &operation.standby) {
        (Some(standby), Some(call)) => standby.page(&state.db, call, &operation.call, &values, client).await?,
        _ => handlers::call(&state.db, &operation.call, &values, client).await?,
    };
    let report = writes.then(|| answer.body.clone());
    Ok((from_answer(answer), report))
}

/// What the gateway publishes at the root, beside the API: the OpenAPI document and its page.
struct Published {
    document_path: String,
    document: Representation,
    /// What the page is made from.
    document_value: serde_json::Value,
    page_path: String,
    /// The page and its policy, made at its first request: making it (two megabytes, their hashes)
    /// has no place in every start, and most gateways are never asked for it.
    page: OnceLock<(Representation, HeaderValue)>,
}

/// One published text: as it is, with its entity tag, so a client that keeps it asks again for
/// nothing (304); gzip-compressed, once, when a client first takes gzip.
struct Representation {
    identity: Bytes,
    gzip: OnceLock<Bytes>,
    etag: HeaderValue,
}

impl Representation {
    fn new(text: String) -> Representation {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(text.as_bytes());
        let tag: String = digest[..12].iter().map(|byte| format!("{byte:02x}")).collect();
        Representation {
            identity: Bytes::from(text),
            gzip: OnceLock::new(),
            etag: HeaderValue::from_str(&format!("\"{tag}\"")).expect("hex is a header value"),
        }
    }

    fn gzip(&self) -> Bytes {
        self.gzip
            .get_or_init(|| {
                let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                std::io::Write::write_all(&mut encoder, &self.identity).expect("writing to memory");
                Bytes::from(encoder.finish().expect("writing to memory"))
            })
            .clone()
    }

    /// The answer to `headers`: 304 when the client holds this version, else the text, gzip when
    /// the client takes it.
    fn answer(&self, headers: &http::HeaderMap, content: impl FnOnce(Bytes) -> Response<Body>) -> Response<Body> {
        let held =
            headers.get_all(http::header::IF_NONE_MATCH).iter().filter_map(|v| v.to_str().ok()).any(|v| {
                v.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == self.etag)
            });
        let mut response = if held {
            let mut response = Response::new(Body::new(Bytes::new()));
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        } else if takes_gzip(headers) {
            let mut response = content(self.gzip());
            response.headers_mut().insert(http::header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            response
        } else {
            content(self.identity.clone())
        };
        let answer_headers = response.headers_mut();
        answer_headers.insert(http::header::ETAG, self.etag.clone());
        answer_headers.insert(http::header::VARY, HeaderValue::from_static("accept-encoding"));
        answer_headers.insert(http::header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
        response
    }
}

/// Whether `Accept-Encoding` takes gzip (a `q` of 0 refuses it).
fn takes_gzip(headers: &http::HeaderMap) -> bool {
    headers.get_all(http::header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).any(|value| {
        value.split(',').any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            parts.next().is_some_and(|name| name.eq_ignore_ascii_case("gzip"))
                && !parts.any(|p| p.strip_prefix("q=").is_some_and(|q| q.trim_end_matches(['0', '.']).is_empty()))
        })
    })
}

#[derive(Clone, Copy)]
enum Publication {
    Document,
    Page,
}

impl Publication {
    /// The route label of its log lines and metrics.
    fn route(self) -> &'static str {
        match self {
            Publication::Document => "/openapi.json",
            Publication::Page => "/docs",
        }
    }
}

impl Published {
    fn new(base_path: &str) -> Published {
        let document_value = openapi::document(base_path);
        Published {
            document_path: openapi::path(base_path),
            document: Representation::new(document_value.to_string()),
            document_value,
            page_path: openapi::page::path(base_path),
            page: OnceLock::new(),
        }
    }

    fn page(&self) -> &(Representation, HeaderValue) {
        self.page.get_or_init(|| {
            let page = openapi::page::page(&self.document_value);
            let policy = HeaderValue::from_str(&page.content_security_policy).expect("the policy is ASCII");
            (Representation::new(page.html), policy)
        })
    }

    fn at(&self, path: &str) -> Option<Publication> {
        if path == self.document_path {
            Some(Publication::Document)
        } else if path == self.page_path {
            Some(Publication::Page)
        } else {
            None
        }
    }

    /// `GET <root>/openapi.json` and `GET <root>/docs`: no credential, no query parameter, GET (and
    /// OPTIONS) only.
    fn answer(&self, publication: Publication, parts: &Parts) -> Result<(Response<Body>, Option<Bytes>), ApiError> {
        const ALLOW: &str = "GET, OPTIONS";
        match parts.method {
            Method::OPTIONS => Ok((response::options(ALLOW), None)),
            Method::GET => {
                query::check(parts.uri.query(), &[])?;
                let response = match publication {
                    Publication::Document => {
                        self.document.answer(&parts.headers, |body| response::json(StatusCode::OK, body))
                    }
                    Publication::Page => {
                        let (page, policy) = self.page();
                        page.answer(&parts.headers, |body| response::page(body, policy.clone()))
                    }
                };
                Ok((response, None))
            }
            _ => Ok((response::method_not_allowed(ALLOW), None)),
        }
    }
}

/// Whether the request carries a body: a Content-Length above zero, or any Transfer-Encoding.
fn announces_body(headers: &http::HeaderMap) -> bool {
    headers.contains_key(TRANSFER_ENCODING)
        || headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).is_some_and(|v| v.trim() != "0")
}

fn from_answer(answer: Answer) -> Response<Body> {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response::json(status, answer.body)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[tokio::test]
    async fn a_panic_while_handling_answers_the_stable_500_with_a_request_id_and_is_logged() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let log = LogSink::Memory(lines.clone());
        let counted = std::sync::atomic::AtomicUsize::new(0);
        let response = answer_even_if_it_panics(
            &log,
            async {
                if lines.lock().is_ok() {
                    panic!("a handler fault");
                }
                response::json(StatusCode::OK, "{}")
            },
            || {
                counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            },
        )
        .await;
        assert_eq!(counted.load(std::sync::atomic::Ordering::Relaxed), 1, "the panic is counted");
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let request_id = response.headers()[REQUEST_ID].to_str().unwrap().to_string();
        let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
        assert_eq!(&body[..], br#"{"error":"internal_error"}"#);
        let logged = lines.lock().unwrap().clone();
        assert_eq!(logged.len(), 1);
        assert_eq!(logged[0]["request_id"], request_id.as_str());
        assert_eq!((logged[0]["status"].as_u64(), logged[0]["cause"].as_str()), (Some(500), Some("panic")));

        // The next request is served as usual.
        let fine = answer_even_if_it_panics(&log, async { response::json(StatusCode::OK, "{}") }, || {
            panic!("a request that did not panic is not counted as one")
        })
        .await;
        assert_eq!(fine.status(), StatusCode::OK);
    }
}
