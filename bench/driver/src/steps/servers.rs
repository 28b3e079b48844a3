//! The servers measured: the release gateway (rate limits lifted, no webhook worker) and the
//! pass-through floor (bench/passthrough: the route's same call over a pool of the same size and
//! the same session settings that matter to a plan, nothing else).

use std::process::Command;
use std::time::Duration;

use super::database::Database;
use super::Bench;
use crate::measurements::{Measurement, Process, Recorder};
use crate::process::{memory_kib, Server};
use crate::settings::Size;
use crate::shell::{output, Fallible};

/// Where a gateway runs and what it reads from.
pub struct GatewayPlacement<'a> {
    pub port: u16,
    /// Its admin listener (/metrics), if any.
    pub admin_port: Option<u16>,
    /// The feed read from a standby (DATABASE_READ_URL).
    pub read_url: Option<&'a str>,
    /// A core of its own (taskset) with the default CPU scheduling; otherwise
    /// CPU_SCHEDULING=batch: it shares the cores with PostgreSQL and wrk, and under SCHED_BATCH a
    /// gateway thread woken by a backend's answer does not preempt a running backend mid-call
    /// (bench/FINDINGS.md, "CPU_SCHEDULING=batch where the database shares the cores").
    pub core: Option<u32>,
    pub log: &'static str,
}

pub fn gateway(bench: &Bench, database: &Database, placement: GatewayPlacement) -> Fallible<Server> {
    let mut command = on_core(placement.core, &bench.ingest);
    command
        .arg("serve")
        .env("DATABASE_URL", &database.gateway_url)
        .env("LISTEN_ADDR", format!("127.0.0.1:{}", placement.port))
        .env("RATE_LIMITS", "off")
        .env("DATABASE_POOL_SIZE", "64")
        .env("WEBHOOK_WORKER", "off")
        .env("ADMIN_LISTEN_ADDR", placement.admin_port.map(|p| format!("127.0.0.1:{p}")).unwrap_or_default())
        .env("LOG_LEVEL", "warn");
    if placement.core.is_none() {
        command.env("CPU_SCHEDULING", "batch");
    }
    if let Some(read_url) = placement.read_url {
        command.env("DATABASE_READ_URL", read_url).env("DATABASE_READ_POOL_SIZE", "64");
    }
    Server::start(command, &bench.work.join(placement.log), placement.port)
}

/// The pass-through on `port`: on `core` alone, or under the batch scheduling the shared
/// gateway has.
pub fn bare(bench: &Bench, database: &Database, port: u16, core: Option<u32>, log: &str) -> Fallible<Server> {
    let mut command = match core {
        Some(_) => on_core(core, &bench.passthrough),
        None => {
            let mut chrt = Command::new("chrt");
            chrt.args(["--batch", "0"]).arg(&bench.passthrough);
            chrt
        }
    };
    command
        .env("DATABASE_URL", format!("{}?options=-c%20plan_cache_mode%3Dforce_generic_plan", database.gateway_url))
        .env("LISTEN_ADDR", format!("127.0.0.1:{port}"))
        .env("POOL_SIZE", "64");
    Server::start(command, &bench.work.join(log), port)
}

fn on_core(core: Option<u32>, program: &std::path::Path) -> Command {
    match core {
        Some(core) => {
            let mut taskset = Command::new("taskset");
            taskset.arg("-c").arg(core.to_string()).arg(program);
            taskset
        }
        None => Command::new(program),
    }
}

/// Waits (at most 5 s each) until the servers answer a ping with the bearer; an error naming the
/// port of one that does not (a measurement against it would be of nothing).
pub fn serving(database: &Database, servers: &[&Server]) -> Fallible<()> {
    for server in servers {
        let ping = || {
            output(Command::new("curl").args([
                "-fs",
                "-o",
                "/dev/null",
                "-H",
                &format!("Authorization: {}", database.authorization),
                &format!("http://127.0.0.1:{}/v1/ping", server.port),
            ]))
            .is_ok()
        };
        let mut tries = 0;
        while !ping() {
            tries += 1;
            if tries == 50 {
                return Err(format!("the server on port {} does not answer", server.port).into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Ok(())
}

/// The gateway and the pass-through sharing the cores with PostgreSQL and the load.
pub struct Shared {
    pub gateway: Server,
    pub bare: Server,
}

pub fn shared(bench: &Bench, database: &Database) -> Fallible<Shared> {
    let ports = &bench.settings.ports;
    let shared = Shared {
        gateway: gateway(
            bench,
            database,
            GatewayPlacement {
                port: ports.gateway,
                admin_port: Some(ports.admin),
                read_url: None,
                core: None,
                log: "gateway.log",
            },
        )?,
        bare: bare(bench, database, ports.bare, None, "bare.log")?,
    };
    serving(database, &[&shared.gateway, &shared.bare])?;
    Ok(shared)
}

impl Shared {
    /// Both servers' peak resident memory over the size.
    pub fn record_peaks(&self, size: Size, recorder: &mut Recorder) -> Fallible<()> {
        for (process, server) in [(Process::Gateway, &self.gateway), (Process::Bare, &self.bare)] {
            let mib = memory_kib(server.pid(), "VmHWM")? as f64 / 1024.0;
            recorder.record(Measurement::PeakMemory { size, process, mib })?;
        }
        Ok(())
    }
}
