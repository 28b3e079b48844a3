//! `make bench-capacity`'s load program: how many operators one machine serves, each behaving as
//! the load model says ([`model`]), through the real gateway with the contract's rate limits on.
//! bench/capacity/run.sh drives it; its steps:
//!
//!   bench-capacity model                    the model's intervals, as one line
//!   bench-capacity tls DIR                  a test authority and the receiver's certificate
//!   bench-capacity seed URL FILE            credentials and endpoints of the seeded operators
//!   bench-capacity run [--name value …]     one step: N operators, a warm-up, a measured window
//!
//! `run` takes `--api` (the gateway's base URL), `--platform` (a connection string for the
//! platform's login), `--operators-file`, `--operators` (N), `--warmup` and `--measure` (seconds),
//! `--tls-dir`, `--edge-secret`, `--receiver` (address:port), `--gateway-pid`, `--postgres-pids`
//! (each server's postmaster, comma-separated: the primary's, and a standby's serving the feed).
//! It prints the step's table and verdict as markdown and exits 0 when the step held every bound,
//! 3 when it did not.

mod client;
mod model;
mod receiver;
mod report;
mod seed;

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::Method;
use tokio::sync::{mpsc, Semaphore};
use tokio::time::{sleep_until, Instant};

use client::Api;
use report::Recorder;

/// Requests under way at once, at most (the gateway's `MAX_CONNECTIONS` is 1 024): a request past
/// it waits, and its wait counts in its latency.
const IN_FLIGHT: usize = 1000;

#[tokio::main]
async fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match arguments.first().map(String::as_str) {
        Some("model") => {
            println!("{}", model::describe());
            Ok(0)
        }
        Some("tls") if arguments.len() == 2 => {
            receiver::make_certificates(std::path::Path::new(&arguments[1])).map(|_| 0)
        }
        Some("seed") if arguments.len() == 3 => {
            seed::issue(&arguments[1], 8).await.and_then(|operators| seed::write(&arguments[2], &operators)).map(|_| 0)
        }
        Some("run") => match Settings::parse(&arguments[1..]) {
            Ok(settings) => run(settings).await,
            Err(message) => Err(message),
        },
        _ => Err("usage: bench-capacity model | tls DIR | seed URL FILE | run --name value …".to_string()),
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(message) => {
            eprintln!("bench-capacity: {message}");
            std::process::exit(1);
        }
    }
}

struct Settings {
    api: String,
    platform: String,
    operators_file: String,
    operators: u32,
    warmup: Duration,
    measure: Duration,
    tls_dir: String,
    edge_secret: String,
    receiver: std::net::SocketAddr,
    gateway_pid: u32,
    postgres_pids: Vec<u32>,
}

impl Settings {
    fn parse(arguments: &[String]) -> Result<Settings, String> {
        let pairs: HashMap<&str, &str> =
            arguments.chunks(2).filter_map(|p| Some((p.first()?.strip_prefix("--")?, p.get(1)?.as_str()))).collect();
        let get = |name: &str| pairs.get(name).map(|v| v.to_string()).ok_or(format!("--{name} is required"));
        let number = |name: &str| get(name)?.parse::<u64>().map_err(|_| format!("--{name}: a number"));
        Ok(Settings {
            api: get("api")?,
            platform: get("platform")?,
            operators_file: get("operators-file")?,
            operators: number("operators")? as u32,
            warmup: Duration::from_secs(number("warmup")?),
            measure: Duration::from_secs(number("measure")?),
            tls_dir: get("tls-dir")?,
            edge_secret: get("edge-secret")?,
            receiver: get("receiver")?.parse().map_err(|_| "--receiver: address:port".to_string())?,
            gateway_pid: number("gateway-pid")? as u32,
            postgres_pids: get("postgres-pids")?
                .split(',')
                .map(|pid| pid.parse::<u32>().map_err(|_| "--postgres-pids: process ids, comma-separated".to_string()))
                .collect::<Result<_, _>>()?,
        })
    }
}

/// One operator's system, as the load program plays it.
struct Operator {
    seeded: seed::Operator,
    source: Ipv4Addr,
    lots: u32,
    cursor: Mutex<String>,
    pulling: AtomicBool,
    pull_again: AtomicBool,
    actions: AtomicU64,
}

struct Load {
    api: Api,
    recorder: Recorder,
    operators: Vec<Operator>,
    in_flight: Semaphore,
    /// Bookings the platform recorded, not yet seen in their operator's feed: when recorded.
    awaiting_feed: Mutex<HashMap<String, Instant>>,
    /// Bookings of operators with an endpoint armed, not yet hinted: when recorded.
    awaiting_hint: Mutex<HashMap<String, Instant>>,
    bookings_recorded: AtomicU64,
    end: Instant,
}

async fn run(settings: Settings) -> Result<i32, String> {
    let seeded = seed::read(&settings.operators_file)?;
    if seeded.len() < settings.operators as usize {
        return Err(format!(
            "{} holds {} operators, fewer than {}",
            settings.operators_file,
            seeded.len(),
            settings.operators
        ));
    }
    let operators: Vec<Operator> = seeded
        .into_iter()
        .take(settings.operators as usize)
        .map(|seeded| Operator {
            source: client::source_of(seeded.i),
            lots: model::lots_of(seeded.i),
            seeded,
            cursor: Mutex::new(String::new()),
            pulling: AtomicBool::new(false),
            pull_again: AtomicBool::new(false),
            actions: AtomicU64::new(0),
        })
        .collect();
    let start = Instant::now();
    let load = Arc::new(Load {
        api: Api::new(&settings.api, &settings.edge_secret),
        recorder: Recorder::default(),
        operators,
        in_flight: Semaphore::new(IN_FLIGHT),
        awaiting_feed: Mutex::default(),
        awaiting_hint: Mutex::default(),
        bookings_recorded: AtomicU64::new(0),
        end: start + settings.warmup + settings.measure,
    });

    let (hints, mut hinted) = mpsc::unbounded_channel();
    receiver::serve(settings.receiver, std::path::Path::new(&settings.tls_dir), hints).await?;
    let on_hint = load.clone();
    tokio::spawn(async move {
        while let Some(hint) = hinted.recv().await {
            on_hint.hint(hint);
        }
    });

    for index in 0..load.operators.len() {
        for (action, interval) in [
            (Action::Pull, model::FEED_POLL),
            (Action::Rates, model::RATES_PUSH),
            (Action::LotPut, model::LOT_PUT),
            (Action::Closures, model::CLOSURES_PUSH),
            (Action::ListLots, model::LOTS_LIST),
        ] {
            let load = load.clone();
            let first = start + model::offset(load.operators[index].seeded.i, action as u64, interval);
            tokio::spawn(async move { load.every(index, action, first, interval).await });
        }
    }
    let platform = platform_clients(&settings.platform, 4).await?;
    let writer = load.clone();
    tokio::spawn(async move { writer.record_bookings(platform, start).await });

    // The warm-up: every operator's first pull catches its feed up; then the measured window.
    sleep_until(start + settings.warmup).await;
    load.recorder.reset();
    load.awaiting_feed.lock().unwrap().clear();
    load.awaiting_hint.lock().unwrap().clear();
    load.bookings_recorded.store(0, Ordering::Relaxed);
    let own_pid = std::process::id();
    let before = [
        report::usage(settings.gateway_pid, false),
        report::servers_usage(&settings.postgres_pids),
        report::usage(own_pid, false),
    ];
    let machine_before = report::machine_busy_ticks();
    let (mut gateway_rss, mut postgres_rss) = (0, 0);
    let measured_from = Instant::now();
    while Instant::now() < load.end {
        tokio::time::sleep(Duration::from_secs(5).min(load.end - Instant::now())).await;
        gateway_rss = gateway_rss.max(report::usage(settings.gateway_pid, false).rss_kib);
        postgres_rss = postgres_rss.max(report::servers_usage(&settings.postgres_pids).rss_kib);
    }
    let elapsed = measured_from.elapsed();
    let after = [
        report::usage(settings.gateway_pid, false),
        report::servers_usage(&settings.postgres_pids),
        report::usage(own_pid, false),
    ];
    let machine = report::machine_busy_ticks().saturating_sub(machine_before) as f64 / 100.0 / elapsed.as_secs_f64();
    let cores = |i: usize| (after[i].ticks.saturating_sub(before[i].ticks)) as f64 / 100.0 / elapsed.as_secs_f64();
    // What is still awaited a bound after it was recorded never came.
    let overdue = |awaited: &Mutex<HashMap<String, Instant>>, bound: u64| {
        let now = Instant::now();
        awaited.lock().unwrap().values().filter(|at| now - **at > Duration::from_millis(bound)).count()
    };
    let measured = report::Measured {
        gateway_cpu: cores(0),
        postgres_cpu: cores(1),
        own_cpu: cores(2),
        other_cpu: (machine - cores(0) - cores(1) - cores(2)).max(0.0),
        gateway_rss_mib: gateway_rss as f64 / 1024.0,
        postgres_rss_mib: postgres_rss as f64 / 1024.0,
        hints_missing: overdue(&load.awaiting_hint, 10 * model::HINT_P99_MS),
        bookings_missing: overdue(&load.awaiting_feed, 2 * model::BOOKING_TO_FEED_P99_MS),
        bookings_recorded: load.bookings_recorded.load(Ordering::Relaxed),
        booking_write: load.recorder.booking_write_quantiles(),
    };
    let step = load.recorder.step(settings.operators, elapsed, &measured);
    println!("### {} operators\n", step.operators);
    println!(
        "{:.0} requests a second to the gateway over {:.0} s measured after {} s of warm-up.\n",
        step.requests_per_second,
        step.seconds,
        settings.warmup.as_secs()
    );
    for line in &step.lines {
        println!("{line}");
    }
    if step.faults.is_empty() {
        println!("\n**Within every bound.**\n");
        Ok(0)
    } else {
        println!("\n**Over a bound:**\n");
        for fault in &step.faults {
            println!("- {fault}");
        }
        println!();
        Ok(3)
    }
}

#[derive(Clone, Copy, Debug)]
enum Action {
    Pull,
    Rates,
    LotPut,
    Closures,
    ListLots,
}

impl Load {
    /// Operator `index`'s `action` at `first`, then every `interval`, on schedule: each request
    /// leaves at its time whatever the ones before it still wait for.
    async fn every(self: Arc<Self>, index: usize, action: Action, first: Instant, interval: Duration) {
        let mut at = first;
        while at < self.end {
            sleep_until(at).await;
            let load = self.clone();
            tokio::spawn(async move {
                match action {
                    Action::Pull => load.pull(index, Some(at)).await,
                    _ => load.push(index, action, at).await,
                }
            });
            at += interval;
        }
    }

    async fn request(
        &self,
        route: &'static str,
        operator: &Operator,
        method: Method,
        path: &str,
        body: Option<String>,
        scheduled: Instant,
    ) -> client::Answer {
        let _slot = self.in_flight.acquire().await.expect("never closed");
        let answer = self.api.send(method, path, operator.source, &operator.seeded.bearer, body).await;
        self.recorder.request(route, answer.status, scheduled.elapsed());
        answer
    }

    async fn push(&self, index: usize, action: Action, scheduled: Instant) {
        let operator = &self.operators[index];
        let n = operator.actions.fetch_add(1, Ordering::Relaxed);
        let lot = 1 + (model::fraction(operator.seeded.i as u64, n) * operator.lots.min(50) as f64) as u32;
        let changed = model::fraction(n, operator.seeded.i as u64 + 7) < 0.1;
        let id = model::lot_id(lot);
        let (route, path, body) = match action {
            Action::Rates => ("PUT /lots/{id}/rates", format!("/lots/{id}/rates"), model::rates_body(changed)),
            Action::LotPut if model::fraction(n, operator.seeded.i as u64 + 11) < 0.05 => {
                ("PUT /lots/{id}?dry_run=true", format!("/lots/{id}?dry_run=true"), model::lot_body(lot, changed))
            }
            Action::LotPut => ("PUT /lots/{id}", format!("/lots/{id}"), model::lot_body(lot, changed)),
            Action::Closures => {
                ("PUT /lots/{id}/blocked-periods", format!("/lots/{id}/blocked-periods"), model::closures_body(changed))
            }
            Action::ListLots => return self.list_lots(operator).await,
            Action::Pull => unreachable!("pulls go through pull"),
        };
        self.request(route, operator, Method::PUT, &path, Some(body), scheduled).await;
    }

    /// `GET /lots`, following `next_after` to the last page.
    async fn list_lots(&self, operator: &Operator) {
        let mut after = String::new();
        loop {
            let path = match after.as_str() {
                "" => format!("/lots?limit={}", model::LOTS_LIMIT),
                _ => format!("/lots?limit={}&after={after}", model::LOTS_LIMIT),
            };
            let answer = self.request("GET /lots", operator, Method::GET, &path, None, Instant::now()).await;
            let page: serde_json::Value = serde_json::from_slice(&answer.body).unwrap_or_default();
            match page["next_after"].as_str() {
                Some(next) if answer.status == 200 => after = next.to_string(),
                _ => break,
            }
        }
    }

    /// The polling loop of the contract: from the saved cursor, store the page, save `next`, again
    /// while `has_more`. One pull at a time per operator: a hint during a pull asks for one more.
    async fn pull(&self, index: usize, scheduled: Option<Instant>) {
        let operator = &self.operators[index];
        if operator.pulling.swap(true, Ordering::AcqRel) {
            operator.pull_again.store(true, Ordering::Release);
            return;
        }
        let mut scheduled = scheduled.unwrap_or_else(Instant::now);
        loop {
            let since = operator.cursor.lock().unwrap().clone();
            let path = format!("/bookings?limit={}&since={since}", model::FEED_LIMIT);
            let answer = self.request("GET /bookings", operator, Method::GET, &path, None, scheduled).await;
            let page: serde_json::Value = serde_json::from_slice(&answer.body).unwrap_or_default();
            if let Some(bookings) = page["bookings"].as_array() {
                let now = Instant::now();
                let mut awaiting = self.awaiting_feed.lock().unwrap();
                for booking in bookings {
                    if let Some(at) = booking["reference"].as_str().and_then(|r| awaiting.remove(r)) {
                        self.recorder.booking_in_feed(now - at);
                    }
                }
            }
            if let Some(next) = page["next"].as_str() {
                *operator.cursor.lock().unwrap() = next.to_string();
            }
            scheduled = Instant::now();
            if answer.status == 200 && page["has_more"] == true {
                continue;
            }
            if operator.pull_again.swap(false, Ordering::AcqRel) {
                continue;
            }
            break;
        }
        operator.pulling.store(false, Ordering::Release);
    }

    fn hint(self: &Arc<Self>, hint: receiver::Hint) {
        if self.awaiting_hint.lock().unwrap().remove(&hint.reference).is_some() {
            self.recorder.hint(Duration::from_secs_f64(hint.delay.as_seconds_f64().max(0.0)));
        }
        let index = (hint.operator as usize).wrapping_sub(1);
        if index < self.operators.len() {
            let load = self.clone();
            tokio::spawn(async move { load.pull(index, None).await });
        }
    }

    /// The platform: one booking per lot per 8 hours, spread evenly in time, each to an operator
    /// chosen in proportion to its lots; one in ten updated a minute later.
    async fn record_bookings(self: Arc<Self>, platform: Vec<Arc<tokio_postgres::Client>>, start: Instant) {
        let lots_before: Vec<u64> = self
            .operators
            .iter()
            .scan(0u64, |before, operator| {
                let first = *before;
                *before += u64::from(operator.lots);
                Some(first)
            })
            .collect();
        let total: u64 = self.operators.iter().map(|o| u64::from(o.lots)).sum();
        let interval = model::BOOKING_PER_LOT.div_f64(total.max(1) as f64);
        let mut at = start;
        let mut sequence: u64 = 0;
        while at < self.end {
            sleep_until(at).await;
            let index = model::booking_operator(sequence, &lots_before, total);
            let client = platform[sequence as usize % platform.len()].clone();
            let load = self.clone();
            let scheduled = at;
            tokio::spawn(async move { load.record_one(client, index, sequence, scheduled).await });
            sequence += 1;
            at += interval;
        }
    }

    async fn record_one(
        self: Arc<Self>,
        client: Arc<tokio_postgres::Client>,
        index: usize,
        sequence: u64,
        scheduled: Instant,
    ) {
        let operator = &self.operators[index];
        let booking = model::booking(operator.seeded.i, sequence);
        let recorded = client
            .query_one(
                "SELECT platform.booking_record($1::text::uuid, $2::jsonb)",
                &[&operator.seeded.operator_id, &booking],
            )
            .await;
        let reference: Option<String> = match recorded {
            Ok(row) => Some(row.get(0)),
            Err(_) => None,
        };
        self.recorder.request(
            "platform.booking_record",
            if reference.is_some() { 200 } else { 500 },
            scheduled.elapsed(),
        );
        let Some(reference) = reference else { return };
        let now = Instant::now();
        self.bookings_recorded.fetch_add(1, Ordering::Relaxed);
        self.awaiting_feed.lock().unwrap().insert(reference.clone(), now);
        if operator.seeded.armed {
            self.awaiting_hint.lock().unwrap().insert(reference.clone(), now);
        }
        if model::fraction(sequence, 13) < 0.1 {
            tokio::time::sleep(model::BOOKING_UPDATE_AFTER).await;
            if Instant::now() >= self.end {
                return;
            }
            let scheduled = Instant::now();
            let changes = serde_json::json!({"flight_number": "BA9999"});
            let updated = client
                .execute(
                    "SELECT platform.booking_update($1::text::uuid, $2, $3::jsonb)",
                    &[&operator.seeded.operator_id, &reference, &changes],
                )
                .await;
            self.recorder.request(
                "platform.booking_update",
                if updated.is_ok() { 200 } else { 500 },
                scheduled.elapsed(),
            );
        }
    }
}

async fn platform_clients(url: &str, count: usize) -> Result<Vec<Arc<tokio_postgres::Client>>, String> {
    let mut clients = Vec::new();
    for _ in 0..count {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .map_err(|e| format!("the platform's login: {e}"))?;
        tokio::spawn(connection);
        clients.push(Arc::new(client));
    }
    Ok(clients)
}
