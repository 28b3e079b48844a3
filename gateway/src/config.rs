//! Settings, all from environment variables (documented with their defaults in gateway/README.md).
//! `CPU_SCHEDULING` is not here: `main` reads it before any thread starts (`scheduling`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use ipnet::IpNet;

use crate::ratelimit::{Limits, Rate};

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
    /// primary serves everything, as before).
    pub read: Option<ReadSettings>,
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
    pub public_ranges: String,
    /// `WEBHOOK_NAT64_PREFIXES` (default none): the network's own NAT64 prefixes (RFC 6052: /32, /40,
    /// /48, /56, /64 or /96), whose addresses are judged by the IPv4 address they carry.
    pub nat64_prefixes: Vec<crate::webhooks::address::Nat64Prefix>,
    /// `WEBHOOK_EXTRA_ROOTS` (staging only; default none): a PEM file of extra trust anchors.
    pub extra_roots: Option<PathBuf>,
}

impl Config {
    pub fn from_env() -> Result<Self, String> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the settings through `lookup`, so tests need not touch the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let get = |name: &str, default: &str| lookup(name).unwrap_or_else(|| default.to_string());
        let database_url = lookup("DATABASE_URL").filter(|url| !url.is_empty()).ok_or("DATABASE_URL is not set")?;
        let base_path = get("BASE_PATH", "/v1");
        if !base_path.starts_with('/') || base_path.ends_with('/') {
            return Err("BASE_PATH must start with / and not end with /".into());
        }
        let role = get("DATABASE_ROLE", "ingest_gateway");
        let webhook_role = get("WEBHOOK_DATABASE_ROLE", "webhook_worker");
        let webhooks = WebhookSettings {
            database_url: lookup("WEBHOOK_DATABASE_URL").filter(|url| !url.is_empty()).unwrap_or(database_url.clone()),
            database_role: (!webhook_role.is_empty()).then_some(webhook_role),
            concurrency: positive("WEBHOOK_CONCURRENCY", &get("WEBHOOK_CONCURRENCY", "16"))?,
            per_operator: positive("WEBHOOK_PER_OPERATOR", &get("WEBHOOK_PER_OPERATOR", "2"))?,
            sweep_interval: Duration::from_millis(positive(
                "WEBHOOK_SWEEP_INTERVAL_MS",
                &get("WEBHOOK_SWEEP_INTERVAL_MS", "1000"),
            )? as u64),
            backlog_interval: Duration::from_millis(positive(
                "WEBHOOK_BACKLOG_INTERVAL_MS",
                &get("WEBHOOK_BACKLOG_INTERVAL_MS", "10000"),
            )? as u64),
            public_ranges: get("WEBHOOK_PUBLIC_RANGES", ""),
            nat64_prefixes: crate::webhooks::address::Nat64Prefix::parse_list(&get("WEBHOOK_NAT64_PREFIXES", ""))?,
            extra_roots: lookup("WEBHOOK_EXTRA_ROOTS").filter(|path| !path.is_empty()).map(PathBuf::from),
        };
        let webhook_worker = match get("WEBHOOK_WORKER", "on").as_str() {
            "on" => true,
            "off" => false,
            other => return Err(format!("WEBHOOK_WORKER must be on or off, not {other:?}")),
        };
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
            max_buckets: positive("RATE_LIMIT_MAX_BUCKETS", &get("RATE_LIMIT_MAX_BUCKETS", "100000"))?,
        };
        let pool_size = positive("DATABASE_POOL_SIZE", &get("DATABASE_POOL_SIZE", "16"))?;
        let read = match lookup("DATABASE_READ_URL").filter(|url| !url.is_empty()) {
            None => None,
            Some(database_url) => {
                let millis = |name: &str, default: &str| -> Result<Duration, String> {
                    Ok(Duration::from_millis(positive(name, &get(name, default))? as u64))
                };
                let read = ReadSettings {
                    database_url,
                    pool_size: positive(
                        "DATABASE_READ_POOL_SIZE",
                        &get("DATABASE_READ_POOL_SIZE", &pool_size.to_string()),
                    )?,
                    timeout: millis("DATABASE_READ_TIMEOUT_MS", "1000")?,
                    max_lag: millis("DATABASE_READ_MAX_LAG_MS", "5000")?,
                    publish_interval: millis("FEED_PUBLISH_INTERVAL_MS", "1000")?,
                };
                if read.max_lag < 2 * read.publish_interval {
                    return Err("DATABASE_READ_MAX_LAG_MS must be at least twice FEED_PUBLISH_INTERVAL_MS: a \
                                standby's last publication is up to an interval old even when it does not lag"
                        .into());
                }
                Some(read)
            }
        };
        let rate_limits = match get("RATE_LIMITS", "on").as_str() {
            "on" => Some(limits),
            "off" => None,
            other => return Err(format!("RATE_LIMITS must be on or off, not {other:?}")),
        };
        Ok(Config {
            listen: parse("LISTEN_ADDR", &get("LISTEN_ADDR", "127.0.0.1:8080"))?,
            admin_listen: match get("ADMIN_LISTEN_ADDR", "127.0.0.1:8081").as_str() {
                "" => None,
                address => Some(parse("ADMIN_LISTEN_ADDR", address)?),
            },
            base_path,
            database_url,
            database_role: (!role.is_empty()).then_some(role),
            pool_size,
            database_timeout: Duration::from_millis(positive(
                "DATABASE_TIMEOUT_MS",
                &get("DATABASE_TIMEOUT_MS", "5000"),
            )? as u64),
            shutdown_grace: Duration::from_secs(positive(
                "SHUTDOWN_GRACE_SECONDS",
                &get("SHUTDOWN_GRACE_SECONDS", "30"),
            )? as u64),
            shutdown_drain: Duration::from_secs(parse::<u64>(
                "SHUTDOWN_DRAIN_SECONDS",
                &get("SHUTDOWN_DRAIN_SECONDS", "0"),
            )?),
            header_timeout: Duration::from_millis(
                positive("HEADER_TIMEOUT_MS", &get("HEADER_TIMEOUT_MS", "10000"))? as u64
            ),
            body_timeout: Duration::from_millis(positive("BODY_TIMEOUT_MS", &get("BODY_TIMEOUT_MS", "10000"))? as u64),
            send_timeout: Duration::from_millis(positive("SEND_TIMEOUT_MS", &get("SEND_TIMEOUT_MS", "10000"))? as u64),
            max_connections: positive("MAX_CONNECTIONS", &get("MAX_CONNECTIONS", "1024"))?,
            webhook_worker,
            webhooks,
            rate_limits,
            edge_secret: lookup("EDGE_SECRET").filter(|secret| !secret.is_empty()).map(String::into_bytes),
            edge_peers: cidr_ranges("EDGE_PEERS", &get("EDGE_PEERS", ""))?,
            read,
        })
    }
}

fn parse<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value.parse().map_err(|_| format!("{name} is not valid: {value:?}"))
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

fn positive(name: &str, value: &str) -> Result<usize, String> {
    match parse::<usize>(name, value)? {
        0 => Err(format!("{name} must be at least 1")),
        n => Ok(n),
    }
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
        assert_eq!(config.webhooks.public_ranges, "");
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
        use crate::webhooks::address::Nat64Prefix;

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
