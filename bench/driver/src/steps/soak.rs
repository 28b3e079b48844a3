//! After the last size, the soak: every route at once at 64 connections for BENCH_SOAK seconds,
//! the gateway's resident memory sampled every 5 s. A leak, or buffers kept that grow with what
//! the gateway has served, shows as growth after the first minute (by then every route's buffers
//! are at their size).

use std::fmt::Write;
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
    // (the baseline: the first sample after a minute, or after half a soak shorter than two)
    let from = if seconds < 120 { seconds / 2 } else { 60 };
    let baseline = samples.iter().find(|s| s.0 >= from).copied().unwrap_or((from, 0));
    let mib = |kib: u64| kib as f64 / 1024.0;
    recorder.record(Measurement::Soak {
        size: database.size,
        seconds,
        requests: run.round.count,
        rate: run.round.rate,
        errors: run.round.errors,
        baseline_s: from,
        baseline_mib: mib(baseline.1),
        last_mib: mib(samples.last().map_or(0, |s| s.1)),
        peak_mib: mib(samples.iter().map(|s| s.1).max().unwrap_or(0)),
    })
}
