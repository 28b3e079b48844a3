//! The connection pool and the one way requests reach the database.
//!
//! Connections are made lazily and set up once, when created, by [`prepare_session`] (the role,
//! the statement timeout, READ COMMITTED, what keeps secrets out of the server log): no extra round
//! trip per request. Statements are prepared once per connection and cached, so a request is one
//! round trip (Bind/Execute/Sync).
//! Every call runs under one deadline (`DATABASE_TIMEOUT_MS`) covering the wait for a connection
//! and the statement; past it the answer is 503 `try_again` and the connection is discarded. While
//! the database cannot be reached, [`ConnectBackoff`] keeps connection attempts to a few a second.

use std::time::Duration;

use std::sync::Arc;

use bytes::Bytes;
use deadpool_postgres::{
    Hook, HookError, Manager, ManagerConfig, Object, Pool, PoolError, QueueMode, RecyclingMethod, Runtime, TimeoutType,
};
use tokio::time::{timeout, Instant};
use tokio_postgres::types::{FromSql, ToSql, Type};

use crate::backoff::{jitter, Admission, ConnectBackoff};
use crate::client_watch::ClientWatch;
use crate::config::{Config, ReadSettings};
use crate::db_tls::DatabaseLink;
use crate::errors::Refusal;
use crate::outcome::Stop;
use metrics::{CallOutcome, DbMetrics};

pub mod metrics;

/// The longest the gateway waits for the server to take a cancel request.
const CANCEL_DEADLINE: Duration = Duration::from_secs(1);

/// What an `api.*` function answers: the HTTP status and the JSON body text (UTF-8).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Bytes,
}

#[derive(Clone)]
pub struct Database {
    pool: Pool,
    deadline: Duration,
    backoff: Arc<ConnectBackoff>,
    /// The pool's TLS settings: cancel requests go the same way (never the cancel key in clear
    /// over a TLS link), and a failed connection attempt is explained with them.
    link: DatabaseLink,
    /// Calls by outcome, their latency, the wait for a connection, and the pool (see `metrics`).
    metrics: DbMetrics,
    /// The setting that names this database (`DATABASE_URL`, `DATABASE_READ_URL`), for the log.
    url_setting: &'static str,
}

/// What a pool is built from: the primary's settings, or a standby's (`DATABASE_READ_*`).
struct PoolSettings<'a> {
    url: &'a str,
    /// The setting that names the URL, for the messages about it.
    url_setting: &'static str,
    role: Option<String>,
    size: usize,
    /// The deadline of a call (connection and statement), and the sessions' statement_timeout.
    deadline: Duration,
    application_name: &'static str,
}

impl Database {
    /// Builds the primary's pool (`DATABASE_URL`); no connection is opened until the first request
    /// needs one, so the gateway starts (and answers 503) while the database is down.
    pub fn new(config: &Config) -> Result<Self, String> {
        Self::with(PoolSettings {
            url: &config.database_url,
            url_setting: "DATABASE_URL",
            role: config.database_role.clone(),
            size: config.pool_size,
            deadline: config.database_timeout,
            application_name: "ingest-gateway",
        })
    }

    /// Builds the pool of a hot standby (`DATABASE_READ_URL`), the same way: the same role and
    /// session settings, its own size and deadline (`crate::standby`).
    pub fn standby(config: &Config, read: &ReadSettings) -> Result<Self, String> {
        Self::with(PoolSettings {
            url: &read.database_url,
            url_setting: "DATABASE_READ_URL",
            role: config.database_role.clone(),
            size: read.pool_size,
            deadline: read.timeout,
            application_name: "ingest-gateway-read",
        })
    }

    fn with(settings: PoolSettings) -> Result<Self, String> {
        let mut link = DatabaseLink::parse(settings.url, settings.url_setting)?;
        link.bound_each_connect(settings.deadline);
        let mut pg = link.config.clone();
        pg.application_name(settings.application_name);

        let role = settings.role;
        let statement_timeout = settings.deadline.as_millis().to_string();
        let manager =
            Manager::from_config(pg, link.tls.clone(), ManagerConfig { recycling_method: RecyclingMethod::Fast });
        // Last in, first out: a request takes the connection used most recently, whose backend is
        // still warm, so a light load keeps using a few backends while the rest stay idle. First in,
        // first out sent each request at one connection to another of the 64 a busy hour had opened:
        // a cold backend each time (bench/FINDINGS.md, "The pool lends the connection used last").
        let pool = Pool::builder(manager)
            .max_size(settings.size)
            .queue_mode(QueueMode::Lifo)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(settings.deadline))
            .create_timeout(Some(settings.deadline))
            .recycle_timeout(Some(settings.deadline))
            .post_create(Hook::async_fn(move |client, _| {
                let role = role.clone();
                let statement_timeout = statement_timeout.clone();
                Box::pin(async move {
                    prepare_session(client, role.as_deref(), &statement_timeout).await.map_err(HookError::Backend)
                })
            }))
            .build()
            .map_err(|_| "the database pool could not be built".to_string())?;
        Ok(Database {
            pool,
            deadline: settings.deadline,
            backoff: Arc::default(),
            link,
            metrics: DbMetrics::default(),
            url_setting: settings.url_setting,
        })
    }

    /// The pool's and its calls' metrics (registered by `crate::metrics::Metrics::gateway`).
    pub fn metrics(&self) -> &DbMetrics {
        &self.metrics
    }

    /// Sets the pool's gauges to what it holds now: its bound, its connections, those lent to a
    /// call, and the calls waiting for one (read at each scrape).
    pub fn observe_pool(&self) {
        let status = self.pool.status();
        let in_use = status.size.saturating_sub(status.available);
        self.metrics.pool(status.max_size, status.size, in_use, status.waiting);
    }

    /// Runs `sql`, a statement answering one row `(status integer, body text)`, for a request whose
    /// client is `client`; counted by outcome. Should the client go while the call waits for a
    /// connection, the call is given up before it starts ([`Stop::ClientGone`], not counted); once
    /// the statement is sent, it runs to its end.
    pub async fn call(&self, sql: &str, params: &[&(dyn ToSql + Sync)], client: &ClientWatch) -> Result<Answer, Stop> {
        let started = Instant::now();
        let outcome = self.call_once(sql, params, started, client).await;
        let counted = match &outcome {
            Ok(_) => Some(CallOutcome::Ok),
            Err(Stop::Refused(refusal)) => Some(CallOutcome::of(refusal)),
            Err(Stop::ClientGone(_)) => None,
        };
        if let Some(counted) = counted {
            self.metrics.call(counted, started.elapsed());
        }
        outcome
    }

    /// Runs `sql` like [`Self::call`], under the same deadline, but for the gateway's own upkeep (the
    /// feed's publication): not counted among the calls of requests (its wait for a connection is,
    /// in the pool's wait histogram: the wait is the pool's, whoever waits).
    pub async fn call_for_upkeep(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Answer, Refusal> {
        match self.call_once(sql, params, Instant::now(), &ClientWatch::none()).await {
            Ok(answer) => Ok(answer),
            Err(Stop::Refused(refusal)) => Err(refusal),
            Err(Stop::ClientGone(cause)) => unreachable!("the upkeep has no client to go: {cause}"),
        }
    }

    async fn call_once(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        started: Instant,
        client: &ClientWatch,
    ) -> Result<Answer, Stop> {
        let admission = self.backoff.admit(std::time::Instant::now(), self.deadline);
        if admission == Admission::BackOff {
            return Err(Refusal::transient("database unreachable: backing off").into());
        }
        // The wait for a connection, in a task of its own: a connection being made (its session set
        // up) is finished and returned to the pool even if this request is given up meanwhile, and
        // the outcome is told to the backoff either way.
        let (pool, backoff, deadline) = (self.pool.clone(), self.backoff.clone(), self.deadline);
        let mut getting = tokio::spawn(async move {
            let waited = timeout(deadline, pool.get()).await;
            match &waited {
                Ok(Ok(_)) => backoff.succeeded(),
                Ok(Err(error)) if unreachable(error) => backoff.failed(std::time::Instant::now(), jitter()),
                _ if admission == Admission::Probe => backoff.probe_ended(),
                _ => {}
            }
            waited
        });
        let waited = tokio::select! {
            biased;
            () = client.gone() => None,
            joined = &mut getting => Some(joined.map_err(|error| {
                if error.is_panic() {
                    Refusal::internal("the wait for a connection panicked")
                } else {
                    // (the runtime is shutting down)
                    Refusal::transient("the wait for a connection was cancelled")
                }
            })?),
        };
        self.metrics.waited(started.elapsed());
        let Some(waited) = waited else {
            return Err(Stop::ClientGone("the client went away before its database call"));
        };
        let client = match waited {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => {
                if let PoolError::Backend(cause) = &error {
                    // A connection attempt failed: the request line only says so, this says why
                    // (a refused certificate, a pg_hba refusal); no secret is in it.
                    tracing::warn!(
                        database = self.url_setting,
                        reason = %self.link.explain_for_log(cause),
                        "cannot connect to the database"
                    );
                }
                return Err(Refusal::from_pool(&error).into());
            }
            Err(_) => return Err(Refusal::transient("pool wait timed out").into()),
        };
        let remaining = self.deadline.saturating_sub(started.elapsed());
        match timeout(remaining, query(&client, sql, params)).await {
            Ok(Ok(row)) => Ok(answer(row)?),
            Ok(Err(error)) => {
                let refusal = Refusal::from_db(&error);
                if refusal.discards_connection() {
                    drop(Object::take(client));
                }
                Err(refusal.into())
            }
            Err(_) => {
                // The statement may still be running (waiting for a lock, say): cancel it on the
                // server before answering, so a write the client was told failed never commits
                // later; and never hand this connection to anyone else.
                let cancel = client.cancel_token();
                drop(Object::take(client));
                let _ = timeout(CANCEL_DEADLINE, cancel.cancel_query(self.link.tls.clone())).await;
                Err(Refusal::transient("statement timed out").into())
            }
        }
    }

    /// Stops handing out connections and closes the idle ones.
    pub fn close(&self) {
        self.pool.close();
    }
}

/// Makes a new session the service's, in one statement: it switches to `role` (None: stays as
/// logged in), gets `statement_timeout` (milliseconds), READ COMMITTED (the bookings feed's
/// watermark needs it, whatever the server's default), what keeps secrets out of the server log
/// (generic plans, no parameters on logged errors; see `migrate::keep_secrets_out_of_the_server_log`)
/// and a check every 100 ms that the client is still there (a statement whose caller gave up is
/// aborted even if it only started after the cancel request). The gateway's pool and the webhook
/// worker both start their sessions here.
pub async fn prepare_session(
    client: &tokio_postgres::Client,
    role: Option<&str>,
    statement_timeout_ms: &str,
) -> Result<(), tokio_postgres::Error> {
    client
        .execute(
            "SELECT set_config('role', coalesce($1, current_user), false), \
                    set_config('statement_timeout', $2, false), \
                    set_config('default_transaction_isolation', 'read committed', false), \
                    set_config('plan_cache_mode', 'force_generic_plan', false), \
                    set_config('log_parameter_max_length_on_error', '0', false), \
                    set_config('client_connection_check_interval', '100ms', false)",
            &[&role, &statement_timeout_ms],
        )
        .await
        .map(drop)
}

/// Whether a pool error means the database could not be reached (a connection attempt failed, or
/// the server refuses connections): the backoff's business. Other errors are not an outage.
fn unreachable(error: &PoolError) -> bool {
    let unreachable_db = |error: &tokio_postgres::Error| {
        error.as_db_error().is_none_or(|db| {
            let code = db.code().code();
            code.starts_with("08") || code == "57P03" || code == "53300"
        })
    };
    match error {
        PoolError::Backend(error) => unreachable_db(error),
        PoolError::Timeout(TimeoutType::Create) => true,
        PoolError::PostCreateHook(HookError::Backend(error)) => error.as_db_error().is_none(),
        _ => false,
    }
}

/// Reads `(status integer, body text)`; any other shape is a fault of ours, never a panic. The
/// body is the row's own buffer, not a copy: a page of 500 bookings is 300 KB, and 64 of them in
/// flight held twice (the row, then a string) were most of the gateway's memory.
pub fn answer(row: tokio_postgres::Row) -> Result<Answer, Refusal> {
    let status = row.try_get::<_, i32>(0).ok().and_then(|status| u16::try_from(status).ok());
    let text = row.try_get::<_, RawText>(1).ok().filter(|text| std::str::from_utf8(text.0).is_ok());
    match (status, text) {
        (Some(status), Some(_)) => Ok(Answer { status, body: Bytes::from_owner(BodyOf(row)) }),
        _ => Err(Refusal::internal("the function answered an unexpected row")),
    }
}

/// A text value's bytes as they came (`&str` would check them as UTF-8 at every read).
struct RawText<'a>(&'a [u8]);

impl<'a> FromSql<'a> for RawText<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawText(raw))
    }

    fn accepts(ty: &Type) -> bool {
        <&str as FromSql>::accepts(ty)
    }
}

/// The body column of a row [`answer`] checked.
struct BodyOf(tokio_postgres::Row);

impl AsRef<[u8]> for BodyOf {
    fn as_ref(&self) -> &[u8] {
        self.0.try_get::<_, RawText>(1).map_or(&[], |text| text.0)
    }
}

async fn query(
    client: &Object,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<tokio_postgres::Row, tokio_postgres::Error> {
    let statement = client.prepare_cached(sql).await?;
    client.query_one(&statement, params).await
}
