//! A whole run: for each data size a fresh database, then its steps in order, each recording what
//! it measured. Every server, sampler and standby a step starts is a guard (`process`), stopped
//! at the end of its step or on the way out of a failed or interrupted run.

mod bodies;
mod database;
mod pgbench_only;
mod routes;
mod servers;
mod soak;
mod standby;

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::instruments::pgbench::Pgbench;
use crate::instruments::wrk::Wrk;
use crate::measurements::{Measurement, Recorder, RunInfo};
use crate::process::allowed_cores;
use crate::settings::{Settings, Size};
use crate::shell::{output, psql, Cluster, Fallible};
use database::Database;

/// What every step uses: the settings, the cluster, the instruments and the programs measured.
pub struct Bench<'a> {
    pub settings: &'a Settings,
    pub cluster: Cluster,
    /// The cluster's `postgres` database, as the superuser.
    pub cluster_url: String,
    pub wrk: Wrk,
    pub pgbench: Pgbench,
    /// The run's scratch directory: bodies, logs, pgbench's per-transaction logs.
    pub work: PathBuf,
    pub ingest: PathBuf,
    pub passthrough: PathBuf,
    pub cores: Cores,
}

/// The cores this run may use: the first for the gateway on a core of its own, the others for
/// PostgreSQL and the load meanwhile.
pub struct Cores {
    pub all: String,
    pub gateway: u32,
    pub others: String,
}

/// Set by SIGINT or SIGTERM; checked after each instrument, so that a run stopped by hand ends
/// through its guards (servers stopped, the standby removed, PostgreSQL on every core again).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn interrupted(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// An error once the run has been interrupted.
pub fn carry_on() -> Fallible<()> {
    if INTERRUPTED.load(Ordering::Relaxed) {
        return Err("interrupted".into());
    }
    Ok(())
}

/// Measures every size, recording into `recorder`.
pub fn run(settings: &Settings, recorder: &mut Recorder) -> Fallible<()> {
    let handler = interrupted as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
    install_instruments()?;
    let cluster = Cluster::new(&settings.root);
    cluster.run(&["start"])?;
    // WAL per request is read off pg_stat_statements: the WAL the gateway's own statements wrote,
    // not what autovacuum or another database wrote meanwhile.
    cluster.run(&["statements"])?;
    let built = Command::new("cargo")
        .args(["build", "--release", "--locked", "--bin", "ingest", "--bin", "bench-passthrough"])
        .current_dir(&settings.root)
        .status()?;
    if !built.success() {
        return Err("cargo build failed".into());
    }
    let allowed = allowed_cores()?;
    let join = |cores: &[u32]| cores.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let work = std::env::temp_dir().join(format!("bench-driver-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let _work_removed = RemovedOnDrop(work.clone());
    let bench = Bench {
        cluster_url: cluster.url("postgres", "postgres")?,
        cluster,
        wrk: Wrk::new(&settings.root),
        pgbench: Pgbench::new(&settings.pg_bin, &work),
        ingest: settings.root.join("target/release/ingest"),
        passthrough: settings.root.join("target/release/bench-passthrough"),
        cores: Cores { all: join(&allowed), gateway: allowed[0], others: join(&allowed[1..]) },
        work,
        settings,
    };
    recorder.record(Measurement::Run(RunInfo {
        date: output(Command::new("date").args(["-u", "+%Y-%m-%d"]))?.trim().to_string(),
        commit: output(Command::new("git").arg("-C").arg(&settings.root).args(["rev-parse", "--short", "HEAD"]))?
            .trim()
            .to_string(),
        cores: settings.cores,
        server_version: psql(&bench.cluster_url, "SHOW server_version")?,
        duration: settings.duration,
        rounds: settings.rounds,
        window: settings.window(),
        sizes: settings.sizes.clone(),
        connections: settings.connections.clone(),
        gateway_core: settings.pin.then_some(bench.cores.gateway),
        soak: settings.soak,
    }))?;
    for &size in &settings.sizes {
        bench_size(&bench, size, recorder)?;
    }
    Ok(())
}

/// One size: its database and bodies, then every step.
fn bench_size(bench: &Bench, size: Size, recorder: &mut Recorder) -> Fallible<()> {
    let database = Database::make(bench, size)?;
    bodies::write(bench, &database)?;
    let last_size = bench.settings.sizes.last() == Some(&size);
    {
        let shared = servers::shared(bench, &database)?;
        routes::measure(bench, &database, &shared, recorder)?;
        standby::measure_feed(bench, &database, &shared.gateway, recorder)?;
        pgbench_only::measure_booking_writes(bench, &database, recorder)?;
        pgbench_only::measure_interleaved(bench, &database, recorder)?;
        shared.record_peaks(size, recorder)?;
        // (the soak runs on the gateway on a core of its own when there is one)
        if !bench.settings.pin && last_size {
            soak::measure(bench, &database, &shared.gateway, recorder)?;
        }
        // (the pinned pair's pools, 64 connections each, fit under max_connections only once
        // these two are gone)
    }
    if bench.settings.pin {
        routes::measure_pinned(bench, &database, recorder, last_size)?;
    }
    Ok(())
}

/// wrk and curl, from Debian's packages, when missing.
fn install_instruments() -> Fallible<()> {
    let present = |program: &str| {
        Command::new("sh").args(["-c", &format!("command -v {program}")]).output().is_ok_and(|o| o.status.success())
    };
    if present("wrk") && present("curl") {
        return Ok(());
    }
    eprintln!("installing: wrk curl");
    let root = output(Command::new("id").arg("-u"))?.trim() == "0";
    let apt = |arguments: &[&str]| -> Fallible<()> {
        let mut command = if root { Command::new("apt-get") } else { Command::new("sudo") };
        if !root {
            command.arg("apt-get");
        }
        output(command.args(arguments).env("DEBIAN_FRONTEND", "noninteractive"))?;
        Ok(())
    };
    apt(&["update", "-qq"])?;
    apt(&["install", "-y", "-qq", "--no-install-recommends", "wrk", "curl"])
}

/// A directory removed with everything in it when dropped.
struct RemovedOnDrop(PathBuf);

impl Drop for RemovedOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
