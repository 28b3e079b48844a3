//! What every request shares: the settings, the pools, the log, the rate limiter, the metrics, the
//! published document; and the process's lifecycle as requests see it (shutdown announced, then
//! draining, then waiting for the requests still running).

use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use http::header::HeaderValue;
use tokio::sync::{watch, Semaphore};
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::db::Database;
use crate::metrics::Metrics;
use crate::published::Published;
use crate::ratelimit::RateLimiter;
use crate::source::{source_address, FORWARDED_CLIENT};
use crate::standby::Standby;
use crate::telemetry::LogSink;
use crate::webhooks::metrics::WebhookMetrics;

pub struct AppState {
    pub config: Config,
    pub db: Database,
    /// The hot standby that serves the feed (`DATABASE_READ_URL`), when set.
    pub standby: Option<Standby>,
    pub log: LogSink,
    /// None when `RATE_LIMITS=off`.
    pub limiter: Option<RateLimiter>,
    /// What the admin listener's `/metrics` serves (requests, rate limits, the pool; the webhook
    /// worker's too when it runs in this process).
    pub metrics: Metrics,
    /// The OpenAPI document and its page, made once, and where they are served.
    pub published: Published,
    /// Turns true when shutdown begins: a request whose body is still arriving is given up.
    draining: watch::Sender<bool>,
    /// Turns true when a shutdown is announced (the signal), before draining begins: `/readyz`
    /// answers 503 from then on.
    stopping: AtomicBool,
    /// Every request's task, those whose client has gone included: shutdown waits for them.
    pub requests: TaskTracker,
    /// One permit per request under way, those whose client went after their database call began
    /// included: at most `MAX_CONNECTIONS`, so clients that vanish cannot leave more work behind
    /// them than open connections could have (a request past it waits for one to end, or for its
    /// client to go).
    pub in_flight: Arc<Semaphore>,
    /// The API listener's connections: one permit each (at most `MAX_CONNECTIONS`), and how many
    /// are open (`crate::listener`).
    pub connection_slots: Arc<Semaphore>,
    pub open_connections: Arc<AtomicUsize>,
}

impl AppState {
    pub fn new(config: Config, db: Database, log: LogSink) -> AppState {
        let limiter = config.rate_limits.clone().map(RateLimiter::new);
        let bound = config.max_connections;
        let published = Published::new(&config.base_path);
        let metrics = Metrics::gateway(db.metrics());
        AppState {
            config,
            db,
            standby: None,
            log,
            limiter,
            metrics,
            published,
            draining: watch::Sender::new(false),
            stopping: AtomicBool::new(false),
            requests: TaskTracker::new(),
            in_flight: Arc::new(Semaphore::new(bound)),
            connection_slots: Arc::new(Semaphore::new(bound)),
            open_connections: Arc::default(),
        }
    }

    /// Serves the feed from `standby` (see [`Standby::from_config`]), and counts it.
    pub fn with_standby(mut self, standby: Option<Standby>) -> Self {
        if let Some(standby) = &standby {
            self.metrics.add_standby(standby.metrics());
        }
        self.standby = standby;
        self
    }

    /// Adds the metrics of the webhook worker running in this process.
    pub fn with_webhook_metrics(mut self, webhooks: &WebhookMetrics) -> Self {
        self.metrics.add_webhooks(webhooks);
        self
    }

    /// The metrics' exposition, the gauges read now (the pool, the rate-limit buckets held).
    pub fn render_metrics(&self) -> String {
        self.db.observe_pool();
        if let Some(standby) = &self.standby {
            standby.observe_pool();
        }
        self.metrics.rate_limits.buckets_held(self.limiter.as_ref().map_or(0, RateLimiter::held));
        let in_flight = self.config.max_connections.saturating_sub(self.in_flight.available_permits());
        self.metrics.http.load(self.open_connections.load(Ordering::Relaxed), in_flight);
        self.metrics.render()
    }

    /// The source a request from `peer` counts against: the peer, or the client the edge signed for
    /// (`crate::source`), checked against the clock now.
    pub fn source_of(&self, headers: &http::HeaderMap, peer: IpAddr) -> IpAddr {
        let now_unix = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs());
        let forwarded = headers.get_all(FORWARDED_CLIENT).iter().map(HeaderValue::as_bytes);
        let config = &self.config;
        source_address(peer, forwarded, config.edge_secret.as_deref(), &config.edge_peers, now_unix)
    }

    /// A shutdown was asked for: `/readyz` answers 503 from now on, while requests are still taken
    /// (for `SHUTDOWN_DRAIN_SECONDS`, then draining begins).
    pub fn announce_shutdown(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Whether a shutdown was announced or draining has begun.
    pub fn shutting_down(&self) -> bool {
        self.stopping.load(Ordering::Relaxed) || *self.draining.borrow()
    }

    /// Shutdown has begun: requests not yet fully received are given up (see [`Self::draining`]).
    pub fn begin_draining(&self) {
        self.announce_shutdown();
        self.draining.send_replace(true);
    }

    /// Completes once every request's task has ended. (Called once the connections are done, so
    /// that no request starts meanwhile.)
    pub async fn requests_finished(&self) {
        self.requests.close();
        self.requests.wait().await;
    }

    /// Completes once shutdown has begun (at once if it already has).
    pub fn draining(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut receiver = self.draining.subscribe();
        async move {
            let _ = receiver.wait_for(|draining| *draining).await;
        }
    }
}
