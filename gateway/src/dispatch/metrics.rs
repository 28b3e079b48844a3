//! The API listener's metrics (registered by [`crate::metrics::Metrics`]): requests by route
//! pattern, method and status, latency per route, bodies refused, connections and requests under way.

use std::time::Duration;

use http::Method;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::metrics::{latency_histogram, method_label, HistogramFamily, ReasonLabel, UNMATCHED};

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

    pub(crate) fn register(&self, registry: &mut Registry) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::metrics::DbMetrics;
    use crate::metrics::Metrics;

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
}
