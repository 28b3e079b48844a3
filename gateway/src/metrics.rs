//! The registry of the metrics the admin listener serves at `GET /metrics` (OpenMetrics text,
//! which Prometheus scrapes natively), and what their handles share: the latency buckets, the
//! method label, the labels of more than one part.
//!
//! Each process part owns its handles, their names and its own outcome types, and the [`Metrics`]
//! of a command registers them in a registry of its own (prometheus-client; no global recorder, so
//! two gateways in one process, as in the tests, never count each other's requests):
//!
//! - [`HttpMetrics`] (`crate::dispatch`): requests by route pattern, method and status; latency per
//!   route; refused bodies.
//! - [`RateLimitMetrics`] (`crate::ratelimit`): refusals by bucket; buckets held.
//! - [`DbMetrics`] (`crate::db`, held by each pool): calls by outcome, call latency, the wait for a
//!   pooled connection, and the pool's size, in use and waiting.
//! - [`StandbyMetrics`] (`crate::standby`): reads served, fallbacks, publications.
//! - [`WebhookMetrics`] (`crate::webhooks`, held by the worker): attempts by outcome and reason,
//!   attempt latency, the last sweep, and the backlog the worker reads from the database now and then.
//!
//! No label value is ever taken from a request: routes are the route table's templates (or
//! [`UNMATCHED`]), methods one of a fixed list (or `other`), statuses the numeric codes the gateway
//! answers, buckets, outcomes and reasons our own names. On the hot path a request costs one counter
//! increment and one histogram observation, keyed by `&'static str`s and a `u16`: no allocation.

use http::Method;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::db::metrics::DbMetrics;
use crate::dispatch::metrics::HttpMetrics;
use crate::ratelimit::metrics::RateLimitMetrics;
use crate::standby::metrics::StandbyMetrics;
use crate::webhooks::metrics::WebhookMetrics;

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

pub(crate) fn latency_histogram() -> Histogram {
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
pub(crate) struct ReasonLabel {
    pub(crate) reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct OutcomeLabel {
    pub(crate) outcome: &'static str,
}

pub(crate) type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

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
    fn every_verb_is_its_own_label_and_anything_else_is_other() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::OPTIONS), "OPTIONS");
        assert_eq!(method_label(&Method::from_bytes(b"get").unwrap()), "other");
        assert_eq!(method_label(&Method::from_bytes(b"X-SECRET-VALUE").unwrap()), "other");
    }
}
