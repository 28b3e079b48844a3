//! Every route at every concurrency: the gateway, the pass-through, pgbench and the floor in
//! alternating rounds, each warm (wrk runs one unmeasured second first, so the servers' sessions
//! have prepared the route's statement; pgbench counts only its last window). Then again with the
//! gateway, and in its turn the pass-through, on a core of its own.

use std::path::PathBuf;

use super::database::Database;
use super::servers::{self, GatewayPlacement, Shared};
use super::{carry_on, soak, Bench};
use crate::instruments::gateway_metrics::{self, Clocks};
use crate::instruments::wrk::{Load, WrkRun};
use crate::measurements::{Measurement, Recorder, Side};
use crate::process::{cpu_us, DatabaseOnCores, Server};
use crate::rounds::{combine, Round};
use crate::scenarios::{Answer, Route, Script, ROUTES};
use crate::shell::Fallible;

/// A wrk run against a server, and the CPU time the server used meanwhile.
pub struct Timed {
    pub run: WrkRun,
    pub cpu_us: u64,
}

/// `route`'s requests sent by wrk to `server` at `connections` for `seconds`, the load on `cores`
/// when given.
pub fn wrk_on(
    bench: &Bench,
    database: &Database,
    route: &Route,
    server: &Server,
    connections: u32,
    seconds: u32,
    cores: Option<&str>,
) -> Fallible<Timed> {
    let body_file = route.body.map(|body| bench.work.join(body.file_name()));
    let path = route.path.replace("{since}", &database.tail_token);
    let load = Load::Route {
        method: route.method,
        path: &path,
        authorization: database.authorization_of(route.caller),
        body_file: body_file.as_deref(),
        follow_next: route.follows_next(),
        changing: route.changing(),
        expect: match route.answer {
            Answer::Refused(status) => Some(status),
            _ => None,
        },
    };
    let before = cpu_us(server.pid())?;
    let run = bench.wrk.run(connections, seconds, server.port, &load, cores)?;
    let cpu_us = cpu_us(server.pid())?.saturating_sub(before);
    carry_on()?;
    Ok(Timed { run, cpu_us })
}

/// A server's rounds as one side: the combined figures, and its CPU time per request answered.
pub fn side_of(rounds: &[Timed]) -> (Round, Option<f64>) {
    let requests: u64 = rounds.iter().map(|t| t.run.round.count).sum();
    let cpu: u64 = rounds.iter().map(|t| t.cpu_us).sum();
    let combined = combine(&rounds.iter().map(|t| t.run.round).collect::<Vec<_>>());
    (combined, (requests > 0).then(|| cpu as f64 / requests as f64))
}

/// Every route at every concurrency on the shared cores: gateway, pass-through, pgbench and
/// floor in alternating rounds; the WAL of writes; the gateway's clocks at one connection.
pub fn measure(bench: &Bench, database: &Database, shared: &Shared, recorder: &mut Recorder) -> Fallible<()> {
    let settings = bench.settings;
    let size = database.size;
    for route in ROUTES {
        let function =
            route.pgbench.as_ref().map(|s| sql_call(bench, database, route, s, SqlSide::Function)).transpose()?;
        let floor_call =
            route.floor.as_ref().map(|s| sql_call(bench, database, route, s, SqlSide::Floor)).transpose()?;
        for &connections in &settings.connections {
            eprintln!("{}: {} at {connections}", size.name(), route.scenario.label());
            // (clean tables, whatever an earlier route left: the changing PUT's dead rows)
            if route.answer.writes() {
                database.vacuum("")?;
            }
            wrk_on(bench, database, route, &shared.gateway, connections, 1, None)?;
            wrk_on(bench, database, route, &shared.bare, connections, 1, None)?;
            let clocks_before =
                (connections == 1).then(|| Clocks::read(&gateway_metrics::scrape(settings.ports.admin))).flatten();
            let (mut gateway, mut bare, mut pgbench, mut floor, mut wal_bytes) = (vec![], vec![], vec![], vec![], 0);
            for _ in 0..settings.rounds {
                if route.answer.writes() {
                    database.statement_wal_reset()?;
                }
                gateway.push(wrk_on(bench, database, route, &shared.gateway, connections, settings.window(), None)?);
                if route.answer.writes() {
                    wal_bytes += database.statement_wal_bytes()?;
                }
                bare.push(wrk_on(bench, database, route, &shared.bare, connections, settings.window(), None)?);
                if let Some(call) = &function {
                    pgbench.push(call.round(bench, connections)?);
                }
                if let Some(call) = &floor_call {
                    floor.push(call.round(bench, connections)?);
                }
            }
            let key = (size, route.scenario, connections);
            let gateway_side = side_of(&gateway);
            recorder.record(Measurement::side(key, Side::Gateway, gateway_side))?;
            recorder.record(Measurement::side(key, Side::Bare, side_of(&bare)))?;
            for (side, rounds) in [(Side::Pgbench, &pgbench), (Side::Floor, &floor)] {
                if !rounds.is_empty() {
                    recorder.record(Measurement::side(key, side, (combine(rounds), None)))?;
                }
            }
            if route.answer.writes() {
                let bytes_per_request = wal_bytes / gateway_side.0.count.max(1);
                recorder.record(Measurement::Wal { size, scenario: route.scenario, connections, bytes_per_request })?;
            }
            if let Some(before) = clocks_before {
                let after = Clocks::read(&gateway_metrics::scrape(settings.ports.admin));
                if let Some((request_ms, call_ms)) = after.and_then(|after| after.means_since(&before)) {
                    let requests: u64 = gateway.iter().map(|t| t.run.round.count).sum();
                    let weighted: f64 = gateway.iter().map(|t| t.run.round.count as f64 * t.run.mean_ms).sum();
                    recorder.record(Measurement::Clocks {
                        size,
                        scenario: route.scenario,
                        body_kib: body_kib(bench, route)?,
                        wrk_ms: weighted / requests.max(1) as f64,
                        request_ms,
                        call_ms,
                    })?;
                }
            }
        }
    }
    Ok(())
}

/// Whose SQL a route's pgbench rounds make: the gateway's own call as its role, or the floor's.
#[derive(Clone, Copy)]
enum SqlSide {
    Function,
    Floor,
}

/// A route's pgbench call: its script with its variables (the body's text among them), on the
/// connection string of its side; made once for all of the route's rounds.
fn sql_call(bench: &Bench, database: &Database, route: &Route, script: &Script, side: SqlSide) -> Fallible<SqlCall> {
    let (folder, url, mut variables) = match side {
        SqlSide::Function => (
            "pgbench",
            &database.gateway_url,
            vec![
                ("auth".to_string(), database.authorization_of(route.caller).to_string()),
                ("since".to_string(), database.tail_token.clone()),
            ],
        ),
        SqlSide::Floor => {
            let (key, secret) = database.key_and_secret();
            (
                "floor",
                &database.admin_url,
                vec![
                    ("operator".to_string(), database.operator.clone()),
                    ("key".to_string(), key.to_string()),
                    ("secret".to_string(), secret.to_string()),
                ],
            )
        }
    };
    if let Some(body) = route.body {
        variables.push(("body".to_string(), std::fs::read_to_string(bench.work.join(body.file_name()))?));
    }
    variables.extend(script.variables.iter().map(|(n, v)| (n.to_string(), v.to_string())));
    Ok(SqlCall::new(bench, folder, script.file, url, variables))
}

/// A pgbench script (`bench/<folder>/<file>`) with its variables, on one connection string.
pub struct SqlCall {
    path: PathBuf,
    url: String,
    variables: Vec<(String, String)>,
}

impl SqlCall {
    pub fn new(bench: &Bench, folder: &str, file: &str, url: &str, variables: Vec<(String, String)>) -> SqlCall {
        SqlCall { path: bench.settings.root.join("bench").join(folder).join(file), url: url.to_string(), variables }
    }

    /// One round at `connections`, its window counted.
    pub fn round(&self, bench: &Bench, connections: u32) -> Fallible<Round> {
        let path = std::slice::from_ref(&self.path);
        let run = bench.pgbench.run(connections, bench.settings.window(), &self.url, path, &self.variables, None)?;
        carry_on()?;
        Ok(run.round)
    }
}

/// The request body's size in KiB, one decimal (0 for none): the own-code target allows 4 µs a
/// KiB.
fn body_kib(bench: &Bench, route: &Route) -> Fallible<f64> {
    let Some(body) = route.body else { return Ok(0.0) };
    let bytes = std::fs::metadata(bench.work.join(body.file_name()))?.len();
    Ok((bytes as f64 / 1024.0 * 10.0).round() / 10.0)
}

/// Every route at every concurrency again, the gateway and in its turn the pass-through on a core
/// of its own, and everything else (PostgreSQL, wrk) on the other cores: the gateway as it runs
/// in production, with the default CPU scheduling. The soak follows on that gateway after the
/// last size.
pub fn measure_pinned(bench: &Bench, database: &Database, recorder: &mut Recorder, last_size: bool) -> Fallible<()> {
    let settings = bench.settings;
    let size = database.size;
    let cores = &bench.cores;
    let _database_on_others = DatabaseOnCores::pin(&bench.cluster_url, &cores.others, &cores.all)?;
    let gateway = servers::gateway(
        bench,
        database,
        GatewayPlacement {
            port: settings.ports.pinned,
            admin_port: None,
            read_url: None,
            core: Some(cores.gateway),
            log: "pinned.log",
        },
    )?;
    let bare = servers::bare(bench, database, settings.ports.pinned_bare, Some(cores.gateway), "pinned_bare.log")?;
    servers::serving(database, &[&gateway, &bare])?;
    let load_cores = Some(cores.others.as_str());
    for route in ROUTES {
        for &connections in &settings.connections {
            eprintln!("{}: {} at {connections}, the gateway on a core of its own", size.name(), route.scenario.label());
            if route.answer.writes() {
                database.vacuum("")?;
            }
            wrk_on(bench, database, route, &gateway, connections, 1, load_cores)?;
            wrk_on(bench, database, route, &bare, connections, 1, load_cores)?;
            let (mut gateway_rounds, mut bare_rounds) = (vec![], vec![]);
            for _ in 0..settings.rounds {
                gateway_rounds.push(wrk_on(
                    bench,
                    database,
                    route,
                    &gateway,
                    connections,
                    settings.window(),
                    load_cores,
                )?);
                bare_rounds.push(wrk_on(bench, database, route, &bare, connections, settings.window(), load_cores)?);
            }
            for (side, rounds) in [(Side::PinnedGateway, &gateway_rounds), (Side::PinnedBare, &bare_rounds)] {
                recorder.record(Measurement::side((size, route.scenario, connections), side, side_of(rounds)))?;
            }
        }
    }
    drop(bare);
    if last_size {
        soak::measure(bench, database, &gateway, recorder)?;
    }
    Ok(())
}
