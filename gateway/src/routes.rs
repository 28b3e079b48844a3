//! The route table. Paths are matched exactly under the base path, without a trailing slash.
//! A route lists its verbs; the `Allow` header is those verbs, then OPTIONS.
//!
//! `{external_id}` segments are matched raw, then percent-decoded: a lot id is any 1-200
//! characters of valid UTF-8 (`a%2Fb` is `a/b`). A segment that does not decode to that still
//! matches the route; its id is `None`, and the database refuses it after authentication.

use http::Method;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Ping,
    Lots,
    Lot,
    LotRates,
    LotBlockedPeriods,
    Bookings,
}

/// The route a path names, and the lot id it carries (routes under a lot).
#[derive(Debug, PartialEq, Eq)]
pub struct Matched {
    pub route: Route,
    pub external_id: Option<String>,
}

impl Route {
    /// The path template, as log lines name the route.
    pub fn template(self) -> &'static str {
        match self {
            Route::Ping => "/ping",
            Route::Lots => "/lots",
            Route::Lot => "/lots/{external_id}",
            Route::LotRates => "/lots/{external_id}/rates",
            Route::LotBlockedPeriods => "/lots/{external_id}/blocked-periods",
            Route::Bookings => "/bookings",
        }
    }

    pub fn methods(self) -> &'static [Method] {
        match self {
            Route::Ping | Route::Lots | Route::Bookings => &[Method::GET],
            Route::Lot | Route::LotRates => &[Method::PUT],
            Route::LotBlockedPeriods => &[Method::GET, Method::PUT],
        }
    }

    /// The `Allow` header: the route's verbs, then OPTIONS.
    pub fn allow(self) -> &'static str {
        match self {
            Route::Ping | Route::Lots | Route::Bookings => "GET, OPTIONS",
            Route::Lot | Route::LotRates => "PUT, OPTIONS",
            Route::LotBlockedPeriods => "GET, PUT, OPTIONS",
        }
    }

    /// The query parameters the route accepts for `method`; any other is `invalid_query`.
    pub fn query_parameters(self, method: &Method) -> &'static [&'static str] {
        match (self, method) {
            (Route::Lots, &Method::GET) => &["after", "limit"],
            (Route::Bookings, &Method::GET) => &["since", "limit"],
            (_, &Method::PUT) => &["dry_run"],
            _ => &[],
        }
    }
}

/// The route a request path names, or None (404). `base` is the configured base path.
pub fn match_path(base: &str, path: &str) -> Option<Matched> {
    let rest = path.strip_prefix(base)?;
    let plain = |route| Some(Matched { route, external_id: None });
    match rest {
        "/ping" => plain(Route::Ping),
        "/lots" => plain(Route::Lots),
        "/bookings" => plain(Route::Bookings),
        _ => {
            let under_lots = rest.strip_prefix("/lots/")?;
            let (segment, route) = match under_lots.split_once('/') {
                None => (under_lots, Route::Lot),
                Some((segment, "rates")) => (segment, Route::LotRates),
                Some((segment, "blocked-periods")) => (segment, Route::LotBlockedPeriods),
                Some(_) => return None,
            };
            Some(Matched { route, external_id: decode_external_id(segment) })
        }
    }
}

/// A percent-decoded lot id: valid UTF-8, 1-200 characters, no NUL (PostgreSQL text cannot hold it).
fn decode_external_id(raw: &str) -> Option<String> {
    let decoded = percent_encoding::percent_decode_str(raw).decode_utf8().ok()?;
    let length = decoded.chars().count();
    ((1..=200).contains(&length) && !decoded.contains('\0')).then(|| decoded.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(path: &str) -> Option<Route> {
        match_path("/v1", path).map(|m| m.route)
    }

    fn id(path: &str) -> Option<String> {
        match_path("/v1", path).and_then(|m| m.external_id)
    }

    #[test]
    fn paths_match_only_exactly_under_the_base() {
        assert_eq!(route("/v1/ping"), Some(Route::Ping));
        assert_eq!(route("/v1/lots"), Some(Route::Lots));
        assert_eq!(route("/v1/bookings"), Some(Route::Bookings));
        assert_eq!(route("/v1/bookings/"), None);
        assert_eq!(route("/v1/lots/abc"), Some(Route::Lot));
        assert_eq!(route("/v1/ping/"), None);
        assert_eq!(route("/v1/lots/abc/"), None);
        assert_eq!(route("/v1/lots/abc/nope"), None);
        assert_eq!(route("/v1/lots/abc/rates"), Some(Route::LotRates));
        assert_eq!(route("/v1/lots/abc/blocked-periods"), Some(Route::LotBlockedPeriods));
        assert_eq!(route("/v1/lots/abc/rates/"), None);
        assert_eq!(route("/v1/lots/a/b/rates"), None);
        assert_eq!(id("/v1/lots/a%2Fb/rates"), Some("a/b".into()));
        assert_eq!(route("/ping"), None);
        assert_eq!(route("/v1/PING"), None);
        assert_eq!(route("/v2/ping"), None);
        assert_eq!(match_path("/api/v1", "/api/v1/ping").map(|m| m.route), Some(Route::Ping));
    }

    #[test]
    fn a_lot_id_is_percent_decoded() {
        assert_eq!(id("/v1/lots/a%2Fb"), Some("a/b".into()));
        assert_eq!(id("/v1/lots/car%20park%20%C3%A9"), Some("car park é".into()));
        assert_eq!(id("/v1/lots/plain-id_1"), Some("plain-id_1".into()));
    }

    #[test]
    fn a_lot_id_that_is_not_1_to_200_characters_of_utf8_is_none_but_still_the_route() {
        assert_eq!(match_path("/v1", "/v1/lots/"), Some(Matched { route: Route::Lot, external_id: None }));
        assert_eq!(id("/v1/lots/%FF"), None);
        assert_eq!(id("/v1/lots/a%00b"), None);
        assert_eq!(id(&format!("/v1/lots/{}", "é".repeat(200))), Some("é".repeat(200)));
        assert_eq!(id(&format!("/v1/lots/{}", "x".repeat(201))), None);
        assert_eq!(route(&format!("/v1/lots/{}", "x".repeat(201))), Some(Route::Lot));
    }

    #[test]
    fn allow_lists_the_verbs_then_options() {
        for route in [Route::Ping, Route::Lots, Route::Lot, Route::LotRates, Route::LotBlockedPeriods, Route::Bookings] {
            let verbs: Vec<&str> = route.methods().iter().map(Method::as_str).collect();
            assert_eq!(route.allow(), format!("{}, OPTIONS", verbs.join(", ")));
        }
    }
}
