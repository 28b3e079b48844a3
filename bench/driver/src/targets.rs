//! Every performance target of `make bench`, judged from a run's measurements.
//!
//! Each target reads measurements by their ids (size, scenario, connections, side), never by the
//! tables' labels. Which measurements a target reads follows from the run's plan (its sizes,
//! connections, whether the gateway had a core of its own, the soak): a measurement the plan
//! promised and the run did not record is **missing**, which fails the run. A target not met is
//! reported as missed, and the run still succeeds: the figures are for people to read.

use std::fmt::Write;

use crate::measurements::{Measurement, Measurements, Process, Side};
use crate::render::{main_rows, one_connection, round, shown, soak_growth, standby_row};
use crate::rounds::Round;
use crate::scenarios::{
    booking_write_scenarios, route, Answer, Scenario, SixtyFourKib, BOOKING_WRITE_MAX_CONNECTIONS, FEED_ROUTES, ROUTES,
};
use crate::settings::Size;

/// A `last_used_at` stamp of the bench credential (once a minute) is at most one heap page image
/// and its record: all an unchanged PUT may cause a run of seconds to write.
const STAMP_BYTES: f64 = 9216.0;

/// The gateway's own code: 20 µs a request, plus 4 µs per KiB of body for the JSON syntax check it
/// makes (a strict reading at 250 MB/s or better; bench/FINDINGS.md, "Own code: a fixed cost and a
/// reading rate").
const OWN_US: f64 = 20.0;
const OWN_US_PER_KIB: f64 = 4.0;

/// The targets' table, and what the run failed to measure.
pub struct Judged {
    pub table: String,
    pub missing: Vec<String>,
}

struct Judge<'a> {
    m: &'a Measurements,
    rows: String,
    missing: Vec<String>,
}

impl Judge<'_> {
    /// A measured side the target needs; noted as missing when absent.
    fn side(&mut self, key: (Size, Scenario, u32), side: Side) -> Option<Round> {
        let found = round(self.m, key, side);
        if found.is_none() {
            self.miss(format!("{} {:?} at {} ({side:?})", key.0.name(), key.1, key.2));
        }
        found
    }

    fn found<T>(&mut self, value: Option<T>, what: impl FnOnce() -> String) -> Option<T> {
        if value.is_none() {
            self.miss(what());
        }
        value
    }

    /// Notes a missing measurement, once however many targets read it.
    fn miss(&mut self, what: String) {
        if !self.missing.contains(&what) {
            self.missing.push(what);
        }
    }

    fn row(&mut self, target: &str, size: &str, route: &str, measured: String, met: bool) {
        let verdict = if met { "met" } else { "**missed**" };
        let _ = writeln!(self.rows, "| {target} | {size} | {route} | {measured} | {verdict} |");
    }

    fn not_measured(&mut self, target: &str, size: &str, route: &str) {
        let _ = writeln!(self.rows, "| {target} | {size} | {route} | **not measured** | **missing** |");
    }

    fn at_one(&self) -> bool {
        self.m.run.connections.contains(&1)
    }

    fn both_sizes(&self) -> bool {
        self.m.run.sizes.contains(&Size::Small) && self.m.run.sizes.contains(&Size::Large)
    }

    fn sizes(&self) -> Vec<Size> {
        self.m.run.sizes.clone()
    }
}

fn ms(value: f64) -> String {
    format!("{value:.2}")
}

pub fn judge(m: &Measurements) -> Judged {
    let mut judge = Judge { m, rows: String::new(), missing: Vec::new() };
    read_function_within_twice_its_floor(&mut judge);
    empty_tail_within_a_quarter_millisecond(&mut judge);
    gateway_near_the_pass_through(&mut judge);
    gateway_near_pgbench_where_the_call_is_long(&mut judge);
    gateway_p50_near_the_pass_throughs(&mut judge);
    own_code_per_request_and_kib(&mut judge);
    unchanged_put_writes_nothing(&mut judge);
    unchanged_put_no_dearer_than_a_get(&mut judge);
    hundred_blocked_periods_within_10_ms(&mut judge);
    sixty_four_kib_bodies(&mut judge);
    booking_writes_against_their_floor(&mut judge);
    feed_page_independent_of_the_bookings_held(&mut judge);
    feed_from_a_standby(&mut judge);
    zero_errors(&mut judge);
    peak_memory(&mut judge);
    soak(&mut judge);
    Judged {
        table: format!(
            "## Targets\n\nJudged by `bench/driver/src/targets.rs` from the run's measurements. Database figures\n\
             are pgbench p50 at one connection.\n\n| target | size | route | measured | |\n|---|---|---|---|---|\n{}",
            judge.rows
        ),
        missing: judge.missing,
    }
}

/// Every read route's function within twice the plainest SQL returning the same rows.
fn read_function_within_twice_its_floor(j: &mut Judge) {
    const TARGET: &str = "read function ≤ 2 × its floor";
    if !j.at_one() {
        return;
    }
    for size in j.sizes() {
        for r in ROUTES.iter().filter(|r| r.answer == Answer::Read && r.floor.is_some()) {
            let key = (size, r.scenario, 1);
            let (Some(function), Some(floor)) = (j.side(key, Side::Pgbench), j.side(key, Side::Floor)) else {
                j.not_measured(TARGET, size.name(), r.scenario.label());
                continue;
            };
            let ratio = shown::ratio_value(Some(shown::ms(function.p50)), Some(shown::ms(floor.p50)));
            let met = ratio.is_some_and(|r| r <= 2.0);
            let ratio = shown::optional(ratio, 2);
            j.row(
                TARGET,
                size.name(),
                r.scenario.label(),
                format!("{} ms ÷ {} ms = {ratio}", ms(function.p50), ms(floor.p50)),
                met,
            );
        }
    }
}

/// The poll at the end of the feed, nothing new after the cursor: the call most clients make
/// most, and most of the database's time in `make bench-capacity`. Beside it, /ping with the same
/// credential: what authentication alone costs.
fn empty_tail_within_a_quarter_millisecond(j: &mut Judge) {
    const TARGET: &str = "the empty tail's call ≤ 0.25 ms (pgbench p50, one connection)";
    if !j.at_one() {
        return;
    }
    for size in j.sizes() {
        let tail = j.side((size, Scenario::BookingsTail, 1), Side::Pgbench);
        let ping = j.side((size, Scenario::TailPing, 1), Side::Pgbench);
        let (Some(tail), Some(ping)) = (tail, ping) else {
            j.not_measured(TARGET, size.name(), Scenario::BookingsTail.label());
            continue;
        };
        let measured = format!("{} ms (/ping with its credential: {} ms)", ms(tail.p50), ms(ping.p50));
        j.row(TARGET, size.name(), Scenario::BookingsTail.label(), measured, shown::ms(tail.p50) <= 0.25);
    }
}

/// The gateway against the floor its architecture cannot beat (the pass-through), on every route
/// and at every concurrency: each on a core of its own where the run had one (on shared cores the
/// ratio measures who takes the CPU).
fn gateway_near_the_pass_through(j: &mut Judge) {
    let (target, gateway, bare) = match j.m.run.gateway_core {
        Some(_) => (
            "gateway ≥ 0.95 × the pass-through floor, each on a core of its own",
            Side::PinnedGateway,
            Side::PinnedBare,
        ),
        None => ("gateway ≥ 0.95 × the pass-through floor (shared cores)", Side::Gateway, Side::Bare),
    };
    for key in http_rows(j.m) {
        rates_compared(j, target, key, gateway, bare, 0.95);
    }
}

/// The gateway against pgbench only where the database call takes 1 ms or more (pgbench p50 at
/// one connection), where the share of HTTP is small.
fn gateway_near_pgbench_where_the_call_is_long(j: &mut Judge) {
    const TARGET: &str = "gateway ≥ 0.90 × pgbench, database call ≥ 1 ms";
    if !j.at_one() {
        return;
    }
    for key in http_rows(j.m) {
        if route(key.1).is_none_or(|r| r.pgbench.is_none()) {
            continue;
        }
        let Some(one) = j.side((key.0, key.1, 1), Side::Pgbench) else { continue };
        if shown::ms(one.p50) < 1.0 {
            continue;
        }
        rates_compared(j, TARGET, key, Side::Gateway, Side::Pgbench, 0.9);
    }
}

/// One side's rate against another's at `key`, met at `least` times or more.
fn rates_compared(j: &mut Judge, target: &str, key: (Size, Scenario, u32), side: Side, against: Side, least: f64) {
    let at = format!("{} at {}", key.1.label(), key.2);
    let (Some(a), Some(b)) = (j.side(key, side), j.side(key, against)) else {
        j.not_measured(target, key.0.name(), &at);
        return;
    };
    let ratio = shown::ratio_value(Some(shown::rate(&a)), Some(shown::rate(&b)));
    j.row(target, key.0.name(), &at, shown::optional(ratio, 2), ratio.is_some_and(|r| r >= least));
}

/// At one connection, the gateway's p50 within 0.03 ms of the pass-through's.
fn gateway_p50_near_the_pass_throughs(j: &mut Judge) {
    let (target, gateway, bare) = match j.m.run.gateway_core {
        Some(_) => (
            "gateway p50 ≤ the pass-through p50 + 0.03 ms, one connection, each on a core of its own",
            Side::PinnedGateway,
            Side::PinnedBare,
        ),
        None => {
            ("gateway p50 ≤ the pass-through p50 + 0.03 ms, one connection (shared cores)", Side::Gateway, Side::Bare)
        }
    };
    for key in http_rows(j.m).into_iter().filter(|k| k.2 == 1) {
        let (Some(g), Some(b)) = (j.side(key, gateway), j.side(key, bare)) else {
            j.not_measured(target, key.0.name(), key.1.label());
            continue;
        };
        let added = shown::ms(g.p50) - shown::ms(b.p50);
        let measured = format!("{} − {} = {} ms", ms(g.p50), ms(b.p50), ms(added));
        j.row(target, key.0.name(), key.1.label(), measured, added <= 0.03 + 1e-9);
    }
}

fn own_code_per_request_and_kib(j: &mut Judge) {
    const TARGET: &str = "own code of the gateway ≤ 20 µs + 4 µs per KiB of body, one connection";
    if !j.at_one() {
        return;
    }
    for size in j.sizes() {
        for r in ROUTES {
            let clocks = one_connection(j.m, size, r.scenario);
            let Some(clocks) = j.found(clocks, || format!("{} {:?} clocks", size.name(), r.scenario)) else {
                j.not_measured(TARGET, size.name(), r.scenario.label());
                continue;
            };
            let (own, bound) = (clocks.own_us, OWN_US + OWN_US_PER_KIB * clocks.body_kib);
            j.row(TARGET, size.name(), r.scenario.label(), format!("{own:.0} µs (≤ {bound:.0})"), own <= bound);
        }
    }
}

/// A run lasts seconds: the total an unchanged PUT wrote is about its bytes a request (rounded
/// down) times its requests (req/s times seconds), and may hold one credential stamp.
fn unchanged_put_writes_nothing(j: &mut Judge) {
    const TARGET: &str = "PUT unchanged writes nothing (apart from one `last_used_at` stamp a minute)";
    for key in http_rows(j.m) {
        if key.2 == 1 || route(key.1).is_none_or(|r| r.answer != Answer::Unchanged) {
            continue;
        }
        let at = format!("{} at {}", key.1.label(), key.2);
        let wal = j.found(j.m.wal(key.0, key.1, key.2), || format!("{} {:?} at {} WAL", key.0.name(), key.1, key.2));
        let (Some(wal), Some(g)) = (wal, j.side(key, Side::Gateway)) else {
            j.not_measured(TARGET, key.0.name(), &at);
            continue;
        };
        let total = wal as f64 * shown::rate(&g) * f64::from(j.m.run.duration);
        j.row(TARGET, key.0.name(), &at, format!("{wal} B a request (≈ {total:.0} B in all)"), total <= STAMP_BYTES);
    }
}

fn unchanged_put_no_dearer_than_a_get(j: &mut Judge) {
    const TARGET: &str = "PUT unchanged costs no more than a GET of the lot (interleaved, one connection)";
    for size in j.sizes() {
        let Some((put, get)) = j.found(j.m.interleaved(size), || format!("{} interleaved", size.name())) else {
            j.not_measured(TARGET, size.name(), Scenario::LotPutUnchanged.label());
            continue;
        };
        let (put, get) = (shown::ms(put), shown::ms(get));
        j.row(
            TARGET,
            size.name(),
            Scenario::LotPutUnchanged.label(),
            format!("{} ms (GET {} ms)", ms(put), ms(get)),
            put <= get,
        );
    }
}

fn hundred_blocked_periods_within_10_ms(j: &mut Judge) {
    const TARGET: &str = "PUT of 100 blocked periods, lot of 100 000 bookings, ≤ 10 ms";
    if !j.at_one() || !j.m.run.sizes.contains(&Size::Large) {
        return;
    }
    let scenario = Scenario::BlockedPeriodsPutUnchanged;
    match j.side((Size::Large, scenario, 1), Side::Pgbench) {
        Some(p) => j.row(TARGET, "large", scenario.label(), format!("{} ms", ms(p.p50)), shown::ms(p.p50) <= 10.0),
        None => j.not_measured(TARGET, "large", scenario.label()),
    }
}

/// Any 64 KiB body within 10 ms; a refused one answered without the database reading it
/// (within 2 ms); a sound one costs what jsonb spends reading it (the row's floor), plus 2 ms.
fn sixty_four_kib_bodies(j: &mut Judge) {
    const ANY: &str = "any 64 KiB body ≤ 10 ms (through the gateway)";
    const REFUSED: &str = "a refused 64 KiB body ≤ 2 ms p50, one connection";
    const READ: &str = "a sound 64 KiB body ≤ jsonb reading it + 2 ms, one connection";
    if !j.at_one() {
        return;
    }
    for size in j.sizes() {
        for r in ROUTES {
            if r.body.and_then(|b| b.sixty_four_kib()).is_none() {
                continue;
            }
            let key = (size, r.scenario, 1);
            let Some(g) = j.side(key, Side::Gateway) else {
                j.not_measured(ANY, size.name(), r.scenario.label());
                continue;
            };
            j.row(ANY, size.name(), r.scenario.label(), format!("{} ms", ms(g.p50)), shown::ms(g.p50) <= 10.0);
        }
    }
    for size in j.sizes() {
        for r in ROUTES {
            let Some(kind) = r.body.and_then(|b| b.sixty_four_kib()) else { continue };
            let key = (size, r.scenario, 1);
            let Some(g) = round(j.m, key, Side::Gateway) else { continue };
            match kind {
                SixtyFourKib::Refused => j.row(
                    REFUSED,
                    size.name(),
                    r.scenario.label(),
                    format!("{} ms", ms(g.p50)),
                    shown::ms(g.p50) <= 2.0,
                ),
                SixtyFourKib::Read => {
                    let Some(floor) = j.side(key, Side::Floor) else {
                        j.not_measured(READ, size.name(), r.scenario.label());
                        continue;
                    };
                    let added = shown::ms(g.p50) - shown::ms(floor.p50);
                    let measured = format!("{} ms − {} ms = {} ms", ms(g.p50), ms(floor.p50), ms(added));
                    j.row(READ, size.name(), r.scenario.label(), measured, added <= 2.0 + 1e-9);
                }
            }
        }
    }
}

/// Booking writes as the platform makes them, against the plainest SQL writing the same row with
/// every trigger on; and at 10 000 lots against 1 000. The large size holds 100 times the
/// bookings as well as 10 times the lots: the floor itself costs more there (deeper indexes, fewer
/// pages cached), which no function can avoid. What this guards against, a cost that grows with
/// the operator (a lookup reading every lot), shows as the function growing more than its floor.
fn booking_writes_against_their_floor(j: &mut Judge) {
    const TWICE: &str = "booking write ≤ 2 × its floor";
    const GROWTH: &str = "booking write at 10 000 lots ≤ 1.2 × at 1 000, beyond the growth of its floor";
    let both = j.both_sizes();
    for size in j.sizes() {
        for (scenario, _) in booking_write_scenarios() {
            for &c in j.m.run.connections.clone().iter().filter(|&&c| c <= BOOKING_WRITE_MAX_CONNECTIONS) {
                let at = format!("{} at {c}", scenario.label());
                let key = (size, scenario, c);
                let (Some(function), Some(floor)) = (j.side(key, Side::Pgbench), j.side(key, Side::Floor)) else {
                    j.not_measured(TWICE, size.name(), &at);
                    continue;
                };
                let ratio = shown::ratio_value(Some(shown::ms(function.p50)), Some(shown::ms(floor.p50)));
                let met = ratio.is_some_and(|r| r <= 2.0);
                let ratio = shown::optional(ratio, 2);
                j.row(
                    TWICE,
                    size.name(),
                    &at,
                    format!("{} ms ÷ {} ms = {ratio}", ms(function.p50), ms(floor.p50)),
                    met,
                );
                if size != Size::Small || !both {
                    continue;
                }
                let large = (Size::Large, scenario, c);
                let (Some(large_function), Some(large_floor)) =
                    (j.side(large, Side::Pgbench), j.side(large, Side::Floor))
                else {
                    j.not_measured(GROWTH, "both", &at);
                    continue;
                };
                let [f, fl, lf, lfl] = [function.p50, floor.p50, large_function.p50, large_floor.p50].map(shown::ms);
                if f <= 0.0 || fl <= 0.0 || lfl <= 0.0 {
                    continue;
                }
                let (grown, floor_grown) = (lf / f, lfl / fl);
                let measured = format!(
                    "({} ÷ {} ms = {grown:.2}) ÷ (floor {} ÷ {} ms = {floor_grown:.2}) = {:.2}",
                    ms(lf),
                    ms(f),
                    ms(lfl),
                    ms(fl),
                    grown / floor_grown
                );
                j.row(GROWTH, "both", &at, measured, grown / floor_grown <= 1.2);
            }
        }
    }
}

fn feed_page_independent_of_the_bookings_held(j: &mut Judge) {
    const TARGET: &str = "page at 1 000 000 bookings ≤ 1.2 × at 10 000";
    if !(j.at_one() && j.both_sizes()) {
        return;
    }
    for scenario in [Scenario::Bookings200, Scenario::Bookings500] {
        let small = j.side((Size::Small, scenario, 1), Side::Pgbench);
        let large = j.side((Size::Large, scenario, 1), Side::Pgbench);
        let (Some(small), Some(large)) = (small, large) else {
            j.not_measured(TARGET, "both", scenario.label());
            continue;
        };
        let (s, l) = (shown::ms(small.p50), shown::ms(large.p50));
        if s <= 0.0 {
            continue;
        }
        j.row(TARGET, "both", scenario.label(), format!("{} ms ÷ {} ms = {:.2}", ms(l), ms(s), l / s), l / s <= 1.2);
    }
}

/// The feed from a hot standby against the same feed from the primary, with no fallback.
fn feed_from_a_standby(j: &mut Judge) {
    const TARGET: &str = "the feed from a standby ≥ 0.9 × from the primary, 16 connections";
    for size in j.sizes() {
        for &scenario in FEED_ROUTES {
            let row = standby_row(j.m, size, scenario);
            let Some(row) = j.found(row, || format!("{} {scenario:?} from the standby", size.name())) else {
                j.not_measured(TARGET, size.name(), scenario.label());
                continue;
            };
            let measured = format!(
                "{:.0} ÷ {:.0} req/s = {} (reads by the standby {}, fallbacks {}; publication age ≤ {:.2} s, WAL to replay ≤ {} B)",
                shown::rate(&row.standby),
                shown::rate(&row.primary),
                shown::optional(row.ratio, 2),
                row.reads,
                row.fallbacks,
                row.max_age_s,
                row.max_wal_bytes
            );
            let met = row.ratio.is_some_and(|r| r >= 0.9) && row.fallbacks == 0;
            j.row(TARGET, size.name(), scenario.label(), measured, met);
        }
    }
}

/// Every error any side met: answers not as expected, socket errors, failed or aborted
/// transactions.
fn zero_errors(j: &mut Judge) {
    let errors: u64 =
        j.m.all
            .iter()
            .map(|m| match m {
                Measurement::Side { measured, .. } => measured.errors + u64::from(measured.aborted),
                _ => 0,
            })
            .sum();
    j.row("zero errors", "both", "every route", errors.to_string(), errors == 0);
}

/// Peak memory against what hyper and tokio-postgres keep alone over the same requests, and a
/// bound at the large size.
fn peak_memory(j: &mut Judge) {
    for size in j.sizes() {
        let large = size == Size::Large;
        let target = format!(
            "gateway peak RSS ≤ the pass-through peak{} (a whole size, up to 64 connections)",
            if large { " and ≤ 96 MiB" } else { "" }
        );
        let gateway = j.found(j.m.peak_memory(size, Process::Gateway), || format!("{} gateway peak", size.name()));
        let bare = j.found(j.m.peak_memory(size, Process::Bare), || format!("{} pass-through peak", size.name()));
        let (Some(gateway), Some(bare)) = (gateway, bare) else {
            j.not_measured(&target, size.name(), "every route");
            continue;
        };
        let bound = if large { bare.min(96.0) } else { bare };
        let measured = format!("{gateway:.1} MiB (pass-through: {bare:.1} MiB)");
        j.row(&target, size.name(), "every route", measured, (gateway * 10.0).round() <= (bound * 10.0).round());
    }
}

/// The soak: growth of resident memory from the end of its first minute to its end.
fn soak(j: &mut Judge) {
    const TARGET: &str =
        "soak at 64 connections, every route: resident memory grows < 5 % after its first minute, no error";
    if j.m.run.soak == 0 {
        return;
    }
    let soak = j.m.soak().cloned();
    match j.found(soak, || "the soak".to_string()) {
        Some(Measurement::Soak { size, errors, baseline_mib, last_mib, .. }) => {
            let growth = soak_growth(baseline_mib, last_mib);
            let measured = format!("{} % (errors {errors})", shown::optional(growth, 1));
            j.row(TARGET, size.name(), "every route", measured, growth.is_some_and(|g| g < 5.0) && errors == 0);
        }
        _ => j.not_measured(TARGET, "-", "every route"),
    }
}

/// The main table's rows of HTTP routes (not the booking writes).
fn http_rows(m: &Measurements) -> Vec<(Size, Scenario, u32)> {
    main_rows(m).into_iter().filter(|k| route(k.1).is_some()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measurements::RunInfo;

    fn run(sizes: Vec<Size>, connections: Vec<u32>, gateway_core: Option<u32>, soak: u32) -> Measurement {
        Measurement::Run(RunInfo {
            date: "2026-01-01".into(),
            commit: "abc1234".into(),
            cores: 2,
            server_version: "15".into(),
            duration: 6,
            rounds: 3,
            window: 2,
            sizes,
            connections,
            gateway_core,
            soak,
        })
    }

    /// Every measurement a run of these settings records, each side answering at `p50` ms.
    fn complete(sizes: &[Size], connections: &[u32], p50: f64) -> Vec<Measurement> {
        let measured = Round { rate: 1000.0, p50, p99: p50 * 2.0, errors: 0, aborted: false, count: 6000 };
        let side = |size, scenario, connections, side| Measurement::Side {
            size,
            scenario,
            connections,
            side,
            measured,
            cpu_us_per_request: Some(10.0),
        };
        let mut all = vec![run(sizes.to_vec(), connections.to_vec(), None, 0)];
        for &size in sizes {
            for r in ROUTES {
                for &c in connections {
                    all.push(side(size, r.scenario, c, Side::Gateway));
                    all.push(side(size, r.scenario, c, Side::Bare));
                    if r.pgbench.is_some() {
                        all.push(side(size, r.scenario, c, Side::Pgbench));
                    }
                    if r.floor.is_some() {
                        all.push(side(size, r.scenario, c, Side::Floor));
                    }
                    if r.answer.writes() {
                        all.push(Measurement::Wal { size, scenario: r.scenario, connections: c, bytes_per_request: 0 });
                    }
                }
                let (body_kib, wrk_ms, request_ms, call_ms) = (0.0, p50, p50, p50);
                all.push(Measurement::Clocks { size, scenario: r.scenario, body_kib, wrk_ms, request_ms, call_ms });
            }
            for &scenario in FEED_ROUTES {
                all.push(side(size, scenario, 16, Side::FeedPrimary));
                all.push(side(size, scenario, 16, Side::FeedStandby));
                all.push(Measurement::StandbyReads { size, scenario, connections: 16, reads: 10, fallbacks: 0 });
            }
            all.push(Measurement::StandbyLag { size, max_age_s: 1.0, max_wal_bytes: 120 });
            for (scenario, _) in booking_write_scenarios() {
                for &c in connections.iter().filter(|&&c| c <= BOOKING_WRITE_MAX_CONNECTIONS) {
                    all.push(side(size, scenario, c, Side::Pgbench));
                    all.push(side(size, scenario, c, Side::Floor));
                }
            }
            all.push(Measurement::Interleaved { size, put_p50_ms: p50, get_p50_ms: p50 });
            all.push(Measurement::PeakMemory { size, process: Process::Gateway, mib: 50.0 });
            all.push(Measurement::PeakMemory { size, process: Process::Bare, mib: 60.0 });
        }
        all
    }

    #[test]
    fn a_complete_run_misses_nothing_and_is_judged_on_every_target() {
        let judged = judge(&Measurements::new(complete(&[Size::Small, Size::Large], &[1, 16, 64], 0.2)).unwrap());
        assert_eq!(judged.missing, Vec::<String>::new());
        assert!(!judged.table.contains("missed"), "{}", judged.table);
        for target in [
            "read function ≤ 2 × its floor",
            "booking write at 10 000 lots",
            "page at 1 000 000 bookings",
            "zero errors",
        ] {
            assert!(judged.table.contains(target), "{target}");
        }
    }

    #[test]
    fn a_measurement_the_settings_promise_and_the_run_lacks_fails_the_run() {
        let mut all = complete(&[Size::Small], &[1], 0.5);
        all.retain(|m| {
            !matches!(m, Measurement::Side { scenario: Scenario::Bookings500, side: Side::Floor, .. })
                && !matches!(m, Measurement::Interleaved { .. })
        });
        let judged = judge(&Measurements::new(all).unwrap());
        assert_eq!(judged.missing, vec!["small Bookings500 at 1 (Floor)".to_string(), "small interleaved".to_string()]);
        assert!(judged.table.contains(
            "| read function ≤ 2 × its floor | small | GET /bookings (500, following next) | **not measured** | **missing** |"
        ));
    }

    #[test]
    fn a_target_beyond_the_runs_settings_is_not_asked_for() {
        // one size, no one-connection runs: no growth between sizes, no one-connection targets
        let judged = judge(&Measurements::new(complete(&[Size::Small], &[16], 0.5)).unwrap());
        assert_eq!(judged.missing, Vec::<String>::new());
        assert!(!judged.table.contains("own code"));
        assert!(!judged.table.contains("gateway p50 ≤"));
        assert!(!judged.table.contains("page at 1 000 000 bookings"));
    }

    #[test]
    fn a_missed_target_is_reported_and_does_not_fail_the_run() {
        let mut all = complete(&[Size::Small], &[1], 0.5);
        for m in &mut all {
            if let Measurement::Side { scenario: Scenario::Lots50, side: Side::Pgbench, measured, .. } = m {
                measured.p50 = 2.0;
            }
        }
        let judged = judge(&Measurements::new(all).unwrap());
        assert!(judged.missing.is_empty());
        assert!(judged.table.contains(
            "| read function ≤ 2 × its floor | small | GET /lots (50) | 2.00 ms ÷ 0.50 ms = 4.00 | **missed** |"
        ));
    }
}
