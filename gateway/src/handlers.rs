//! The one database call of an operation (its [`Call`] in the route table), with the request's
//! parts in the order the call's shape names them. Every rule beyond transport and JSON syntax is the
//! database's.

use http::header::AUTHORIZATION;
use http::request::Parts;

use crate::db::{Answer, Database};
use crate::errors::ApiError;
use crate::json_syntax;
use crate::query::Query;
use crate::routes::Call;

/// The Authorization header as text, or None when absent, repeated or not visible ASCII: all of
/// them reach the database as "no credential" and answer the uniform 401.
pub fn authorization(parts: &Parts) -> Option<&str> {
    let mut values = parts.headers.get_all(AUTHORIZATION).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// Runs the call. `external_id` is the decoded lot id (None when it was not 1-200 characters of
/// UTF-8: the database refuses it); `body` the raw body text (None when it was not UTF-8 or held a
/// NUL: not JSON). A write's body is read here for its JSON syntax ([`json_syntax::check`]); the fault
/// found travels with it, and the database raises it after the credential (and lot) checks.
pub async fn call(
    db: &Database,
    call: Call,
    authorization: Option<&str>,
    external_id: Option<&str>,
    query: &Query,
    body: Option<&str>,
) -> Result<Answer, ApiError> {
    match call {
        Call::Credential(sql) => db.call(sql, &[&authorization]).await,
        Call::Page(sql) => db.call(sql, &[&authorization, &query.text, &query.limit]).await,
        Call::UnderLot(sql) => db.call(sql, &[&authorization, &external_id]).await,
        Call::Write(sql) => {
            let fault = json_syntax::check(body).map(|fault| fault.to_json());
            db.call(sql, &[&authorization, &external_id, &body, &query.dry_run, &fault]).await
        }
    }
}
