//! wrk (Debian's package) driving a server over loopback with the requests of
//! `bench/wrk/request.lua`, told what to send through its environment.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::rounds::Round;
use crate::shell::Fallible;

/// What wrk sends.
pub enum Load<'a> {
    /// One route's request again and again.
    Route {
        method: &'a str,
        path: &'a str,
        authorization: &'a str,
        body_file: Option<&'a Path>,
        /// GET /bookings: each request carries the `next` of the thread's last answer.
        follow_next: bool,
        /// PUT /lots/{lot}: a lot of 512 and a capacity chosen at random each time.
        changing: bool,
        /// A refusal measured: answers of any other status count as errors.
        expect: Option<u16>,
    },
    /// Every route at once (the soak): a line per request in `file`, "METHOD PATH [BODY_FILE]".
    Mix { file: &'a Path, authorization: &'a str },
}

/// A wrk run: its figures, and the mean latency (ms) the one-connection split needs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WrkRun {
    pub round: Round,
    pub mean_ms: f64,
}

pub struct Wrk {
    script: PathBuf,
}

impl Wrk {
    pub fn new(root: &Path) -> Wrk {
        Wrk { script: root.join("bench/wrk/request.lua") }
    }

    /// wrk for `seconds` at `connections` to 127.0.0.1:`port`, on `cores` when given (taskset).
    /// A wrk that fails measures nothing: its figures are zeros, which the tables show.
    pub fn run(&self, connections: u32, seconds: u32, port: u16, load: &Load, cores: Option<&str>) -> Fallible<WrkRun> {
        let mut command = match cores {
            Some(cores) => {
                let mut taskset = Command::new("taskset");
                taskset.args(["-c", cores, "wrk"]);
                taskset
            }
            None => Command::new("wrk"),
        };
        let threads = if connections < 2 { 1 } else { 2 };
        command
            .arg(format!("-t{threads}"))
            .arg(format!("-c{connections}"))
            .arg(format!("-d{seconds}s"))
            .arg("--latency")
            .arg("-s")
            .arg(&self.script)
            .arg(format!("http://127.0.0.1:{port}"));
        match load {
            Load::Route { method, path, authorization, body_file, follow_next, changing, expect } => {
                command
                    .env("BENCH_METHOD", method)
                    .env("BENCH_PATH", path)
                    .env("BENCH_AUTHORIZATION", authorization)
                    .env("BENCH_BODY_FILE", body_file.map(Path::as_os_str).unwrap_or_default())
                    .env("BENCH_FOLLOW", if *follow_next { "next" } else { "" })
                    .env("BENCH_CHANGING", if *changing { "capacity" } else { "" })
                    .env("BENCH_EXPECT", expect.map(|s| s.to_string()).unwrap_or_default());
            }
            Load::Mix { file, authorization } => {
                command.env("BENCH_MIX", file).env("BENCH_AUTHORIZATION", authorization);
            }
        }
        let done = command.output()?;
        Ok(parse(&String::from_utf8_lossy(&done.stdout)))
    }
}

/// wrk's report read: requests a second, p50 and p99 of its latency distribution, the errors
/// (socket errors, and non-2xx answers or, where the script counts them, unexpected statuses),
/// the requests and the mean latency.
pub fn parse(report: &str) -> WrkRun {
    let mut run = WrkRun::default();
    let (mut non_2xx, mut unexpected) = (0, None);
    for line in report.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            // (not "Latency Distribution", the heading of the percentiles)
            ["Latency", mean, ..] => run.mean_ms = milliseconds(mean).unwrap_or(run.mean_ms),
            ["50%", value] => run.round.p50 = milliseconds(value).unwrap_or_default(),
            ["99%", value] => run.round.p99 = milliseconds(value).unwrap_or_default(),
            ["Requests/sec:", rate] => run.round.rate = rate.parse().unwrap_or_default(),
            [requests, "requests", "in", ..] => run.round.count = requests.parse().unwrap_or_default(),
            ["Non-2xx", "or", "3xx", "responses:", count] => non_2xx = count.parse().unwrap_or_default(),
            ["Unexpected", "status:", count] => unexpected = count.parse().ok(),
            ["Socket", "errors:", rest @ ..] => {
                run.round.errors += rest.iter().filter_map(|f| f.trim_end_matches(',').parse::<u64>().ok()).sum::<u64>()
            }
            _ => {}
        }
    }
    run.round.errors += unexpected.unwrap_or(non_2xx);
    run
}

/// "312.45us", "1.20ms", "2.00s" in ms.
fn milliseconds(value: &str) -> Option<f64> {
    let (number, scale) = if let Some(n) = value.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = value.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = value.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (value, 1.0)
    };
    number.parse::<f64>().ok().map(|n| n * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "Running 2s test @ http://127.0.0.1:18080
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   312.45us  100.20us   2.00ms   90.12%
    Req/Sec     2.50k   100.00     2.70k    70.00%
  Latency Distribution
     50%  300.00us
     75%  350.00us
     90%  400.00us
     99%    1.20ms
  10000 requests in 2.00s, 1.23MB read
  Socket errors: connect 0, read 1, write 0, timeout 2
  Non-2xx or 3xx responses: 4
Requests/sec:   5000.50
Transfer/sec:      0.61MB
";

    #[test]
    fn a_report_is_read_with_its_errors() {
        let run = parse(REPORT);
        assert_eq!(run.round, Round { rate: 5000.5, p50: 0.3, p99: 1.2, errors: 7, aborted: false, count: 10000 });
        assert!((run.mean_ms - 0.31245).abs() < 1e-9);
    }

    #[test]
    fn a_script_counting_unexpected_statuses_replaces_wrks_count_of_non_2xx() {
        let run = parse(&format!("{REPORT}Unexpected status: 0\n"));
        assert_eq!(run.round.errors, 3);
    }

    #[test]
    fn a_failed_wrk_measures_nothing() {
        assert_eq!(parse("unable to connect to 127.0.0.1:18080 Connection refused\n"), WrkRun::default());
        assert_eq!(milliseconds("2.5s"), Some(2500.0));
    }
}
