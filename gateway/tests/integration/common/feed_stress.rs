//! Many writers at random, for the bookings feed's no-skip tests (bookings_feed_cursor.rs on the
//! primary, standby.rs on a hot standby, failover.rs across a failover): each records and changes
//! bookings of the operator's lots `harbour-1` and `harbour-2` in transactions of its own that
//! commit (or roll back) after random delays, so bookings commit out of their feed order.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::{connect, connected, Operator};

/// xorshift64*: a small, seedable generator (no dependency), good enough to pick writes and delays.
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// 0..n
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a>(&mut self, values: &[&'a str]) -> &'a str {
        values[self.below(values.len() as u64) as usize]
    }
}

const STATUSES: [&str; 5] = ["pending", "confirmed", "checked_in", "completed", "cancelled"];
const PAYMENT_STATUSES: [&str; 6] = ["pending", "paid", "partial", "refunded", "expired", "not_required"];

fn random_booking(rng: &mut XorShift) -> Value {
    let day = 1 + rng.below(27);
    let nights = 1 + rng.below(3);
    json!({
        "lot_external_id": rng.pick(&["harbour-1", "harbour-2"]),
        "check_in_local": format!("2026-08-{day:02}T{:02}:{:02}:00", rng.below(24), rng.below(60)),
        "check_out_local": format!("2026-08-{:02}T10:00:00", day + nights),
        "parking_days": nights,
        "status": rng.pick(&STATUSES),
        "payment_status": rng.pick(&PAYMENT_STATUSES),
        "currency": "EUR",
        "total": format!("{}.{:02}", rng.below(900), rng.below(100)),
        "channel": rng.pick(&["marketplace", "direct", "phone"]),
    })
}

fn random_changes(rng: &mut XorShift) -> Value {
    let mut changes = serde_json::Map::new();
    while changes.is_empty() {
        if rng.chance(40) {
            changes.insert("status".into(), json!(rng.pick(&STATUSES)));
        }
        if rng.chance(30) {
            changes.insert("payment_status".into(), json!(rng.pick(&PAYMENT_STATUSES)));
        }
        if rng.chance(30) {
            changes.insert("total".into(), json!(format!("{}.{:02}", rng.below(900), rng.below(100))));
        }
        if rng.chance(20) {
            let flight = if rng.chance(50) { json!(format!("TP{}", rng.below(9000))) } else { Value::Null };
            changes.insert("flight_number".into(), flight);
        }
        if rng.chance(20) {
            changes.insert("customer".into(), json!({ "last_name": format!("N{}", rng.below(1000)) }));
        }
        if rng.chance(10) {
            changes.insert("lot_external_id".into(), json!(rng.pick(&["harbour-1", "harbour-2"])));
        }
    }
    Value::Object(changes)
}

#[derive(Default, Debug)]
pub struct WriterCounts {
    pub recorded: usize,
    pub changed: usize,
    pub rolled_back: usize,
    pub transactions: usize,
}

/// One writer on its own connection: `transactions` transactions of one to three writes each
/// (record a booking, or change one this writer committed earlier), with random pauses between
/// the writes and before the end, committed or (one in ten) rolled back.
pub async fn writer(url: String, operator: Operator, seed: u64, transactions: usize) -> WriterCounts {
    let mut rng = XorShift::new(seed);
    let mut db = connect(&url).await;
    let mut mine: Vec<String> = Vec::new();
    let mut counts = WriterCounts::default();
    for _ in 0..transactions {
        one_transaction(&mut db, &operator, &mut rng, &mut mine, &mut counts)
            .await
            .unwrap_or_else(|e| panic!("a writer's transaction: {e:?}"));
    }
    counts
}

/// The same writer across a failover: transactions until `stop`, on a connection made again
/// after any error (the transaction it was in is then lost, or, if the error came with its
/// commit, perhaps kept: the feed must deliver whatever the database holds either way).
pub async fn writer_through_failover(
    url: String,
    operator: Operator,
    seed: u64,
    stop: Arc<AtomicBool>,
) -> WriterCounts {
    let mut rng = XorShift::new(seed);
    let mut mine: Vec<String> = Vec::new();
    let mut counts = WriterCounts::default();
    let mut db: Option<tokio_postgres::Client> = None;
    while !stop.load(Ordering::Relaxed) {
        let Some(client) = connected(&mut db, &url).await else { continue };
        if one_transaction(client, &operator, &mut rng, &mut mine, &mut counts).await.is_err() {
            db = None;
        }
    }
    counts
}

/// One transaction of [`writer`]'s: its writes, pauses and end.
async fn one_transaction(
    db: &mut tokio_postgres::Client,
    operator: &Operator,
    rng: &mut XorShift,
    mine: &mut Vec<String>,
    counts: &mut WriterCounts,
) -> Result<(), tokio_postgres::Error> {
    let transaction = db.transaction().await?;
    let (mut recorded, mut changed) = (Vec::new(), 0);
    for _ in 0..1 + rng.below(3) {
        if mine.is_empty() || rng.chance(55) {
            let booking = random_booking(rng);
            let row =
                transaction.query_one("SELECT platform.booking_record($1, $2)", &[&operator.id, &booking]).await?;
            recorded.push(row.get::<_, String>(0));
        } else {
            let reference = &mine[rng.below(mine.len() as u64) as usize];
            let changes = random_changes(rng);
            transaction
                .execute("SELECT platform.booking_update($1, $2, $3)", &[&operator.id, reference, &changes])
                .await?;
            changed += 1;
        }
        tokio::time::sleep(Duration::from_millis(rng.below(15))).await;
    }
    tokio::time::sleep(Duration::from_millis(rng.below(40))).await;
    counts.transactions += 1;
    if rng.chance(10) {
        transaction.rollback().await?;
        counts.rolled_back += 1;
    } else {
        transaction.commit().await?;
        counts.recorded += recorded.len();
        counts.changed += changed;
        mine.extend(recorded);
    }
    Ok(())
}

/// `count` writers on `url`'s database, each with its own seed drawn from `seed`, of
/// `transactions` transactions each.
pub fn spawn_writers(
    url: &str,
    operator: &Operator,
    seed: u64,
    count: u64,
    transactions: usize,
) -> Vec<JoinHandle<WriterCounts>> {
    (0..count)
        .map(|index| {
            let seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(index + 1);
            tokio::spawn(writer(url.to_string(), operator.clone(), seed, transactions))
        })
        .collect()
}

/// What the writers did, added up (`marks`: bookings recorded before they started).
pub async fn totals(writers: Vec<JoinHandle<WriterCounts>>, marks: usize) -> WriterCounts {
    let mut totals = WriterCounts { recorded: marks, ..WriterCounts::default() };
    for writer in writers {
        let counts = writer.await.expect("a writer panicked");
        totals.recorded += counts.recorded;
        totals.changed += counts.changed;
        totals.rolled_back += counts.rolled_back;
        totals.transactions += counts.transactions;
    }
    totals
}
