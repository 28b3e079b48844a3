//! The run's settings: the `BENCH_*` variables (docs/reference/settings.md, "the scripts'
//! settings"), read and checked once, before anything is started.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::shell::Fallible;

/// A data size of `bench/generate.sql`.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Size {
    /// 1 000 lots, 10 000 bookings, 100 small operators.
    Small,
    /// 10 000 lots, 1 000 000 bookings, 1 000 small operators.
    Large,
}

impl Size {
    pub fn name(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Large => "large",
        }
    }

    pub fn lots(self) -> u32 {
        match self {
            Size::Small => 1_000,
            Size::Large => 10_000,
        }
    }

    pub fn bookings(self) -> u32 {
        match self {
            Size::Small => 10_000,
            Size::Large => 1_000_000,
        }
    }

    pub fn small_operators(self) -> u32 {
        match self {
            Size::Small => 100,
            Size::Large => 1_000,
        }
    }

    fn parse(name: &str) -> Fallible<Size> {
        match name {
            "small" => Ok(Size::Small),
            "large" => Ok(Size::Large),
            other => Err(format!("unknown size {other}").into()),
        }
    }
}

/// The ports the run's servers listen on, all on 127.0.0.1.
pub struct Ports {
    /// The gateway (`BENCH_PORT`).
    pub gateway: u16,
    /// Its admin listener, whose /metrics gives the clocks read at one connection.
    pub admin: u16,
    /// The pass-through floor (`bench/passthrough`).
    pub bare: u16,
    /// The second gateway, reading the feed from the standby, and its admin listener.
    pub standby_gateway: u16,
    pub standby_admin: u16,
    /// The gateway on a core of its own, and in its turn the pass-through there.
    pub pinned: u16,
    pub pinned_bare: u16,
}

pub struct Settings {
    /// The repository's root.
    pub root: PathBuf,
    /// The cores this run may use.
    pub cores: usize,
    /// Where PostgreSQL's programs are (`PG_BIN`).
    pub pg_bin: PathBuf,
    /// Seconds each side is measured on a route, in all.
    pub duration: u32,
    /// Alternating rounds; each measures `window()` whole seconds.
    pub rounds: u32,
    pub sizes: Vec<Size>,
    pub connections: Vec<u32>,
    /// RESULTS.md; the measurements go beside it (`measurements_file`).
    pub out: PathBuf,
    pub ports: Ports,
    /// Every route again with the gateway, then the pass-through, on a core of its own.
    pub pin: bool,
    /// Seconds of the soak after the last size; 0 skips it.
    pub soak: u32,
}

impl Settings {
    /// The settings from the environment, for a machine with `cores` cores to use.
    pub fn from_env(root: PathBuf, cores: usize) -> Fallible<Settings> {
        Settings::from_lookup(root, cores, |name| std::env::var(name).ok())
    }

    fn from_lookup(root: PathBuf, cores: usize, var: impl Fn(&str) -> Option<String>) -> Fallible<Settings> {
        let whole = |name: &str, default: u32| -> Option<u32> {
            match var(name) {
                None => Some(default),
                Some(text) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
                Some(_) => None,
            }
        };
        let (duration, rounds) = match (whole("BENCH_DURATION", 6), whole("BENCH_ROUNDS", 3)) {
            (Some(duration), Some(rounds)) if rounds >= 1 && duration >= rounds => (duration, rounds),
            _ => {
                return Err(
                    "BENCH_DURATION and BENCH_ROUNDS must be whole numbers, BENCH_DURATION at least BENCH_ROUNDS"
                        .into(),
                )
            }
        };
        let pin = match var("BENCH_PIN").as_deref() {
            None => cores >= 2,
            Some("on") if cores >= 2 => true,
            Some("off") => false,
            Some(_) => return Err(Self::PIN_OR_SOAK.into()),
        };
        let Some(soak) = whole("BENCH_SOAK", 600) else { return Err(Self::PIN_OR_SOAK.into()) };
        let sizes = var("BENCH_SIZES")
            .unwrap_or_else(|| "small large".to_string())
            .split_whitespace()
            .map(Size::parse)
            .collect::<Fallible<Vec<_>>>()?;
        let connections = var("BENCH_CONNECTIONS")
            .unwrap_or_else(|| "1 16 64".to_string())
            .split_whitespace()
            .map(|c| c.parse::<u32>().ok().filter(|&c| c >= 1))
            .collect::<Option<Vec<_>>>()
            .filter(|c| !c.is_empty())
            .ok_or("BENCH_CONNECTIONS must be whole numbers of one or more, separated by spaces")?;
        if sizes.is_empty() {
            return Err("BENCH_SIZES must name a size: small, large or both".into());
        }
        let port = |name: &str, default: u16| -> Fallible<u16> {
            match var(name) {
                None => Ok(default),
                Some(text) => text.parse().map_err(|_| format!("{name} must be a port number").into()),
            }
        };
        let gateway = port("BENCH_PORT", 18080)?;
        let offset = |n: u16| gateway.checked_add(n).ok_or("BENCH_PORT leaves no room for the six ports after it");
        let ports = Ports {
            gateway,
            admin: port("BENCH_ADMIN_PORT", offset(1)?)?,
            bare: port("BENCH_BARE_PORT", offset(2)?)?,
            standby_gateway: offset(3)?,
            standby_admin: offset(4)?,
            pinned: offset(5)?,
            pinned_bare: offset(6)?,
        };
        Ok(Settings {
            pg_bin: PathBuf::from(var("PG_BIN").unwrap_or_else(|| "/usr/lib/postgresql/15/bin".to_string())),
            out: var("BENCH_OUT").map(PathBuf::from).unwrap_or_else(|| root.join("bench/RESULTS.md")),
            root,
            cores,
            duration,
            rounds,
            sizes,
            connections,
            ports,
            pin,
            soak,
        })
    }

    const PIN_OR_SOAK: &'static str =
        "BENCH_PIN must be on (two cores or more) or off, BENCH_SOAK a whole number of seconds";

    /// Seconds measured in one round.
    pub fn window(&self) -> u32 {
        self.duration / self.rounds
    }

    /// The measurements' JSON lines: beside RESULTS.md, `.jsonl` for `.md`.
    pub fn measurements_file(&self) -> PathBuf {
        self.out.with_extension("jsonl")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)], cores: usize) -> Fallible<Settings> {
        Settings::from_lookup(PathBuf::from("/repo"), cores, |name| {
            vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn the_defaults_are_the_documented_ones() {
        let s = settings(&[], 2).unwrap();
        assert_eq!((s.duration, s.rounds, s.window(), s.soak, s.pin), (6, 3, 2, 600, true));
        assert_eq!(s.sizes, vec![Size::Small, Size::Large]);
        assert_eq!(s.connections, vec![1, 16, 64]);
        assert_eq!((s.ports.gateway, s.ports.admin, s.ports.bare, s.ports.pinned_bare), (18080, 18081, 18082, 18086));
        assert_eq!(s.out, PathBuf::from("/repo/bench/RESULTS.md"));
        assert_eq!(s.measurements_file(), PathBuf::from("/repo/bench/RESULTS.jsonl"));
        assert!(!settings(&[], 1).unwrap().pin);
    }

    #[test]
    fn bad_settings_are_refused_with_what_they_must_be() {
        for vars in [
            vec![("BENCH_DURATION", "2"), ("BENCH_ROUNDS", "3")],
            vec![("BENCH_ROUNDS", "0")],
            vec![("BENCH_DURATION", "six")],
        ] {
            assert!(settings(&vars, 2).err().unwrap().to_string().starts_with("BENCH_DURATION and BENCH_ROUNDS"));
        }
        assert!(settings(&[("BENCH_PIN", "on")], 1).is_err());
        assert!(settings(&[("BENCH_SOAK", "-1")], 2).is_err());
        assert_eq!(settings(&[("BENCH_SIZES", "huge")], 2).err().unwrap().to_string(), "unknown size huge");
        assert!(settings(&[("BENCH_CONNECTIONS", "1 0")], 2).is_err());
        assert!(settings(&[("BENCH_PORT", "65530")], 2).is_err());
    }
}
