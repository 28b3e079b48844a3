//! Settings: one record, read from environment variables once at start and parsed into types
//! (addresses, ranges, durations, the base path, the log filter, CPU scheduling); every part of the
//! gateway takes its values from it. Each is documented with its default in
//! docs/reference/settings.md, and `ingest config` prints the values in force (secrets only as set
//! or unset). A leaf: this module uses nothing else of the gateway, whose modules read their types
//! from here.

use std::fmt::Write as _;
use std::net::{Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use ipnet::{IpNet, Ipv6Net};

/// Where settings come from: the environment, or a map in tests.
pub trait Lookup: Fn(&str) -> Option<String> {}
impl<F: Fn(&str) -> Option<String>> Lookup for F {}

#[derive(Clone, Debug)]
pub struct Config {
    /// `LISTEN_ADDR`: where `serve` listens.
    pub listen: SocketAddr,
    /// `ADMIN_LISTEN_ADDR` (default `127.0.0.1:8081`; empty: off): the admin listener of `serve` and
    /// `webhooks` (`/livez`, `/readyz`, `/metrics`), never on the API's port.
    pub admin_listen: Option<SocketAddr>,
    /// `BASE_PATH`: the versioned root of the API; the OpenAPI document sits one level up.
    pub base_path: String,
    /// `DATABASE_URL`: the PostgreSQL connection (libpq URL or key=value form).
    pub database_url: String,
    /// `DATABASE_ROLE`: the role every pooled connection switches to (empty: stay as logged in).
    pub database_role: Option<String>,
    /// `DATABASE_POOL_SIZE`: the most connections the gateway holds.
    pub pool_size: usize,
    /// `DATABASE_TIMEOUT_MS`: the longest a request waits for a connection, and for its statement,
    /// before it answers 503 `try_again`.
    pub database_timeout: Duration,
    /// `SHUTDOWN_GRACE_SECONDS`: how long requests in flight may finish after SIGTERM/SIGINT.
    pub shutdown_grace: Duration,
    /// `SHUTDOWN_DRAIN_SECONDS` (default 0): after SIGTERM/SIGINT, how long `/readyz` answers 503
    /// while the API still takes new requests, so a balancer stops sending before it stops accepting.
    pub shutdown_drain: Duration,
    /// `HEADER_TIMEOUT_MS` (default 10000): the longest a request head may take to arrive.
    pub header_timeout: Duration,
    /// `BODY_TIMEOUT_MS` (default 10000): the longest a request body may take to arrive.
    pub body_timeout: Duration,
    /// `SEND_TIMEOUT_MS` (default 10000): the longest a client may accept none of an answer's bytes
    /// (a stalled write) before its connection is closed.
    pub send_timeout: Duration,
    /// `MAX_CONNECTIONS` (default 1024): open client connections at most (more wait in the backlog),
    /// and requests under way at most, those whose client has gone included.
    pub max_connections: usize,
    /// `WEBHOOK_WORKER`: `on` (default) runs the webhook worker inside `serve`; `off` leaves it to
    /// `ingest webhooks` processes of its own.
    pub webhook_worker: bool,
    pub webhooks: WebhookSettings,
    /// `RATE_LIMITS` (`on`, default, or `off` for benchmarks) and `RATE_LIMIT_<BUCKET>` (each
    /// `<burst>/<seconds per token>s`; the spec's numbers by default): None when lifted.
    pub rate_limits: Option<Limits>,
    /// `EDGE_SECRET`: the key of the signed `X-Forwarded-Client` header; none: the peer counts.
    pub edge_secret: Option<Vec<u8>>,
    /// `EDGE_PEERS` (default none): the CIDR ranges the edge connects from, comma-separated; the
    /// header is honoured only from a peer in one of them (none: never).
    pub edge_peers: Vec<IpNet>,
    /// `DATABASE_READ_URL` and its settings: GET /bookings served by a hot standby (None: the
    /// primary serves everything).
    pub read: Option<ReadSettings>,
    /// `LOG_LEVEL` and `CPU_SCHEDULING`: what every command applies before it starts.
    pub process: ProcessSettings,
}

/// Reads from a hot standby of `DATABASE_URL`'s database (`crate::standby`).
#[derive(Clone, Debug)]
pub struct ReadSettings {
    /// `DATABASE_READ_URL`: the standby (a libpq URL or key=value form; TLS options as `DATABASE_URL`'s).
    /// Its connections switch to `DATABASE_ROLE` like the primary's.
    pub database_url: String,
    /// `DATABASE_READ_POOL_SIZE` (default `DATABASE_POOL_SIZE`): the most standby connections held.
    pub pool_size: usize,
    /// `DATABASE_READ_TIMEOUT_MS` (default 1000): the longest a read waits for the standby (a
    /// connection and the page) before the primary serves it.
    pub timeout: Duration,
    /// `DATABASE_READ_MAX_LAG_MS` (default 5000): the oldest the standby's last publication of the
    /// booking writers may be for it to serve the feed; older (the standby lags, or nothing
    /// publishes), the primary serves it. At least twice `FEED_PUBLISH_INTERVAL_MS`.
    pub max_lag: Duration,
    /// `FEED_PUBLISH_INTERVAL_MS` (default 1000): how often this gateway publishes the primary's open
    /// booking writers for the standbys (`api.bookings_feed_publish`).
    pub publish_interval: Duration,
}

/// The webhook worker's settings.
#[derive(Clone, Debug)]
pub struct WebhookSettings {
    /// `WEBHOOK_DATABASE_URL` (default `DATABASE_URL`): the worker's connection.
    pub database_url: String,
    /// `WEBHOOK_DATABASE_ROLE` (default `webhook_worker`; empty: stay as logged in).
    pub database_role: Option<String>,
    /// `WEBHOOK_CONCURRENCY` (default 16): attempts under way at once in this process.
    pub concurrency: usize,
    /// `WEBHOOK_PER_OPERATOR` (default 2): attempts under way at once for one operator, across all
    /// processes.
    pub per_operator: usize,
    /// `WEBHOOK_SWEEP_INTERVAL_MS` (default 1000): how often the worker looks for due hints.
    pub sweep_interval: Duration,
    /// `WEBHOOK_BACKLOG_INTERVAL_MS` (default 10000): how often the worker reads the backlog for its
    /// metrics (`webhook.backlog()`).
    pub backlog_interval: Duration,
    /// `WEBHOOK_PUBLIC_RANGES` (staging only; default none): CIDR ranges that count as public.
    pub public_ranges: Vec<IpNet>,
    /// `WEBHOOK_NAT64_PREFIXES` (default none): the network's own NAT64 prefixes (RFC 6052: /32, /40,
    /// /48, /56, /64 or /96), whose addresses are judged by the IPv4 address they carry.
    pub nat64_prefixes: Vec<Nat64Prefix>,
    /// `WEBHOOK_EXTRA_ROOTS` (staging only; default none): a PEM file of extra trust anchors.
    pub extra_roots: Option<PathBuf>,
}

/// What every command applies before it starts: read before any thread exists.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessSettings {
    /// `LOG_LEVEL` (default `info,tokio_postgres=warn`): the filter of operational log lines, as
    /// `tracing`'s `EnvFilter` reads it (request lines are always written).
    pub log_filter: String,
    /// `CPU_SCHEDULING` (default `normal`): the threads' scheduling policy (`crate::scheduling`).
    pub cpu_scheduling: CpuScheduling,
}

/// The policy every thread of the process runs under (`crate::scheduling` applies it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuScheduling {
    /// `batch`: `SCHED_BATCH`, no preemption on wake-up.
    Batch,
    /// `normal` (default): as started (`SCHED_OTHER` unless the service manager chose otherwise).
    Normal,
}

/// A bucket's shape: at most `burst` tokens, one more every `interval` (`crate::ratelimit`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    pub burst: u32,
    pub interval: Duration,
}

impl Rate {
    pub const fn new(burst: u32, interval: Duration) -> Rate {
        Rate { burst, interval }
    }

    /// `<burst>/<seconds>s`: 60/1s, 20/3s, 1000/3.6s.
    pub fn parse(text: &str) -> Option<Rate> {
        let (burst, interval) = text.split_once('/')?;
        let seconds: f64 = interval.strip_suffix('s')?.parse().ok()?;
        let burst: u32 = burst.parse().ok()?;
        (burst >= 1 && seconds.is_finite() && seconds > 0.0).then(|| Rate::new(burst, Duration::from_secs_f64(seconds)))
    }
}

/// The five buckets' shapes, and how many buckets are held at most.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    pub all_requests: Rate,
    pub failed_auth: Rate,
    pub reads: Rate,
    pub writes_burst: Rate,
    pub writes_hourly: Rate,
    /// The most buckets held at once.
    pub max_buckets: usize,
}

impl Limits {
    /// The spec's numbers.
    pub fn spec() -> Limits {
        Limits {
            all_requests: Rate::new(240, Duration::from_millis(250)),
            failed_auth: Rate::new(20, Duration::from_secs(3)),
            reads: Rate::new(120, Duration::from_millis(500)),
            writes_burst: Rate::new(60, Duration::from_secs(1)),
            writes_hourly: Rate::new(1000, Duration::from_millis(3600)),
            max_buckets: 100_000,
        }
    }
}

/// A NAT64 prefix (RFC 6052): its addresses carry an IPv4 address, the one the translator sends to
/// (`crate::webhooks::address` reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nat64Prefix {
    pub(crate) network: Ipv6Addr,
    /// 32, 40, 48, 56, 64 or 96.
    pub(crate) length: u8,
}

impl Nat64Prefix {
    /// The lengths RFC 6052 §2.2 defines.
    const LENGTHS: [u8; 6] = [32, 40, 48, 56, 64, 96];

    /// `WEBHOOK_NAT64_PREFIXES`: IPv6 prefixes, comma-separated, each of a length RFC 6052 defines
    /// (/32, /40, /48, /56, /64, /96), with no bit set beyond its length, and for a /96 none in bits
    /// 64-71 (the octet RFC 6052 reserves). Empty: none.
    pub fn parse_list(text: &str) -> Result<Vec<Nat64Prefix>, String> {
        const NAME: &str = "WEBHOOK_NAT64_PREFIXES";
        comma_items(text)
            .map(|item| {
                let Ok(net) = item.parse::<Ipv6Net>() else {
                    return Err(format!("{NAME}: not an IPv6 prefix such as 2001:db8:64::/96: {item:?}"));
                };
                let (network, length) = (net.network(), net.prefix_len());
                if !Nat64Prefix::LENGTHS.contains(&length) {
                    return Err(format!(
                        "{NAME}: {item:?}: a NAT64 prefix is /32, /40, /48, /56, /64 or /96 (RFC 6052)"
                    ));
                }
                if network != net.addr() {
                    let meant = net.trunc();
                    return Err(format!("{NAME}: {item:?}: bits are set beyond the /{length} ({meant}?)"));
                }
                if network.octets()[8] != 0 {
                    return Err(format!("{NAME}: {item:?}: bits 64-71 of a NAT64 prefix must be zero (RFC 6052)"));
                }
                Ok(Nat64Prefix { network, length })
            })
            .collect()
    }
}

impl Config {
    pub fn from_env() -> Result<Self, String> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the settings through `lookup`, so tests need not touch the process environment.
    pub fn from_lookup(lookup: impl Lookup) -> Result<Self, String> {
        let lookup = &lookup;
        let database_url = required(lookup, "DATABASE_URL")?;
        let role = text(lookup, "DATABASE_ROLE", "ingest_gateway");
        let pool_size = positive(lookup, "DATABASE_POOL_SIZE", "16")?;
        Ok(Config {
            listen: parse(lookup, "LISTEN_ADDR", "127.0.0.1:8080")?,
            admin_listen: match text(lookup, "ADMIN_LISTEN_ADDR", "127.0.0.1:8081").as_str() {
                "" => None,
                address => Some(value("ADMIN_LISTEN_ADDR", address)?),
            },
            base_path: base_path(lookup)?,
            webhooks: webhook_settings(lookup, &database_url)?,
            read: read_settings(lookup, pool_size)?,
            database_url,
            database_role: (!role.is_empty()).then_some(role),
            pool_size,
            database_timeout: millis(lookup, "DATABASE_TIMEOUT_MS", "5000")?,
            shutdown_grace: Duration::from_secs(positive(lookup, "SHUTDOWN_GRACE_SECONDS", "30")? as u64),
            shutdown_drain: Duration::from_secs(parse(lookup, "SHUTDOWN_DRAIN_SECONDS", "0")?),
            header_timeout: millis(lookup, "HEADER_TIMEOUT_MS", "10000")?,
            body_timeout: millis(lookup, "BODY_TIMEOUT_MS", "10000")?,
            send_timeout: millis(lookup, "SEND_TIMEOUT_MS", "10000")?,
            max_connections: positive(lookup, "MAX_CONNECTIONS", "1024")?,
            webhook_worker: switch(lookup, "WEBHOOK_WORKER")?,
            rate_limits: rate_limits(lookup)?,
            edge_secret: lookup("EDGE_SECRET").filter(|secret| !secret.is_empty()).map(String::into_bytes),
            edge_peers: cidr_ranges("EDGE_PEERS", &text(lookup, "EDGE_PEERS", ""))?,
            process: process_settings(lookup)?,
        })
    }

    /// The settings in force, one `NAME=value` line each, as `ingest config` prints them: a
    /// secret (`EDGE_SECRET`, a database password) only as set or unset. A database URL is written
    /// by `connection`, which must leave its password out (`crate::db_tls::describe`).
    pub fn effective(&self, connection: impl Fn(&str) -> String) -> String {
        let without_password = &connection;
        // (in the settings' own units, so that each line can be set again as it is printed)
        let duration = |d: Duration| d.as_millis().to_string();
        let ranges = |ranges: &[IpNet]| ranges.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
        let on = |on: bool| if on { "on" } else { "off" }.to_string();
        let mut lines: Vec<(&str, String)> = vec![
            ("LISTEN_ADDR", self.listen.to_string()),
            ("ADMIN_LISTEN_ADDR", self.admin_listen.map(|a| a.to_string()).unwrap_or_default()),
            ("BASE_PATH", self.base_path.clone()),
            ("DATABASE_URL", without_password(&self.database_url)),
            ("DATABASE_ROLE", self.database_role.clone().unwrap_or_default()),
            ("DATABASE_POOL_SIZE", self.pool_size.to_string()),
            ("DATABASE_TIMEOUT_MS", duration(self.database_timeout)),
            ("SHUTDOWN_GRACE_SECONDS", self.shutdown_grace.as_secs().to_string()),
            ("SHUTDOWN_DRAIN_SECONDS", self.shutdown_drain.as_secs().to_string()),
            ("HEADER_TIMEOUT_MS", duration(self.header_timeout)),
            ("BODY_TIMEOUT_MS", duration(self.body_timeout)),
            ("SEND_TIMEOUT_MS", duration(self.send_timeout)),
            ("MAX_CONNECTIONS", self.max_connections.to_string()),
            ("RATE_LIMITS", on(self.rate_limits.is_some())),
        ];
        if let Some(limits) = &self.rate_limits {
            let rate = |rate: Rate| format!("{}/{}s", rate.burst, rate.interval.as_secs_f64());
            lines.extend([
                ("RATE_LIMIT_ALL_REQUESTS", rate(limits.all_requests)),
                ("RATE_LIMIT_FAILED_AUTH", rate(limits.failed_auth)),
                ("RATE_LIMIT_READS", rate(limits.reads)),
                ("RATE_LIMIT_WRITES_BURST", rate(limits.writes_burst)),
                ("RATE_LIMIT_WRITES_HOURLY", rate(limits.writes_hourly)),
                ("RATE_LIMIT_MAX_BUCKETS", limits.max_buckets.to_string()),
            ]);
        }
        lines.extend([
            ("EDGE_SECRET", if self.edge_secret.is_some() { "(set)" } else { "(unset)" }.to_string()),
            ("EDGE_PEERS", ranges(&self.edge_peers)),
            ("WEBHOOK_WORKER", on(self.webhook_worker)),
            ("WEBHOOK_DATABASE_URL", without_password(&self.webhooks.database_url)),
            ("WEBHOOK_DATABASE_ROLE", self.webhooks.database_role.clone().unwrap_or_default()),
            ("WEBHOOK_CONCURRENCY", self.webhooks.concurrency.to_string()),
            ("WEBHOOK_PER_OPERATOR", self.webhooks.per_operator.to_string()),
            ("WEBHOOK_SWEEP_INTERVAL_MS", duration(self.webhooks.sweep_interval)),
            ("WEBHOOK_BACKLOG_INTERVAL_MS", duration(self.webhooks.backlog_interval)),
            ("WEBHOOK_PUBLIC_RANGES", ranges(&self.webhooks.public_ranges)),
            (
                "WEBHOOK_NAT64_PREFIXES",
                self.webhooks
                    .nat64_prefixes
                    .iter()
                    .map(|p| format!("{}/{}", p.network, p.length))
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            (
                "WEBHOOK_EXTRA_ROOTS",
                self.webhooks.extra_roots.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            ),
        ]);
        match &self.read {
            None => lines.push(("DATABASE_READ_URL", String::new())),
            Some(read) => lines.extend([
                ("DATABASE_READ_URL", without_password(&read.database_url)),
                ("DATABASE_READ_POOL_SIZE", read.pool_size.to_string()),
                ("DATABASE_READ_TIMEOUT_MS", duration(read.timeout)),
                ("DATABASE_READ_MAX_LAG_MS", duration(read.max_lag)),
                ("FEED_PUBLISH_INTERVAL_MS", duration(read.publish_interval)),
            ]),
        }
        let scheduling = match self.process.cpu_scheduling {
            CpuScheduling::Batch => "batch",
            CpuScheduling::Normal => "normal",
        };
        lines.extend([("LOG_LEVEL", self.process.log_filter.clone()), ("CPU_SCHEDULING", scheduling.to_string())]);
        let mut out = String::new();
        for (name, value) in lines {
            let _ = writeln!(out, "{name}={value}");
        }
        out
    }
}

/// `BASE_PATH` (default `/v1`): starts with `/`, does not end with one. The only setting of
/// `ingest openapi`.
pub fn base_path(lookup: &impl Lookup) -> Result<String, String> {
    let base_path = text(lookup, "BASE_PATH", "/v1");
    if !base_path.starts_with('/') || base_path.ends_with('/') {
        return Err("BASE_PATH must start with / and not end with /".into());
    }
    Ok(base_path)
}

/// `LOG_LEVEL` and `CPU_SCHEDULING`, which every command applies before it starts.
pub fn process_settings(lookup: &impl Lookup) -> Result<ProcessSettings, String> {
    let log_filter = text(lookup, "LOG_LEVEL", "info,tokio_postgres=warn");
    tracing_subscriber::EnvFilter::try_new(&log_filter)
        .map_err(|error| format!("LOG_LEVEL is not a log filter ({error}): {log_filter:?}"))?;
    Ok(ProcessSettings { log_filter, cpu_scheduling: cpu_scheduling(lookup)? })
}

/// `CPU_SCHEDULING`: `normal` (also when unset or empty) or `batch`.
pub fn cpu_scheduling(lookup: &impl Lookup) -> Result<CpuScheduling, String> {
    match lookup("CPU_SCHEDULING").as_deref() {
        None | Some("") | Some("normal") => Ok(CpuScheduling::Normal),
        Some("batch") => Ok(CpuScheduling::Batch),
        Some(_) => Err("CPU_SCHEDULING must be batch or normal".to_string()),
    }
}

/// `RATE_LIMITS` and the buckets' `RATE_LIMIT_*`: None when lifted.
fn rate_limits(lookup: &impl Lookup) -> Result<Option<Limits>, String> {
    let spec = Limits::spec();
    let rate = |name: &str, default: Rate| -> Result<Rate, String> {
        match lookup(name).filter(|value| !value.is_empty()) {
            None => Ok(default),
            Some(value) => {
                Rate::parse(&value).ok_or(format!("{name} must be <burst>/<seconds>s, like 60/1s: {value:?}"))
            }
        }
    };
    let limits = Limits {
        all_requests: rate("RATE_LIMIT_ALL_REQUESTS", spec.all_requests)?,
        failed_auth: rate("RATE_LIMIT_FAILED_AUTH", spec.failed_auth)?,
        reads: rate("RATE_LIMIT_READS", spec.reads)?,
        writes_burst: rate("RATE_LIMIT_WRITES_BURST", spec.writes_burst)?,
        writes_hourly: rate("RATE_LIMIT_WRITES_HOURLY", spec.writes_hourly)?,
        max_buckets: positive(lookup, "RATE_LIMIT_MAX_BUCKETS", "100000")?,
    };
    Ok(switch(lookup, "RATE_LIMITS")?.then_some(limits))
}

/// The webhook worker's `WEBHOOK_*` (its database `database_url` unless it has its own).
fn webhook_settings(lookup: &impl Lookup, database_url: &str) -> Result<WebhookSettings, String> {
    let role = text(lookup, "WEBHOOK_DATABASE_ROLE", "webhook_worker");
    Ok(WebhookSettings {
        database_url: lookup("WEBHOOK_DATABASE_URL").filter(|url| !url.is_empty()).unwrap_or(database_url.to_string()),
        database_role: (!role.is_empty()).then_some(role),
        concurrency: positive(lookup, "WEBHOOK_CONCURRENCY", "16")?,
        per_operator: positive(lookup, "WEBHOOK_PER_OPERATOR", "2")?,
        sweep_interval: millis(lookup, "WEBHOOK_SWEEP_INTERVAL_MS", "1000")?,
        backlog_interval: millis(lookup, "WEBHOOK_BACKLOG_INTERVAL_MS", "10000")?,
        public_ranges: cidr_ranges("WEBHOOK_PUBLIC_RANGES", &text(lookup, "WEBHOOK_PUBLIC_RANGES", ""))?,
        nat64_prefixes: Nat64Prefix::parse_list(&text(lookup, "WEBHOOK_NAT64_PREFIXES", ""))?,
        extra_roots: lookup("WEBHOOK_EXTRA_ROOTS").filter(|path| !path.is_empty()).map(PathBuf::from),
    })
}

/// `DATABASE_READ_URL` and its settings (None: not set); `pool_size` the primary's, its default.
fn read_settings(lookup: &impl Lookup, pool_size: usize) -> Result<Option<ReadSettings>, String> {
    let Some(database_url) = lookup("DATABASE_READ_URL").filter(|url| !url.is_empty()) else { return Ok(None) };
    let read = ReadSettings {
        database_url,
        pool_size: positive(lookup, "DATABASE_READ_POOL_SIZE", &pool_size.to_string())?,
        timeout: millis(lookup, "DATABASE_READ_TIMEOUT_MS", "1000")?,
        max_lag: millis(lookup, "DATABASE_READ_MAX_LAG_MS", "5000")?,
        publish_interval: millis(lookup, "FEED_PUBLISH_INTERVAL_MS", "1000")?,
    };
    if read.max_lag < 2 * read.publish_interval {
        return Err("DATABASE_READ_MAX_LAG_MS must be at least twice FEED_PUBLISH_INTERVAL_MS: a standby's last \
                    publication is up to an interval old even when it does not lag"
            .into());
    }
    Ok(Some(read))
}

fn text(lookup: &impl Lookup, name: &str, default: &str) -> String {
    lookup(name).unwrap_or_else(|| default.to_string())
}

fn required(lookup: &impl Lookup, name: &str) -> Result<String, String> {
    lookup(name).filter(|value| !value.is_empty()).ok_or(format!("{name} is not set"))
}

fn value<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value.parse().map_err(|_| format!("{name} is not valid: {value:?}"))
}

fn parse<T: std::str::FromStr>(lookup: &impl Lookup, name: &str, default: &str) -> Result<T, String> {
    value(name, &text(lookup, name, default))
}

/// `on` (the default) or `off`.
fn switch(lookup: &impl Lookup, name: &str) -> Result<bool, String> {
    match text(lookup, name, "on").as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("{name} must be on or off, not {other:?}")),
    }
}

fn positive(lookup: &impl Lookup, name: &str, default: &str) -> Result<usize, String> {
    match parse::<usize>(lookup, name, default)? {
        0 => Err(format!("{name} must be at least 1")),
        n => Ok(n),
    }
}

fn millis(lookup: &impl Lookup, name: &str, default: &str) -> Result<Duration, String> {
    Ok(Duration::from_millis(positive(lookup, name, default)? as u64))
}

/// The items of a comma-separated setting, trimmed, empty ones left out.
pub fn comma_items(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|item| !item.is_empty())
}

/// A comma-separated list of CIDR ranges (`EDGE_PEERS`, `WEBHOOK_PUBLIC_RANGES`); empty: none.
pub fn cidr_ranges(name: &str, value: &str) -> Result<Vec<IpNet>, String> {
    comma_items(value)
        .map(|range| {
            range.parse::<IpNet>().map_err(|_| {
                format!(
                    "{name} is not valid: {range:?} is not a CIDR range \
                     (comma-separated, like 10.0.0.0/8, fd00::/8 or 192.0.2.1/32)"
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<Config, String> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn defaults_apply_when_only_the_database_is_named() {
        let config = config(&[("DATABASE_URL", "postgres://x@h/db")]).unwrap();
        assert_eq!(config.listen, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(config.admin_listen, Some("127.0.0.1:8081".parse().unwrap()));
        assert_eq!(config.shutdown_drain, Duration::ZERO);
        assert_eq!(config.webhooks.backlog_interval, Duration::from_secs(10));
        assert_eq!(config.base_path, "/v1");
        assert_eq!(config.database_role.as_deref(), Some("ingest_gateway"));
        assert_eq!(config.pool_size, 16);
        assert_eq!(config.database_timeout, Duration::from_secs(5));
        assert_eq!(config.shutdown_grace, Duration::from_secs(30));
        assert_eq!(config.header_timeout, Duration::from_secs(10));
        assert_eq!(config.body_timeout, Duration::from_secs(10));
        assert_eq!(config.send_timeout, Duration::from_secs(10));
        assert_eq!(config.max_connections, 1024);
        assert!(config.webhook_worker);
        assert_eq!(config.webhooks.database_url, "postgres://x@h/db");
        assert_eq!(config.webhooks.database_role.as_deref(), Some("webhook_worker"));
        assert_eq!(config.webhooks.concurrency, 16);
        assert_eq!(config.webhooks.per_operator, 2);
        assert_eq!(config.webhooks.sweep_interval, Duration::from_secs(1));
        assert!(config.webhooks.public_ranges.is_empty());
        assert_eq!(config.webhooks.extra_roots, None);
        assert_eq!(config.rate_limits, Some(Limits::spec()));
        assert_eq!(config.edge_secret, None);
    }

    #[test]
    fn rate_limits_can_be_lifted_or_changed_one_bucket_at_a_time() {
        assert_eq!(config(&[("DATABASE_URL", "u"), ("RATE_LIMITS", "off")]).unwrap().rate_limits, None);
        let changed = config(&[("DATABASE_URL", "u"), ("RATE_LIMIT_READS", "3/60s")]).unwrap().rate_limits.unwrap();
        assert_eq!(changed.reads, Rate::new(3, Duration::from_secs(60)));
        assert_eq!(changed.writes_burst, Limits::spec().writes_burst);
        assert!(config(&[("DATABASE_URL", "u"), ("RATE_LIMIT_READS", "3")]).unwrap_err().contains("RATE_LIMIT_READS"));
        assert!(config(&[("DATABASE_URL", "u"), ("RATE_LIMITS", "no")]).unwrap_err().contains("RATE_LIMITS"));
    }

    #[test]
    fn the_webhook_worker_is_on_or_off_and_nothing_else() {
        assert!(!config(&[("DATABASE_URL", "u"), ("WEBHOOK_WORKER", "off")]).unwrap().webhook_worker);
        assert!(config(&[("DATABASE_URL", "u"), ("WEBHOOK_WORKER", "no")]).unwrap_err().contains("WEBHOOK_WORKER"));
        assert!(config(&[("DATABASE_URL", "u"), ("WEBHOOK_CONCURRENCY", "0")])
            .unwrap_err()
            .contains("WEBHOOK_CONCURRENCY"));
        let own = config(&[("DATABASE_URL", "u"), ("WEBHOOK_DATABASE_URL", "w")]).unwrap();
        assert_eq!(own.webhooks.database_url, "w");
    }

    #[test]
    fn edge_peers_are_comma_separated_cidr_ranges() {
        assert_eq!(cidr_ranges("EDGE_PEERS", "").unwrap(), Vec::<IpNet>::new());
        assert_eq!(
            cidr_ranges("EDGE_PEERS", " 10.0.0.0/8,fd00::/8 ,, 192.0.2.1/32").unwrap(),
            vec!["10.0.0.0/8".parse::<IpNet>().unwrap(), "fd00::/8".parse().unwrap(), "192.0.2.1/32".parse().unwrap()]
        );
        for bad in ["10.0.0.1", "10.0.0.0/33", "edge.internal", "10.0.0.0/8;fd00::/8", "*"] {
            let error = cidr_ranges("EDGE_PEERS", bad).unwrap_err();
            assert!(error.starts_with("EDGE_PEERS is not valid: "), "{error}");
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
    }

    #[test]
    fn nat64_prefixes_are_none_by_default_and_a_bad_one_stops_the_start() {
        assert_eq!(config(&[("DATABASE_URL", "u")]).unwrap().webhooks.nat64_prefixes, []);
        let listed = config(&[("DATABASE_URL", "u"), ("WEBHOOK_NAT64_PREFIXES", "2a00:1450::/32, 64:ff9b:1::/48")]);
        assert_eq!(
            listed.unwrap().webhooks.nat64_prefixes,
            Nat64Prefix::parse_list("2a00:1450::/32,64:ff9b:1::/48").unwrap()
        );
        assert_eq!(
            config(&[("DATABASE_URL", "u"), ("WEBHOOK_NAT64_PREFIXES", "2a00:1450::/33")]).unwrap_err(),
            "WEBHOOK_NAT64_PREFIXES: \"2a00:1450::/33\": a NAT64 prefix is /32, /40, /48, /56, /64 or /96 (RFC 6052)"
        );
    }

    #[test]
    fn the_admin_listener_is_off_when_empty_and_its_address_is_checked() {
        assert_eq!(config(&[("DATABASE_URL", "u"), ("ADMIN_LISTEN_ADDR", "")]).unwrap().admin_listen, None);
        let moved = config(&[("DATABASE_URL", "u"), ("ADMIN_LISTEN_ADDR", "0.0.0.0:9000")]).unwrap();
        assert_eq!(moved.admin_listen, Some("0.0.0.0:9000".parse().unwrap()));
        assert!(config(&[("DATABASE_URL", "u"), ("ADMIN_LISTEN_ADDR", "nope")])
            .unwrap_err()
            .contains("ADMIN_LISTEN_ADDR"));
        let drained = config(&[("DATABASE_URL", "u"), ("SHUTDOWN_DRAIN_SECONDS", "5")]).unwrap();
        assert_eq!(drained.shutdown_drain, Duration::from_secs(5));
        assert!(config(&[("DATABASE_URL", "u"), ("SHUTDOWN_DRAIN_SECONDS", "-1")])
            .unwrap_err()
            .contains("SHUTDOWN_DRAIN_SECONDS"));
    }

    #[test]
    fn reads_stay_on_the_primary_unless_a_read_url_is_set_and_its_bounds_are_checked() {
        assert!(config(&[("DATABASE_URL", "u")]).unwrap().read.is_none());
        assert!(config(&[("DATABASE_URL", "u"), ("DATABASE_READ_URL", "")]).unwrap().read.is_none());
        let read = config(&[("DATABASE_URL", "u"), ("DATABASE_POOL_SIZE", "24"), ("DATABASE_READ_URL", "r")])
            .unwrap()
            .read
            .unwrap();
        assert_eq!(read.database_url, "r");
        assert_eq!(read.pool_size, 24, "the primary's pool size by default");
        assert_eq!(read.timeout, Duration::from_secs(1));
        assert_eq!(read.max_lag, Duration::from_secs(5));
        assert_eq!(read.publish_interval, Duration::from_secs(1));
        let own = config(&[
            ("DATABASE_URL", "u"),
            ("DATABASE_READ_URL", "r"),
            ("DATABASE_READ_POOL_SIZE", "8"),
            ("DATABASE_READ_TIMEOUT_MS", "250"),
            ("DATABASE_READ_MAX_LAG_MS", "30000"),
            ("FEED_PUBLISH_INTERVAL_MS", "500"),
        ])
        .unwrap()
        .read
        .unwrap();
        assert_eq!(
            (own.pool_size, own.timeout, own.max_lag, own.publish_interval),
            (8, Duration::from_millis(250), Duration::from_secs(30), Duration::from_millis(500))
        );
        assert_eq!(
            config(&[("DATABASE_URL", "u"), ("DATABASE_READ_URL", "r"), ("DATABASE_READ_MAX_LAG_MS", "1999")])
                .unwrap_err(),
            "DATABASE_READ_MAX_LAG_MS must be at least twice FEED_PUBLISH_INTERVAL_MS: a standby's last publication is \
             up to an interval old even when it does not lag"
        );
        assert!(
            config(&[("DATABASE_URL", "u"), ("DATABASE_READ_URL", "r"), ("DATABASE_READ_MAX_LAG_MS", "2000")]).is_ok()
        );
        for name in ["DATABASE_READ_POOL_SIZE", "DATABASE_READ_TIMEOUT_MS", "FEED_PUBLISH_INTERVAL_MS"] {
            let error = config(&[("DATABASE_URL", "u"), ("DATABASE_READ_URL", "r"), (name, "0")]).unwrap_err();
            assert!(error.contains(name), "{error}");
        }
    }

    #[test]
    fn the_settings_in_force_are_printed_without_a_secret() {
        let settings = config(&[
            ("DATABASE_URL", "postgres://gw:hunter2@db.internal:5433/ingest"),
            ("EDGE_SECRET", "the edge's own secret"),
            ("EDGE_PEERS", "10.1.0.0/16"),
            ("RATE_LIMIT_READS", "3/60s"),
            ("WEBHOOK_NAT64_PREFIXES", "64:ff9b:1::/48"),
        ])
        .unwrap();
        let shown = settings.effective(|url| format!("<{} characters>", url.len()));
        assert!(!shown.contains("hunter2") && !shown.contains("the edge's own secret"), "{shown}");
        for line in [
            "DATABASE_URL=<45 characters>",
            "WEBHOOK_DATABASE_URL=<45 characters>",
            "EDGE_SECRET=(set)",
            "EDGE_PEERS=10.1.0.0/16",
            "RATE_LIMIT_READS=3/60s",
            "RATE_LIMIT_WRITES_HOURLY=1000/3.6s",
            "WEBHOOK_NAT64_PREFIXES=64:ff9b:1::/48",
            "BASE_PATH=/v1",
            "DATABASE_TIMEOUT_MS=5000",
            "LOG_LEVEL=info,tokio_postgres=warn",
            "CPU_SCHEDULING=normal",
            "DATABASE_READ_URL=",
        ] {
            assert!(shown.lines().any(|shown| shown == line), "{line} in:\n{shown}");
        }
        let unset = config(&[("DATABASE_URL", "u")]).unwrap().effective(|_| String::new());
        assert!(unset.lines().any(|line| line == "EDGE_SECRET=(unset)"));
    }

    #[test]
    fn the_log_filter_and_cpu_scheduling_are_read_once_and_checked() {
        let process =
            config(&[("DATABASE_URL", "u"), ("LOG_LEVEL", "warn"), ("CPU_SCHEDULING", "batch")]).unwrap().process;
        assert_eq!(process, ProcessSettings { log_filter: "warn".into(), cpu_scheduling: CpuScheduling::Batch });
        assert!(config(&[("DATABASE_URL", "u"), ("LOG_LEVEL", "info,[[[")]).unwrap_err().starts_with("LOG_LEVEL"));
        assert!(config(&[("DATABASE_URL", "u"), ("CPU_SCHEDULING", "idle")]).unwrap_err().contains("CPU_SCHEDULING"));
        // `ingest openapi` reads BASE_PATH alone, with the same check.
        assert_eq!(base_path(&|_: &str| None).unwrap(), "/v1");
        assert!(base_path(&|_: &str| Some("/v1/".to_string())).is_err());
    }

    #[test]
    fn this_module_is_a_leaf_of_the_gateway() {
        let source = include_str!("config.rs");
        let code: String =
            source.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
        assert!(!code.contains(&format!("{}::", "crate")), "the settings use no other module of the gateway");
    }

    #[test]
    fn a_missing_database_url_is_an_error() {
        assert_eq!(config(&[]).unwrap_err(), "DATABASE_URL is not set");
    }

    #[test]
    fn an_empty_database_role_keeps_the_login_role() {
        let config = config(&[("DATABASE_URL", "u"), ("DATABASE_ROLE", "")]).unwrap();
        assert_eq!(config.database_role, None);
    }

    #[test]
    fn bad_values_are_refused_with_their_name() {
        assert!(config(&[("DATABASE_URL", "u"), ("DATABASE_POOL_SIZE", "0")])
            .unwrap_err()
            .contains("DATABASE_POOL_SIZE"));
        assert!(config(&[("DATABASE_URL", "u"), ("LISTEN_ADDR", "nope")]).unwrap_err().contains("LISTEN_ADDR"));
        assert!(config(&[("DATABASE_URL", "u"), ("BASE_PATH", "/v1/")]).unwrap_err().contains("BASE_PATH"));
    }

    #[test]
    fn edge_peers_are_none_by_default_and_a_bad_range_stops_the_start() {
        assert_eq!(config(&[("DATABASE_URL", "u")]).unwrap().edge_peers, Vec::<IpNet>::new());
        let peers = config(&[("DATABASE_URL", "u"), ("EDGE_PEERS", "10.1.0.0/16, fd00::/8")]).unwrap().edge_peers;
        assert_eq!(peers, vec!["10.1.0.0/16".parse::<IpNet>().unwrap(), "fd00::/8".parse().unwrap()]);
        assert_eq!(
            config(&[("DATABASE_URL", "u"), ("EDGE_PEERS", "10.1.0.0/16,edge")]).unwrap_err(),
            "EDGE_PEERS is not valid: \"edge\" is not a CIDR range (comma-separated, like 10.0.0.0/8, fd00::/8 or \
             192.0.2.1/32)"
        );
    }
}
