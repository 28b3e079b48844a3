//! The rate limits' metrics (registered by [`crate::metrics::Metrics`]): refusals by bucket, and
//! the buckets held in memory.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::ratelimit::BucketKind;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BucketLabel {
    bucket: &'static str,
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

    pub(crate) fn register(&self, registry: &mut Registry) {
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
