//! Readiness: whether this process should be sent traffic now, as `GET /readyz` answers it.
//!
//! The gateway is ready when a database call succeeds within [`DEADLINE`] and the database's
//! functions are at least the version this binary migrates to ([`crate::migrate::latest_version`]):
//! the version `ingest migrate` recorded in the transaction that applied them, so a database whose
//! migrations are ahead of its functions (a run under way, or given up) is behind. The call is
//! `api.functions_version()`, one per probe at most, on a connection of the probe's own (the gateway's
//! login and role, made lazily and kept), not a pooled one: a pool busy with requests is no reason
//! to leave the balancer, and a probe never takes a request's connection. A schema newer than the
//! binary is ready: migrations run before new binaries roll out, and the old ones keep serving
//! meanwhile, so a deployment never empties the balancer.
//!
//! A reason says why not, in a word and never with a database message: `database_unreachable` (no
//! answer within the deadline), `database_error` (the database answered with an error: a login
//! that cannot take its role, a missing grant), `schema_behind` (older than the binary, or without
//! `api.functions_version()` at all: functions older than it, or a database never migrated by this
//! binary's line), `not_primary` (the server is in recovery: a standby, or a primary demoted by a
//! failover; the probe connects again next time, and a multi-host `DATABASE_URL` finds the new
//! primary), and `shutting_down` (set by the listener, not here).

use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::timeout;
use tokio_postgres::error::SqlState;
use tokio_postgres::Client;

use crate::config::Config;
use crate::db::prepare_session;
use crate::db_tls::DatabaseLink;

/// The longest one readiness probe waits for the database (connection included).
pub const DEADLINE: Duration = Duration::from_secs(1);

/// The probe's one call: whether the server is in recovery, and its functions' version.
const PROBE: &str = "SELECT pg_is_in_recovery(), api.functions_version()::bigint";

/// Why the process is not ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    DatabaseUnreachable,
    DatabaseError,
    SchemaBehind,
    NotPrimary,
    ShuttingDown,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::DatabaseUnreachable => "database_unreachable",
            Reason::DatabaseError => "database_error",
            Reason::SchemaBehind => "schema_behind",
            Reason::NotPrimary => "not_primary",
            Reason::ShuttingDown => "shutting_down",
        }
    }
}

/// Ready when the database's schema is at least the binary's.
pub fn judge(database_version: Option<i64>, binary_version: i64) -> Result<(), Reason> {
    match database_version {
        Some(version) if version >= binary_version => Ok(()),
        _ => Err(Reason::SchemaBehind),
    }
}

/// What a failed call means for readiness: no answer is `database_unreachable`; a missing function
/// (or schema) is `schema_behind`; any other answer of the server `database_error`.
pub fn reason_of(error: &tokio_postgres::Error) -> Reason {
    let Some(db) = error.as_db_error() else { return Reason::DatabaseUnreachable };
    let code = db.code();
    if *code == SqlState::UNDEFINED_FUNCTION || *code == SqlState::INVALID_SCHEMA_NAME {
        Reason::SchemaBehind
    } else if code.code().starts_with("08")
        || [
            SqlState::ADMIN_SHUTDOWN,
            SqlState::CANNOT_CONNECT_NOW,
            SqlState::TOO_MANY_CONNECTIONS,
            SqlState::QUERY_CANCELED,
        ]
        .contains(code)
    {
        Reason::DatabaseUnreachable
    } else {
        Reason::DatabaseError
    }
}

/// The gateway's readiness probe: its own connection and the version it expects.
pub struct Probe {
    link: DatabaseLink,
    role: Option<String>,
    expected: i64,
    deadline: Duration,
    session: Mutex<Option<Client>>,
}

impl Probe {
    /// For `DATABASE_URL` and `DATABASE_ROLE`, expecting this binary's schema version.
    pub fn new(config: &Config) -> Result<Probe, String> {
        let mut link = DatabaseLink::parse(&config.database_url, "DATABASE_URL")?;
        let deadline = DEADLINE.min(config.database_timeout);
        link.bound_each_connect(deadline);
        link.config.application_name("ingest-readiness");
        Ok(Probe {
            link,
            role: config.database_role.clone(),
            expected: crate::migrate::latest_version(),
            deadline,
            session: Mutex::new(None),
        })
    }

    /// One probe: at most one connection attempt and one call, within the deadline. Probes that
    /// arrive together take turns; one that cannot start within the deadline is unready.
    pub async fn check(&self) -> Result<(), Reason> {
        match timeout(self.deadline, self.check_within()).await {
            Ok(verdict) => verdict,
            Err(_) => {
                // The call may be under way on the kept connection: it is not used again (a probe
                // that holds the lock when the deadline passes drops it on its own way out).
                if let Ok(mut session) = self.session.try_lock() {
                    *session = None;
                }
                Err(Reason::DatabaseUnreachable)
            }
        }
    }

    async fn check_within(&self) -> Result<(), Reason> {
        let mut session = self.session.lock().await;
        if session.as_ref().is_none_or(Client::is_closed) {
            *session = None;
            *session = Some(self.connect().await?);
        }
        let client = session.as_ref().expect("a session was just made");
        match client.query_one(PROBE, &[]).await {
            Ok(row) if row.try_get::<_, bool>(0).unwrap_or(false) => {
                *session = None;
                Err(Reason::NotPrimary)
            }
            Ok(row) => judge(row.try_get::<_, Option<i64>>(1).ok().flatten(), self.expected),
            Err(error) => {
                *session = None;
                Err(reason_of(&error))
            }
        }
    }

    async fn connect(&self) -> Result<Client, Reason> {
        let (client, connection) = self.link.connect().await.map_err(|error| reason_of(&error))?;
        tokio::spawn(connection);
        let statement_timeout = self.deadline.as_millis().to_string();
        prepare_session(&client, self.role.as_deref(), &statement_timeout).await.map_err(|error| reason_of(&error))?;
        Ok(client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_older_than_the_binary_is_behind_and_a_newer_one_is_ready() {
        assert_eq!(judge(Some(9), 9), Ok(()));
        assert_eq!(judge(Some(10), 9), Ok(()), "migrated before this binary was replaced");
        assert_eq!(judge(Some(8), 9), Err(Reason::SchemaBehind));
        assert_eq!(judge(None, 9), Err(Reason::SchemaBehind), "no migration recorded");
    }

    #[test]
    fn every_reason_is_one_word() {
        for reason in [
            Reason::DatabaseUnreachable,
            Reason::DatabaseError,
            Reason::SchemaBehind,
            Reason::NotPrimary,
            Reason::ShuttingDown,
        ] {
            assert!(reason.as_str().bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{reason:?}");
        }
    }
}
