//! pgbench making SQL calls, measured warm: it runs one second longer than the window, and only
//! the transactions that ended in the last `window` seconds count (from its per-transaction log),
//! so the new sessions' first calls (parsing, planning, the caches) are left out.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::rounds::{percentile, Round};
use crate::shell::Fallible;

/// A pgbench run: its figures, and each script's latencies (ms) where several were interleaved.
pub struct PgbenchRun {
    pub round: Round,
    pub latencies_by_script: Vec<Vec<f64>>,
}

pub struct Pgbench {
    program: PathBuf,
    /// Where its per-transaction logs are written.
    work: PathBuf,
}

impl Pgbench {
    pub fn new(pg_bin: &Path, work: &Path) -> Pgbench {
        Pgbench { program: pg_bin.join("pgbench"), work: work.to_path_buf() }
    }

    /// pgbench at `connections` on `url` (`-M prepared`), the `scripts` with the `variables`
    /// (`-D name=value`), `window` seconds counted; on `cores` when given (taskset).
    pub fn run(
        &self,
        connections: u32,
        window: u32,
        url: &str,
        scripts: &[PathBuf],
        variables: &[(String, String)],
        cores: Option<&str>,
    ) -> Fallible<PgbenchRun> {
        for entry in std::fs::read_dir(&self.work)? {
            let path = entry?.path();
            if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("pgb.")) {
                std::fs::remove_file(path)?;
            }
        }
        let mut command = match cores {
            Some(cores) => {
                let mut taskset = Command::new("taskset");
                taskset.args(["-c", cores]).arg(&self.program);
                taskset
            }
            None => Command::new(&self.program),
        };
        let threads = if connections < 2 { 1 } else { 2 };
        command
            .args(["-n", "-M", "prepared", "-l"])
            .arg(format!("-c{connections}"))
            .arg(format!("-j{threads}"))
            .arg(format!("-T{}", window + 1))
            .arg(format!("--log-prefix={}", self.work.join("pgb").display()));
        for script in scripts {
            command.arg("-f").arg(script);
        }
        for (name, value) in variables {
            command.arg("-D").arg(format!("{name}={value}"));
        }
        let done = command.arg(url).output()?;
        let report = format!("{}{}", String::from_utf8_lossy(&done.stdout), String::from_utf8_lossy(&done.stderr));
        let mut log = String::new();
        for entry in std::fs::read_dir(&self.work)? {
            let path = entry?.path();
            if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("pgb.")) {
                log.push_str(&std::fs::read_to_string(path)?);
            }
        }
        Ok(read(&report, &log, window))
    }
}

/// A run read from its report (failed transactions, an abort) and its per-transaction log, whose
/// lines are "client transaction latency_µs script end_s end_µs".
pub fn read(report: &str, log: &str, window: u32) -> PgbenchRun {
    let transactions: Vec<(u64, f64, usize)> = log
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let ended = f.get(4)?.parse::<u64>().ok()? * 1_000_000 + f.get(5)?.parse::<u64>().ok()?;
            Some((ended, f.get(2)?.parse::<f64>().ok()? / 1000.0, f.get(3)?.parse().ok()?))
        })
        .collect();
    let last = transactions.iter().map(|t| t.0).max().unwrap_or(0);
    let from = last.saturating_sub(u64::from(window) * 1_000_000);
    let counted: Vec<&(u64, f64, usize)> = transactions.iter().filter(|t| t.0 > from).collect();
    let mut latencies: Vec<f64> = counted.iter().map(|t| t.1).collect();
    let mut latencies_by_script = Vec::new();
    for &&(_, latency, script) in &counted {
        if latencies_by_script.len() <= script {
            latencies_by_script.resize(script + 1, Vec::new());
        }
        latencies_by_script[script].push(latency);
    }
    let failed = report
        .lines()
        .find_map(|line| line.strip_prefix("number of failed transactions: "))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    PgbenchRun {
        round: Round {
            rate: counted.len() as f64 / f64::from(window.max(1)),
            p50: percentile(&mut latencies.clone(), 50),
            p99: percentile(&mut latencies, 99),
            errors: failed,
            aborted: report.contains("aborted") || report.contains("error"),
            count: counted.len() as u64,
        },
        latencies_by_script,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_window_counts() {
        // ended at 10.0 s, 10.5 s, 11.2 s, 12.0 s; a window of 2 s counts those after 10.0 s
        let log = "0 0 900 0 10 0\n0 1 1000 1 10 500000\n0 2 2000 0 11 200000\n0 3 3000 1 12 0\n";
        let run = read("number of failed transactions: 0 (0.000%)\n", log, 2);
        assert_eq!(run.round, Round { rate: 1.5, p50: 2.0, p99: 3.0, errors: 0, aborted: false, count: 3 });
        assert_eq!(run.latencies_by_script, vec![vec![2.0], vec![1.0, 3.0]]);
    }

    #[test]
    fn failures_and_aborts_are_read_from_the_report() {
        let run = read("number of failed transactions: 4 (1.0%)\npgbench: error: client 0 aborted\n", "", 2);
        assert_eq!((run.round.errors, run.round.aborted, run.round.count), (4, true, 0));
    }
}
