//! The admin listener (`ADMIN_LISTEN_ADDR`, loopback by default): what the people who run the
//! service ask of it, apart from the API, whose routes and 404 rule stay exactly the spec's.
//!
//! | path | answer |
//! |---|---|
//! | `GET /livez` | 200 `{"status":"live"}` while the process serves |
//! | `GET /readyz` | 200 `{"status":"ready"}`, or 503 `{"status":"unready","reason":…}` ([`crate::readiness`]) |
//! | `GET /metrics` | the metrics ([`crate::metrics`]), OpenMetrics text |
//!
//! Any other path answers 404 `{"error":"not_found"}`, another verb 405 with `Allow: GET`. No
//! credential: keep the listener on a private address. Its requests write no log line (probes come
//! every few seconds); a change of readiness does.
//!
//! At most 64 connections at once, each with a deadline on its request head (10 s) and the API's
//! on a stalled answer (`SEND_TIMEOUT_MS`): a client that pipelines requests and never reads the
//! answers is closed once a write has waited that long, so such clients hold their slots for at
//! most that long. A client that reads a few bytes now and then resets the deadline: the listener's
//! only defence against it is its private address.
//!
//! For `serve`, readiness is the database's and the schema's ([`Probe`]), and turns 503
//! `shutting_down` as soon as a shutdown is announced; the listener keeps answering until the API
//! listener is done, so a balancer sees the 503, then stops. For `webhooks` (the worker alone),
//! ready means the worker reached the database in its last sweeps.

use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

use crate::listener::{self, Connections};
use crate::metrics::{Metrics, CONTENT_TYPE as METRICS_CONTENT_TYPE};
use crate::readiness::{Probe, Reason};
use crate::response::Body;
use crate::state::AppState;
use crate::webhooks::metrics::WebhookMetrics;

/// Admin connections open at once; more wait in the backlog.
const MAX_CONNECTIONS: usize = 64;
/// A request head must arrive within this.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// After the API is done, how long admin requests under way may finish.
const CLOSING_GRACE: Duration = Duration::from_secs(1);
/// The worker alone is unready when no sweep reached the database for this long (at least).
const WORKER_STALE_AFTER: Duration = Duration::from_secs(5);

/// What the listener reports on.
// One per process: the size of its variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Target {
    /// `ingest serve`: the gateway (and the worker's metrics when it runs inside).
    Gateway { state: Arc<AppState>, probe: Probe },
    /// `ingest webhooks`: the worker alone.
    Worker { metrics: Metrics, webhooks: WebhookMetrics, stale_after: Duration, stopping: watch::Receiver<bool> },
}

pub struct Admin {
    target: Target,
    /// The last verdict of `/readyz` (0: none yet, 1: ready, 2: unready), to log changes only.
    last_verdict: AtomicU8,
    /// How long one write of an answer may wait for the client to take bytes (`SEND_TIMEOUT_MS`).
    send_timeout: Duration,
}

impl Admin {
    /// The gateway's, with its `SEND_TIMEOUT_MS`.
    pub fn gateway(state: Arc<AppState>, probe: Probe) -> Admin {
        let send_timeout = state.config.send_timeout;
        Admin { target: Target::Gateway { state, probe }, last_verdict: AtomicU8::new(0), send_timeout }
    }

    /// The worker alone: ready while its sweeps reach the database (none for three sweep intervals,
    /// and at least 5 s, is unready) and until `stopping` turns true; `send_timeout` is its
    /// `SEND_TIMEOUT_MS`.
    pub fn worker(
        webhooks: WebhookMetrics,
        sweep_interval: Duration,
        stopping: watch::Receiver<bool>,
        send_timeout: Duration,
    ) -> Admin {
        let target = Target::Worker {
            metrics: Metrics::worker(&webhooks),
            webhooks,
            stale_after: (sweep_interval * 3).max(WORKER_STALE_AFTER),
            stopping,
        };
        Admin { target, last_verdict: AtomicU8::new(0), send_timeout }
    }

    /// `/readyz`'s verdict.
    pub async fn ready(&self) -> Result<(), Reason> {
        let verdict = match &self.target {
            Target::Gateway { state, probe } => match state.shutting_down() {
                true => Err(Reason::ShuttingDown),
                false => probe.check().await.and_then(|()| match state.shutting_down() {
                    true => Err(Reason::ShuttingDown),
                    false => Ok(()),
                }),
            },
            Target::Worker { webhooks, stale_after, stopping, .. } => {
                let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |elapsed| elapsed.as_secs_f64());
                if *stopping.borrow() {
                    Err(Reason::ShuttingDown)
                } else if now - webhooks.last_sweep() > stale_after.as_secs_f64() {
                    Err(Reason::DatabaseUnreachable)
                } else {
                    Ok(())
                }
            }
        };
        let code = if verdict.is_ok() { 1 } else { 2 };
        if self.last_verdict.swap(code, Ordering::Relaxed) != code {
            match verdict {
                Ok(()) => tracing::info!("ready"),
                Err(reason) => tracing::warn!(reason = reason.as_str(), "not ready"),
            }
        }
        verdict
    }

    /// `/metrics`'s text.
    pub fn metrics(&self) -> String {
        match &self.target {
            Target::Gateway { state, .. } => state.render_metrics(),
            Target::Worker { metrics, .. } => metrics.render(),
        }
    }
}

/// Serves `admin` on `listener` until `shutdown` completes (for `serve`: when the API listener is
/// done), then lets answers under way finish for at most a second.
pub async fn serve(listener: TcpListener, admin: Arc<Admin>, shutdown: impl Future<Output = ()>) {
    let graceful = GracefulShutdown::new();
    let connections = Connections {
        slots: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
        open: Arc::default(),
        header_timeout: HEADER_TIMEOUT,
        send_timeout: admin.send_timeout,
        read_buffer: None,
    };
    // (nothing drains here: the listener stops after the API, and answers until then)
    listener::accept_until(&listener, &connections, &graceful, shutdown, std::future::pending, |_, first| {
        let admin = admin.clone();
        service_fn(move |request| {
            first.arrived();
            let admin = admin.clone();
            async move { Ok::<_, Infallible>(answer(&admin, &request).await) }
        })
    })
    .await;
    drop(listener);
    let _ = tokio::time::timeout(CLOSING_GRACE, graceful.shutdown()).await;
}

/// One admin request.
pub async fn answer<B>(admin: &Admin, request: &Request<B>) -> Response<Body> {
    let known = matches!(request.uri().path(), "/livez" | "/readyz" | "/metrics");
    if !known {
        return json(StatusCode::NOT_FOUND, r#"{"error":"not_found"}"#.to_string());
    }
    if request.method() != Method::GET {
        let mut response = json(StatusCode::METHOD_NOT_ALLOWED, r#"{"error":"method_not_allowed"}"#.to_string());
        response.headers_mut().insert(ALLOW, HeaderValue::from_static("GET"));
        return response;
    }
    match request.uri().path() {
        "/livez" => json(StatusCode::OK, r#"{"status":"live"}"#.to_string()),
        "/readyz" => match admin.ready().await {
            Ok(()) => json(StatusCode::OK, r#"{"status":"ready"}"#.to_string()),
            // The reason is one of our own words: nothing to escape.
            Err(reason) => json(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(r#"{{"status":"unready","reason":"{}"}}"#, reason.as_str()),
            ),
        },
        _ => {
            let mut response = Response::new(Full::new(Bytes::from(admin.metrics())));
            response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(METRICS_CONTENT_TYPE));
            response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
    }
}

fn json(status: StatusCode, body: String) -> Response<Body> {
    let mut response = crate::response::json(status, body);
    response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
