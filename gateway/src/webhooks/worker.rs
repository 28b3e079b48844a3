//! The delivery worker: every sweep interval it claims as many due hints as it has free slots
//! (`webhook.claim_due_hints`, which also kills the hints of disarmed endpoints), sends each in a
//! task of its own, and records each outcome (`webhook.record_attempt`). At most
//! `WEBHOOK_CONCURRENCY` attempts run at once in a process, and the claim gives no operator more than
//! `WEBHOOK_PER_OPERATOR` in flight across all processes, so a slow or dead endpoint never delays
//! another operator's hints. Claims carry a lease: any number of processes may run a worker, and a
//! process that dies mid-attempt leaves its hints to be taken over when the lease runs out.
//!
//! Every `WEBHOOK_BACKLOG_INTERVAL_MS` it also reads the backlog (`webhook.backlog()`) and the
//! count of capped booking stamps (`webhook.booking_stamps_capped()`, a gauge of the feed's health
//! that needs a process reading the database now and then) for its metrics, and deletes the
//! delivered and dead hints past their retention (`webhook.expire_hints`, `webhook_hint_retention`
//! in the database, 30 days by default) in batches of [`EXPIRY_BATCH`], each its own short
//! transaction; each attempt is counted by outcome and reason, with its latency (`crate::metrics`).
//!
//! It connects as `webhook_worker`, which may call those functions and nothing else. A lost
//! database connection is made again at the next sweep; an attempt whose outcome could not be
//! recorded is sent again after its lease (delivery is at-least-once). Every wait on the database
//! has a deadline (`DATABASE_DEADLINE`): a server or proxy that accepts and never answers costs a
//! sweep, never the worker, and never the start of `serve`.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use serde_json::json;
use tokio::sync::Semaphore;
use tokio::task::AbortHandle;
use tokio_postgres::Client;
use tokio_rustls::TlsConnector;

use super::address::AddressPolicy;
use super::delivery::{Hint, Outcome, Sender, ATTEMPT_DEADLINE};
use super::metrics::{attempt_reason, AttemptOutcome, Backlog, WebhookMetrics};
use super::resolve::{Resolve, SystemResolver};
use crate::config::WebhookSettings;
use crate::db::prepare_session;
use crate::db_tls::DatabaseLink;
use crate::telemetry::LogSink;

/// The worker's statements are short: past this, the server gives up on them.
const STATEMENT_TIMEOUT_MS: &str = "10000";
/// The longest the worker waits on the database at once: a connection made and its session set up,
/// or one statement. Past the statement timeout, so a server that answers gives up first; past
/// this, the session is dropped and made again at the next sweep.
const DATABASE_DEADLINE: Duration = Duration::from_secs(12);
/// How long a claim holds a hint: the attempt's deadline with room to record its outcome.
const LEASE_SECONDS: i32 = 60;
const CLAIM: &str = "SELECT operator_id, hint_id, lease_token, attempt, url, host, secret, body, booking_reference \
                     FROM webhook.claim_due_hints($1, $2, $3)";
const RECORD: &str = "SELECT webhook.record_attempt($1, $2, $3, $4, $5)";
const BACKLOG: &str = "SELECT waiting, in_flight, oldest_undelivered_seconds, dead_last_day, \
                       webhook.booking_stamps_capped() FROM webhook.backlog()";
const EXPIRE: &str = "SELECT webhook.expire_hints($1)";
/// Hints deleted by one call of `webhook.expire_hints`: one short transaction.
pub const EXPIRY_BATCH: i32 = 1000;
/// Calls of it at most per backlog interval: 10 000 hints every 10 s by default, far more than any
/// deployment writes, so a backlog of expired hints (the first run after an upgrade) drains within
/// hours without ever keeping the worker from its sweeps for long.
const EXPIRY_BATCHES_PER_INTERVAL: usize = 10;
/// And no further call once a round has taken this long: sweeps wait for it.
const EXPIRY_BUDGET: Duration = Duration::from_secs(2);
const PLATFORM_DOMAINS_CONFIGURED: &str = "SELECT webhook.platform_domains_configured()";
const MAY_CLAIM: &str = "SELECT pg_catalog.has_function_privilege('webhook.claim_due_hints(integer, integer, integer)', 'EXECUTE') \
                         AND pg_catalog.has_function_privilege('webhook.record_attempt(uuid, bigint, uuid, integer, text)', 'EXECUTE')";

/// A database session of the worker: its client, and the task driving its connection, which ends
/// with it (a server that never answers would otherwise keep a given-up session's socket open).
struct Session {
    client: Client,
    connection: AbortHandle,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.connection.abort();
    }
}

/// What a worker is wired to besides its settings: in production the system's resolver, the public
/// trust anchors (plus `WEBHOOK_EXTRA_ROOTS`), port 443 and `WEBHOOK_PUBLIC_RANGES`. Tests wire a
/// resolver of their own, their test authority and the port of their local receiver; the address
/// check itself is never switched off.
pub struct WorkerWiring {
    pub resolver: Arc<dyn Resolve>,
    pub extra_roots: Vec<CertificateDer<'static>>,
    pub port: u16,
    pub policy: AddressPolicy,
}

impl WorkerWiring {
    pub fn production(settings: &WebhookSettings) -> Result<Self, String> {
        let extra_roots = match &settings.extra_roots {
            Some(path) => CertificateDer::pem_file_iter(path)
                .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
                .map_err(|e| format!("WEBHOOK_EXTRA_ROOTS: cannot read {}: {e}", path.display()))?,
            None => Vec::new(),
        };
        Ok(WorkerWiring {
            resolver: Arc::new(SystemResolver::new()?),
            extra_roots,
            port: 443,
            policy: AddressPolicy::with_public_ranges(&settings.public_ranges)
                .with_nat64_prefixes(&settings.nat64_prefixes),
        })
    }
}

pub struct Worker {
    settings: WebhookSettings,
    /// `WEBHOOK_DATABASE_URL` read once, TLS settings included: a bad one stops the start.
    database: DatabaseLink,
    sender: Sender,
    log: LogSink,
    slots: Arc<Semaphore>,
    metrics: WebhookMetrics,
}

impl Worker {
    pub fn new(settings: WebhookSettings, wiring: WorkerWiring, log: LogSink) -> Result<Self, String> {
        let mut database =
            DatabaseLink::parse(&settings.database_url, "WEBHOOK_DATABASE_URL (by default DATABASE_URL)")?;
        database.config.application_name("ingest-webhooks");
        database.bound_each_connect(DATABASE_DEADLINE);
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        for root in wiring.extra_roots {
            roots.add(root).map_err(|e| format!("WEBHOOK_EXTRA_ROOTS: not a usable trust anchor: {e}"))?;
        }
        let mut tls = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let sender = Sender {
            resolver: wiring.resolver,
            tls: TlsConnector::from(Arc::new(tls)),
            port: wiring.port,
            policy: wiring.policy,
        };
        let slots = Arc::new(Semaphore::new(settings.concurrency));
        Ok(Worker { settings, database, sender, log, slots, metrics: WebhookMetrics::default() })
    }

    /// Its attempts, sweeps and the backlog it reads (registered by `metrics::Metrics`).
    pub fn metrics(&self) -> &WebhookMetrics {
        &self.metrics
    }

    /// Sweeps until `shutdown`, then lets the attempts under way finish (each within its deadline).
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        let mut shutdown = std::pin::pin!(shutdown);
        let mut database: Option<Arc<Session>> = None;
        let mut backlog_read: Option<Instant> = None;
        let mut ticks = tokio::time::interval(self.settings.sweep_interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                () = &mut shutdown => break,
            }
            if database.as_ref().is_none_or(|session| session.client.is_closed()) {
                database = self.connect().await.map(Arc::new);
            }
            if let Some(session) = &database {
                match tokio::time::timeout(DATABASE_DEADLINE, self.sweep(session)).await {
                    Ok(Ok(())) => self.metrics.swept(unix_now()),
                    Ok(Err(error)) => {
                        tracing::warn!(sqlstate = ?error.code().map(|code| code.code()), "webhook claim failed");
                        // A node demoted by a failover (25006): the next sweep connects again, and
                        // a multi-host DATABASE_URL's read-write attribute finds the new primary.
                        if error.code().is_some_and(crate::errors::spends_the_connection) {
                            database = None;
                            continue;
                        }
                    }
                    Err(_) => {
                        tracing::warn!("webhook claim timed out: the session is made again at the next sweep");
                        database = None;
                        continue;
                    }
                }
                if backlog_read.is_none_or(|read| read.elapsed() >= self.settings.backlog_interval) {
                    backlog_read = Some(Instant::now());
                    self.read_backlog(&session.client).await;
                    self.expire_hints(&session.client).await;
                }
            }
        }
        let everything = u32::try_from(self.settings.concurrency).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(ATTEMPT_DEADLINE * 2, self.slots.acquire_many(everything)).await;
    }

    /// At start-up: a worker whose login cannot take its role, or whose role may not call the
    /// worker's functions, is misconfigured, and the process must not start as if it delivered
    /// hints (it would only warn at every sweep). A database that cannot be reached, or does not
    /// answer within `DATABASE_DEADLINE`, is an outage, not a misconfiguration: the worker starts
    /// and connects when it can.
    ///
    /// A worker that may start also warns while the platform's own domains are not set
    /// (`webhook_platform_domains`, empty after `ingest migrate`): until then registrations are not
    /// refused for pointing at the platform. The warning names the setting only, and stops nothing.
    pub async fn check_role(&self) -> Result<(), String> {
        match tokio::time::timeout(DATABASE_DEADLINE, self.check_role_now()).await {
            Ok(outcome) => outcome,
            Err(_) => {
                tracing::warn!("webhook worker: cannot check its role now (the database does not answer)");
                Ok(())
            }
        }
    }

    async fn check_role_now(&self) -> Result<(), String> {
        let (client, connection) = match self.database.connect().await {
            Ok(pair) => pair,
            Err(error) => {
                let reason = self.database.explain_for_log(&error);
                tracing::warn!(reason, "webhook worker: cannot check its role now (the database cannot be reached)");
                return Ok(());
            }
        };
        let session = Session { client, connection: tokio::spawn(connection).abort_handle() };
        let client = &session.client;
        let role = self.settings.database_role.as_deref();
        let outcome = match prepare_session(client, role, STATEMENT_TIMEOUT_MS).await {
            Err(error) => Err(format!(
                "the login of WEBHOOK_DATABASE_URL cannot take the role {} (WEBHOOK_DATABASE_ROLE){}",
                role.unwrap_or("it logs in as"),
                error.code().map(|code| format!(", SQLSTATE {}", code.code())).unwrap_or_default()
            )),
            // Without USAGE on schema webhook the lookup itself is refused: no privilege either.
            Ok(()) => match client.query_one(MAY_CLAIM, &[]).await.map(|row| row.get::<_, bool>(0)) {
                Ok(true) => Ok(()),
                _ => Err(format!(
                    "{} may not call the webhook.* functions (WEBHOOK_DATABASE_ROLE)",
                    role.unwrap_or("the login role")
                )),
            },
        };
        if outcome.is_ok() {
            warn_unless_platform_domains_are_set(client).await;
        }
        outcome.map_err(|problem| format!("webhook worker: {problem}"))
    }

    /// The backlog gauges, read now (a failure leaves the last values and their read time).
    async fn read_backlog(&self, client: &Client) {
        let Ok(read) = tokio::time::timeout(DATABASE_DEADLINE, client.query_one(BACKLOG, &[])).await else {
            tracing::warn!("webhook backlog could not be read in time");
            return;
        };
        match read {
            Ok(row) => {
                let backlog = Backlog {
                    waiting: row.get(0),
                    in_flight: row.get(1),
                    oldest_undelivered_seconds: row.get(2),
                    dead_last_day: row.get(3),
                    booking_stamps_capped: row.get(4),
                };
                self.metrics.backlog(&backlog, unix_now());
            }
            Err(error) => {
                tracing::warn!(sqlstate = ?error.code().map(|code| code.code()), "webhook backlog could not be read")
            }
        }
    }

    /// Deletes the hints past their retention, a batch a statement, until a batch comes back short,
    /// [`EXPIRY_BATCHES_PER_INTERVAL`] have run or the round has taken [`EXPIRY_BUDGET`]; a failure
    /// ends this round (the next interval tries again).
    async fn expire_hints(&self, client: &Client) {
        let started = Instant::now();
        for _ in 0..EXPIRY_BATCHES_PER_INTERVAL {
            if started.elapsed() >= EXPIRY_BUDGET {
                return;
            }
            let Ok(outcome) = tokio::time::timeout(DATABASE_DEADLINE, client.query_one(EXPIRE, &[&EXPIRY_BATCH])).await
            else {
                tracing::warn!("webhook hints past their retention could not be deleted in time");
                return;
            };
            match outcome.map(|row| row.get::<_, i32>(0)) {
                Ok(deleted) => {
                    self.metrics.expired(deleted);
                    if deleted < EXPIRY_BATCH {
                        return;
                    }
                }
                Err(error) => {
                    tracing::warn!(
                        sqlstate = ?error.code().map(|code| code.code()),
                        "webhook hints past their retention could not be deleted"
                    );
                    return;
                }
            }
        }
    }

    async fn connect(&self) -> Option<Session> {
        let Ok(session) = tokio::time::timeout(DATABASE_DEADLINE, self.connect_now()).await else {
            tracing::warn!("webhook worker: the database does not answer");
            return None;
        };
        session
    }

    async fn connect_now(&self) -> Option<Session> {
        let (client, connection) = match self.database.connect().await {
            Ok(pair) => pair,
            Err(error) => {
                let reason = self.database.explain_for_log(&error);
                tracing::warn!(reason, "webhook worker: cannot connect to the database");
                return None;
            }
        };
        let session = Session { client, connection: tokio::spawn(connection).abort_handle() };
        match prepare_session(&session.client, self.settings.database_role.as_deref(), STATEMENT_TIMEOUT_MS).await {
            Ok(_) => Some(session),
            Err(error) => {
                tracing::warn!(sqlstate = ?error.code().map(|code| code.code()), "webhook worker: cannot take its role");
                None
            }
        }
    }

    /// One sweep: claim what the free slots can take, and start an attempt for each.
    async fn sweep(&self, session: &Arc<Session>) -> Result<(), tokio_postgres::Error> {
        let free = self.slots.available_permits();
        if free == 0 {
            return Ok(());
        }
        let limit = i32::try_from(free).unwrap_or(i32::MAX);
        let per_operator = i32::try_from(self.settings.per_operator).unwrap_or(i32::MAX);
        for row in session.client.query(CLAIM, &[&limit, &per_operator, &LEASE_SECONDS]).await? {
            let Ok(slot) = self.slots.clone().try_acquire_owned() else { break };
            let claimed = Claimed {
                operator_id: row.get(0),
                hint_id: row.get(1),
                lease_token: row.get(2),
                attempt: row.get(3),
                url: row.get(4),
                host: row.get(5),
                secret: row.get(6),
                body: row.get(7),
                booking_reference: row.get(8),
            };
            let (sender, session, log) = (self.sender.clone(), session.clone(), self.log.clone());
            let metrics = self.metrics.clone();
            tokio::spawn(async move {
                claimed.deliver(&sender, &session.client, &log, &metrics).await;
                drop(slot);
            });
        }
        Ok(())
    }
}

struct Claimed {
    operator_id: uuid::Uuid,
    hint_id: i64,
    lease_token: uuid::Uuid,
    attempt: i32,
    url: String,
    host: String,
    secret: String,
    body: String,
    booking_reference: String,
}

impl Claimed {
    async fn deliver(self, sender: &Sender, client: &Client, log: &LogSink, metrics: &WebhookMetrics) {
        let hint = Hint { url: &self.url, host: &self.host, secret: &self.secret, body: &self.body };
        let started = Instant::now();
        let outcome = sender.send(&hint).await;
        let elapsed = started.elapsed();
        let (status, failure) = match outcome {
            Outcome::Answered(status) => (Some(i32::from(status)), None),
            Outcome::Failed(failure) => (None, Some(failure.reason())),
        };
        // (not recorded in time: sent again after its lease, as when the recording fails)
        let arguments: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
            [&self.operator_id, &self.hint_id, &self.lease_token, &status, &failure];
        let state = match tokio::time::timeout(DATABASE_DEADLINE, client.query_one(RECORD, &arguments)).await {
            Ok(recorded) => recorded.map(|row| row.get::<_, String>(0)).ok(),
            Err(_) => None,
        };
        let reason = attempt_reason(status.and_then(|status| u16::try_from(status).ok()), failure);
        metrics.attempt(AttemptOutcome::from_state(state.as_deref()), reason, elapsed);
        // One line per attempt: never the secret, the signature or the body.
        log.write(json!({
            "message": "webhook attempt",
            "host": self.host,
            "booking_reference": self.booking_reference,
            "attempt": self.attempt,
            "status": status,
            "failure": failure,
            "state": state.as_deref().unwrap_or("unrecorded"),
        }));
    }
}

/// The start-up warning of [`Worker::check_role`] while `webhook_platform_domains` is empty (asked
/// through `webhook.platform_domains_configured()`, which answers a boolean and never the domains).
async fn warn_unless_platform_domains_are_set(client: &Client) {
    match client.query_one(PLATFORM_DOMAINS_CONFIGURED, &[]).await.map(|row| row.get::<_, bool>(0)) {
        Ok(true) => {}
        Ok(false) => tracing::warn!(
            setting = "webhook_platform_domains",
            "webhook worker: the platform's own domains are not set, so webhook endpoints on them are not \
             refused at registration; set webhook_platform_domains in app.settings for this deployment"
        ),
        Err(error) => tracing::warn!(
            sqlstate = ?error.code().map(|code| code.code()),
            "webhook worker: cannot tell whether webhook_platform_domains is set"
        ),
    }
}

fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |elapsed| elapsed.as_secs_f64())
}
