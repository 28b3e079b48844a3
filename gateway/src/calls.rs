//! A route's one database call, declared once in the route table ([`crate::routes`]): the `api.*`
//! function and its arguments in order, each an [`Arg`] that says which value of the request it
//! carries and which parameter of the function takes it. The statement is made from that
//! declaration (`SELECT status, body::text FROM api.f($1, …)`), and [`Call::bind`] lists a
//! request's [`Values`] in the same order, for a request's call ([`crate::request_call`]) and the
//! benchmark's pass-through alike. `tests/integration/route_calls.rs` holds every declaration against the
//! function's signature in a migrated database (names, types, order, and the `(status, body)` it
//! answers), so a signature the table does not follow fails `make test`.

use serde_json::Value;
use tokio_postgres::types::{ToSql, Type};

/// A value of a request, as a function's argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// The `Authorization` header as text (None: absent, repeated or not visible ASCII).
    Authorization,
    /// The decoded lot id of the path (None: not 1-200 characters of UTF-8).
    ExternalId,
    /// The page's text query parameter, by its name (`after`, `since`).
    QueryText(&'static str),
    /// The page's `limit` (None: absent, the function's default).
    Limit,
    /// The body text as sent (None: not UTF-8, or holding a NUL).
    Body,
    /// `dry_run=true` given.
    DryRun,
    /// The body's JSON syntax fault the gateway found ([`crate::json_syntax`]), raised by the
    /// function in its place in the order of checks.
    BodyFault,
    /// The primary's read assertion, for a standby's page ([`crate::standby`]).
    Assertion,
    /// The standby's lag bound in milliseconds (`DATABASE_READ_MAX_LAG_MS`).
    MaxLagMs,
}

impl Arg {
    /// The function's parameter that takes it, and its type.
    pub fn parameter(self) -> (String, Type) {
        let (name, ty) = match self {
            Arg::Authorization => ("authorization", Type::TEXT),
            Arg::ExternalId => ("external_id", Type::TEXT),
            Arg::QueryText(name) => (name, Type::TEXT),
            Arg::Limit => ("limit", Type::INT4),
            Arg::Body => ("body", Type::TEXT),
            Arg::DryRun => ("dry_run", Type::BOOL),
            Arg::BodyFault => ("body_fault", Type::JSONB),
            Arg::Assertion => ("assertion", Type::TEXT),
            Arg::MaxLagMs => ("max_lag_ms", Type::INT4),
        };
        (format!("p_{name}"), ty)
    }
}

/// One call: `function` with `args`, answering one row `(status integer, body text)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub function: &'static str,
    pub args: &'static [Arg],
}

/// What a request gives its call; each [`Arg`] takes one of these.
#[derive(Debug, Default)]
pub struct Values<'a> {
    pub authorization: Option<&'a str>,
    pub external_id: Option<&'a str>,
    pub text: Option<&'a str>,
    pub limit: Option<i32>,
    pub body: Option<&'a str>,
    pub dry_run: bool,
    pub body_fault: Option<Value>,
    pub assertion: Option<&'a str>,
    pub max_lag_ms: i32,
}

impl Call {
    pub const fn new(function: &'static str, args: &'static [Arg]) -> Call {
        Call { function, args }
    }

    /// The statement (`crate::routes::statement` keeps the table's, made once).
    pub fn sql(&self) -> String {
        let mut sql = format!("SELECT status, body::text FROM {}(", self.function);
        for n in 1..=self.args.len() {
            let separator = if n == 1 { "" } else { ", " };
            sql.push_str(&format!("{separator}${n}"));
        }
        sql.push(')');
        sql
    }

    /// Whether it takes `arg` (a body's fault is read only for a call that takes it).
    pub fn takes(&self, arg: Arg) -> bool {
        self.args.contains(&arg)
    }

    /// `values` in the order of the call's arguments.
    pub fn bind<'v>(&self, values: &'v Values<'_>) -> Vec<&'v (dyn ToSql + Sync)> {
        self.args
            .iter()
            .map(|arg| -> &'v (dyn ToSql + Sync) {
                match arg {
                    Arg::Authorization => &values.authorization,
                    Arg::ExternalId => &values.external_id,
                    Arg::QueryText(_) => &values.text,
                    Arg::Limit => &values.limit,
                    Arg::Body => &values.body,
                    Arg::DryRun => &values.dry_run,
                    Arg::BodyFault => &values.body_fault,
                    Arg::Assertion => &values.assertion,
                    Arg::MaxLagMs => &values.max_lag_ms,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRITE: Call =
        Call::new("api.lot_put", &[Arg::Authorization, Arg::ExternalId, Arg::Body, Arg::DryRun, Arg::BodyFault]);

    #[test]
    fn the_statement_is_made_from_the_declaration() {
        assert_eq!(WRITE.sql(), "SELECT status, body::text FROM api.lot_put($1, $2, $3, $4, $5)");
        let ping = Call::new("api.ping", &[Arg::Authorization]);
        assert_eq!(ping.sql(), "SELECT status, body::text FROM api.ping($1)");
    }

    #[test]
    fn values_are_bound_in_the_declared_order() {
        let values = Values {
            authorization: Some("Bearer x"),
            external_id: Some("lot-1"),
            body: Some("{}"),
            dry_run: true,
            ..Values::default()
        };
        let bound = WRITE.bind(&values);
        assert_eq!(bound.len(), 5);
        let shown: Vec<String> = bound.iter().map(|value| format!("{value:?}")).collect();
        assert_eq!(shown, ["Some(\"Bearer x\")", "Some(\"lot-1\")", "Some(\"{}\")", "true", "None"]);
        assert!(WRITE.takes(Arg::BodyFault) && !WRITE.takes(Arg::Limit));
        assert_eq!(Arg::QueryText("since").parameter(), ("p_since".to_string(), Type::TEXT));
    }
}
