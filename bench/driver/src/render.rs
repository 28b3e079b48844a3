//! RESULTS.md's generated part, made from a run's measurements alone (and an earlier run's, for
//! the comparison): the tables, then the targets (`targets`).

use std::fmt::Write;

use crate::measurements::{Measurement, Measurements, Process, Side};
use crate::rounds::Round;
use crate::scenarios::{booking_write_scenarios, Scenario, BOOKING_WRITE_MAX_CONNECTIONS, FEED_ROUTES, ROUTES};
use crate::settings::Size;
use crate::targets;

/// Figures as the tables show them; ratios are of the figures shown, so a reader can redo them.
pub mod shown {
    use crate::rounds::Round;

    /// A rate, whole.
    pub fn rate(round: &Round) -> f64 {
        round.rate.round()
    }

    /// A latency (ms), to the µs.
    pub fn ms(value: f64) -> f64 {
        (value * 1000.0).round() / 1000.0
    }

    /// a ÷ b as its two decimals show it (a target judges the figure a reader sees), or none when
    /// either is missing or b is not above 0.
    pub fn ratio_value(a: Option<f64>, b: Option<f64>) -> Option<f64> {
        match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b).parse().ok(),
            _ => None,
        }
    }

    /// [`ratio_value`] as a cell ("-" for none).
    pub fn ratio(a: Option<f64>, b: Option<f64>) -> String {
        optional(ratio_value(a, b), 2)
    }

    /// rate, p50, p99 and errors as four cells ("-" each when not measured).
    pub fn cells(round: Option<&Round>) -> [String; 4] {
        match round {
            Some(r) => [
                format!("{:.0}", rate(r)),
                format!("{:.3}", r.p50),
                format!("{:.3}", r.p99),
                format!("{}{}", r.errors, if r.aborted { "+aborted" } else { "" }),
            ],
            None => std::array::from_fn(|_| "-".to_string()),
        }
    }

    pub fn optional(value: Option<f64>, decimals: usize) -> String {
        value.map_or("-".to_string(), |v| format!("{v:.decimals$}"))
    }
}

/// The main table's rows, in its order: each size's routes at every concurrency, then its booking
/// writes (armed, then not) at up to 16 connections.
pub fn main_rows(m: &Measurements) -> Vec<(Size, Scenario, u32)> {
    let mut rows = Vec::new();
    for &size in &m.run.sizes {
        for route in ROUTES {
            rows.extend(m.run.connections.iter().map(|&c| (size, route.scenario, c)));
        }
        for (scenario, _) in booking_write_scenarios() {
            let connections = m.run.connections.iter().filter(|&&c| c <= BOOKING_WRITE_MAX_CONNECTIONS);
            rows.extend(connections.map(|&c| (size, scenario, c)));
        }
    }
    rows
}

/// A side's combined figures, if measured.
pub fn round(m: &Measurements, (size, scenario, connections): (Size, Scenario, u32), side: Side) -> Option<Round> {
    m.side(size, scenario, connections, side).map(|s| s.0)
}

fn cpu(m: &Measurements, (size, scenario, connections): (Size, Scenario, u32), side: Side) -> String {
    shown::optional(m.side(size, scenario, connections, side).and_then(|s| s.1), 1)
}

/// Everything RESULTS.md's run writes below its marker line.
pub fn results(now: &Measurements, earlier: Option<&Measurements>) -> (String, targets::Judged) {
    let run = &now.run;
    let mut out = String::new();
    let per_size = |f: &dyn Fn(Size) -> Option<String>| -> String {
        run.sizes
            .iter()
            .filter_map(|&size| f(size).map(|v| format!("{}: {v}", size.name())))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = write!(
        out,
        "## Results of the latest run

Written by `make bench` (bench/driver) on {}, commit {},
{} cores, {}, each side measured {} s on a route,
in {} alternating rounds of {} s (see bench/driver). **Rate limits
lifted for the run (RATE_LIMITS=off).** Gateway: release build, pool of 64, every request line
written to a file (LOG_LEVEL=warn quiets only the operational log), CPU_SCHEDULING=batch (it
shares these cores with PostgreSQL; the default is normal); wrk over loopback. pgbench: the
gateway's own SQL call as its role (`-M prepared`). Floor: the plainest SQL
returning the same JSON, as the superuser (no row-level security; GET /lots checks the credential by
key id and HMAC, the other floors none). req/s and tps: the rounds' mean; latencies in ms, p50 the
rounds' median, p99 the highest of the rounds';
gw/pg = gateway req/s ÷ pgbench tps; fn/floor = pgbench p50 ÷ floor p50; WAL = bytes the gateway's
statements wrote per request (write routes; pg_stat_statements, commit records not included).
Errors: non-2xx answers and socket errors (wrk), failed transactions (pgbench).
Bare: the pass-through floor (bench/passthrough: the route's same call over a pool of 64, nothing
else), driven by wrk like the gateway; gw/bare = gateway req/s ÷ bare req/s; bare/pg = bare req/s ÷
pgbench tps.

Gateway peak resident memory: {}.

Pass-through peak resident memory, the same requests: {}.

Soak, every route at once at 64 connections (the gateway's resident memory every 5 s): {}.

PUT lot, unchanged / GET one lot, interleaved in one pgbench run at one connection (p50, ms): {}.

",
        run.date,
        run.commit,
        run.cores,
        run.server_version,
        run.duration,
        run.rounds,
        run.window,
        per_size(&|size| now.peak_memory(size, Process::Gateway).map(|mib| format!("{mib:.1} MiB"))),
        per_size(&|size| now.peak_memory(size, Process::Bare).map(|mib| format!("{mib:.1} MiB"))),
        soak_line(now),
        per_size(&|size| now.interleaved(size).map(|(put, get)| format!("{put:.3} / {get:.3}"))),
    );
    main_table(now, &mut out);
    pinned_table(now, &mut out);
    one_connection_table(now, &mut out);
    standby_table(now, &mut out);
    let judged = targets::judge(now);
    out.push('\n');
    out.push_str(&judged.table);
    if let Some(earlier) = earlier {
        against_earlier(now, earlier, &mut out);
    }
    out.push_str("\nDecisions kept: [FINDINGS.md](FINDINGS.md).\n");
    (out, judged)
}

fn soak_line(m: &Measurements) -> String {
    match m.soak() {
        Some(&Measurement::Soak {
            size,
            seconds,
            requests,
            rate,
            errors,
            baseline_s,
            baseline_mib,
            last_mib,
            peak_mib,
            minute_medians,
            ref each_minute_mib,
        }) => {
            let resident = if minute_medians {
                format!("a minute's median: {baseline_mib:.1} MiB from {baseline_s} s, {last_mib:.1} MiB in the last minute")
            } else {
                format!("{baseline_mib:.1} MiB at {baseline_s} s, {last_mib:.1} MiB at the end")
            };
            let minutes = if each_minute_mib.is_empty() {
                String::new()
            } else {
                let medians: Vec<String> = each_minute_mib.iter().map(|mib| format!("{mib:.1}")).collect();
                format!(" (each minute's median, MiB: {})", medians.join(", "))
            };
            format!(
                "{}, {seconds} s: {requests} requests ({rate:.0} req/s), errors {errors}; resident memory \
                 {resident}{minutes}, peak {peak_mib:.1} MiB; growth {} %",
                size.name(),
                shown::optional(soak_growth(baseline_mib, last_mib), 1),
            )
        }
        _ => "not run".to_string(),
    }
}

/// The soak's growth of resident memory from its second minute to its last, in per cent.
pub fn soak_growth(baseline_mib: f64, last_mib: f64) -> Option<f64> {
    (baseline_mib > 0.0).then(|| (last_mib - baseline_mib) * 100.0 / baseline_mib)
}

fn main_table(m: &Measurements, out: &mut String) {
    out.push_str(
        "| size | route | conns | gateway req/s | p50 | p99 | errors | pgbench tps | p50 | p99 | errors | gw/pg | \
         floor tps | floor p50 | fn/floor | WAL B/req | bare req/s | bare p50 | bare errors | gw/bare | bare/pg | \
         gw CPU µs/req | bare CPU µs/req |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for key in main_rows(m) {
        let (size, scenario, connections) = key;
        let [gateway, pgbench, floor, bare] =
            [Side::Gateway, Side::Pgbench, Side::Floor, Side::Bare].map(|s| round(m, key, s));
        if [&gateway, &pgbench, &floor, &bare].iter().all(|s| s.is_none()) {
            continue;
        }
        let rate = |r: &Option<Round>| r.as_ref().map(shown::rate);
        let p50 = |r: &Option<Round>| r.as_ref().map(|r| shown::ms(r.p50));
        let [g_rate, g_p50, g_p99, g_errors] = shown::cells(gateway.as_ref());
        let [p_rate, p_p50, p_p99, p_errors] = shown::cells(pgbench.as_ref());
        let [f_rate, f_p50, _, _] = shown::cells(floor.as_ref());
        let [b_rate, b_p50, _, b_errors] = shown::cells(bare.as_ref());
        let fn_floor =
            if floor.is_some() && pgbench.is_some() { shown::ratio(p50(&pgbench), p50(&floor)) } else { "-".into() };
        let wal = m.wal(size, scenario, connections).map_or("-".to_string(), |w| w.to_string());
        let _ = writeln!(
            out,
            "| {} | {} | {connections} | {g_rate} | {g_p50} | {g_p99} | {g_errors} | {p_rate} | {p_p50} | {p_p99} | {p_errors} | {} | \
             {f_rate} | {f_p50} | {fn_floor} | {wal} | {b_rate} | {b_p50} | {b_errors} | {} | {} | {} | {} |",
            size.name(),
            scenario.label(),
            shown::ratio(rate(&gateway), rate(&pgbench)),
            shown::ratio(rate(&gateway), rate(&bare)),
            shown::ratio(rate(&bare), rate(&pgbench)),
            cpu(m, key, Side::Gateway),
            cpu(m, key, Side::Bare),
        );
    }
}

fn pinned_table(m: &Measurements, out: &mut String) {
    let Some(core) = m.run.gateway_core else { return };
    let mut rows = String::new();
    for key in main_rows(m) {
        let (Some(gateway), Some(bare)) = (round(m, key, Side::PinnedGateway), round(m, key, Side::PinnedBare)) else {
            continue;
        };
        let [g_rate, g_p50, g_p99, g_errors] = shown::cells(Some(&gateway));
        let [b_rate, b_p50, b_p99, b_errors] = shown::cells(Some(&bare));
        let _ = writeln!(
            rows,
            "| {} | {} | {} | {g_rate} | {g_p50} | {g_p99} | {g_errors} | {b_rate} | {b_p50} | {b_p99} | {b_errors} | {} | {} | {} |",
            key.0.name(),
            key.1.label(),
            key.2,
            shown::ratio(Some(shown::rate(&gateway)), Some(shown::rate(&bare))),
            cpu(m, key, Side::PinnedGateway),
            cpu(m, key, Side::PinnedBare),
        );
    }
    if rows.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "
## The gateway on a core of its own

Every route again with the gateway, and in its turn the pass-through, on core {core} alone (taskset,
default CPU scheduling, one runtime thread), and PostgreSQL and wrk on the other cores: as in
production, where the gateway does not share its cores with the database. The same rounds and
figures as above; CPU µs/req: the process's user and system time over the requests it answered.

| size | route | conns | gateway req/s | p50 | p99 | errors | bare req/s | bare p50 | bare p99 | bare errors | gw/bare | gw CPU µs/req | bare CPU µs/req |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
{rows}"
    );
}

/// A scenario's clocks at one connection, as shown: the means (ms) to the µs, and what they split
/// into (µs, whole).
pub struct OneConnection {
    pub body_kib: f64,
    pub wrk: f64,
    pub request: f64,
    pub call: f64,
    /// request − call: the gateway's own code.
    pub own_us: f64,
    /// wrk − request: the HTTP exchange.
    pub exchange_us: f64,
}

pub fn one_connection(m: &Measurements, size: Size, scenario: Scenario) -> Option<OneConnection> {
    let (body_kib, wrk, request, call) = m.clocks(size, scenario)?;
    let (wrk, request, call) = (shown::ms(wrk), shown::ms(request), shown::ms(call));
    Some(OneConnection {
        body_kib,
        wrk,
        request,
        call,
        own_us: ((request - call) * 1000.0).round(),
        exchange_us: ((wrk - request) * 1000.0).round(),
    })
}

fn one_connection_table(m: &Measurements, out: &mut String) {
    out.push_str(
        "
## One connection: where the added time goes

The same requests seen from three clocks (means, ms): wrk's; the gateway's own, from a request's
arrival to its answer; and the gateway's database call within it (its /metrics, read before and
after the rounds). Gateway's own = request − database call: what the gateway's code costs. HTTP
exchange = wrk − request: the second process's hop (sockets, wake-ups, parsing on both sides).
Drift between rounds cannot enter these differences; it can enter gateway p50 − pgbench p50.

| route | size | body (KiB) | wrk mean | gateway request | database call | gateway's own (µs) | HTTP exchange (µs) |
|---|---|---|---|---|---|---|---|
",
    );
    for &size in &m.run.sizes {
        for r in ROUTES {
            if let Some(c) = one_connection(m, size, r.scenario) {
                let kib = if r.body.is_some() { format!("{:.1}", c.body_kib) } else { "0".to_string() };
                let _ = writeln!(
                    out,
                    "| {} | {} | {kib} | {:.3} | {:.3} | {:.3} | {:.0} | {:.0} |",
                    r.scenario.label(),
                    size.name(),
                    c.wrk,
                    c.request,
                    c.call,
                    c.own_us,
                    c.exchange_us
                );
            }
        }
    }
}

fn standby_table(m: &Measurements, out: &mut String) {
    let run = &m.run;
    let _ = write!(
        out,
        "
## The feed from a standby

GET /bookings read through a second gateway from a hot standby of the cluster on this machine
(sql/dev/cluster.sh standby: pg_basebackup -R; DATABASE_READ_URL, a publication of the booking writers
every second), against the gateway above reading it from the primary, in {} alternating rounds
of {} s after one unmeasured second each. A standby read is two calls: the primary's authentication
and read assertion, then the standby's page. standby/primary = req/s ÷ req/s; errors: non-2xx answers
and socket errors of both. Reads by the standby, and fallbacks (reads the primary served instead): the
second gateway's counters over the rounds. Lag, sampled every half second over a size's runs: the
highest age of the last publication the standby held, and the most WAL it had yet to replay.

| route | size | conns | primary req/s | p50 | standby req/s | p50 | standby/primary | errors | reads by the standby | fallbacks | max publication age (s) | max WAL to replay (bytes) |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
",
        run.rounds, run.window
    );
    for &size in &run.sizes {
        for &scenario in FEED_ROUTES {
            let Some(feed) = standby_row(m, size, scenario) else { continue };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.0} | {:.3} | {:.0} | {:.3} | {} | {} | {} | {} | {:.2} | {} |",
                scenario.label(),
                size.name(),
                feed.connections,
                shown::rate(&feed.primary),
                feed.primary.p50,
                shown::rate(&feed.standby),
                feed.standby.p50,
                shown::optional(feed.ratio, 2),
                feed.errors,
                feed.reads,
                feed.fallbacks,
                feed.max_age_s,
                feed.max_wal_bytes,
            );
        }
    }
}

/// A row of the feed from a standby, every part of it measured.
pub struct StandbyRow {
    pub connections: u32,
    pub primary: Round,
    pub standby: Round,
    pub ratio: Option<f64>,
    pub errors: String,
    pub reads: u64,
    pub fallbacks: u64,
    pub max_age_s: f64,
    pub max_wal_bytes: u64,
}

pub fn standby_row(m: &Measurements, size: Size, scenario: Scenario) -> Option<StandbyRow> {
    let connections = crate::scenarios::FEED_CONNECTIONS;
    let primary = round(m, (size, scenario, connections), Side::FeedPrimary)?;
    let standby = round(m, (size, scenario, connections), Side::FeedStandby)?;
    let (reads, fallbacks) = m.standby_reads(size, scenario)?;
    let (max_age_s, max_wal_bytes) = m.standby_lag(size)?;
    let aborted = if primary.aborted || standby.aborted { "+aborted" } else { "" };
    Some(StandbyRow {
        connections,
        ratio: shown::ratio_value(Some(shown::rate(&standby)), Some(shown::rate(&primary))),
        errors: format!("{}{aborted}", primary.errors + standby.errors),
        primary,
        standby,
        reads,
        fallbacks,
        max_age_s,
        max_wal_bytes,
    })
}

fn against_earlier(now: &Measurements, earlier: &Measurements, out: &mut String) {
    let measured = |m: &Measurements, key: (Size, Scenario, u32)| {
        [Side::Gateway, Side::Pgbench, Side::Floor, Side::Bare].iter().any(|&s| round(m, key, s).is_some())
    };
    if !main_rows(now).into_iter().any(|key| measured(now, key) && measured(earlier, key)) {
        return;
    }
    let _ = write!(
        out,
        "
## Against the earlier run

The run on {}, commit {} → this one. pgbench p50 at one connection (ms); the gateway at 16
connections (req/s, and × pgbench).

| size | route | pgbench p50 (1) | gateway req/s (16) | × pgbench (16) |
|---|---|---|---|---|
",
        earlier.run.date, earlier.run.commit
    );
    let p50 = |m: &Measurements, key| round(m, key, Side::Pgbench).map_or("-".to_string(), |r| format!("{:.3}", r.p50));
    let rate = |m: &Measurements, key| round(m, key, Side::Gateway).map(|r| shown::rate(&r));
    let pgbench_rate = |m: &Measurements, key| round(m, key, Side::Pgbench).map(|r| shown::rate(&r));
    for key in main_rows(now) {
        if key.2 != 1 || !measured(now, key) {
            continue;
        }
        let at_16 = (key.0, key.1, 16);
        let was = |text: String, known: bool| if known { text } else { "—".to_string() };
        let is_16 = |m: &Measurements| measured(m, at_16);
        let _ = writeln!(
            out,
            "| {} | {} | {} → {} | {} → {} | {} → {} |",
            key.0.name(),
            key.1.label(),
            was(p50(earlier, key), measured(earlier, key)),
            p50(now, key),
            was(shown::optional(rate(earlier, at_16), 0), is_16(earlier)),
            was(shown::optional(rate(now, at_16), 0), is_16(now)),
            was(shown::ratio(rate(earlier, at_16), pgbench_rate(earlier, at_16)), is_16(earlier)),
            was(shown::ratio(rate(now, at_16), pgbench_rate(now, at_16)), is_16(now)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bench/RESULTS.md below its marker is what its measurements render (up to the comparison
    /// with the earlier run, whose measurements are in the history only).
    #[test]
    fn the_results_file_is_the_rendering_of_its_measurements() {
        let bench = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let measurements = Measurements::load(&bench.join("RESULTS.jsonl")).unwrap();
        let file = std::fs::read_to_string(bench.join("RESULTS.md")).unwrap();
        let written = file.split_once("writes everything below it -->\n\n").unwrap().1;
        let (rendered, judged) = results(&measurements, None);
        let until_earlier = |text: &str| {
            let tables = text.split("\n## Against the earlier run").next().unwrap();
            tables.split("\nDecisions kept").next().unwrap().to_string()
        };
        assert_eq!(until_earlier(written), until_earlier(&rendered));
        assert!(judged.missing.is_empty(), "{:?}", judged.missing);
    }

    #[test]
    fn the_soak_line_shows_each_minute_when_the_run_kept_them() {
        let run = r#"{"kind": "run", "date": "2026-11-29", "commit": "c", "cores": 2, "server_version": "15",
            "duration": 6, "rounds": 3, "window": 2, "sizes": ["large"], "connections": [1], "gateway_core": 0,
            "soak": 180}"#;
        let line = |minutes: &str| {
            let soak = format!(
                r#"{{"kind": "soak", "size": "large", "seconds": 180, "requests": 9, "rate": 0.05, "errors": 0,
                "baseline_s": 60, "baseline_mib": 58.0, "last_mib": 59.0, "peak_mib": 62.4,
                "minute_medians": true{minutes}}}"#
            );
            let all = vec![serde_json::from_str(run).unwrap(), serde_json::from_str(&soak).unwrap()];
            soak_line(&Measurements::new(all).unwrap())
        };
        let kept = line(r#", "each_minute_mib": [54.3, 58.0, 59.0]"#);
        let expected = "in the last minute (each minute's median, MiB: 54.3, 58.0, 59.0), peak 62.4 MiB; growth 1.7 %";
        assert!(kept.ends_with(expected), "{kept}");
        let not_kept = line("");
        assert!(not_kept.ends_with("59.0 MiB in the last minute, peak 62.4 MiB; growth 1.7 %"), "{not_kept}");
    }
}
