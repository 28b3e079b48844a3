//! An operation's one database call ([`Call`] in the route table), with the request's values bound
//! in the order the call declares them. Every rule beyond transport and JSON syntax is the
//! database's.

use http::header::AUTHORIZATION;
use http::request::Parts;

use crate::calls::{Arg, Call, Values};
use crate::client_watch::ClientWatch;
use crate::db::{Answer, Database};
use crate::json_syntax;
use crate::outcome::Stop;
use crate::query::Query;
use crate::routes;

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

/// What a request gives `call`. `external_id` is the decoded lot id (None when it was not 1-200
/// characters of UTF-8: the database refuses it); `body` the raw body text (None when it was not
/// UTF-8 or held a NUL: not JSON). A body is read here for its JSON syntax ([`json_syntax::check`])
/// when the call takes the fault: the database raises it after the credential (and lot) checks.
pub fn values<'a>(
    call: &Call,
    authorization: Option<&'a str>,
    external_id: Option<&'a str>,
    query: &'a Query,
    body: Option<&'a str>,
) -> Values<'a> {
    Values {
        authorization,
        external_id,
        text: query.text.as_deref(),
        limit: query.limit,
        body,
        dry_run: query.dry_run,
        body_fault: call.takes(Arg::BodyFault).then(|| json_syntax::check(body).map(|fault| fault.to_json())).flatten(),
        ..Values::default()
    }
}

/// Runs `call` with `values` for a request whose client is `client` (abandoned if it goes before
/// the call starts).
pub async fn call(db: &Database, call: &Call, values: &Values<'_>, client: &ClientWatch) -> Result<Answer, Stop> {
    db.call(routes::statement(call), &call.bind(values), client).await
}
