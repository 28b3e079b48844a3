//! A pool's metrics (held by its [`crate::db::Database`], registered by
//! [`crate::metrics::Metrics`]): calls by outcome, call latency, the wait for a pooled connection,
//! and the pool's size, in use and waiting.

use std::time::Duration;

use http::StatusCode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::errors::Refusal;
use crate::metrics::{latency_histogram, OutcomeLabel};

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
    /// The outcome of a call refused with `refusal`.
    pub fn of(refusal: &Refusal) -> CallOutcome {
        match refusal {
            Refusal::Transient { schema_behind: true, .. } => CallOutcome::SchemaBehind,
            Refusal::Transient { .. } => CallOutcome::TryAgain,
            Refusal::Internal { .. } => CallOutcome::Internal,
            Refusal::RateLimited { .. } => CallOutcome::Refused,
            Refusal::Contract { status, .. } if status.is_client_error() => CallOutcome::Refused,
            Refusal::Contract { status, .. } if *status == StatusCode::SERVICE_UNAVAILABLE => CallOutcome::TryAgain,
            Refusal::Contract { .. } => CallOutcome::Internal,
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
    pub(crate) fn register(&self, registry: &mut Registry, prefix: &str, size_setting: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_outcome_follows_the_answers_status() {
        use tokio_postgres::error::SqlState;
        let refused = |status| Refusal::new(StatusCode::from_u16(status).unwrap(), "x");
        assert_eq!(CallOutcome::of(&refused(401)), CallOutcome::Refused);
        assert_eq!(CallOutcome::of(&refused(422)), CallOutcome::Refused);
        assert_eq!(CallOutcome::of(&refused(503)), CallOutcome::TryAgain);
        assert_eq!(CallOutcome::of(&refused(500)), CallOutcome::Internal);
        assert_eq!(CallOutcome::of(&Refusal::transient("x")), CallOutcome::TryAgain);
        assert_eq!(CallOutcome::of(&Refusal::internal("x")), CallOutcome::Internal);
        let behind =
            Refusal::Transient { cause: "x".into(), sqlstate: Some(SqlState::UNDEFINED_FUNCTION), schema_behind: true };
        assert_eq!(CallOutcome::of(&behind), CallOutcome::SchemaBehind);
    }
}
