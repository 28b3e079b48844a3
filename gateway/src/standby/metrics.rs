//! The standby's metrics (registered by [`crate::metrics::Metrics`]): feed reads it served, reads
//! that went to the primary and why, the publications of the booking writers, and its pool's.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

use crate::db::metrics::DbMetrics;
use crate::metrics::{OutcomeLabel, ReasonLabel};

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
pub enum WritersPublished {
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

    pub fn published(&self, outcome: WritersPublished) {
        let outcome = match outcome {
            WritersPublished::Made => "made",
            WritersPublished::Failed => "failed",
        };
        self.publications.get_or_create(&OutcomeLabel { outcome }).inc();
    }

    pub(crate) fn register(&self, registry: &mut Registry) {
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
