//! After the last size, the soak: every route at once at 64 connections for BENCH_SOAK seconds,
//! the gateway's resident memory sampled every 5 s. A leak, or buffers kept that grow with what
//! the gateway has served, shows as growth from the minute after the first (by then every route's
//! buffers are at their size) to the last.
//!
//! Each minute is read as the median of its samples: one sample swings by several MiB with the
//! pages of 500 bookings in flight at its instant (each mapped on its own and given back when
//! freed), and a low sample taken as the baseline read as growth (bench/FINDINGS.md, "The soak
//! judged by a minute's median").

use std::fmt::Write;
use std::ops::Range;
use std::time::{Duration, Instant};

use super::database::Database;
use super::{carry_on, Bench};
use crate::instruments::wrk::Load;
use crate::measurements::{Measurement, Recorder};
use crate::process::{memory_kib, Sampler, Server};
use crate::scenarios::{Caller, ROUTES};
use crate::shell::Fallible;

pub fn measure(bench: &Bench, database: &Database, gateway: &Server, recorder: &mut Recorder) -> Fallible<()> {
    let seconds = bench.settings.soak;
    if seconds == 0 {
        return Ok(());
    }
    let mut mix = String::new();
    // (one credential for the mix: the routes of the large operator's)
    for route in ROUTES.iter().filter(|r| r.caller == Caller::Bench) {
        let body = route.body.map(|b| format!(" {}", bench.work.join(b.file_name()).display())).unwrap_or_default();
        let _ = writeln!(mix, "{} {}{body}", route.method, route.path);
    }
    let mix_file = bench.work.join("mix");
    std::fs::write(&mix_file, mix)?;
    eprintln!("{}: soak, every route at 64 connections for {seconds} s", database.size.name());
    let pid = gateway.pid();
    let started = Instant::now();
    let resident = Sampler::every(Duration::from_secs(5), move || {
        Some((started.elapsed().as_secs_f64().round() as u32, memory_kib(pid, "VmRSS").ok()?))
    });
    let load = Load::Mix { file: &mix_file, authorization: &database.authorization };
    let run = bench.wrk.run(64, seconds, gateway.port, &load, None)?;
    let samples = resident.finish();
    carry_on()?;
    let (baseline, last) = compared_windows(seconds);
    let mib = |kib: u64| kib as f64 / 1024.0;
    recorder.record(Measurement::Soak {
        size: database.size,
        seconds,
        requests: run.round.count,
        rate: run.round.rate,
        errors: run.round.errors,
        baseline_s: baseline.start,
        baseline_mib: mib(median_within(&samples, &baseline)),
        last_mib: mib(median_within(&samples, &last)),
        peak_mib: mib(samples.iter().map(|s| s.1).max().unwrap_or(0)),
        minute_medians: true,
        each_minute_mib: each_minute(&samples, seconds).into_iter().map(mib).collect(),
    })
}

/// The two spans of a soak compared (seconds from its start): the minute after its first and its
/// last minute; in a soak shorter than four minutes, its second quarter and its last.
fn compared_windows(seconds: u32) -> (Range<u32>, Range<u32>) {
    let length = if seconds >= 240 { 60 } else { seconds / 4 };
    (length..2 * length, seconds - length..u32::MAX)
}

/// Each whole minute's median of the samples (seconds, KiB).
fn each_minute(samples: &[(u32, u64)], seconds: u32) -> Vec<u64> {
    (0..seconds / 60).map(|minute| median_within(samples, &(minute * 60..(minute + 1) * 60))).collect()
}

/// The median of the samples (seconds, KiB) taken within `window`; 0 when none was.
fn median_within(samples: &[(u32, u64)], window: &Range<u32>) -> u64 {
    let mut within: Vec<u64> = samples.iter().filter(|s| window.contains(&s.0)).map(|s| s.1).collect();
    within.sort_unstable();
    within.get(within.len() / 2).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minute_after_the_first_and_the_last_are_compared() {
        assert_eq!(compared_windows(600), (60..120, 540..u32::MAX));
        assert_eq!(compared_windows(240), (60..120, 180..u32::MAX));
        assert_eq!(compared_windows(60), (15..30, 45..u32::MAX));
    }

    #[test]
    fn a_low_sample_does_not_move_the_median() {
        let samples = [(55, 100), (60, 57), (65, 63), (70, 62), (75, 64), (120, 90)];
        assert_eq!(median_within(&samples, &(60..120)), 63);
        assert_eq!(median_within(&samples, &(200..300)), 0);
    }

    #[test]
    fn each_whole_minute_has_its_median() {
        let samples = [(5, 10), (30, 30), (55, 20), (60, 40), (100, 50), (125, 90)];
        assert_eq!(each_minute(&samples, 150), vec![20, 50]);
    }
}
