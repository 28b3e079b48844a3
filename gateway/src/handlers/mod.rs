//! One module per route. A handler turns the request into exactly one database call and its answer
//! into a response; every rule beyond transport is the database's.

pub mod blocked_periods;
pub mod bookings;
pub mod lots;
pub mod ping;
pub mod writes;

use http::header::AUTHORIZATION;
use http::request::Parts;

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
