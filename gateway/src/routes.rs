//! The route table: every route is one entry of [`ROUTES`] (its path template and, per verb, the
//! scope, the rate-limit bucket, the query parameters and their rules, the body it takes, the
//! database call and what it answers). Dispatch, the `Allow` header, 404/405, query validation,
//! the rate-limit cost and the OpenAPI document are all derived from it: adding a route is adding
//! an entry (and its SQL function). Paths are matched exactly under the base path, without a
//! trailing slash.
//!
//! `{external_id}` segments are matched raw, then percent-decoded: a lot id is any 1-200
//! characters of valid UTF-8 (`a%2Fb` is `a/b`). A segment that does not decode to that still
//! matches the route; its id is `None`, and the database refuses it after authentication.

use std::collections::HashMap;
use std::sync::LazyLock;

use http::Method;

use crate::calls::{Arg, Call};
use crate::query::{Param, Rule};

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

/// One route of the API.
#[derive(Debug)]
pub struct RouteSpec {
    pub route: Route,
    /// The path template under the base path, as log lines and the OpenAPI document name it.
    pub template: &'static str,
    pub operations: &'static [Operation],
}

/// One verb of a route.
#[derive(Debug)]
pub struct Operation {
    pub method: Method,
    /// The OpenAPI operationId: the name a generated client gives the call.
    pub operation_id: &'static str,
    /// The OpenAPI tag it is listed under.
    pub tag: &'static str,
    pub summary: &'static str,
    /// What a client must know of it, from the spec (the OpenAPI document's description).
    pub description: &'static str,
    /// The scope the database requires (None: any valid credential).
    pub scope: Option<&'static str>,
    /// The per-credential bucket it spends: reads, or both write buckets (a dry run the burst only).
    pub bucket: Bucket,
    pub query: &'static [Param],
    /// The OpenAPI schema of the request body, when it takes one (every PUT).
    pub body: Option<&'static str>,
    /// The OpenAPI schema of a successful answer.
    pub answer: &'static str,
    /// The 422 error codes it can answer (every route also answers `invalid_query`).
    pub errors: &'static [&'static str],
    /// When it answers 409 `conflict` (the write routes).
    pub conflict: Option<&'static str>,
    pub call: Call,
    /// How a hot standby serves it when `DATABASE_READ_URL` is set (None: always the primary).
    pub standby: Option<StandbyCall>,
}

/// A read a hot standby serves (`crate::standby`; docs/design.md, "The feed on a standby"): the
/// primary authenticates the credential and answers a read assertion; the standby answers the page
/// for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StandbyCall {
    pub assertion: Call,
    pub page: Call,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bucket {
    Read,
    Write,
}

/// The three writes' arguments: the body as sent, and the fault [`crate::json_syntax`] found in it,
/// which the function raises in its place after the credential (and lot) checks.
const WRITE: &[Arg] = &[Arg::Authorization, Arg::ExternalId, Arg::Body, Arg::DryRun, Arg::BodyFault];

/// The feed's arguments on the primary.
const FEED: &[Arg] = &[Arg::Authorization, Arg::QueryText("since"), Arg::Limit];

const DRY_RUN: Param = Param {
    name: "dry_run",
    rule: Rule::DryRun,
    description: "`true` runs the write in full (parse, validation, diff, the same statements and triggers, the \
                  same transaction) and rolls it back: the answer is the real write's report plus `dry_run: true`, \
                  always 200, and its refusals are the real write's. It spends the write burst bucket only, and \
                  the credential is still recorded as used. The only accepted value is the literal `true`: any \
                  other (false, 1, True, empty, the parameter twice) is 422 `invalid_query`, field `dry_run`.",
};

pub const ROUTES: &[RouteSpec] = &[
    RouteSpec {
        route: Route::Ping,
        template: "/ping",
        operations: &[Operation {
            method: Method::GET,
            operation_id: "ping",
            tag: "Credential",
            summary: "Diagnose a credential",
            description: "Establishes no operator context and reads no rows: use it to diagnose a credential, since every other \
                          401 is the same. Any valid credential, whatever its scopes.",
            scope: None,
            bucket: Bucket::Read,
            query: &[],
            body: None,
            answer: "PingResult",
            errors: &[],
            conflict: None,
            call: Call::new("api.ping", &[Arg::Authorization]),
            standby: None,
        }],
    },
    RouteSpec {
        route: Route::Lots,
        template: "/lots",
        operations: &[Operation {
            method: Method::GET,
            operation_id: "listLots",
            tag: "Lots",
            summary: "List the operator's lots with their price envelopes",
            description: "Keyset paging on your own external_id, ascending: follow `next_after` until it is null. Each lot \
                          carries `rates`, its marketplace price envelope (null: no price yet). Scope `read_supply`.",
            scope: Some("read_supply"),
            bucket: Bucket::Read,
            query: &[
                Param {
                    name: "after",
                    rule: Rule::Text { max_chars: 200 },
                    description: "The previous page's `next_after` (a lot's external_id): not empty, at most 200 characters. \
                                  Absent: the first page.",
                },
                Param {
                    name: "limit",
                    rule: Rule::Limit { default: 50, max: 200 },
                    description: "Lots per page, 1-200 (plain digits); more is refused with `invalid_query`, never reduced.",
                },
            ],
            body: None,
            answer: "LotPage",
            errors: &[],
            conflict: None,
            call: Call::new("api.lots_get", &[Arg::Authorization, Arg::QueryText("after"), Arg::Limit]),
            standby: None,
        }],
    },
    RouteSpec {
        route: Route::Lot,
        template: "/lots/{external_id}",
        operations: &[Operation {
            method: Method::PUT,
            operation_id: "putLot",
            tag: "Lots",
            summary: "Create or amend one lot",
            description: "The body is the WHOLE lot: an absent key means null (or the field's default), never 'leave as it \
                          was', so send every field you keep. An id you do not hold creates the lot (201; ids are per \
                          operator, and a mistyped id creates a second lot). A PUT that changes nothing issues no \
                          statement and answers `unchanged` with an empty `changed`. Changing a reviewed field (all but \
                          `online_bookable`) voids a pending or approved listing review: the lot stops selling until a \
                          person approves it again (`listing_review_superseded: true`). `rates` is refused with \
                          `field_belongs_to_another_route`: prices are set at PUT /lots/{external_id}/rates. A new lot \
                          does not sell on 201: the console steps (zone and booking rules confirmed, payouts, the \
                          listing agreement, review) come too. Scope `write_supply`.",
            scope: Some("write_supply"),
            bucket: Bucket::Write,
            query: &[DRY_RUN],
            body: Some("LotWriteBody"),
            answer: "LotWriteResult",
            errors: &[
                "invalid_json",
                "invalid_body",
                "missing_field",
                "unknown_field",
                "field_belongs_to_another_route",
                "too_many_lots",
                "invalid_timezone",
                "invalid_coordinates",
                "invalid_country_code",
                "invalid_stay_bounds",
                "incomplete_cancellation_policy",
            ],
            conflict: Some("Two pushes created the same external_id at once: retry after `Retry-After`."),
            call: Call::new("api.lot_put", WRITE),
            standby: None,
        }],
    },
    RouteSpec {
        route: Route::LotRates,
        template: "/lots/{external_id}/rates",
        operations: &[Operation {
            method: Method::PUT,
            operation_id: "putLotRates",
            tag: "Rates",
            summary: "Set the lot's marketplace price envelope",
            description: "Writes the marketplace channel only; the lot must already be yours (else the uniform 401). The body \
                          is exactly one of two shapes: the range (`floor_price`, `base_price`, `ceiling_price`, all \
                          three) or the fixed price (`fixed_price` alone, expanding to floor = base = ceiling). Money is \
                          two decimals: a third non-zero decimal is refused, never rounded. `envelope_widened` is true \
                          when the floor went down, the ceiling went up, the currency changed, `dynamic` flipped, or no \
                          envelope existed before: then the write may have voided the lot's listing review (never \
                          false when it did). `valid_from`/`valid_to` and narrowing never void one. Scope `write_supply`.",
            scope: Some("write_supply"),
            bucket: Bucket::Write,
            query: &[DRY_RUN],
            body: Some("RatesWriteBody"),
            answer: "RatesWriteResult",
            errors: &[
                "invalid_json",
                "invalid_body",
                "missing_field",
                "unknown_field",
                "invalid_price_envelope",
                "invalid_first_day_price",
                "invalid_validity_window",
                "currency_is_not_settlement_currency",
            ],
            conflict: Some("Two first price writes for the lot at once: retry after `Retry-After`."),
            call: Call::new("api.lot_rates_put", WRITE),
            standby: None,
        }],
    },
    RouteSpec {
        route: Route::LotBlockedPeriods,
        template: "/lots/{external_id}/blocked-periods",
        operations: &[
            Operation {
                method: Method::GET,
                operation_id: "getLotBlockedPeriods",
            tag: "Blocked periods",
            summary: "List the lot's closures",
            description: "The lot's whole closure list, earliest first, including closures written in the console, each with \
                          `overlapping_bookings`. The lot must be yours (else the uniform 401). Scope `read_supply`.",
                scope: Some("read_supply"),
                bucket: Bucket::Read,
                query: &[],
                body: None,
                answer: "BlockedPeriodList",
                errors: &[],
                conflict: None,
                call: Call::new("api.lot_blocked_periods_get", &[Arg::Authorization, Arg::ExternalId]),
                standby: None,
            },
            Operation {
                method: Method::PUT,
                operation_id: "putLotBlockedPeriods",
            tag: "Blocked periods",
            summary: "Replace the lot's whole closure list",
            description: "Replaces the ENTIRE closure list with the one sent; there is no add-one or remove-one call, and \
                          closures created in the console are part of the same list (a push that omits them removes them). \
                          A closure stops NEW marketplace sales for stays that touch it; it cancels nothing. Periods that \
                          overlap sold bookings are not refused: the answer carries the counts. Every content refusal is \
                          422 `invalid_blocked_periods` naming the entry (`blocked_periods[0].ends_on`). `unchanged`: the \
                          stored list equals the sent one and no statement was issued. The lot must be yours (else the \
                          uniform 401). Scope `write_supply`.",
                scope: Some("write_supply"),
                bucket: Bucket::Write,
                query: &[DRY_RUN],
                body: Some("BlockedPeriodsWriteBody"),
                answer: "BlockedPeriodsWriteResult",
                errors: &["invalid_json", "invalid_body", "missing_field", "unknown_field", "invalid_blocked_periods"],
                conflict: Some("A write that collided with another at once: retry after `Retry-After`."),
                call: Call::new("api.lot_blocked_periods_put", WRITE),
                standby: None,
            },
        ],
    },
    RouteSpec {
        route: Route::Bookings,
        template: "/bookings",
        operations: &[Operation {
            method: Method::GET,
            operation_id: "listBookings",
            tag: "Bookings",
            summary: "Pull the operator's bookings through a cursor",
            description: "Bookings of every channel, in the order they changed. Delivery is at-least-once: de-duplicate on \
                          `reference`, and save `next` only after durably storing the page. The cursor never points past \
                          the server watermark (now minus five minutes): newer bookings are returned but may come again. \
                          Polling: load the saved cursor (none at first); request with `since` and `limit`; store the \
                          rows keyed on reference; save `next`; when `has_more` is false, wait before the next pull. \
                          Scope `read_bookings`.",
            scope: Some("read_bookings"),
            bucket: Bucket::Read,
            query: &[
                Param {
                    name: "since",
                    rule: Rule::Cursor { max_chars: 512 },
                    description: "The previous answer's `next`: an opaque token issued by the service, never \
                                  constructed. Absent or empty: from the beginning. A token the service did not issue \
                                  is 422 `invalid_cursor`; one beyond the watermark is clamped back to it.",
                },
                Param {
                    name: "limit",
                    rule: Rule::Limit { default: 200, max: 500 },
                    description: "Bookings per page, 1-500 (plain digits); more is refused with `invalid_query`.",
                },
            ],
            body: None,
            answer: "BookingPage",
            errors: &["invalid_cursor"],
            conflict: None,
            call: Call::new("api.bookings_get", FEED),
            // Only the feed: it was made for a lagging reader (its watermark), and the operator
            // never writes what it reads. Lots and closures stay on the primary, so a GET after the
            // operator's own PUT always shows it (docs/operating.md, "Standbys for the bookings
            // feed").
            standby: Some(StandbyCall {
                assertion: Call::new("api.bookings_read_assertion", &[Arg::Authorization]),
                page: Call::new(
                    "api.bookings_get_standby",
                    &[Arg::Assertion, Arg::QueryText("since"), Arg::Limit, Arg::MaxLagMs],
                ),
            }),
        }],
    },
];

/// The statement of `call`, one of the table's: each made once (`Call::sql`), not at every request.
pub fn statement(call: &Call) -> &'static str {
    static STATEMENTS: LazyLock<HashMap<&'static str, String>> = LazyLock::new(|| {
        let operations = ROUTES.iter().flat_map(|spec| spec.operations);
        let calls = operations.flat_map(|operation| {
            let standby = operation.standby.iter().flat_map(|standby| [standby.assertion, standby.page]);
            std::iter::once(operation.call).chain(standby)
        });
        calls.map(|call| (call.function, call.sql())).collect()
    });
    STATEMENTS.get(call.function).map(String::as_str).expect("every call is one of the route table's")
}

impl Route {
    pub fn spec(self) -> &'static RouteSpec {
        ROUTES.iter().find(|spec| spec.route == self).expect("every route has its entry")
    }

    /// The path template, as log lines name the route.
    pub fn template(self) -> &'static str {
        self.spec().template
    }

    /// The operation for `method`, or None (405).
    pub fn operation(self, method: &Method) -> Option<&'static Operation> {
        self.spec().operations.iter().find(|operation| operation.method == *method)
    }

    /// The `Allow` header: the route's verbs, then OPTIONS.
    pub fn allow(self) -> String {
        let mut verbs: Vec<&str> = self.spec().operations.iter().map(|operation| operation.method.as_str()).collect();
        verbs.push("OPTIONS");
        verbs.join(", ")
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
    fn each_calls_statement_is_made_once_from_its_declaration() {
        let lots = Route::Lots.operation(&Method::GET).unwrap().call;
        assert_eq!(statement(&lots), "SELECT status, body::text FROM api.lots_get($1, $2, $3)");
        assert!(std::ptr::eq(statement(&lots), statement(&lots)));
        let standby = Route::Bookings.operation(&Method::GET).unwrap().standby.as_ref().unwrap();
        assert_eq!(statement(&standby.page), standby.page.sql());
    }

    #[test]
    fn allow_lists_the_verbs_then_options() {
        assert_eq!(Route::Ping.allow(), "GET, OPTIONS");
        assert_eq!(Route::Lot.allow(), "PUT, OPTIONS");
        assert_eq!(Route::LotBlockedPeriods.allow(), "GET, PUT, OPTIONS");
    }

    #[test]
    fn every_route_has_one_entry_whose_template_its_paths_match() {
        for spec in ROUTES {
            assert_eq!(ROUTES.iter().filter(|other| other.route == spec.route).count(), 1);
            let path = format!("/v1{}", spec.template.replace("{external_id}", "lot-1"));
            assert_eq!(route(&path), Some(spec.route), "{path}");
            for operation in spec.operations {
                assert!(operation.call.function.starts_with("api."), "{}", operation.call.sql());
                assert_eq!(
                    operation.call.takes(Arg::Body),
                    operation.body.is_some(),
                    "a call takes the body it is sent"
                );
                for arg in operation.call.args {
                    if let Arg::QueryText(name) = arg {
                        assert!(operation.query.iter().any(|param| param.name == *name), "{name} is a query parameter");
                    }
                }
                assert_eq!(operation.body.is_some(), operation.method == Method::PUT, "every PUT takes a body");
                assert_eq!(operation.bucket == Bucket::Write, operation.method == Method::PUT);
                assert_eq!(operation.query.iter().any(|p| p.name == "dry_run"), operation.method == Method::PUT);
            }
        }
    }
}
