//! The metrics the admin listener serves at `GET /metrics` (OpenMetrics text, which Prometheus
//! scrapes natively): their names, their labels and the helpers the hot paths call.
//!
//! Each process part owns its handles and the [`Metrics`] of a command registers them in a registry
//! of its own (prometheus-client; no global recorder, so two gateways in one process, as in the
//! tests, never count each other's requests):
//!
//! - [`HttpMetrics`]: requests by route pattern, method and status; latency per route; refused bodies.
//! - [`RateLimitMetrics`]: refusals by bucket; buckets held.
//! - [`DbMetrics`] (held by the pool, [`crate::db::Database`]): calls by outcome, call latency, the
//!   wait for a pooled connection, and the pool's size, in use and waiting.
//! - [`WebhookMetrics`] (held by the worker): attempts by outcome and reason, attempt latency, the
//!   last sweep, and the backlog the worker reads from the database now and then.
//!
//! No label value is ever taken from a request: routes are the route table's templates (or
//! [`UNMATCHED`]), methods one of a fixed list (or `other`), statuses the numeric codes the gateway
//! answers, buckets, outcomes and reasons our own names. On the hot path a request costs one counter
//! increment and one histogram observation, keyed by `&'static str`s and a `u16`: no allocation.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use http::Method;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::errors::ApiError;
use crate::ratelimit::BucketKind;

/// The route label of a request whose path names no route (404): never the path itself.
pub const UNMATCHED: &str = "unmatched";
/// The route label of a request whose handling panicked before its route was known.
pub const UNKNOWN: &str = "unknown";
/// The content type of the exposition.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Latency buckets in seconds: from 100 µs (a 404, a refused query, a cached ping) to 10 s (past
/// every deadline of the service), so sub-millisecond answers are told apart.
pub const LATENCY_BUCKETS: [f64; 16] =
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// The method label: one of the verbs HTTP defines, or `other` (a client may send any token).
pub fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::PUT => "PUT",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "other",
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabel {
    route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabel {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BucketLabel {
    bucket: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AttemptLabels {
    outcome: &'static str,
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabel {
    state: &'static str,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// Requests as the API listener answered them.
#[derive(Clone, Debug)]
pub struct HttpMetrics {
    requests: Family<RequestLabels, Counter>,
    duration: HistogramFamily<RouteLabel>,
    bodies_refused: Family<ReasonLabel, Counter>,
    connections: Gauge,
    in_flight: Gauge,
}

impl Default for HttpMetrics {
    fn default() -> Self {
        HttpMetrics {
            requests: Family::default(),
            duration: Family::new_with_constructor(latency_histogram),
            bodies_refused: Family::default(),
            connections: Gauge::default(),
            in_flight: Gauge::default(),
        }
    }
}

impl HttpMetrics {
    /// One answered request: `route` is the route table's template (None: [`UNMATCHED`]).
    pub fn request(&self, route: Option<&'static str>, method: &Method, status: u16, elapsed: Duration) {
        let route = route.unwrap_or(UNMATCHED);
        self.requests.get_or_create(&RequestLabels { route, method: method_label(method), status }).inc();
        self.duration.get_or_create(&RouteLabel { route }).observe(elapsed.as_secs_f64());
        let refused = match status {
            413 => Some("too_large"),
            415 => Some("unsupported_media_type"),
            _ => None,
        };
        if let Some(reason) = refused {
            self.bodies_refused.get_or_create(&ReasonLabel { reason }).inc();
        }
    }

    /// The open connections and the requests under way now (set at each scrape).
    pub fn load(&self, connections: usize, in_flight: usize) {
        self.connections.set(i64::try_from(connections).unwrap_or(i64::MAX));
        self.in_flight.set(i64::try_from(in_flight).unwrap_or(i64::MAX));
    }

    fn register(&self, registry: &mut Registry) {
        registry.register(
            "ingest_http_connections",
            "Connections open to the API listener (bounded by MAX_CONNECTIONS)",
            self.connections.clone(),
        );
        registry.register(
            "ingest_http_requests_in_flight",
            "Requests under way, those whose client has gone included (each runs to its end)",
            self.in_flight.clone(),
        );
        registry.register(
            "ingest_http_requests",
            "Requests answered by the API listener, by route pattern, method and status",
            self.requests.clone(),
        );
        registry.register(
            "ingest_http_request_duration_seconds",
            "Time from a request's arrival to its answer, by route pattern",
            self.duration.clone(),
        );
        registry.register(
            "ingest_http_bodies_refused",
            "Request bodies refused before the database was asked: too_large (413), unsupported_media_type (415)",
            self.bodies_refused.clone(),
        );
    }
}

/// The rate limits' refusals and their memory.
#[derive(Clone, Debug, Default)]
pub struct RateLimitMetrics {
    refusals: Family<BucketLabel, Counter>,
    buckets: Gauge,
}

impl RateLimitMetrics {
    /// A 429, by the bucket that refused it.
    pub fn refused(&self, bucket: BucketKind) {
        self.refusals.get_or_create(&BucketLabel { bucket: bucket.name() }).inc();
    }

    /// The buckets held in memory now (set at each scrape).
    pub fn buckets_held(&self, held: usize) {
        self.buckets.set(i64::try_from(held).unwrap_or(i64::MAX));
    }

    fn register(&self, registry: &mut Registry) {
        registry.register(
            "ingest_rate_limit_refusals",
            "Requests answered 429, by the bucket that refused them",
            self.refusals.clone(),
        );
        registry.register(
            "ingest_rate_limit_buckets",
            "Rate-limit buckets held in memory (bounded by RATE_LIMIT_MAX_BUCKETS)",
            self.buckets.clone(),
        );
    }
}

/// How a database call ended, as `ingest_db_calls_total` counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallOutcome {
    /// The function answered (any status it chose: 200, 201).
    Ok,
    /// Our SQL refused it (`PTxyz`, a 4xx).
    Refused,
    /// Transient: 503 `try_again` (unreachable, timed out, pool wait, serialization…).
    TryAgain,
    /// 503 `try_again` too: a function the gateway calls is missing or older than it expects
    /// (a migration under way or given up; `crate::errors`).
    SchemaBehind,
    /// 500 `internal_error`.
    Internal,
}

impl CallOutcome {
    /// The outcome of a call that answered, or failed with `error`.
    pub fn of(error: Option<&ApiError>) -> CallOutcome {
        let Some(error) = error else { return CallOutcome::Ok };
        match error.status.as_u16() {
            _ if error.schema_behind => CallOutcome::SchemaBehind,
            503 => CallOutcome::TryAgain,
            status if (400..500).contains(&status) => CallOutcome::Refused,
            _ => CallOutcome::Internal,
        }
    }

    fn label(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Refused => "refused",
            CallOutcome::TryAgain => "try_again",
            CallOutcome::SchemaBehind => "schema_behind",
            CallOutcome::Internal => "internal",
        }
    }
}

/// The pool and the calls through it.
#[derive(Clone, Debug)]
pub struct DbMetrics {
    calls: Family<OutcomeLabel, Counter>,
    call_duration: Histogram,
    pool_wait: Histogram,
    pool_max: Gauge,
    pool_open: Gauge,
    pool_in_use: Gauge,
    pool_waiting: Gauge,
}

impl Default for DbMetrics {
    fn default() -> Self {
        DbMetrics {
            calls: Family::default(),
            call_duration: latency_histogram(),
            pool_wait: latency_histogram(),
            pool_max: Gauge::default(),
            pool_open: Gauge::default(),
            pool_in_use: Gauge::default(),
            pool_waiting: Gauge::default(),
        }
    }
}

impl DbMetrics {
    /// One call ended, `elapsed` after it began (the wait for a connection included).
    pub fn call(&self, outcome: CallOutcome, elapsed: Duration) {
        self.calls.get_or_create(&OutcomeLabel { outcome: outcome.label() }).inc();
        self.call_duration.observe(elapsed.as_secs_f64());
    }

    /// A call waited `elapsed` for a pooled connection (whether it got one or not).
    pub fn waited(&self, elapsed: Duration) {
        self.pool_wait.observe(elapsed.as_secs_f64());
    }

    /// The pool now (set at each scrape).
    pub fn pool(&self, max: usize, open: usize, in_use: usize, waiting: usize) {
        let as_i64 = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        self.pool_max.set(as_i64(max));
        self.pool_open.set(as_i64(open));
        self.pool_in_use.set(as_i64(in_use));
        self.pool_waiting.set(as_i64(waiting));
    }

    /// Registers the pool's metrics as `<prefix>_calls`, `<prefix>_pool_max` and so on:
    /// `ingest_db` for the primary, `ingest_standby_db` for a standby's (`size_setting` names the
    /// setting of its size).
    fn register(&self, registry: &mut Registry, prefix: &str, size_setting: &str) {
        registry.register(
            format!("{prefix}_calls"),
            "Database calls of API requests, by outcome: ok, refused (4xx), try_again (503), schema_behind (503: functions older than the gateway), internal (500)",
            self.calls.clone(),
        );
        registry.register(
            format!("{prefix}_call_duration_seconds"),
            "Time of one database call, the wait for a pooled connection included",
            self.call_duration.clone(),
        );
        registry.register(
            format!("{prefix}_pool_wait_seconds"),
            "Time a call waited for a pooled connection",
            self.pool_wait.clone(),
        );
        registry.register(
            format!("{prefix}_pool_max"),
            format!("Most connections the pool may hold ({size_setting})"),
            self.pool_max.clone(),
        );
        registry.register(
            format!("{prefix}_pool_connections"),
            "Connections the pool holds now",
            self.pool_open.clone(),
        );
        registry.register(
            format!("{prefix}_pool_in_use"),
            "Pooled connections lent to a call now",
            self.pool_in_use.clone(),
        );
        registry.register(
            format!("{prefix}_pool_waiting"),
            "Calls waiting for a pooled connection now",
            self.pool_waiting.clone(),
        );
    }
}

/// Why a feed read the standby was to serve went to the primary (`crate::standby`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// No answer from the standby in time: unreachable, down, a pool wait or its deadline, a query
    /// cancelled by recovery (503-type errors).
    Unavailable,
    /// The standby's last publication of the booking writers was older than `DATABASE_READ_MAX_LAG_MS`.
    Lagging,
    /// The standby did not take the primary's read assertion (expired on the way, or another database).
    Assertion,
    /// Anything else the standby answered (a fault: 500-type).
    Error,
}

impl Fallback {
    fn label(self) -> &'static str {
        match self {
            Fallback::Unavailable => "unavailable",
            Fallback::Lagging => "lagging",
            Fallback::Assertion => "assertion",
            Fallback::Error => "error",
        }
    }
}

/// How a publication of the booking writers ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Publication {
    /// In place.
    Made,
    /// The primary could not be reached, or refused it.
    Failed,
}

/// Reads served by a hot standby, and the publications that let it serve them (`crate::standby`).
#[derive(Clone, Debug)]
pub struct StandbyMetrics {
    served: Counter,
    fallbacks: Family<ReasonLabel, Counter>,
    publications: Family<OutcomeLabel, Counter>,
    /// The standby's pool and its calls (the handles its `Database` holds).
    db: DbMetrics,
}

impl StandbyMetrics {
    pub fn new(db: &DbMetrics) -> StandbyMetrics {
        StandbyMetrics {
            served: Counter::default(),
            fallbacks: Family::default(),
            publications: Family::default(),
            db: db.clone(),
        }
    }

    pub fn served(&self) {
        self.served.inc();
    }

    pub fn fell_back(&self, reason: Fallback) {
        self.fallbacks.get_or_create(&ReasonLabel { reason: reason.label() }).inc();
    }

    pub fn published(&self, outcome: Publication) {
        let outcome = match outcome {
            Publication::Made => "made",
            Publication::Failed => "failed",
        };
        self.publications.get_or_create(&OutcomeLabel { outcome }).inc();
    }

    fn register(&self, registry: &mut Registry) {
        registry.register(
            "ingest_standby_reads",
            "Feed reads (GET /bookings) the standby served (DATABASE_READ_URL)",
            self.served.clone(),
        );
        registry.register(
            "ingest_standby_fallbacks",
            "Feed reads the standby was to serve that the primary served, by reason: unavailable, lagging, \
             assertion, error",
            self.fallbacks.clone(),
        );
        registry.register(
            "ingest_feed_publications",
            "Publications of the booking writers for the standbys, by outcome: made, failed",
            self.publications.clone(),
        );
        self.db.register(registry, "ingest_standby_db", "DATABASE_READ_POOL_SIZE");
    }
}

/// How one webhook attempt ended: the hint's new state as the database recorded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    Delivered,
    /// Failed; another attempt is scheduled.
    Retry,
    /// Failed for the fifth time (or its endpoint was disarmed meanwhile).
    Dead,
    /// The lease ran out before the outcome was recorded; another worker owns the hint.
    LeaseLost,
    /// The outcome could not be recorded (database unreachable); the hint is tried again after its lease.
    Unrecorded,
}

impl AttemptOutcome {
    /// From `webhook.record_attempt`'s answer (None: the call failed).
    pub fn from_state(state: Option<&str>) -> AttemptOutcome {
        match state {
            Some("delivered") => AttemptOutcome::Delivered,
            Some("undelivered") => AttemptOutcome::Retry,
            Some("dead") => AttemptOutcome::Dead,
            Some("lease_lost") => AttemptOutcome::LeaseLost,
            _ => AttemptOutcome::Unrecorded,
        }
    }

    fn label(self) -> &'static str {
        match self {
            AttemptOutcome::Delivered => "delivered",
            AttemptOutcome::Retry => "retry",
            AttemptOutcome::Dead => "dead",
            AttemptOutcome::LeaseLost => "lease_lost",
            AttemptOutcome::Unrecorded => "unrecorded",
        }
    }
}

/// The reason label of an attempt: `none` for a 2xx, else the reason the database records
/// (`redirect` for a 3xx, `http_status` for any other status, or the failure's own).
pub fn attempt_reason(status: Option<u16>, failure: Option<&'static str>) -> &'static str {
    match (status, failure) {
        (_, Some(failure)) => failure,
        (Some(status), None) if (200..300).contains(&status) => "none",
        (Some(status), None) if (300..400).contains(&status) => "redirect",
        _ => "http_status",
    }
}

/// What the database holds of the hints, as `webhook.backlog()` answers it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Backlog {
    pub waiting: i64,
    pub in_flight: i64,
    pub oldest_undelivered_seconds: f64,
    pub dead_last_day: i64,
    /// Read with it: booking stamps capped since the database was made (`webhook.booking_stamps_capped()`).
    pub booking_stamps_capped: i64,
}

/// The delivery worker's attempts, sweeps, and the backlog it reads.
#[derive(Clone, Debug)]
pub struct WebhookMetrics {
    attempts: Family<AttemptLabels, Counter>,
    attempt_duration: Histogram,
    last_sweep: Gauge<f64, AtomicU64>,
    hints: Family<StateLabel, Gauge>,
    oldest_undelivered: Gauge<f64, AtomicU64>,
    dead_last_day: Gauge,
    booking_stamps_capped: Gauge,
    backlog_read: Gauge<f64, AtomicU64>,
    expired: Counter,
}

impl Default for WebhookMetrics {
    fn default() -> Self {
        WebhookMetrics {
            attempts: Family::default(),
            attempt_duration: latency_histogram(),
            last_sweep: Gauge::default(),
            hints: Family::default(),
            oldest_undelivered: Gauge::default(),
            dead_last_day: Gauge::default(),
            booking_stamps_capped: Gauge::default(),
            backlog_read: Gauge::default(),
            expired: Counter::default(),
        }
    }
}

impl WebhookMetrics {
    /// One attempt, `elapsed` from lookup to status (or failure).
    pub fn attempt(&self, outcome: AttemptOutcome, reason: &'static str, elapsed: Duration) {
        self.attempts.get_or_create(&AttemptLabels { outcome: outcome.label(), reason }).inc();
        self.attempt_duration.observe(elapsed.as_secs_f64());
    }

    /// A sweep reached the database at `unix_seconds`.
    pub fn swept(&self, unix_seconds: f64) {
        self.last_sweep.set(unix_seconds);
    }

    /// When a sweep last reached the database (unix seconds; 0: never).
    pub fn last_sweep(&self) -> f64 {
        self.last_sweep.get()
    }

    /// The backlog as read at `unix_seconds`.
    pub fn backlog(&self, backlog: &Backlog, unix_seconds: f64) {
        self.hints.get_or_create(&StateLabel { state: "waiting" }).set(backlog.waiting);
        self.hints.get_or_create(&StateLabel { state: "in_flight" }).set(backlog.in_flight);
        self.oldest_undelivered.set(backlog.oldest_undelivered_seconds);
        self.dead_last_day.set(backlog.dead_last_day);
        self.booking_stamps_capped.set(backlog.booking_stamps_capped);
        self.backlog_read.set(unix_seconds);
    }

    /// Hints this process deleted past their retention, `deleted` more.
    pub fn expired(&self, deleted: i32) {
        self.expired.inc_by(u64::try_from(deleted).unwrap_or(0));
    }

    fn register(&self, registry: &mut Registry) {
        registry.register(
            "ingest_webhook_attempts",
            "Delivery attempts of this process, by outcome (delivered, retry, dead, lease_lost, unrecorded) and reason",
            self.attempts.clone(),
        );
        registry.register(
            "ingest_webhook_attempt_duration_seconds",
            "Delivery latency: one attempt from the name lookup to the endpoint's status or the failure (5 s at most)",
            self.attempt_duration.clone(),
        );
        registry.register(
            "ingest_webhook_last_sweep_timestamp_seconds",
            "When this process's worker last reached the database to claim due hints (unix time)",
            self.last_sweep.clone(),
        );
        registry.register(
            "ingest_webhook_hints",
            "Undelivered hints in the database: waiting for an attempt, or in_flight under one",
            self.hints.clone(),
        );
        registry.register(
            "ingest_webhook_oldest_undelivered_seconds",
            "Age of the oldest undelivered hint (since the change it hints at; 0 when none)",
            self.oldest_undelivered.clone(),
        );
        registry.register(
            "ingest_webhook_hints_dead_last_day",
            "Hints that died after failed attempts in the last 24 hours (not those of disarmed endpoints)",
            self.dead_last_day.clone(),
        );
        registry.register(
            "ingest_booking_stamps_capped",
            "Booking stamps the database capped at the clock plus bookings_watermark_lag since it was made: a stamp ahead of the clock, or a clock behind",
            self.booking_stamps_capped.clone(),
        );
        registry.register(
            "ingest_webhook_backlog_read_timestamp_seconds",
            "When the backlog gauges were last read from the database (unix time)",
            self.backlog_read.clone(),
        );
        registry.register(
            "ingest_webhook_hints_expired",
            "Delivered and dead hints this process deleted past their retention (webhook_hint_retention)",
            self.expired.clone(),
        );
    }
}

/// The registry of one command: `serve` (the gateway, and the worker when it runs inside) or
/// `webhooks` (the worker alone).
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    pub http: HttpMetrics,
    pub rate_limits: RateLimitMetrics,
}

impl Metrics {
    /// The gateway's: requests, rate limits and the pool whose metrics are `db`.
    pub fn gateway(db: &DbMetrics) -> Metrics {
        let mut registry = Registry::default();
        let http = HttpMetrics::default();
        let rate_limits = RateLimitMetrics::default();
        http.register(&mut registry);
        rate_limits.register(&mut registry);
        db.register(&mut registry, "ingest_db", "DATABASE_POOL_SIZE");
        Metrics { registry, http, rate_limits }
    }

    /// Adds the metrics of reads from a hot standby (when `DATABASE_READ_URL` is set).
    pub fn add_standby(&mut self, standby: &StandbyMetrics) {
        standby.register(&mut self.registry);
    }

    /// The worker's alone (`ingest webhooks`).
    pub fn worker(webhooks: &WebhookMetrics) -> Metrics {
        let mut registry = Registry::default();
        webhooks.register(&mut registry);
        Metrics { registry, http: HttpMetrics::default(), rate_limits: RateLimitMetrics::default() }
    }

    /// Adds the metrics of a worker running in the same process.
    pub fn add_webhooks(&mut self, webhooks: &WebhookMetrics) {
        webhooks.register(&mut self.registry);
    }

    /// The exposition text.
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_route_method_and_status_and_refused_bodies_by_reason() {
        let db = DbMetrics::default();
        let metrics = Metrics::gateway(&db);
        let ms = Duration::from_micros(300);
        metrics.http.request(Some("/ping"), &Method::GET, 200, ms);
        metrics.http.request(Some("/ping"), &Method::GET, 200, ms);
        metrics.http.request(None, &Method::from_bytes(b"BREW").unwrap(), 404, ms);
        metrics.http.request(Some("/lots/{external_id}"), &Method::PUT, 413, ms);
        let text = metrics.render();
        assert!(
            text.contains("ingest_http_requests_total{route=\"/ping\",method=\"GET\",status=\"200\"} 2\n"),
            "{text}"
        );
        assert!(text.contains("ingest_http_requests_total{route=\"unmatched\",method=\"other\",status=\"404\"} 1\n"));
        assert!(text.contains("ingest_http_bodies_refused_total{reason=\"too_large\"} 1\n"));
        assert!(!text.contains("BREW"));
        // 300 µs falls in the 0.0005 bucket, not the 0.00025 one.
        assert!(
            text.contains("ingest_http_request_duration_seconds_bucket{le=\"0.00025\",route=\"/ping\"} 0\n"),
            "{text}"
        );
        assert!(text.contains("ingest_http_request_duration_seconds_bucket{le=\"0.0005\",route=\"/ping\"} 2\n"));
        assert!(text.ends_with("# EOF\n"));
    }

    #[test]
    fn every_verb_is_its_own_label_and_anything_else_is_other() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::OPTIONS), "OPTIONS");
        assert_eq!(method_label(&Method::from_bytes(b"get").unwrap()), "other");
        assert_eq!(method_label(&Method::from_bytes(b"X-SECRET-VALUE").unwrap()), "other");
    }

    #[test]
    fn a_call_outcome_follows_the_answers_status() {
        use tokio_postgres::error::SqlState;
        assert_eq!(CallOutcome::of(None), CallOutcome::Ok);
        let refused = |status| ApiError::new(http::StatusCode::from_u16(status).unwrap(), "x");
        assert_eq!(CallOutcome::of(Some(&refused(401))), CallOutcome::Refused);
        assert_eq!(CallOutcome::of(Some(&refused(422))), CallOutcome::Refused);
        assert_eq!(CallOutcome::of(Some(&ApiError::database_unavailable("x"))), CallOutcome::TryAgain);
        assert_eq!(CallOutcome::of(Some(&ApiError::internal("x"))), CallOutcome::Internal);
        let behind = ApiError {
            sqlstate: Some(SqlState::UNDEFINED_FUNCTION),
            schema_behind: true,
            ..ApiError::database_unavailable("x")
        };
        assert_eq!(CallOutcome::of(Some(&behind)), CallOutcome::SchemaBehind);
    }

    #[test]
    fn an_attempts_reason_is_the_one_the_database_records() {
        assert_eq!(attempt_reason(Some(204), None), "none");
        assert_eq!(attempt_reason(Some(301), None), "redirect");
        assert_eq!(attempt_reason(Some(500), None), "http_status");
        assert_eq!(attempt_reason(Some(101), None), "http_status");
        assert_eq!(attempt_reason(None, Some("timeout")), "timeout");
        assert_eq!(AttemptOutcome::from_state(Some("undelivered")), AttemptOutcome::Retry);
        assert_eq!(AttemptOutcome::from_state(None), AttemptOutcome::Unrecorded);
    }

    #[test]
    fn the_worker_registry_holds_the_webhook_metrics_only() {
        let webhooks = WebhookMetrics::default();
        webhooks.attempt(AttemptOutcome::Dead, "timeout", Duration::from_secs(5));
        webhooks.backlog(
            &Backlog {
                waiting: 3,
                in_flight: 1,
                oldest_undelivered_seconds: 12.5,
                dead_last_day: 2,
                booking_stamps_capped: 4,
            },
            1.0,
        );
        let text = Metrics::worker(&webhooks).render();
        assert!(text.contains("ingest_webhook_attempts_total{outcome=\"dead\",reason=\"timeout\"} 1\n"), "{text}");
        assert!(text.contains("ingest_webhook_hints{state=\"waiting\"} 3\n"));
        assert!(text.contains("ingest_webhook_oldest_undelivered_seconds 12.5\n"));
        assert!(text.contains("ingest_webhook_hints_dead_last_day 2\n"));
        assert!(text.contains("ingest_booking_stamps_capped 4\n"));
        assert!(!text.contains("ingest_http_requests"));
    }
}
