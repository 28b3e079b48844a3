//! Settings, all from environment variables (documented with their defaults in the README).

use std::net::SocketAddr;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct Config {
    /// `LISTEN_ADDR`: where `serve` listens.
    pub listen: SocketAddr,
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
}

impl Config {
    pub fn from_env() -> Result<Self, String> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the settings through `lookup`, so tests need not touch the process environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let get = |name: &str, default: &str| lookup(name).unwrap_or_else(|| default.to_string());
        let database_url = lookup("DATABASE_URL")
            .filter(|url| !url.is_empty())
            .ok_or("DATABASE_URL is not set")?;
        let base_path = get("BASE_PATH", "/v1");
        if !base_path.starts_with('/') || base_path.ends_with('/') {
            return Err("BASE_PATH must start with / and not end with /".into());
        }
        let role = get("DATABASE_ROLE", "ingest_gateway");
        Ok(Config {
            listen: parse("LISTEN_ADDR", &get("LISTEN_ADDR", "127.0.0.1:8080"))?,
            base_path,
            database_url,
            database_role: (!role.is_empty()).then_some(role),
            pool_size: positive("DATABASE_POOL_SIZE", &get("DATABASE_POOL_SIZE", "16"))?,
            database_timeout: Duration::from_millis(
                positive("DATABASE_TIMEOUT_MS", &get("DATABASE_TIMEOUT_MS", "5000"))? as u64,
            ),
            shutdown_grace: Duration::from_secs(
                positive("SHUTDOWN_GRACE_SECONDS", &get("SHUTDOWN_GRACE_SECONDS", "30"))? as u64,
            ),
        })
    }
}

fn parse<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value.parse().map_err(|_| format!("{name} is not valid: {value:?}"))
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
        let pairs: Vec<(String, String)> =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn defaults_apply_when_only_the_database_is_named() {
        let config = config(&[("DATABASE_URL", "postgres://x@h/db")]).unwrap();
        assert_eq!(config.listen, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(config.base_path, "/v1");
        assert_eq!(config.database_role.as_deref(), Some("ingest_gateway"));
        assert_eq!(config.pool_size, 16);
        assert_eq!(config.database_timeout, Duration::from_secs(5));
        assert_eq!(config.shutdown_grace, Duration::from_secs(30));
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
        assert!(config(&[("DATABASE_URL", "u"), ("LISTEN_ADDR", "nope")])
            .unwrap_err()
            .contains("LISTEN_ADDR"));
        assert!(config(&[("DATABASE_URL", "u"), ("BASE_PATH", "/v1/")])
            .unwrap_err()
            .contains("BASE_PATH"));
    }
}
