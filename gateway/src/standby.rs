//! The bookings feed from a hot standby (`DATABASE_READ_URL`; docs/design.md, "The feed on a
//! standby"; docs/operating.md, "Standbys for the bookings feed").
//!
//! A read the route table gives a [`StandbyCall`] takes two round trips: the primary authenticates
//! the credential (revocation, suspension and expiry as of now, `last_used_at` as always) and
//! answers a read assertion; the standby verifies it and answers the page, with the watermark the
//! primary published. The standby costs nothing but speed: when it cannot serve the page (down,
//! past its deadline, its last publication older than `DATABASE_READ_MAX_LAG_MS`, the assertion
//! refused), the primary serves the read as if no standby were set, and
//! `ingest_standby_fallbacks_total` counts why. A refusal the standby makes for the client (a since
//! that is not a cursor of ours) is the client's answer, as the primary would have made it.
//!
//! The publisher: every `FEED_PUBLISH_INTERVAL_MS` each gateway with a standby publishes the
//! primary's open booking writers (`api.bookings_feed_publish`), which the standby's watermark
//! needs; several gateways publishing is harmless (each publication is safe on its own).

use std::time::Duration;

use tokio_postgres::types::ToSql;

use crate::calls::{Call, Values};
use crate::client_watch::ClientWatch;
use crate::config::Config;
use crate::db::{Answer, Database};
use crate::errors::Refusal;
use crate::outcome::Stop;
use crate::request_call;
use crate::routes::StandbyCall;
use metrics::{Fallback, StandbyMetrics, WritersPublished};

pub mod metrics;

/// The statement of a publication (answering the moment published).
const PUBLISH: &str = "SELECT 200, api.bookings_feed_publish()::text";

pub struct Standby {
    db: Database,
    /// `DATABASE_READ_MAX_LAG_MS`, as the standby's function takes it.
    max_lag_ms: i32,
    publish_interval: Duration,
    metrics: StandbyMetrics,
}

impl Standby {
    /// The standby of `config` (None when `DATABASE_READ_URL` is not set). Its pool opens no
    /// connection until a read needs one.
    pub fn from_config(config: &Config) -> Result<Option<Standby>, String> {
        let Some(read) = &config.read else { return Ok(None) };
        let db = Database::standby(config, read)?;
        let metrics = StandbyMetrics::new(db.metrics());
        Ok(Some(Standby {
            db,
            max_lag_ms: i32::try_from(read.max_lag.as_millis()).unwrap_or(i32::MAX),
            publish_interval: read.publish_interval,
            metrics,
        }))
    }

    pub fn metrics(&self) -> &StandbyMetrics {
        &self.metrics
    }

    /// Sets the standby pool's gauges (at each scrape).
    pub fn observe_pool(&self) {
        self.db.observe_pool();
    }

    /// Closes the standby's pool (shutdown).
    pub fn close(&self) {
        self.db.close();
    }

    /// A page read: `primary_call` is the operation's own call, which serves the read whenever the
    /// standby cannot.
    pub async fn page(
        &self,
        primary: &Database,
        call: &StandbyCall,
        primary_call: &Call,
        values: &Values<'_>,
        client: &ClientWatch,
    ) -> Result<Answer, Stop> {
        // The primary's refusals are the client's answer (the uniform 401, a 503 when it is down).
        // Once this first call has begun, the read runs to its end whatever its client does.
        let assertion = request_call::call(primary, &call.assertion, values, client).await?;
        let client = &ClientWatch::none();
        let assertion = std::str::from_utf8(&assertion.body).unwrap_or_default();
        let page = Values {
            assertion: Some(assertion),
            text: values.text,
            limit: values.limit,
            max_lag_ms: self.max_lag_ms,
            ..Values::default()
        };
        match request_call::call(&self.db, &call.page, &page, client).await {
            Ok(answer) => {
                self.metrics.served();
                Ok(answer)
            }
            Err(Stop::Refused(refusal)) if refusal.status().is_client_error() => Err(refusal.into()),
            Err(Stop::Refused(refusal)) => {
                let reason = fallback_reason(&refusal);
                tracing::debug!(?reason, cause = refusal.cause().unwrap_or(""), "feed read from the primary");
                self.metrics.fell_back(reason);
                request_call::call(primary, primary_call, values, client).await
            }
            Err(Stop::ClientGone(cause)) => unreachable!("the page is read for no client: {cause}"),
        }
    }

    /// Publishes the primary's open booking writers every `FEED_PUBLISH_INTERVAL_MS`, until its task
    /// is aborted. A failed publication is counted and logged at most once a minute while it lasts;
    /// the next one is tried on time (the standby's reads go to the primary meanwhile, once its
    /// last publication is older than the bound).
    pub async fn publish(&self, primary: &Database) {
        let mut ticks = tokio::time::interval(self.publish_interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_warned: Option<tokio::time::Instant> = None;
        loop {
            ticks.tick().await;
            let outcome = match primary.call_for_upkeep(PUBLISH, &[] as &[&(dyn ToSql + Sync)]).await {
                Ok(_) => WritersPublished::Made,
                Err(refusal) => {
                    if last_warned.is_none_or(|at| at.elapsed() >= Duration::from_secs(60)) {
                        tracing::warn!(
                            cause = refusal.cause().unwrap_or(refusal.code()),
                            "the booking writers could not be published: the standby's feed reads go to the \
                             primary once its last publication is older than DATABASE_READ_MAX_LAG_MS"
                        );
                        last_warned = Some(tokio::time::Instant::now());
                    }
                    WritersPublished::Failed
                }
            };
            self.metrics.published(outcome);
        }
    }
}

/// Why the standby could not serve a page, from its error (never a client's refusal).
fn fallback_reason(refusal: &Refusal) -> Fallback {
    match refusal.sqlstate() {
        // object_not_in_prerequisite_state: the last publication is too old
        Some("55000") => Fallback::Lagging,
        // invalid_authorization_specification: the assertion was not taken
        Some("28000") => Fallback::Assertion,
        _ if refusal.status() == http::StatusCode::SERVICE_UNAVAILABLE => Fallback::Unavailable,
        _ => Fallback::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fallback_is_named_by_what_the_standby_answered() {
        use tokio_postgres::error::SqlState;
        let internal = |state: SqlState| Refusal::Internal { cause: "x".into(), sqlstate: Some(state) };
        // The log text is not read: its wording may change.
        assert_eq!(fallback_reason(&Refusal::internal("sqlstate 55000")), Fallback::Error);
        assert_eq!(fallback_reason(&internal(SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE)), Fallback::Lagging);
        assert_eq!(fallback_reason(&internal(SqlState::INVALID_AUTHORIZATION_SPECIFICATION)), Fallback::Assertion);
        assert_eq!(fallback_reason(&Refusal::transient("pool wait timed out")), Fallback::Unavailable);
        let busy = Refusal::Transient {
            cause: "x".into(),
            sqlstate: Some(SqlState::T_R_SERIALIZATION_FAILURE),
            schema_behind: false,
        };
        assert_eq!(fallback_reason(&busy), Fallback::Unavailable);
        assert_eq!(fallback_reason(&internal(SqlState::DIVISION_BY_ZERO)), Fallback::Error);
    }
}
