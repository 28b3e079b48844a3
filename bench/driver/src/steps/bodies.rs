//! The request bodies the routes send (`scenarios::Body`), written under the run's work
//! directory: stored rows read back through the API's functions (so their PUT is unchanged), the
//! 64 KiB texts, and the 512 lots the changing PUT writes. Written without a closing line break:
//! pgbench is given a file's text as a variable, wrk sends the file as it is, and both must send
//! the same bytes.

use super::database::Database;
use super::Bench;
use crate::scenarios::Body;
use crate::shell::{psql_with, Fallible};
use crate::texts::{made, MADE};

pub fn write(bench: &Bench, database: &Database) -> Fallible<()> {
    let auth = [("auth", database.authorization.as_str())];
    let answer = |sql: &str| psql_with(&database.admin_url, &auth, sql);
    let save = |body: Body, text: &str| std::fs::write(bench.work.join(body.file_name()), text);

    let lot = answer("SELECT ((body -> 'lots' -> 0) - 'rates')::text FROM api.lots_get(:'auth', 'lot-000001', 1)")?;
    save(Body::Lot, &lot)?;
    // "other text": the same values spaced otherwise; the full check runs and answers unchanged.
    save(Body::LotOtherText, &lot.replace(", \"", ",  \""))?;
    database.lot_written_last(&lot)?;
    save(
        Body::Rates,
        &answer(
            "SELECT ((body -> 'lots' -> 0 -> 'rates') - 'channel')::text FROM api.lots_get(:'auth', 'lot-000001', 1)",
        )?,
    )?;
    save(
        Body::Closures,
        &answer(
            "SELECT jsonb_build_object('blocked_periods', jsonb_agg(p - 'overlapping_bookings'))::text
               FROM api.lot_blocked_periods_get(:'auth', 'lot-000001') AS g,
                    jsonb_array_elements(g.body -> 'blocked_periods') AS p",
        )?,
    )?;
    for body in MADE {
        save(body, &made(body))?;
    }
    // lot-000004 with 16 KiB of arrival, sent again laid out with 64 KiB of white space: the full
    // check runs, and it is unchanged.
    database.lot_put(
        "lot-000004",
        "jsonb_build_object('name', 'Wide lot', 'timezone', 'Europe/London', 'handover', 'self',
                            'online_bookable', true,
                            'arrival', (SELECT jsonb_object_agg('step_' || i, repeat('x', 70))
                                          FROM generate_series(1, 180) AS i))::text",
        &[],
    )?;
    save(
        Body::ReadLot,
        &answer(
            "SELECT replace(jsonb_pretty((body -> 'lots' -> 0) - 'rates'), chr(10), chr(10) || repeat(' ', 190))
               FROM api.lots_get(:'auth', 'lot-000003', 1)",
        )?,
    )?;
    let changing =
        r#"{"name":"Bench put","timezone":"Europe/Paris","handover":"self","online_bookable":false,"capacity":0}"#;
    save(Body::Changing, changing)?;
    psql_with(
        &database.admin_url,
        &[("auth", &database.authorization), ("body", changing)],
        "SELECT count(*) FROM generate_series(0, 511) AS k, api.lot_put(:'auth', 'bench-put-' || k, :'body', false) AS p",
    )?;
    Ok(())
}
