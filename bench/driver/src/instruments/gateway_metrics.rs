//! The gateway's own figures, from its admin listener's /metrics (Prometheus text): its clocks,
//! summed over every request so far, and its counters.

use std::process::Command;

use crate::shell::output;

/// The text of /metrics on 127.0.0.1:`port`; empty when it cannot be read (the figures read from
/// it are then missing, and the run goes on).
pub fn scrape(port: u16) -> String {
    output(Command::new("curl").args(["-fs", &format!("http://127.0.0.1:{port}/metrics")])).unwrap_or_default()
}

/// The sum of every series of metric `name` (a histogram's `_sum` or `_count`, a counter).
pub fn sum(metrics: &str, name: &str) -> Option<f64> {
    let mut found = None;
    for line in metrics.lines() {
        let Some(rest) = line.strip_prefix(name) else { continue };
        if rest.starts_with('{') || rest.starts_with(' ') {
            let value: f64 = rest.rsplit(' ').next()?.parse().ok()?;
            found = Some(found.unwrap_or(0.0) + value);
        }
    }
    found
}

/// The gateway's clocks so far: the seconds from a request's arrival to its answer, and of its
/// database call (the wait for a connection included), with their counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clocks {
    pub request_s: f64,
    pub requests: f64,
    pub call_s: f64,
    pub calls: f64,
}

impl Clocks {
    pub fn read(metrics: &str) -> Option<Clocks> {
        Some(Clocks {
            request_s: sum(metrics, "ingest_http_request_duration_seconds_sum")?,
            requests: sum(metrics, "ingest_http_request_duration_seconds_count")?,
            call_s: sum(metrics, "ingest_db_call_duration_seconds_sum")?,
            calls: sum(metrics, "ingest_db_call_duration_seconds_count")?,
        })
    }

    /// The mean request and the mean database call (ms) between `before` and `self`.
    pub fn means_since(&self, before: &Clocks) -> Option<(f64, f64)> {
        let (requests, calls) = (self.requests - before.requests, self.calls - before.calls);
        if requests <= 0.0 || calls <= 0.0 {
            return None;
        }
        Some(((self.request_s - before.request_s) / requests * 1000.0, (self.call_s - before.call_s) / calls * 1000.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const METRICS: &str = "# TYPE ingest_http_request_duration_seconds histogram
ingest_http_request_duration_seconds_sum{route=\"a\"} 1.5
ingest_http_request_duration_seconds_sum{route=\"b\"} 0.5
ingest_http_request_duration_seconds_count{route=\"a\"} 1000
ingest_http_request_duration_seconds_count{route=\"b\"} 1000
ingest_db_call_duration_seconds_sum 1.0
ingest_db_call_duration_seconds_count 2000
ingest_db_call_duration_seconds_counter_lookalike 7
";

    #[test]
    fn the_clocks_sum_every_series_of_a_metric() {
        let after = Clocks::read(METRICS).unwrap();
        assert_eq!(after, Clocks { request_s: 2.0, requests: 2000.0, call_s: 1.0, calls: 2000.0 });
        let before = Clocks { request_s: 1.0, requests: 1000.0, call_s: 0.5, calls: 1000.0 };
        assert_eq!(after.means_since(&before), Some((1.0, 0.5)));
        assert_eq!(after.means_since(&after), None);
        assert_eq!(sum(METRICS, "ingest_missing_total"), None);
        assert_eq!(Clocks::read(""), None);
    }
}
