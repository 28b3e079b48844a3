//! What a step measured: a latency histogram and the answers' statuses per route (from each
//! request's scheduled time, so a slow server cannot hide its queue), the hints' delivery delays,
//! the time from a booking's record to its operator's feed, and the CPU and memory of the gateway
//! and PostgreSQL; then whether the step holds the model's bounds.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use hdrhistogram::Histogram;

use crate::model;

#[derive(Default)]
pub struct Recorder {
    routes: Mutex<BTreeMap<&'static str, Route>>,
    hints: Mutex<Option<Histogram<u64>>>,
    booking_to_feed: Mutex<Option<Histogram<u64>>>,
}

pub struct Route {
    latency: Histogram<u64>,
    statuses: BTreeMap<u16, u64>,
}

fn histogram() -> Histogram<u64> {
    // microseconds, 1 µs to 10 min, three significant digits
    Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds")
}

fn record(histogram: &mut Option<Histogram<u64>>, value: Duration) {
    let histogram = histogram.get_or_insert_with(self::histogram);
    histogram.saturating_record(value.as_micros().max(1) as u64);
}

impl Recorder {
    pub fn request(&self, route: &'static str, status: u16, latency: Duration) {
        let mut routes = self.routes.lock().unwrap();
        let route = routes.entry(route).or_insert_with(|| Route { latency: histogram(), statuses: BTreeMap::new() });
        route.latency.saturating_record(latency.as_micros().max(1) as u64);
        *route.statuses.entry(status).or_default() += 1;
    }

    pub fn hint(&self, delay: Duration) {
        record(&mut self.hints.lock().unwrap(), delay);
    }

    pub fn booking_in_feed(&self, delay: Duration) {
        record(&mut self.booking_to_feed.lock().unwrap(), delay);
    }

    /// Forgets everything so far (the end of the warm-up).
    pub fn reset(&self) {
        self.routes.lock().unwrap().clear();
        *self.hints.lock().unwrap() = None;
        *self.booking_to_feed.lock().unwrap() = None;
    }
}

/// CPU time (clock ticks) and memory of a process and, with `children`, of every process whose
/// parent it is (PostgreSQL's backends under the postmaster). Memory is the proportional set size:
/// shared memory (PostgreSQL's shared buffers) counted once across the processes sharing it, not
/// once in each.
#[derive(Clone, Copy, Default)]
pub struct Usage {
    pub ticks: u64,
    pub rss_kib: u64,
}

pub fn usage(pid: u32, children: bool) -> Usage {
    let mut total = own_usage(pid).unwrap_or_default();
    if children {
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(child) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            if parent_of(child) == Some(pid) {
                let usage = own_usage(child).unwrap_or_default();
                total.ticks += usage.ticks;
                total.rss_kib += usage.rss_kib;
            }
        }
    }
    total
}

/// The clock ticks every core of the machine has spent busy so far (/proc/stat: all but idle and
/// I/O wait), whatever ran.
pub fn machine_busy_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let Some(cpu) = stat.lines().next().and_then(|line| line.strip_prefix("cpu ")) else { return 0 };
    let ticks: Vec<u64> = cpu.split_whitespace().map(|t| t.parse().unwrap_or(0)).collect();
    // user nice system idle iowait irq softirq steal
    ticks.iter().take(8).enumerate().filter(|(i, _)| *i != 3 && *i != 4).map(|(_, t)| t).sum()
}

/// [`usage`] of several servers, each with its backends, added up.
pub fn servers_usage(postmasters: &[u32]) -> Usage {
    postmasters.iter().map(|pid| usage(*pid, true)).fold(Usage::default(), |total, one| Usage {
        ticks: total.ticks + one.ticks,
        rss_kib: total.rss_kib + one.rss_kib,
    })
}

fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // (the command sits in parentheses and may hold spaces: the fields follow its closing one)
    let after = &stat[stat.rfind(')')? + 2..];
    Some(after.split_whitespace().map(str::to_string).collect())
}

fn parent_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

fn own_usage(pid: u32) -> Option<Usage> {
    let fields = stat_fields(pid)?;
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command); rss is 24 (21), in pages
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    let pss =
        rollup.lines().find_map(|line| line.strip_prefix("Pss:")?.trim().strip_suffix(" kB")?.trim().parse().ok());
    let rss_kib = pss.unwrap_or_else(|| fields.get(21).and_then(|rss| rss.parse::<u64>().ok()).unwrap_or(0) * 4);
    Some(Usage { ticks, rss_kib })
}

/// Cores of other processes over a step from which a step over a bound is flagged as noisy.
const BUSY_ELSEWHERE_CORES: f64 = 0.1;

/// A step's outcome.
pub struct Step {
    pub operators: u32,
    pub seconds: f64,
    pub lines: Vec<String>,
    pub faults: Vec<String>,
    pub requests_per_second: f64,
}

pub struct Measured {
    pub gateway_cpu: f64,
    pub postgres_cpu: f64,
    pub own_cpu: f64,
    /// The machine's busy cores less the three above: whatever else ran during the step.
    pub other_cpu: f64,
    pub gateway_rss_mib: f64,
    pub postgres_rss_mib: f64,
    pub hints_missing: usize,
    pub bookings_missing: usize,
    pub bookings_recorded: u64,
    pub booking_write: Option<(u64, u64)>,
}

impl Recorder {
    pub fn step(&self, operators: u32, elapsed: Duration, measured: &Measured) -> Step {
        let seconds = elapsed.as_secs_f64();
        let mut lines = vec![
            "| route | requests | per second | p50 ms | p99 ms | max ms | 2xx | 4xx | 429 | 5xx | no answer |"
                .to_string(),
            "|---|---|---|---|---|---|---|---|---|---|---|".to_string(),
        ];
        let mut faults = Vec::new();
        let mut total = 0;
        let ms = |us: u64| us as f64 / 1000.0;
        for (name, route) in self.routes.lock().unwrap().iter() {
            let count = route.latency.len();
            total += count;
            let class = |low: u16, high: u16| -> u64 {
                route.statuses.iter().filter(|(s, _)| (low..high).contains(*s)).map(|(_, n)| n).sum()
            };
            let (ok, client, limited, server, none) =
                (class(200, 300), class(400, 500), class(429, 430), class(500, 600), class(0, 1));
            let p99 = route.latency.value_at_quantile(0.99);
            lines.push(format!(
                "| {name} | {count} | {:.1} | {:.1} | {:.1} | {:.1} | {ok} | {client} | {limited} | {server} | {none} |",
                count as f64 / seconds,
                ms(route.latency.value_at_quantile(0.5)),
                ms(p99),
                ms(route.latency.max())
            ));
            let bound = if name.contains("bookings") { model::FEED_P99_MS } else { model::ROUTE_P99_MS };
            if p99 > bound * 1000 {
                faults.push(format!("{name}: p99 {:.1} ms over {bound} ms", ms(p99)));
            }
            if server + none > 0 {
                faults.push(format!("{name}: {server} 5xx, {none} without an answer"));
            }
            if limited > 0 {
                faults.push(format!("{name}: {limited} answered 429, which the model's rates never earn"));
            }
            if client > limited {
                faults.push(format!("{name}: {} answered 4xx other than 429", client - limited));
            }
        }
        let quantiles = |h: &Option<Histogram<u64>>| {
            h.as_ref().map_or("none".to_string(), |h| {
                format!(
                    "{} (p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms)",
                    h.len(),
                    ms(h.value_at_quantile(0.5)),
                    ms(h.value_at_quantile(0.99)),
                    ms(h.max())
                )
            })
        };
        let hints = self.hints.lock().unwrap();
        let feed = self.booking_to_feed.lock().unwrap();
        let over = |name: &str, histogram: &Option<Histogram<u64>>, bound_ms: u64| {
            let p99 = histogram.as_ref()?.value_at_quantile(0.99);
            (p99 > bound_ms * 1000).then(|| format!("{name}: p99 {:.0} ms over {bound_ms} ms", ms(p99)))
        };
        faults.extend(over("hints", &hints, model::HINT_P99_MS));
        faults.extend(over("booking to feed", &feed, model::BOOKING_TO_FEED_P99_MS));
        if measured.hints_missing > 0 {
            faults.push(format!("{} bookings of armed operators never hinted", measured.hints_missing));
        }
        if measured.bookings_missing > 0 {
            faults.push(format!("{} bookings never reached their operator's feed", measured.bookings_missing));
        }
        lines.push(String::new());
        lines.push(format!(
            "- bookings recorded by the platform: {}{}",
            measured.bookings_recorded,
            measured.booking_write.map_or(String::new(), |(p50, p99)| format!(
                " (booking_record p50 {:.1} ms, p99 {:.1} ms)",
                ms(p50),
                ms(p99)
            ))
        ));
        lines.push(format!("- hints received: {}", quantiles(&hints)));
        lines.push(format!("- a booking recorded, seen in its operator's feed: {}", quantiles(&feed)));
        lines.push(format!(
            "- CPU (cores busy): gateway {:.2}, PostgreSQL {:.2}, this load program {:.2}, anything else on the machine {:.2}; memory (PSS, peak of 5 s samples): gateway {:.0} MiB, PostgreSQL {:.0} MiB",
            measured.gateway_cpu, measured.postgres_cpu, measured.own_cpu, measured.other_cpu, measured.gateway_rss_mib, measured.postgres_rss_mib
        ));
        // The cost that travels between machines: what the same step's figure would be on another
        // (the operator count a machine carries depends on that machine).
        let requests_per_second = total as f64 / seconds;
        lines.extend((total > 0).then(|| format!(
            "- per 1 000 operators: PostgreSQL {:.3} cores, gateway {:.3} cores; per request to the gateway: PostgreSQL {:.3} ms of CPU, gateway {:.3} ms",
            measured.postgres_cpu * 1000.0 / f64::from(operators),
            measured.gateway_cpu * 1000.0 / f64::from(operators),
            measured.postgres_cpu * 1000.0 / requests_per_second,
            measured.gateway_cpu * 1000.0 / requests_per_second
        )));
        // A step over a bound on a machine busy with something else says so: a noisy run is not
        // this service's limit.
        if !faults.is_empty() && measured.other_cpu >= BUSY_ELSEWHERE_CORES {
            faults.push(format!(
                "the machine was busy with other processes meanwhile ({:.2} cores): this step may not be the limit",
                measured.other_cpu
            ));
        }
        Step { operators, seconds, lines, faults, requests_per_second }
    }

    pub fn booking_write_quantiles(&self) -> Option<(u64, u64)> {
        let routes = self.routes.lock().unwrap();
        routes
            .get("platform.booking_record")
            .map(|r| (r.latency.value_at_quantile(0.5), r.latency.value_at_quantile(0.99)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_has_spent_busy_ticks() {
        assert!(machine_busy_ticks() > 0);
    }
}
