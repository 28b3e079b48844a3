//! The one table from database outcomes to HTTP answers (docs/reference/errors.md).
//!
//! | outcome | answer |
//! |---|---|
//! | SQLSTATE `PTxyz` raised by our SQL | HTTP xyz, `{error: MESSAGE, field: DETAIL}` |
//! | class 08, 40001, 40P01, 55P03, 57P01, 57P03, 53300, 57014, 25006, 26000; a lost connection; pool timeout | 503 `try_again` |
//! | 42883, 3F000, 0A000 raised by the gateway's own statement, not inside a function: the functions are older than the gateway (`schema_behind`) | 503 `try_again` |
//! | anything else | 500 `internal_error` |
//!
//! 57014 (statement cancelled by `statement_timeout`) joins the transient list: it is the server's
//! side of the same deadline whose client side is a pool timeout. 25006 is a node that became read
//! only (demoted by a failover); 26000 a prepared statement the server no longer holds.
//! `schema_behind` is a gateway newer than the functions in place: the function its statement calls
//! is missing or has another signature (42883), its schema is missing (3F000), or its result changed
//! under a statement prepared before (0A000, "cached plan must not change result type") — a
//! migration under way, or one that gave up. Only when the error is the statement's own (no
//! PL/pgSQL context): the same codes raised inside a function are a fault of ours, a 500. Its cause
//! in the log line and `ingest_db_calls_total{outcome="schema_behind"}` say so. After 0A000, 25006
//! or 26000 the connection is not used again (its prepared statements are stale, or it is no longer
//! the primary's). No database message, constraint or table name ever reaches a client; a 500's
//! SQLSTATE and PL/pgSQL context go to the log line.
//!
//! [`Refusal`] is what a refusal is; what became of a request (answered, or its client gone) is
//! `crate::outcome`'s.

use std::borrow::Cow;

use http::StatusCode;
use tokio_postgres::error::SqlState;

/// What a refusal is: every answer that is not a route's own, as the client gets it and the
/// gateway reads it (the log line's cause, the metrics' outcome, the standby's fallback, whether a
/// connection is kept). The answer's status and body follow from the variant alone
/// (`crate::response::error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A refusal of the contract: its status, its stable code and the caller's field at fault. The
    /// gateway's own (404, 405, 413, 415, `invalid_query`) and every `PTxyz` our SQL raises.
    Contract { status: StatusCode, code: Cow<'static, str>, field: Option<String> },
    /// 429 `rate_limited`: a token bucket is empty; retry after this many whole seconds (≥ 1).
    RateLimited { retry_after: u32 },
    /// 503 `try_again`: a condition a retry mends (see the module's table).
    Transient {
        /// Why, for the log line only: never sent.
        cause: Cow<'static, str>,
        /// The database's SQLSTATE, when the database gave one.
        sqlstate: Option<SqlState>,
        /// The functions in place are older than the gateway (see the module's table).
        schema_behind: bool,
    },
    /// 500 `internal_error`: a fault of ours.
    Internal { cause: Cow<'static, str>, sqlstate: Option<SqlState> },
}

/// The status and code of each refusal that is not the contract's own.
const RATE_LIMITED: (StatusCode, &str) = (StatusCode::TOO_MANY_REQUESTS, "rate_limited");
const TRY_AGAIN: (StatusCode, &str) = (StatusCode::SERVICE_UNAVAILABLE, "try_again");
const INTERNAL_ERROR: (StatusCode, &str) = (StatusCode::INTERNAL_SERVER_ERROR, "internal_error");

const TRANSIENT_CLASSES: &[&str] = &["08"];
const TRANSIENT_STATES: &[SqlState] = &[
    SqlState::T_R_SERIALIZATION_FAILURE,
    SqlState::T_R_DEADLOCK_DETECTED,
    SqlState::LOCK_NOT_AVAILABLE,
    SqlState::ADMIN_SHUTDOWN,
    SqlState::CANNOT_CONNECT_NOW,
    SqlState::TOO_MANY_CONNECTIONS,
    SqlState::QUERY_CANCELED,
    SqlState::READ_ONLY_SQL_TRANSACTION,
    SqlState::INVALID_SQL_STATEMENT_NAME,
];

/// Raised by the gateway's own statement (not inside a function), a function it calls is not the
/// one it expects: see the module's table.
const SCHEMA_BEHIND_STATES: &[SqlState] =
    &[SqlState::UNDEFINED_FUNCTION, SqlState::INVALID_SCHEMA_NAME, SqlState::FEATURE_NOT_SUPPORTED];

/// After these the connection is not used again: its prepared statements are stale (0A000, 26000),
/// or its server no longer takes writes (25006).
const DISCARDING_STATES: &[SqlState] =
    &[SqlState::FEATURE_NOT_SUPPORTED, SqlState::INVALID_SQL_STATEMENT_NAME, SqlState::READ_ONLY_SQL_TRANSACTION];

/// Whether a connection that answered `state` must not be used again (the webhook worker's session
/// as well as a pooled connection): see [`DISCARDING_STATES`].
pub fn spends_the_connection(state: &SqlState) -> bool {
    DISCARDING_STATES.contains(state)
}

impl Refusal {
    /// A refusal of the contract with its status and stable code.
    pub fn new(status: StatusCode, code: &'static str) -> Self {
        Refusal::Contract { status, code: Cow::Borrowed(code), field: None }
    }

    /// The same refusal naming `field` (a refusal of the contract only: the others name none).
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        if let Refusal::Contract { field: named, .. } = &mut self {
            *named = Some(field.into());
        }
        self
    }

    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found")
    }

    pub fn method_not_allowed() -> Self {
        Self::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed")
    }

    /// 422 `invalid_query` naming the parameter, when its name can be echoed (see [`echoable`]).
    pub fn invalid_query(field: impl Into<String>) -> Self {
        let field = field.into();
        let refusal = Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_query");
        if echoable(&field) {
            refusal.with_field(field)
        } else {
            refusal
        }
    }

    pub fn internal(cause: impl Into<Cow<'static, str>>) -> Self {
        Refusal::Internal { cause: cause.into(), sqlstate: None }
    }

    pub fn transient(cause: impl Into<Cow<'static, str>>) -> Self {
        Refusal::Transient { cause: cause.into(), sqlstate: None, schema_behind: false }
    }

    /// 429 `rate_limited`, to be retried after `seconds` (≥ 1).
    pub fn rate_limited(seconds: u32) -> Self {
        Refusal::RateLimited { retry_after: seconds.max(1) }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::Contract { status, .. } => *status,
            Refusal::RateLimited { .. } => RATE_LIMITED.0,
            Refusal::Transient { .. } => TRY_AGAIN.0,
            Refusal::Internal { .. } => INTERNAL_ERROR.0,
        }
    }

    /// The stable code the client branches on.
    pub fn code(&self) -> &str {
        match self {
            Refusal::Contract { code, .. } => code,
            Refusal::RateLimited { .. } => RATE_LIMITED.1,
            Refusal::Transient { .. } => TRY_AGAIN.1,
            Refusal::Internal { .. } => INTERNAL_ERROR.1,
        }
    }

    /// The caller's field at fault, sent as `field`.
    pub fn field(&self) -> Option<&str> {
        match self {
            Refusal::Contract { field, .. } => field.as_deref(),
            _ => None,
        }
    }

    /// Why, for the log line only (never sent): a transient or internal fault's cause.
    pub fn cause(&self) -> Option<&str> {
        match self {
            Refusal::Transient { cause, .. } | Refusal::Internal { cause, .. } => Some(cause),
            _ => None,
        }
    }

    /// `Retry-After` in whole seconds, on the statuses that carry it (409, 429, 503).
    pub fn retry_after(&self) -> Option<u32> {
        match self {
            Refusal::RateLimited { retry_after } => Some(*retry_after),
            Refusal::Transient { .. } => Some(1),
            Refusal::Contract { status, .. } => matches!(
                *status,
                StatusCode::CONFLICT | StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
            )
            .then_some(1),
            Refusal::Internal { .. } => None,
        }
    }

    /// The SQLSTATE of a database error that was not a refusal of ours, as text.
    pub fn sqlstate(&self) -> Option<&str> {
        match self {
            Refusal::Transient { sqlstate, .. } | Refusal::Internal { sqlstate, .. } => {
                sqlstate.as_ref().map(SqlState::code)
            }
            _ => None,
        }
    }

    /// Whether it says that the functions are older than the gateway (see the module's table).
    pub fn is_schema_behind(&self) -> bool {
        matches!(self, Refusal::Transient { schema_behind: true, .. })
    }

    /// Whether the connection that gave this error must not serve another call (see
    /// [`DISCARDING_STATES`]).
    pub fn discards_connection(&self) -> bool {
        match self {
            Refusal::Transient { sqlstate: Some(state), .. } | Refusal::Internal { sqlstate: Some(state), .. } => {
                spends_the_connection(state)
            }
            _ => false,
        }
    }

    pub fn from_pool(error: &deadpool_postgres::PoolError) -> Self {
        use deadpool_postgres::PoolError;
        match error {
            PoolError::Backend(error) => Self::from_db(error),
            PoolError::Timeout(kind) => Self::transient(format!("pool timeout: {kind:?}")),
            PoolError::Closed => Self::transient("pool closed"),
            // A setup statement that the server refused (a DATABASE_ROLE that does not exist, say)
            // is a misconfiguration, not something a retry mends: classified like any other error.
            PoolError::PostCreateHook(deadpool_postgres::HookError::Backend(error)) => Self::from_db(error),
            PoolError::PostCreateHook(_) => Self::internal("connection setup failed"),
            PoolError::NoRuntimeSpecified => Self::internal("pool has no runtime"),
        }
    }

    pub fn from_db(error: &tokio_postgres::Error) -> Self {
        let Some(db) = error.as_db_error() else {
            // No server answer at all: the connection broke or could not be made.
            return Self::transient(if error.is_closed() { "connection closed" } else { "connection failed" });
        };
        let state = db.code();
        if let Some(answer) = refusal(state.code(), db.message(), db.detail()) {
            return answer;
        }
        let cause = format!("sqlstate {}{}", state.code(), db.where_().map(|w| format!(" at {w}")).unwrap_or_default());
        let sqlstate = Some(state.clone());
        if db.where_().is_none() && SCHEMA_BEHIND_STATES.contains(state) {
            Refusal::Transient { cause: format!("schema_behind: {cause}").into(), sqlstate, schema_behind: true }
        } else if TRANSIENT_STATES.contains(state)
            || TRANSIENT_CLASSES.iter().any(|class| state.code().starts_with(class))
        {
            Refusal::Transient { cause: cause.into(), sqlstate, schema_behind: false }
        } else {
            Refusal::Internal { cause: cause.into(), sqlstate }
        }
    }
}

/// A `PTxyz` refusal raised by our SQL. Its message must be a stable code, or it is not ours to
/// show and becomes a 500. Its detail is the caller's own field name (which may echo a key the
/// caller sent); one longer than any name we use, or with control characters, is left out.
pub fn refusal(state: &str, message: &str, detail: Option<&str>) -> Option<Refusal> {
    let status = state.strip_prefix("PT")?.parse::<u16>().ok()?;
    let status = StatusCode::from_u16(status).ok().filter(|s| s.is_client_error() || s.is_server_error());
    let is_code = !message.is_empty() && message.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    let field = detail.filter(|field| echoable(field));
    match (status, is_code) {
        (Some(status), true) => {
            Some(Refusal::Contract { status, code: Cow::Owned(message.to_string()), field: field.map(str::to_string) })
        }
        _ => Some(Refusal::internal(format!("sqlstate {state} with an unusable refusal"))),
    }
}

/// Longer than any field name of the API (`blocked_periods[99].starts_on`, a 200-character key).
const MAX_FIELD_CHARS: usize = 256;

/// Whether a caller's own name (a body key, a query parameter) may be echoed as an error's `field`:
/// 1-256 characters, none of them a control character. Anything else is left out of the answer, which
/// keeps its status and code.
pub fn echoable(field: &str) -> bool {
    !field.is_empty() && field.chars().count() <= MAX_FIELD_CHARS && !field.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transient_with(state: SqlState) -> Refusal {
        Refusal::Transient { cause: "x".into(), sqlstate: Some(state), schema_behind: false }
    }

    #[test]
    fn a_pt_refusal_becomes_its_status_code_and_field() {
        let error = refusal("PT422", "invalid_query", Some("limit")).unwrap();
        assert_eq!(error.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(error.code(), "invalid_query");
        assert_eq!(error.field(), Some("limit"));
    }

    #[test]
    fn the_sqlstate_is_a_field_never_read_back_from_the_log_text() {
        assert_eq!(Refusal::internal("sqlstate 55000 at PL/pgSQL function api.bookings_get_standby").sqlstate(), None);
        assert_eq!(Refusal::transient("pool wait timed out").sqlstate(), None);
        assert_eq!(refusal("PT422", "invalid_cursor", Some("since")).unwrap().sqlstate(), None);
        let kept = transient_with(SqlState::T_R_SERIALIZATION_FAILURE);
        assert_eq!(kept.sqlstate(), Some("40001"));
        assert!(!kept.is_schema_behind() && !kept.discards_connection());
    }

    #[test]
    fn a_connection_is_dropped_after_a_stale_statement_or_a_demoted_server_only() {
        let with = transient_with;
        assert!(with(SqlState::FEATURE_NOT_SUPPORTED).discards_connection(), "cached plan must not change result type");
        assert!(with(SqlState::INVALID_SQL_STATEMENT_NAME).discards_connection());
        assert!(with(SqlState::READ_ONLY_SQL_TRANSACTION).discards_connection());
        assert!(
            !with(SqlState::UNDEFINED_FUNCTION).discards_connection(),
            "a statement that failed to prepare is not kept"
        );
        assert!(TRANSIENT_STATES.contains(&SqlState::READ_ONLY_SQL_TRANSACTION), "a demoted node answers 503");
    }

    #[test]
    fn a_pt_refusal_without_detail_has_no_field() {
        let error = refusal("PT401", "unauthorized", None).unwrap();
        assert_eq!(error.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(error.field(), None);
    }

    #[test]
    fn an_indexed_field_name_is_kept() {
        let error = refusal("PT422", "invalid_blocked_periods", Some("blocked_periods[3].starts_on")).unwrap();
        assert_eq!(error.field(), Some("blocked_periods[3].starts_on"));
    }

    #[test]
    fn a_field_echoing_a_callers_key_is_kept_unless_it_is_unprintable_or_huge() {
        let error = refusal("PT422", "unknown_field", Some("Prix du lot (€)")).unwrap();
        assert_eq!(error.field(), Some("Prix du lot (€)"));
        let error = refusal("PT422", "unknown_field", Some("a\nb")).unwrap();
        assert_eq!((error.code(), error.field()), ("unknown_field", None));
        let long = "k".repeat(MAX_FIELD_CHARS + 1);
        let error = refusal("PT422", "unknown_field", Some(&long)).unwrap();
        assert_eq!((error.code(), error.field()), ("unknown_field", None));
    }

    #[test]
    fn other_sqlstates_are_not_refusals() {
        assert_eq!(refusal("23505", "duplicate key value violates unique constraint", None), None);
        assert_eq!(refusal("P0001", "boom", None), None);
    }

    #[test]
    fn a_refusal_carrying_prose_never_reaches_the_client() {
        let error = refusal("PT422", "duplicate key value violates \"lots_pkey\"", None).unwrap();
        assert_eq!(error.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(error.code(), "internal_error");
        let error = refusal("PT200", "fine", None).unwrap();
        assert_eq!(error.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn a_query_parameter_name_is_echoed_only_when_short_and_printable() {
        assert_eq!(Refusal::invalid_query("limit").field(), Some("limit"));
        assert_eq!(Refusal::invalid_query("x".repeat(256)).field().map(str::len), Some(256));
        assert_eq!(Refusal::invalid_query("x".repeat(10_000)).field(), None);
        for control in 0u8..0x20 {
            assert_eq!(Refusal::invalid_query(format!("a{}b", control as char)).field(), None, "{control:#x}");
        }
        assert_eq!(Refusal::invalid_query("a\u{7f}b").field(), None);
        assert_eq!(Refusal::invalid_query("").field(), None);
        assert_eq!(Refusal::invalid_query("x").code(), "invalid_query");
    }

    #[test]
    fn retry_after_is_on_409_429_and_503_only() {
        assert_eq!(Refusal::new(StatusCode::CONFLICT, "conflict").retry_after(), Some(1));
        assert_eq!(Refusal::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited").retry_after(), Some(1));
        assert_eq!(Refusal::transient("x").retry_after(), Some(1));
        assert_eq!(Refusal::not_found().retry_after(), None);
        assert_eq!(Refusal::internal("x").retry_after(), None);
    }
}
