//! The delivery worker's metrics (registered by [`crate::metrics::Metrics`]): attempts by outcome
//! and reason, attempt latency, the last sweep, and the backlog it reads from the database.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::metrics::latency_histogram;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AttemptLabels {
    outcome: &'static str,
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabel {
    state: &'static str,
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

    pub(crate) fn register(&self, registry: &mut Registry) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;

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
