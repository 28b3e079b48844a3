//! What a run measured, one JSON line per measurement, appended as it is taken (a run stopped
//! half-way keeps what it measured). RESULTS.md and the targets are made from these alone.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::rounds::Round;
use crate::scenarios::Scenario;
use crate::settings::Size;
use crate::shell::Fallible;

/// How the run was made: its first line.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RunInfo {
    /// UTC, YYYY-MM-DD.
    pub date: String,
    /// The commit measured, short.
    pub commit: String,
    pub cores: usize,
    pub server_version: String,
    pub duration: u32,
    pub rounds: u32,
    pub window: u32,
    pub sizes: Vec<Size>,
    pub connections: Vec<u32>,
    /// The core the gateway had to itself, when the run measured it so.
    pub gateway_core: Option<u32>,
    /// Seconds of the soak (0: none).
    pub soak: u32,
}

/// Who answered a measured side.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The gateway, through wrk, sharing the cores with PostgreSQL.
    Gateway,
    /// The pass-through floor (bench/passthrough), the same requests.
    Bare,
    /// The gateway's own SQL call, as its role.
    Pgbench,
    /// The plainest SQL for the same rows.
    Floor,
    /// The gateway, then the pass-through, on a core of their own.
    PinnedGateway,
    PinnedBare,
    /// The feed read from the primary, and through a second gateway from a standby.
    FeedPrimary,
    FeedStandby,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Process {
    Gateway,
    Bare,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Measurement {
    Run(RunInfo),
    /// A side's rounds on a scenario, combined; the server's CPU time per request where it is a
    /// server the run started.
    Side {
        size: Size,
        scenario: Scenario,
        connections: u32,
        side: Side,
        measured: Round,
        cpu_us_per_request: Option<f64>,
    },
    /// The WAL the gateway's statements wrote (pg_stat_statements), per request.
    Wal {
        size: Size,
        scenario: Scenario,
        connections: u32,
        bytes_per_request: u64,
    },
    /// One connection's same requests seen from three clocks (means, ms): wrk's, the gateway's
    /// request and its database call.
    Clocks {
        size: Size,
        scenario: Scenario,
        body_kib: f64,
        wrk_ms: f64,
        request_ms: f64,
        call_ms: f64,
    },
    /// The standby gateway's counters over a feed route's rounds.
    StandbyReads {
        size: Size,
        scenario: Scenario,
        connections: u32,
        reads: u64,
        fallbacks: u64,
    },
    /// The standby's lag over a size's feed runs: the highest age of the last publication it held,
    /// and the most WAL it had yet to replay.
    StandbyLag {
        size: Size,
        max_age_s: f64,
        max_wal_bytes: u64,
    },
    /// An unchanged lot PUT and a GET of the lot, interleaved in one pgbench run (p50, ms).
    Interleaved {
        size: Size,
        put_p50_ms: f64,
        get_p50_ms: f64,
    },
    /// A server's peak resident memory over a size.
    PeakMemory {
        size: Size,
        process: Process,
        mib: f64,
    },
    /// Every route at once at 64 connections: the gateway's resident memory, the median of the
    /// samples of the minute from `baseline_s` (the soak's second) and of its last minute, and the
    /// highest sample. A record without `minute_medians` holds single samples instead: the first
    /// after `baseline_s` and the last.
    Soak {
        size: Size,
        seconds: u32,
        requests: u64,
        rate: f64,
        errors: u64,
        baseline_s: u32,
        baseline_mib: f64,
        last_mib: f64,
        peak_mib: f64,
        #[serde(default)]
        minute_medians: bool,
        /// Each whole minute's median (MiB), so a reader sees whether the growth stopped; empty in
        /// a line taken before the soak kept them.
        #[serde(default)]
        each_minute_mib: Vec<f64>,
    },
}

impl Measurement {
    /// A side's combined rounds at (size, scenario, connections), with its CPU per request.
    pub fn side(
        (size, scenario, connections): (Size, Scenario, u32),
        side: Side,
        (measured, cpu_us_per_request): (Round, Option<f64>),
    ) -> Measurement {
        Measurement::Side { size, scenario, connections, side, measured, cpu_us_per_request }
    }
}

/// Measurements appended to a file as they are taken, and kept.
pub struct Recorder {
    file: File,
}

impl Recorder {
    /// A new file at `path`.
    pub fn create(path: &Path) -> Fallible<Recorder> {
        Ok(Recorder { file: File::create(path)? })
    }

    pub fn record(&mut self, measurement: Measurement) -> Fallible<()> {
        writeln!(self.file, "{}", serde_json::to_string(&measurement)?)?;
        self.file.flush()?;
        Ok(())
    }
}

/// A run's measurements, to read from.
pub struct Measurements {
    pub run: RunInfo,
    pub all: Vec<Measurement>,
}

impl Measurements {
    pub fn new(all: Vec<Measurement>) -> Fallible<Measurements> {
        let run = all
            .iter()
            .find_map(|m| match m {
                Measurement::Run(run) => Some(run.clone()),
                _ => None,
            })
            .ok_or("the measurements have no run line")?;
        Ok(Measurements { run, all })
    }

    pub fn load(path: &Path) -> Fallible<Measurements> {
        let mut all = Vec::new();
        for (n, line) in BufReader::new(File::open(path)?).lines().enumerate() {
            let line = line?;
            let measurement =
                serde_json::from_str(&line).map_err(|e| format!("{}, line {}: {e}", path.display(), n + 1))?;
            all.push(measurement);
        }
        Measurements::new(all)
    }

    /// A side's combined rounds, and its CPU per request.
    pub fn side(&self, size: Size, scenario: Scenario, connections: u32, side: Side) -> Option<(Round, Option<f64>)> {
        self.all.iter().find_map(|m| match *m {
            Measurement::Side { size: s, scenario: r, connections: c, side: d, measured, cpu_us_per_request }
                if (s, r, c, d) == (size, scenario, connections, side) =>
            {
                Some((measured, cpu_us_per_request))
            }
            _ => None,
        })
    }

    pub fn wal(&self, size: Size, scenario: Scenario, connections: u32) -> Option<u64> {
        self.all.iter().find_map(|m| match *m {
            Measurement::Wal { size: s, scenario: r, connections: c, bytes_per_request }
                if (s, r, c) == (size, scenario, connections) =>
            {
                Some(bytes_per_request)
            }
            _ => None,
        })
    }

    /// The clocks of a scenario at one connection: (body KiB, wrk, request, call) in ms.
    pub fn clocks(&self, size: Size, scenario: Scenario) -> Option<(f64, f64, f64, f64)> {
        self.all.iter().find_map(|m| match *m {
            Measurement::Clocks { size: s, scenario: r, body_kib, wrk_ms, request_ms, call_ms }
                if (s, r) == (size, scenario) =>
            {
                Some((body_kib, wrk_ms, request_ms, call_ms))
            }
            _ => None,
        })
    }

    pub fn standby_reads(&self, size: Size, scenario: Scenario) -> Option<(u64, u64)> {
        self.all.iter().find_map(|m| match *m {
            Measurement::StandbyReads { size: s, scenario: r, reads, fallbacks, .. } if (s, r) == (size, scenario) => {
                Some((reads, fallbacks))
            }
            _ => None,
        })
    }

    pub fn standby_lag(&self, size: Size) -> Option<(f64, u64)> {
        self.all.iter().find_map(|m| match *m {
            Measurement::StandbyLag { size: s, max_age_s, max_wal_bytes } if s == size => {
                Some((max_age_s, max_wal_bytes))
            }
            _ => None,
        })
    }

    pub fn interleaved(&self, size: Size) -> Option<(f64, f64)> {
        self.all.iter().find_map(|m| match *m {
            Measurement::Interleaved { size: s, put_p50_ms, get_p50_ms } if s == size => Some((put_p50_ms, get_p50_ms)),
            _ => None,
        })
    }

    pub fn peak_memory(&self, size: Size, process: Process) -> Option<f64> {
        self.all.iter().find_map(|m| match *m {
            Measurement::PeakMemory { size: s, process: p, mib } if (s, p) == (size, process) => Some(mib),
            _ => None,
        })
    }

    pub fn soak(&self) -> Option<&Measurement> {
        self.all.iter().find(|m| matches!(m, Measurement::Soak { .. }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measurement_is_one_json_line_read_back_as_it_was() {
        let side = Measurement::Side {
            size: Size::Small,
            scenario: Scenario::RefusedNulLast,
            connections: 16,
            side: Side::PinnedBare,
            measured: Round { rate: 10.5, p50: 1.0, p99: 2.0, errors: 0, aborted: false, count: 21 },
            cpu_us_per_request: Some(3.5),
        };
        let line = serde_json::to_string(&side).unwrap();
        assert!(line.starts_with(
            r#"{"kind":"side","size":"small","scenario":"refused_nul_last","connections":16,"side":"pinned_bare""#
        ));
        assert!(!line.contains('\n'));
        assert_eq!(serde_json::from_str::<Measurement>(&line).unwrap(), side);
    }
}
