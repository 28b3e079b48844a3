//! What is measured: every route the gateway serves, with the body it sends, the pgbench script
//! making the gateway's own call and the floor's (the plainest SQL for the same rows); and the
//! platform's booking writes. A scenario is named in the measurements by its id, and in the tables
//! by its label: renaming a label moves no measurement and drops no target.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    Ping,
    TailPing,
    BookingsTail,
    Lots50,
    Lots200,
    OneLot,
    LotPutUnchanged,
    LotPutOtherText,
    LotPutChanging,
    RefusedNulLast,
    RefusedExponents,
    RefusedRepeatedKey,
    RefusedTinyArrays,
    RefusedTopLevelKey,
    ReadNumbers,
    ReadLot,
    RatesPutUnchanged,
    BlockedPeriodsGet,
    BlockedPeriodsPutUnchanged,
    Bookings200,
    Bookings500,
    BookingRecordArmed,
    BookingStatusArmed,
    BookingDatesArmed,
    BookingRecordDisarmed,
    BookingStatusDisarmed,
    BookingDatesDisarmed,
}

impl Scenario {
    /// Its row's label in the tables.
    pub fn label(self) -> &'static str {
        match self {
            Scenario::Ping => "GET /ping",
            Scenario::TailPing => "GET /ping (the tail's operator)",
            Scenario::BookingsTail => "GET /bookings, the empty tail (a cursor at the end)",
            Scenario::Lots50 => "GET /lots (50)",
            Scenario::Lots200 => "GET /lots (200)",
            Scenario::OneLot => "GET one lot",
            Scenario::LotPutUnchanged => "PUT lot, unchanged",
            Scenario::LotPutOtherText => "PUT lot, unchanged (other text)",
            Scenario::LotPutChanging => "PUT lot, one field changed",
            Scenario::RefusedNulLast => r"PUT lot, 64 KiB refused (\u0000 last)",
            Scenario::RefusedExponents => "PUT lot, 64 KiB refused (9 000 × 1e1000)",
            Scenario::RefusedRepeatedKey => "PUT lot, 64 KiB refused (a key twice, last of 6 500 objects)",
            Scenario::RefusedTinyArrays => "PUT lot, 64 KiB refused (a key twice after 16 000 tiny arrays)",
            Scenario::RefusedTopLevelKey => "PUT lot, 64 KiB refused (5 400 top-level members, the first again last)",
            Scenario::ReadNumbers => "PUT lot, 64 KiB read (32 000 numbers, unknown_field)",
            Scenario::ReadLot => "PUT lot, 64 KiB read (the lot laid out again, unchanged)",
            Scenario::RatesPutUnchanged => "PUT rates, unchanged",
            Scenario::BlockedPeriodsGet => "GET blocked periods (100)",
            Scenario::BlockedPeriodsPutUnchanged => "PUT blocked periods (100), unchanged",
            Scenario::Bookings200 => "GET /bookings (200, following next)",
            Scenario::Bookings500 => "GET /bookings (500, following next)",
            Scenario::BookingRecordArmed => "platform.booking_record (endpoint armed)",
            Scenario::BookingStatusArmed => "platform.booking_update, status (endpoint armed)",
            Scenario::BookingDatesArmed => "platform.booking_update, dates (endpoint armed)",
            Scenario::BookingRecordDisarmed => "platform.booking_record (endpoint not armed)",
            Scenario::BookingStatusDisarmed => "platform.booking_update, status (endpoint not armed)",
            Scenario::BookingDatesDisarmed => "platform.booking_update, dates (endpoint not armed)",
        }
    }
}

/// A request body the routes send, written by `steps::bodies` under the run's work directory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Body {
    /// lot-000002 as it was last written.
    Lot,
    /// The same values spaced otherwise.
    LotOtherText,
    /// A lot of bench-put-0…511 with a capacity wrk and pgbench set at random.
    Changing,
    RefusedNulLast,
    RefusedExponents,
    RefusedRepeatedKey,
    RefusedTinyArrays,
    RefusedTopLevelKey,
    ReadNumbers,
    ReadLot,
    /// lot-000002's envelope as stored.
    Rates,
    /// lot-000001's 100 closures as stored.
    Closures,
}

impl Body {
    pub fn file_name(self) -> &'static str {
        match self {
            Body::Lot => "lot.json",
            Body::LotOtherText => "lot_other_text.json",
            Body::Changing => "changing.json",
            Body::RefusedNulLast => "refused_64k.json",
            Body::RefusedExponents => "refused_exponents.json",
            Body::RefusedRepeatedKey => "refused_repeated_key.json",
            Body::RefusedTinyArrays => "refused_tiny_arrays.json",
            Body::RefusedTopLevelKey => "refused_top_level_key.json",
            Body::ReadNumbers => "read_numbers.json",
            Body::ReadLot => "read_lot.json",
            Body::Rates => "rates.json",
            Body::Closures => "closures.json",
        }
    }

    /// The 64 KiB bodies: refused for their JSON syntax before the database, or read whole.
    pub fn sixty_four_kib(self) -> Option<SixtyFourKib> {
        match self {
            Body::RefusedNulLast
            | Body::RefusedExponents
            | Body::RefusedRepeatedKey
            | Body::RefusedTinyArrays
            | Body::RefusedTopLevelKey => Some(SixtyFourKib::Refused),
            Body::ReadNumbers | Body::ReadLot => Some(SixtyFourKib::Read),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SixtyFourKib {
    Refused,
    Read,
}

/// What every answer of a route must be, and whether its WAL is measured.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Answer {
    Read,
    /// A write of what is stored already: it should write nothing.
    Unchanged,
    /// A write that changes the row.
    Changes,
    /// Every answer has this status.
    Refused(u16),
}

impl Answer {
    pub fn writes(self) -> bool {
        matches!(self, Answer::Unchanged | Answer::Changes)
    }
}

/// A pgbench script (bench/pgbench/ or bench/floor/) and its own variables.
pub struct Script {
    pub file: &'static str,
    pub variables: &'static [(&'static str, &'static str)],
}

/// Whose credential a route's requests carry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Caller {
    /// The large operator's, every scope.
    Bench,
    /// The tail operator's (bench/generate.sql, "Bench Tail"), whose feed nothing comes after.
    Tail,
}

pub struct Route {
    pub scenario: Scenario,
    pub caller: Caller,
    pub method: &'static str,
    /// `{lot}`: one of bench-put-0…511, chosen at random each request; `{since}`: the token at
    /// the end of the tail operator's feed.
    pub path: &'static str,
    pub body: Option<Body>,
    /// The gateway's own call (bench/pgbench/); none for a refusal, which pgbench would end at.
    pub pgbench: Option<Script>,
    /// The floor (bench/floor/).
    pub floor: Option<Script>,
    pub answer: Answer,
}

impl Route {
    /// GET /bookings from the beginning: each request carries the `next` of the last answer.
    pub fn follows_next(&self) -> bool {
        self.path.starts_with("/v1/bookings") && !self.path.contains("since=")
    }

    pub fn changing(&self) -> bool {
        self.path.contains("{lot}")
    }
}

const fn script(file: &'static str, variables: &'static [(&'static str, &'static str)]) -> Option<Script> {
    Some(Script { file, variables })
}

/// Every route measured, in the tables' order.
pub const ROUTES: &[Route] = &[
    get(Scenario::Ping, "/v1/ping", script("ping.sql", &[]), None),
    // (the poll most clients make most: at the end of the feed, nothing new; beside /ping with the
    // same credential, what the feed adds to authentication)
    Route { caller: Caller::Tail, ..get(Scenario::TailPing, "/v1/ping", script("ping.sql", &[]), None) },
    Route {
        caller: Caller::Tail,
        ..get(
            Scenario::BookingsTail,
            "/v1/bookings?limit=200&since={since}",
            script("bookings_tail.sql", &[("limit", "200")]),
            None,
        )
    },
    get(Scenario::Lots50, "/v1/lots?limit=50", script(LOTS, LOTS_50), script(LOTS, LOTS_50)),
    get(Scenario::Lots200, "/v1/lots?limit=200", script(LOTS, LOTS_200), script(LOTS, LOTS_200)),
    get(Scenario::OneLot, "/v1/lots?after=lot-000001&limit=1", script(LOTS, ONE_LOT), script(LOTS, ONE_LOT)),
    put(Scenario::LotPutUnchanged, LOT_2, Body::Lot, script(LOT_PUT, LOT_2_VARIABLES), None, Answer::Unchanged),
    put(
        Scenario::LotPutOtherText,
        LOT_2,
        Body::LotOtherText,
        script(LOT_PUT, LOT_2_VARIABLES),
        None,
        Answer::Unchanged,
    ),
    put(
        Scenario::LotPutChanging,
        "/v1/lots/{lot}",
        Body::Changing,
        script("lot_put_changing.sql", &[]),
        None,
        Answer::Changes,
    ),
    refusal(Scenario::RefusedNulLast, Body::RefusedNulLast),
    refusal(Scenario::RefusedExponents, Body::RefusedExponents),
    refusal(Scenario::RefusedRepeatedKey, Body::RefusedRepeatedKey),
    refusal(Scenario::RefusedTinyArrays, Body::RefusedTinyArrays),
    refusal(Scenario::RefusedTopLevelKey, Body::RefusedTopLevelKey),
    // (read whole, then refused for its unknown key)
    put(Scenario::ReadNumbers, LOT_3, Body::ReadNumbers, None, script(JSON_READ, &[]), Answer::Refused(422)),
    put(
        Scenario::ReadLot,
        "/v1/lots/lot-000004",
        Body::ReadLot,
        script(LOT_PUT, &[("lot", "lot-000004")]),
        script(JSON_READ, &[]),
        Answer::Unchanged,
    ),
    put(
        Scenario::RatesPutUnchanged,
        "/v1/lots/lot-000002/rates",
        Body::Rates,
        script("rates_put.sql", LOT_2_VARIABLES),
        None,
        Answer::Unchanged,
    ),
    get(
        Scenario::BlockedPeriodsGet,
        CLOSURES,
        script("blocked_periods_get.sql", LOT_1_VARIABLES),
        script("blocked_periods.sql", LOT_1_VARIABLES),
    ),
    put(
        Scenario::BlockedPeriodsPutUnchanged,
        CLOSURES,
        Body::Closures,
        script("blocked_periods_put.sql", LOT_1_VARIABLES),
        None,
        Answer::Unchanged,
    ),
    get(
        Scenario::Bookings200,
        "/v1/bookings?limit=200",
        script(BOOKINGS, &[("next", "none"), ("limit", "200")]),
        script(BOOKINGS, &[("limit", "200"), ("at", "-infinity"), ("ref", "none")]),
    ),
    get(
        Scenario::Bookings500,
        "/v1/bookings?limit=500",
        script(BOOKINGS, &[("next", "none"), ("limit", "500")]),
        script(BOOKINGS, &[("limit", "500"), ("at", "-infinity"), ("ref", "none")]),
    ),
];

const LOTS: &str = "lots_page.sql";
const LOTS_50: &[(&str, &str)] = &[("after", "none"), ("limit", "50")];
const LOTS_200: &[(&str, &str)] = &[("after", "none"), ("limit", "200")];
const ONE_LOT: &[(&str, &str)] = &[("after", "lot-000001"), ("limit", "1")];
const LOT_PUT: &str = "lot_put.sql";
const LOT_2: &str = "/v1/lots/lot-000002";
const LOT_3: &str = "/v1/lots/lot-000003";
const LOT_1_VARIABLES: &[(&str, &str)] = &[("lot", "lot-000001")];
const LOT_2_VARIABLES: &[(&str, &str)] = &[("lot", "lot-000002")];
const CLOSURES: &str = "/v1/lots/lot-000001/blocked-periods";
const JSON_READ: &str = "json_read.sql";
const BOOKINGS: &str = "bookings_page.sql";

const fn get(scenario: Scenario, path: &'static str, pgbench: Option<Script>, floor: Option<Script>) -> Route {
    Route { scenario, caller: Caller::Bench, method: "GET", path, body: None, pgbench, floor, answer: Answer::Read }
}

const fn put(
    scenario: Scenario,
    path: &'static str,
    body: Body,
    pgbench: Option<Script>,
    floor: Option<Script>,
    answer: Answer,
) -> Route {
    Route { scenario, caller: Caller::Bench, method: "PUT", path, body: Some(body), pgbench, floor, answer }
}

/// A body of just under 64 KiB refused for its JSON syntax (422), found only at its end.
const fn refusal(scenario: Scenario, body: Body) -> Route {
    put(scenario, LOT_3, body, None, None, Answer::Refused(422))
}

/// The routes the feed from a standby is measured on, in its table's order.
pub const FEED_ROUTES: &[Scenario] = &[Scenario::Bookings500, Scenario::Bookings200];

/// The connections the feed from a standby is measured at.
pub const FEED_CONNECTIONS: u32 = 16;

/// A booking write as the platform makes it (bench/pgbench/ and bench/floor/, the same file
/// name), measured with the operator's webhook endpoint armed, then not.
pub struct BookingWrite {
    pub armed: Scenario,
    pub disarmed: Scenario,
    pub script: &'static str,
}

pub const BOOKING_WRITES: &[BookingWrite] = &[
    BookingWrite {
        armed: Scenario::BookingRecordArmed,
        disarmed: Scenario::BookingRecordDisarmed,
        script: "booking_record.sql",
    },
    BookingWrite {
        armed: Scenario::BookingStatusArmed,
        disarmed: Scenario::BookingStatusDisarmed,
        script: "booking_status.sql",
    },
    BookingWrite {
        armed: Scenario::BookingDatesArmed,
        disarmed: Scenario::BookingDatesDisarmed,
        script: "booking_dates.sql",
    },
];

/// Booking writes are measured at these connections or fewer.
pub const BOOKING_WRITE_MAX_CONNECTIONS: u32 = 16;

/// The booking writes in the tables' order: every write armed, then every write not armed.
pub fn booking_write_scenarios() -> impl Iterator<Item = (Scenario, &'static str)> {
    let armed = BOOKING_WRITES.iter().map(|w| (w.armed, w.script));
    armed.chain(BOOKING_WRITES.iter().map(|w| (w.disarmed, w.script)))
}

pub fn route(scenario: Scenario) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.scenario == scenario)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_is_measured_once_and_labelled_once() {
        let scenarios: Vec<Scenario> =
            ROUTES.iter().map(|r| r.scenario).chain(booking_write_scenarios().map(|(s, _)| s)).collect();
        let labels: std::collections::HashSet<&str> = scenarios.iter().map(|s| s.label()).collect();
        assert_eq!(labels.len(), scenarios.len());
        assert_eq!(scenarios.len(), 27);
        for feed in FEED_ROUTES {
            assert!(route(*feed).unwrap().follows_next());
        }
    }

    #[test]
    fn every_script_is_a_file_of_the_bench() {
        let bench = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for route in ROUTES {
            for (folder, script) in [("pgbench", &route.pgbench), ("floor", &route.floor)] {
                if let Some(script) = script {
                    assert!(bench.join(folder).join(script.file).is_file(), "{folder}/{}", script.file);
                }
            }
        }
        for write in BOOKING_WRITES {
            assert!(bench.join("pgbench").join(write.script).is_file());
            assert!(bench.join("floor").join(write.script).is_file());
        }
    }
}
