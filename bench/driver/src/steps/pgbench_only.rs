//! What pgbench alone measures: the platform's booking writes against their floor, and an
//! unchanged lot PUT against a GET of the lot in the same seconds.

use super::database::Database;
use super::routes::SqlCall;
use super::{carry_on, Bench};
use crate::measurements::{Measurement, Recorder, Side};
use crate::rounds::combine;
use crate::scenarios::{booking_write_scenarios, BOOKING_WRITES, BOOKING_WRITE_MAX_CONNECTIONS};
use crate::shell::Fallible;

/// Booking writes as the platform makes them: one booking a transaction through
/// platform.booking_record and platform.booking_update (a status change, a date change), with the
/// operator's webhook endpoint armed (bench/generate.sql armed it: every write leaves a hint; no
/// worker runs, so the hints pile up as behind a slow receiver), then disarmed (its waiting hints
/// die, as a disarm does). The platform's functions are SECURITY DEFINER: pgbench calls them as
/// the superuser, against the plainest SQL writing the same row with every trigger on, the lot
/// found by its key (bench/floor/booking_*.sql), as a role that owns nothing under the same forced
/// row-level security. No gateway side: no HTTP route writes bookings.
pub fn measure_booking_writes(bench: &Bench, database: &Database, recorder: &mut Recorder) -> Fallible<()> {
    let settings = bench.settings;
    let size = database.size;
    let variables = vec![
        ("operator".to_string(), database.operator.clone()),
        ("lots".to_string(), size.lots().to_string()),
        ("bookings".to_string(), size.bookings().to_string()),
    ];
    let mut armed = true;
    for (scenario, script) in booking_write_scenarios() {
        if armed && BOOKING_WRITES.iter().any(|w| w.disarmed == scenario) {
            database.disarm_endpoint()?;
            armed = false;
        }
        let function_call = SqlCall::new(bench, "pgbench", script, &database.admin_url, variables.clone());
        let floor_call = SqlCall::new(bench, "floor", script, &database.booking_floor_url, variables.clone());
        for &connections in settings.connections.iter().filter(|&&c| c <= BOOKING_WRITE_MAX_CONNECTIONS) {
            eprintln!("{}: {} at {connections}", size.name(), scenario.label());
            database.vacuum("app.bookings, app.lot_booking_days, app.webhook_hints")?;
            let (mut function, mut floor) = (vec![], vec![]);
            for _ in 0..settings.rounds {
                function.push(function_call.round(bench, connections)?);
                floor.push(floor_call.round(bench, connections)?);
            }
            for (side, rounds) in [(Side::Pgbench, &function), (Side::Floor, &floor)] {
                recorder.record(Measurement::side((size, scenario, connections), side, (combine(rounds), None)))?;
            }
        }
    }
    Ok(())
}

/// An unchanged lot PUT and a GET of the lot: both scripts in one pgbench run at one connection,
/// interleaved at random, so that both are measured in the same seconds.
pub fn measure_interleaved(bench: &Bench, database: &Database, recorder: &mut Recorder) -> Fallible<()> {
    eprintln!("{}: PUT lot, unchanged and GET one lot, interleaved", database.size.name());
    let lot = std::fs::read_to_string(bench.work.join(crate::scenarios::Body::Lot.file_name()))?;
    database.lot_written_last(&lot)?;
    let scripts = bench.settings.root.join("bench/pgbench");
    let variables = [
        ("auth".to_string(), database.authorization.clone()),
        ("lot".to_string(), "lot-000002".to_string()),
        ("body".to_string(), lot),
        ("after".to_string(), "lot-000001".to_string()),
        ("limit".to_string(), "1".to_string()),
    ];
    let mut run = bench.pgbench.run(
        1,
        bench.settings.duration,
        &database.gateway_url,
        &[scripts.join("lot_put.sql"), scripts.join("lots_page.sql")],
        &variables,
        None,
    )?;
    carry_on()?;
    let mut p50 = |script: usize| {
        run.latencies_by_script.get_mut(script).map(|l| crate::rounds::percentile(l, 50)).unwrap_or(0.0)
    };
    let (put_p50_ms, get_p50_ms) = (p50(0), p50(1));
    recorder.record(Measurement::Interleaved { size: database.size, put_p50_ms, get_p50_ms })
}
