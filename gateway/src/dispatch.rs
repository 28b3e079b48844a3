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
//! status 499 ("client closed request"), the answer it would have had in the line's `outcome`
//! ([`Fate`]).
//! Before that, while it waits for its turn among the requests under way or for a pooled
//! connection, a request whose client goes is given up ([`ClientWatch`]): logged 499 with a
//! `cause` and no `outcome`, its credential's tokens given back; clients that vanish so hold no
//! more of the bound than the pool's connections.

use std::future::Future;
use std::net::IpAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use futures_util::FutureExt as _;
use http::header::{HeaderValue, CONNECTION, CONTENT_LENGTH, TRANSFER_ENCODING};
use http::request::Parts;
use http::{Method, Request, Response, StatusCode};

use crate::admission::{Admission, Cost};
use crate::body;
use crate::client_watch::ClientWatch;
use crate::credential::presented_key_id;
use crate::db::Answer;
use crate::errors::Refusal;
use crate::metrics::UNKNOWN;
use crate::outcome::{Answered, Fate, Stop};
use crate::published::PublishedText;
use crate::query;
use crate::request_call;
use crate::response::{self, Body, REQUEST_ID};
use crate::routes::{self, Bucket, Matched};
use crate::state::AppState;
use crate::telemetry::{LogSink, RequestLine, WriteLine};

pub mod metrics;

/// [`handle_guarded`] as a task of its own, so that it runs to its end even when the connection
/// drops this future (its client closed mid-request): see the module's documentation. The source
/// the request counts against is read here, as its head arrives, before any wait: a signed forward
/// is checked against the moment the edge signed it.
pub async fn handle_to_the_end<B>(state: Arc<AppState>, request: Request<B>, peer: IpAddr) -> Fate
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
        Ok(fate) => fate,
        // (handle_guarded answers a panic itself; this is one outside it)
        Err(error) if error.is_panic() => panic_answer(&log),
        // The runtime is shutting down.
        Err(_) => Fate::Answered(Answered::refused(Refusal::transient("the runtime is shutting down"))),
    }
}

/// [`handle`], with a panic anywhere in it answered to that request as the stable 500 (and logged
/// with a request id) rather than tearing down the connection; the process goes on serving.
pub async fn handle_guarded<B>(state: Arc<AppState>, request: Request<B>, source: IpAddr, client: ClientWatch) -> Fate
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let log = state.log.clone();
    let (started, method, counted) = (Instant::now(), request.method().clone(), state.clone());
    let panicked = move || counted.metrics.http.request(Some(UNKNOWN), &method, 500, started.elapsed());
    answer_even_if_it_panics(&log, handle(state, request, source, client), panicked).await
}

/// Runs `handling`; if it panics, answers 500 `internal_error` with a fresh `X-Request-Id`, writes
/// the request line for it (cause `panic`) and calls `panicked` (which counts it).
pub async fn answer_even_if_it_panics(
    log: &LogSink,
    handling: impl Future<Output = Fate>,
    panicked: impl FnOnce(),
) -> Fate {
    match AssertUnwindSafe(handling).catch_unwind().await {
        Ok(fate) => fate,
        Err(_) => {
            panicked();
            panic_answer(log)
        }
    }
}

/// The stable 500 for a request whose handling panicked, with a fresh `X-Request-Id`, and its request
/// line (cause `panic`).
fn panic_answer(log: &LogSink) -> Fate {
    let request_id = uuid::Uuid::new_v4().to_string();
    let mut answered = Answered::refused(Refusal::internal("panic"));
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        answered.response.headers_mut().insert(REQUEST_ID, value);
    }
    log.write(serde_json::json!({
        "message": "request",
        "request_id": request_id,
        "status": 500,
        "cause": "panic",
    }));
    Fate::Answered(answered)
}

/// One request, counted against `source` ([`AppState::source_of`]): its [`Checks`], then what
/// became of it settled, logged and counted.
pub async fn handle<B>(state: Arc<AppState>, request: Request<B>, source: IpAddr, client: ClientWatch) -> Fate
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let started = Instant::now();
    let request_id = uuid::Uuid::new_v4().to_string();
    let (parts, body) = request.into_parts();
    let matched = routes::match_path(&state.config.base_path, parts.uri.path());
    let published = state.published.at(parts.uri.path());
    let route = matched.as_ref().map(|m| m.route.template()).or(published.map(PublishedText::route));
    // The key id the request presents: its credential's rate-limit buckets, and its log line.
    let key_id = presented_key_id(request_call::authorization(&parts));
    let mut checks = Checks {
        state: &state,
        parts: &parts,
        client: &client,
        admission: Admission::new(state.limiter.as_ref(), source, key_id),
        body_read: false,
    };
    // Its turn among the requests under way (`MAX_CONNECTIONS`), held to its end; a request whose
    // client leaves while it waits is given up.
    let in_flight = tokio::select! {
        biased;
        () = client.gone() => None,
        permit = state.in_flight.clone().acquire_owned() => Some(permit.expect("the semaphore is never closed")),
    };
    let steps = match &in_flight {
        None => Err(Stop::ClientGone("the client went away while the request waited for its turn")),
        Some(_) => checks.run(matched, published, body).await,
    };
    let Checks { admission, body_read, .. } = checks;
    let mut fate = Fate::of(steps, client.has_gone());

    if let Some(bucket) = admission.refused_bucket() {
        state.metrics.rate_limits.refused(bucket);
    }
    match fate.answered_mut() {
        Some(answered) => {
            let status = answered.status();
            let headers = answered.response.headers_mut();
            admission.settle(status, headers);
            // An answer that leaves a body unread (404, 405, 413, 429, …) ends the connection, and
            // says so: a client that reused it would otherwise find it closed under its next request.
            if announces_body(&parts.headers) && !body_read {
                headers.insert(CONNECTION, HeaderValue::from_static("close"));
            }
            if let Ok(value) = HeaderValue::from_str(&request_id) {
                headers.insert(REQUEST_ID, value);
            }
        }
        None => admission.give_up(),
    }

    let elapsed = started.elapsed();
    state.metrics.http.request(route, &parts.method, fate.status(), elapsed);
    let line = RequestLine {
        request_id: &request_id,
        key_id,
        method: parts.method.as_str(),
        route,
        status: fate.status(),
        duration_ms: elapsed.as_secs_f64() * 1000.0,
        cause: fate.cause(),
        outcome: fate.would_have_been(),
    };
    state.log.write_request(&line);
    if let (Some(route), Some(report)) = (route, fate.report()) {
        if let Some(line) = WriteLine::from_report(&request_id, key_id, route, &report[..]) {
            state.log.write(line);
        }
    }
    fate
}

/// The order of checks of one request (docs/design.md), a step each, after its turn: every step
/// may stop it ([`Stop`]); the last is its route's database call.
struct Checks<'a> {
    state: &'a AppState,
    parts: &'a Parts,
    client: &'a ClientWatch,
    admission: Admission<'a>,
    /// Whether the body was read (an answer that leaves it unread closes the connection).
    body_read: bool,
}

impl Checks<'_> {
    async fn run<B>(
        &mut self,
        matched: Option<Matched>,
        published: Option<PublishedText>,
        body: B,
    ) -> Result<Answered, Stop>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        let parts = self.parts;
        self.admission.request()?;
        if let Some(text) = published {
            return Ok(Answered::with(self.state.published.answer(text, parts)?, None));
        }
        let Matched { route, external_id } = matched.ok_or_else(Refusal::not_found)?;
        if parts.method == Method::OPTIONS {
            return Ok(Answered::with(response::options(&route.allow()), None));
        }
        let Some(operation) = route.operation(&parts.method) else {
            return Ok(Answered::with(response::method_not_allowed(&route.allow()), None));
        };
        self.admission.source_may_authenticate()?;
        // An operation with a body is a write: a JSON body, `dry_run`, and a write log line. 413
        // (announced, then found while reading) before 415; a body that is not UTF-8 reaches the
        // database as NULL, which refuses it as `invalid_json` after the credential like any
        // other body fault.
        let writes = operation.body.is_some();
        let text = if writes {
            body::check_length(&parts.headers)?;
            let text = body::read(body, self.state.config.body_timeout, self.state.draining()).await?;
            self.body_read = true;
            body::check_content_type(&parts.headers)?;
            text
        } else {
            None
        };
        // Every query value is checked before the credential is counted (docs/design.md).
        let query = query::check(parts.uri.query(), operation.query)?;
        self.admission.credential(match (operation.bucket, query.dry_run) {
            (Bucket::Read, _) => Cost::Read,
            (Bucket::Write, false) => Cost::Write,
            (Bucket::Write, true) => Cost::DryRunWrite,
        })?;
        let authorization = request_call::authorization(parts);
        let values =
            request_call::values(&operation.call, authorization, external_id.as_deref(), &query, text.as_deref());
        let (state, client) = (self.state, self.client);
        let answer = match (&state.standby, &operation.standby) {
            (Some(standby), Some(call)) => standby.page(&state.db, call, &operation.call, &values, client).await?,
            _ => request_call::call(&state.db, &operation.call, &values, client).await?,
        };
        let report = writes.then(|| answer.body.clone());
        Ok(Answered::with(from_answer(answer), report))
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
        let fate = answer_even_if_it_panics(
            &log,
            async {
                if lines.lock().is_ok() {
                    panic!("a handler fault");
                }
                Fate::Answered(Answered::with(response::json(StatusCode::OK, "{}"), None))
            },
            || {
                counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            },
        )
        .await;
        assert_eq!(counted.load(std::sync::atomic::Ordering::Relaxed), 1, "the panic is counted");
        let response = fate.into_answer().unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let request_id = response.headers()[REQUEST_ID].to_str().unwrap().to_string();
        let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
        assert_eq!(&body[..], br#"{"error":"internal_error"}"#);
        let logged = lines.lock().unwrap().clone();
        assert_eq!(logged.len(), 1);
        assert_eq!(logged[0]["request_id"], request_id.as_str());
        assert_eq!((logged[0]["status"].as_u64(), logged[0]["cause"].as_str()), (Some(500), Some("panic")));

        // The next request is served as usual.
        let fine = answer_even_if_it_panics(
            &log,
            async { Fate::Answered(Answered::with(response::json(StatusCode::OK, "{}"), None)) },
            || panic!("a request that did not panic is not counted as one"),
        )
        .await;
        assert_eq!(fine.status(), 200);
    }
}
