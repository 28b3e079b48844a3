//! The feed from a standby: a second gateway reads it from a hot standby of the cluster, the
//! first from the primary, in alternating rounds, while the standby's lag is sampled. The standby
//! is made of the cluster as it is now and removed after, so it replays nothing while the other
//! routes are measured (and needs no replication slot: it is never far behind).

use std::time::Duration;

use super::database::Database;
use super::routes::{side_of, wrk_on};
use super::servers::{self, GatewayPlacement};
use super::Bench;
use crate::instruments::gateway_metrics;
use crate::measurements::{Measurement, Recorder, Side};
use crate::process::{Sampler, Server, Standby};
use crate::scenarios::{route, FEED_CONNECTIONS, FEED_ROUTES};
use crate::shell::{psql, Fallible};

pub fn measure_feed(bench: &Bench, database: &Database, primary: &Server, recorder: &mut Recorder) -> Fallible<()> {
    let settings = bench.settings;
    let size = database.size;
    let _standby = Standby::make(&bench.cluster)?;
    let read_url = bench.cluster.standby_url(&database.name, "ingest_gateway")?;
    let gateway = servers::gateway(
        bench,
        database,
        GatewayPlacement {
            port: settings.ports.standby_gateway,
            admin_port: Some(settings.ports.standby_admin),
            read_url: Some(&read_url),
            core: None,
            log: "standby_gateway.log",
        },
    )?;
    caught_up(bench)?;
    servers::serving(database, &[&gateway])?;
    std::thread::sleep(Duration::from_secs(2)); // a publication or two in place
    let lag = lag_sampler(bench, database)?;
    // (the standby gateway's reads by the standby and fallbacks to the primary, from one scrape)
    let counters = || {
        let metrics = gateway_metrics::scrape(settings.ports.standby_admin);
        let counter = |name| gateway_metrics::sum(&metrics, name).unwrap_or(0.0) as u64;
        (counter("ingest_standby_reads_total"), counter("ingest_standby_fallbacks_total"))
    };
    for &scenario in FEED_ROUTES {
        let feed = route(scenario).ok_or("a feed route that is not a route")?;
        let connections = FEED_CONNECTIONS;
        eprintln!("{}: {} from the standby at {connections}", size.name(), scenario.label());
        let (reads_before, fallbacks_before) = counters();
        wrk_on(bench, database, feed, primary, connections, 1, None)?;
        wrk_on(bench, database, feed, &gateway, connections, 1, None)?;
        let (mut from_primary, mut from_standby) = (vec![], vec![]);
        for _ in 0..settings.rounds {
            from_primary.push(wrk_on(bench, database, feed, primary, connections, settings.window(), None)?);
            from_standby.push(wrk_on(bench, database, feed, &gateway, connections, settings.window(), None)?);
        }
        for (side, rounds) in [(Side::FeedPrimary, &from_primary), (Side::FeedStandby, &from_standby)] {
            recorder.record(Measurement::side((size, scenario, connections), side, side_of(rounds)))?;
        }
        let (reads_after, fallbacks_after) = counters();
        recorder.record(Measurement::StandbyReads {
            size,
            scenario,
            connections,
            reads: reads_after.saturating_sub(reads_before),
            fallbacks: fallbacks_after.saturating_sub(fallbacks_before),
        })?;
    }
    let samples = lag.finish();
    recorder.record(Measurement::StandbyLag {
        size,
        max_age_s: samples.iter().map(|s| s.0).fold(0.0, f64::max),
        max_wal_bytes: samples.iter().map(|s| s.1).max().unwrap_or(0),
    })
}

/// Waits (at most 60 s) until the standby has replayed all the cluster has written so far.
fn caught_up(bench: &Bench) -> Fallible<()> {
    let written = psql(&bench.cluster_url, "SELECT pg_current_wal_lsn()")?;
    let standby_url = bench.cluster.standby_url("postgres", "postgres")?;
    for _ in 0..600 {
        if psql(&standby_url, &format!("SELECT pg_last_wal_replay_lsn() >= '{written}'::pg_lsn"))
            .is_ok_and(|t| t == "t")
        {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!("the standby did not replay up to {written} in 60 s").into())
}

/// Every half second, the standby's lag: the age (s) of the last publication it holds (what
/// DATABASE_READ_MAX_LAG_MS bounds) and the WAL (bytes) it has yet to replay.
fn lag_sampler(bench: &Bench, database: &Database) -> Fallible<Sampler<(f64, u64)>> {
    let standby_url = bench.cluster.standby_url(&database.name, "postgres")?;
    let primary_url = bench.cluster_url.clone();
    Ok(Sampler::every(Duration::from_millis(500), move || {
        let row = psql(
            &standby_url,
            "SELECT extract(epoch FROM now() - published_at), pg_last_wal_replay_lsn() FROM app.booking_writers_published",
        )
        .ok()?;
        let (age, replayed) = row.split_once('|')?;
        let behind = psql(&primary_url, &format!("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{replayed}')")).ok()?;
        Some((age.parse().ok()?, behind.parse::<f64>().ok()? as u64))
    }))
}
