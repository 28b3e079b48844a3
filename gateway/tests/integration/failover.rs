//! Failover: the primary's machine dies under load and Patroni promotes its synchronous standby.
//! Nothing acknowledged is lost, no cursor skips a booking (writers commit out of order across the
//! switch), every hint due is delivered, and the gateway and its webhook worker carry on without a
//! restart: during the switch a request answers 503 `try_again` with `Retry-After` or succeeds,
//! never 500, never past its deadline. The old primary then rejoins as a replica (`pg_rewind`), and
//! the next failover, back to it, goes the same way. A promoted node whose clock is behind the old
//! primary's still stamps every change after every cursor handed out (docs/design.md, "The
//! bookings feed's guarantee").
//!
//! The cluster is a real one ([`crate::common::patroni`]); the gateway and the worker reach the
//! leader the way docs/operating.md tells a deployment to: a multi-host `DATABASE_URL` with
//! `target_session_attrs=read-write`. The time from the kill to the first write and to the first
//! feed page is printed (`cargo test --test integration failover -- --nocapture`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http::Method;
use serde_json::{json, Value};
use tokio::task::JoinHandle;

use crate::common::bookings::{assert_page, bookings_path, minimal_booking, pull_query, reference_of};
use crate::common::feed_stress::{writer_through_failover, WriterCounts};
use crate::common::lots::{json_headers, minimal_lot};
use crate::common::patroni::{PatroniCluster, Role};
use crate::common::supply::range;
use crate::common::webhooks::{loopback_is_public, wired_worker, FixedResolver, Receiver, TestAuthority};
use crate::common::{connect, connected, header_map, Credential, Http, Operator, TestApp, TestResponse, ALL_SCOPES};

/// The gateway's DATABASE_TIMEOUT_MS here.
const DATABASE_TIMEOUT_MS: u64 = 2000;
/// No answer may take longer: a wait for a connection and the statement, each within the timeout.
const ANSWER_BOUND: Duration = Duration::from_millis(2 * DATABASE_TIMEOUT_MS + 1000);
/// The webhook receiver's name, resolved to the local receiver.
const HOOK_HOST: &str = "hooks.example.test";

/// One Patroni cluster at a time: two at once on a small machine could starve a leader's Patroni
/// past its `ttl` and fail over by themselves. Held for a whole test (a test that panicked passes
/// the turn on).
async fn one_cluster_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    TURN.lock().await
}

/// What the load saw, shared by its tasks.
#[derive(Default)]
struct Seen {
    /// Answers that break the contract during a failover (a 500, another status, a slow answer).
    faults: Vec<String>,
    /// 503 `try_again` answers, each with its Retry-After checked; when the last of them was sent.
    try_again: usize,
    last_try_again: Option<Instant>,
    /// Each writer's lot and the capacity of its last acknowledged PUT, and the base price (whole
    /// euros) of its last acknowledged rates PUT.
    lots: BTreeMap<String, (i64, i64)>,
    /// Every booking the platform was given a reference for, with the status of its last
    /// acknowledged change (each booking is changed at most once).
    bookings: BTreeMap<String, String>,
    /// Bookings whose change was sent and not acknowledged: it may or may not have committed.
    in_doubt: BTreeSet<String>,
    /// When each write (a PUT) and each feed page that succeeded was sent (not answered: one sent
    /// before the kill may be answered after it).
    writes_sent: Vec<Instant>,
    pages_sent: Vec<Instant>,
}

type Shared = Arc<Mutex<Seen>>;

/// The load's tasks, awaited once it is stopped (a task that panicked fails the test).
struct Load {
    tasks: Vec<JoinHandle<()>>,
    stress: Vec<JoinHandle<WriterCounts>>,
    readers: Vec<JoinHandle<Reader>>,
}

impl Load {
    /// Waits for every task to end; answers the readers and how many bookings the stress writers
    /// committed.
    async fn ended(self) -> (Vec<Reader>, usize) {
        for task in self.tasks {
            task.await.expect("a writer of the load panicked");
        }
        let mut committed = 0;
        for writer in self.stress {
            committed += writer.await.expect("a stress writer panicked").recorded;
        }
        let mut readers = Vec::new();
        for reader in self.readers {
            readers.push(reader.await.expect("a reader panicked"));
        }
        (readers, committed)
    }
}

/// The world of a failover test: the cluster, a gateway with its worker, an operator with every
/// scope and an armed endpoint at the local receiver.
struct World {
    cluster: PatroniCluster,
    app: TestApp,
    operator: Operator,
    credential: Credential,
    receiver: Receiver,
    _authority: TestAuthority,
}

impl World {
    /// `watermark_lag`: the feed's `bookings_watermark_lag`. At `0 seconds` the feed commits its
    /// cursor up to the latest booking: a cursor handed out before the kill then points at the
    /// newest rows, where a skip would show.
    async fn start(clock_offsets: [Option<&str>; 2], watermark_lag: &str) -> World {
        let cluster = PatroniCluster::start(clock_offsets).await;
        let url = cluster.url();
        gateway::migrate::run(&url).await.expect("migrate the cluster");
        connect(&url)
            .await
            .execute("UPDATE app.settings SET value = $1 WHERE name = 'bookings_watermark_lag'", &[&watermark_lag])
            .await
            .expect("the watermark lag");
        let authority = TestAuthority::new();
        let receiver = Receiver::start(&authority).await;
        let resolver = FixedResolver::default().addresses(HOOK_HOST, &["127.0.0.1"]);
        let (worker, _lines) =
            wired_worker(&url, &authority, receiver.addr.port(), Arc::new(resolver), loopback_is_public());
        let app = TestApp::spawn_serving(
            &url,
            |settings| {
                settings.set("DATABASE_TIMEOUT_MS", DATABASE_TIMEOUT_MS).set("DATABASE_POOL_SIZE", 8);
            },
            Some(worker),
        )
        .await;
        let (operator, _secret) = app.webhook_operator(&format!("https://{HOOK_HOST}/hooks")).await;
        let credential = app.issue(&operator, &ALL_SCOPES, None).await;
        for lot in ["harbour-1", "harbour-2"] {
            app.put_lot_expecting(&credential, lot, &minimal_lot(lot), 201).await;
        }
        World { cluster, app, operator, credential, receiver, _authority: authority }
    }

    /// The load: `writers` lot writers; the platform: one writer whose every acknowledged booking is
    /// kept, and three of the feed's stress writers, committing out of order; two feed readers;
    /// until `stop`.
    fn load(&self, seen: &Shared, stop: &Arc<AtomicBool>, writers: usize, round: &str) -> Load {
        let mut tasks = Vec::new();
        for writer in 0..writers {
            tasks.push(tokio::spawn(lot_writer(
                self.app.http(),
                self.credential.clone(),
                format!("{round}-writer-{writer}"),
                seen.clone(),
                stop.clone(),
            )));
        }
        tasks.push(tokio::spawn(platform_writer(
            self.cluster.url(),
            self.operator.clone(),
            seen.clone(),
            stop.clone(),
        )));
        let stress = (1..=3)
            .map(|seed| {
                tokio::spawn(writer_through_failover(self.cluster.url(), self.operator.clone(), seed, stop.clone()))
            })
            .collect();
        let readers = (0..2)
            .map(|_| {
                tokio::spawn(Reader::new(self.app.http(), self.credential.bearer()).follow(seen.clone(), stop.clone()))
            })
            .collect();
        Load { tasks, stress, readers }
    }

    /// Kills the leader under the running load; answers the kill's moment and the killed node.
    async fn kill_leader(&mut self) -> (Instant, usize) {
        let leader = self.cluster.leader().await.expect("a leader before the kill");
        let killed_at = Instant::now();
        self.cluster.kill(leader);
        (killed_at, leader)
    }

    /// Waits (at most 60 s) until a node other than `killed` leads.
    async fn promoted(&self, killed: usize) {
        self.cluster
            .wait_for(|roles| roles.iter().enumerate().any(|(i, r)| i != killed && *r == Role::Leader), "a new leader")
            .await;
    }

    /// Every acknowledged write is on the leader: each lot and envelope at least as new as its last
    /// 2xx (a write that failed may still have committed), each booking there with its last
    /// acknowledged status.
    async fn assert_nothing_acknowledged_lost(&self, seen: &Shared) {
        let (lots, bookings, in_doubt) = {
            let seen = seen.lock().unwrap();
            (seen.lots.clone(), seen.bookings.clone(), seen.in_doubt.clone())
        };
        assert!(!lots.is_empty() && !bookings.is_empty(), "the load wrote");
        let db = connect(&self.cluster.url()).await;
        for (lot, (capacity, base)) in &lots {
            let row = db
                .query_one(
                    "SELECT l.capacity::bigint, floor(r.base_price)::bigint
                       FROM app.lots AS l LEFT JOIN app.lot_rates AS r ON r.operator_id = l.operator_id AND r.lot_id = l.id
                      WHERE l.operator_id = $1 AND l.external_id = $2",
                    &[&self.operator.id, lot],
                )
                .await
                .unwrap_or_else(|e| panic!("acknowledged lot {lot} is not on the new leader: {e}"));
            let (stored_capacity, stored_base): (i64, Option<i64>) = (row.get(0), row.get(1));
            assert!(stored_capacity >= *capacity, "lot {lot}: capacity {stored_capacity}, acknowledged {capacity}");
            assert!(stored_base.unwrap_or(0) >= *base, "lot {lot}: base price {stored_base:?}, acknowledged {base}");
        }
        let stored: BTreeMap<String, String> = db
            .query("SELECT reference, status FROM app.bookings WHERE operator_id = $1", &[&self.operator.id])
            .await
            .expect("the bookings")
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
        for (reference, status) in &bookings {
            let stored = stored.get(reference);
            let either = in_doubt.contains(reference) && stored.is_some_and(|s| s == "cancelled");
            assert!(
                stored == Some(status) || either,
                "acknowledged booking {reference}: {stored:?}, acknowledged {status}"
            );
        }
    }

    /// Each reader, continuing from its cursor, ends with every booking in its stored state; and
    /// every booking's hint reaches the receiver (at least once).
    async fn assert_feed_and_hints_complete(&self, readers: Vec<Reader>) {
        let expected = self.app.bookings_in_database(&self.operator).await;
        for mut reader in readers {
            reader.catch_up().await;
            let missing: Vec<&String> = expected.keys().filter(|r| !reader.bookings.contains_key(*r)).collect();
            assert!(missing.is_empty(), "a cursor followed across the failover skipped {missing:?}");
            for (reference, booking) in &expected {
                assert_eq!(&reader.bookings[reference], booking, "booking {reference} as the reader stored it");
            }
        }
        // Every hint the database holds is delivered, and every booking's reached the receiver. (A
        // hint whose claim was committed and never sent waits out its lease: 60 s.)
        let db = connect(&self.cluster.url()).await;
        let started = Instant::now();
        loop {
            let waiting: i64 = db
                .query_one(
                    "SELECT count(*) FROM app.webhook_hints WHERE operator_id = $1 AND state <> 'delivered'",
                    &[&self.operator.id],
                )
                .await
                .expect("the hints")
                .get(0);
            let hinted: BTreeSet<String> = self
                .receiver
                .received()
                .iter()
                .map(|r| r.json()["booking_reference"].as_str().unwrap_or_default().to_string())
                .collect();
            let unhinted: Vec<&String> = expected.keys().filter(|r| !hinted.contains(*r)).collect();
            if unhinted.is_empty() && waiting == 0 {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(80),
                "no hint delivered for {unhinted:?}; {waiting} hints not delivered"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Checks one answer during the failover: a success, or 503 `try_again` with Retry-After, within
/// [`ANSWER_BOUND`]. Answers whether it succeeded.
fn judge(seen: &Shared, what: &str, answer: &Result<TestResponse, String>, took: Duration) -> bool {
    let mut seen = seen.lock().unwrap();
    if took > ANSWER_BOUND {
        seen.faults.push(format!("{what}: answered after {took:?}"));
    }
    let response = match answer {
        Ok(response) => response,
        Err(error) => {
            seen.faults.push(format!("{what}: no answer ({error})"));
            return false;
        }
    };
    match response.status.as_u16() {
        200 | 201 => true,
        503 => {
            let body = response.json();
            let retry_after = response.header("retry-after").and_then(|v| v.parse::<u64>().ok());
            if body != json!({"error": "try_again"}) || retry_after.is_none_or(|s| s < 1) {
                seen.faults.push(format!("{what}: 503 {body} Retry-After {retry_after:?}"));
            }
            seen.try_again += 1;
            let sent = Instant::now() - took;
            seen.last_try_again = seen.last_try_again.max(Some(sent));
            false
        }
        status => {
            seen.faults.push(format!("{what}: {status} {}", response.text()));
            false
        }
    }
}

/// PUTs its lot with a growing capacity, and the lot's rates with a growing base price, until stopped.
async fn lot_writer(http: Http, credential: Credential, lot: String, seen: Shared, stop: Arc<AtomicBool>) {
    let headers = json_headers(&credential);
    let mut version: i64 = 1;
    while !stop.load(Ordering::Relaxed) {
        let body = json!({"name": "Failover lot", "timezone": "Europe/London", "handover": "self",
                          "online_bookable": true, "capacity": version});
        let started = Instant::now();
        let answer = http.try_request(Method::PUT, &format!("/v1/lots/{lot}"), headers.clone(), body.to_string()).await;
        if judge(&seen, "PUT lot", &answer, started.elapsed()) {
            let mut seen = seen.lock().unwrap();
            seen.lots.entry(lot.clone()).or_insert((0, 0)).0 = version;
            seen.writes_sent.push(started);
        } else {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let rates = range("1.00", &format!("{}.00", version + 1), "100000.00");
        let started = Instant::now();
        let answer =
            http.try_request(Method::PUT, &format!("/v1/lots/{lot}/rates"), headers.clone(), rates.to_string()).await;
        if judge(&seen, "PUT rates", &answer, started.elapsed()) {
            let mut seen = seen.lock().unwrap();
            if let Some(entry) = seen.lots.get_mut(&lot) {
                entry.1 = version + 1;
            }
            seen.writes_sent.push(started);
        }
        version += 1;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The booking engine: records bookings and changes some (each once) on lot `lot-1` through
/// `platform.*`, on a connection to the leader made again after any error, until stopped. Only a
/// call that returned counts as acknowledged.
async fn platform_writer(url: String, operator: Operator, seen: Shared, stop: Arc<AtomicBool>) {
    let mut client: Option<tokio_postgres::Client> = None;
    let mut unchanged: Vec<String> = Vec::new();
    let mut day = 0u32;
    while !stop.load(Ordering::Relaxed) {
        let Some(db) = connected(&mut client, &url).await else { continue };
        day += 1;
        let result = if day.is_multiple_of(3) && !unchanged.is_empty() {
            let reference = unchanged.remove(0);
            seen.lock().unwrap().in_doubt.insert(reference.clone());
            db.execute(
                "SELECT platform.booking_update($1, $2, $3)",
                &[&operator.id, &reference, &json!({"status": "cancelled"})],
            )
            .await
            .map(|_| {
                let mut seen = seen.lock().unwrap();
                seen.in_doubt.remove(&reference);
                seen.bookings.insert(reference, "cancelled".into())
            })
        } else {
            let check_in = format!("2026-09-{:02}T10:00:00", 1 + day % 27);
            let check_out = format!("2026-09-{:02}T10:00:00", 2 + day % 27);
            db.query_one(
                "SELECT platform.booking_record($1, $2)",
                &[&operator.id, &minimal_booking("lot-1", &check_in, &check_out)],
            )
            .await
            .map(|row| {
                let reference: String = row.get(0);
                unchanged.push(reference.clone());
                seen.lock().unwrap().bookings.insert(reference, "confirmed".into())
            })
        };
        if result.is_err() {
            client = None;
        }
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
}

/// A client of the feed following the spec's polling pattern, its cursor kept across the failover.
struct Reader {
    http: Http,
    bearer: String,
    cursor: Option<String>,
    bookings: BTreeMap<String, Value>,
}

impl Reader {
    fn new(http: Http, bearer: String) -> Reader {
        Reader { http, bearer, cursor: None, bookings: BTreeMap::new() }
    }

    /// One pull from the saved cursor: on 200 the page is stored, then `next` saved. Answers the
    /// page's has_more and how many bookings were new or changed, or None when it was refused.
    async fn pull(&mut self, seen: Option<&Shared>) -> Option<(bool, usize)> {
        let path = bookings_path(&pull_query(self.cursor.as_deref(), 50));
        let started = Instant::now();
        let answer =
            self.http.try_request(Method::GET, &path, header_map(&[("authorization", &self.bearer)]), "").await;
        if let Some(seen) = seen {
            if !judge(seen, "GET /bookings", &answer, started.elapsed()) {
                return None;
            }
        }
        let response = answer.expect("GET /bookings after the failover");
        let page = assert_page(&response);
        let mut news = 0;
        for booking in &page.bookings {
            if self.bookings.insert(reference_of(booking), booking.clone()).as_ref() != Some(booking) {
                news += 1;
            }
        }
        self.cursor = Some(page.next.clone());
        if let Some(seen) = seen {
            let mut seen = seen.lock().unwrap();
            seen.pages_sent.push(started);
        }
        Some((page.has_more, news))
    }

    /// Pulls until stopped, a short pause after a last page or a refusal.
    async fn follow(mut self, seen: Shared, stop: Arc<AtomicBool>) -> Reader {
        while !stop.load(Ordering::Relaxed) {
            match self.pull(Some(&seen)).await {
                Some((true, _)) => {}
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
        self
    }

    /// Pulls until a last page brings nothing new.
    async fn catch_up(&mut self) {
        for _ in 0..500 {
            if let Some((false, 0)) = self.pull(None).await {
                return;
            }
        }
        panic!("the feed did not settle (cursor {:?})", self.cursor);
    }
}

/// One failover under load: the load runs, the leader is killed, the load runs on until a write
/// and a page have succeeded and a little longer; then everything acknowledged is checked.
async fn failover_under_load(world: &mut World, round: &str) -> usize {
    let seen: Shared = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let load = world.load(&seen, &stop, 2, round);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (killed_at, killed) = world.kill_leader().await;
    world.promoted(killed).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::Relaxed);
    let (followed, committed) = load.ended().await;
    assert!(committed > 0, "the stress writers committed bookings");
    {
        let seen = seen.lock().unwrap();
        assert!(seen.faults.is_empty(), "answers that break the contract during the failover: {:#?}", seen.faults);
        // The switch ends with its last 503 (a request or two sent just after the kill may still be
        // served by the dying server's last backends): the first success sent after it, from the kill.
        let end = seen.last_try_again.unwrap_or(killed_at).max(killed_at);
        let first_after = |sent: &[Instant]| {
            sent.iter().filter(|at| **at > end).min().map(|at| *at - killed_at).expect("a success after the switch")
        };
        let (first_write, first_page) = (first_after(&seen.writes_sent), first_after(&seen.pages_sent));
        println!(
            "failover ({round}, {}): first write {first_write:?} and first feed page {first_page:?} after the kill; \
             {} answers 503 try_again meanwhile",
            PatroniCluster::settings(),
            seen.try_again
        );
    }
    let leader = world.cluster.leader().await.expect("a leader: writes succeeded");
    assert_ne!(leader, killed, "the standby was promoted");
    world.assert_nothing_acknowledged_lost(&seen).await;
    world.assert_feed_and_hints_complete(followed).await;
    killed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_primary_killed_under_load_loses_nothing_acknowledged_and_its_old_node_takes_over_the_next_time() {
    let _turn = one_cluster_at_a_time().await;
    let mut world = World::start([None, None], "0 seconds").await;

    let first_killed = failover_under_load(&mut world, "first").await;

    // The old primary rejoins as a replica: rewound, streaming synchronously.
    world.cluster.restart(first_killed);
    world.cluster.wait_until_replicating().await;
    assert_eq!(world.cluster.roles().await[first_killed], Role::Replica, "the old primary rejoined as a replica");

    // And the next failover goes back to it the same way, with the same gateway and worker.
    failover_under_load(&mut world, "back").await;
    assert_eq!(world.cluster.leader().await, Some(first_killed), "the first node leads again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promoted_node_whose_clock_is_behind_stamps_every_change_after_every_cursor() {
    // Node 1's clock is 90 s behind node 0's, more than the watermark lag of 60 s: the cursor node
    // 0 hands out (its clock less the lag) is ahead of node 1's clock, and a change stamped by node
    // 1's clock would be skipped by a reader that comes back once node 1's watermark has passed that
    // cursor (before, the cursor is clamped back to node 1's watermark and nothing shows). A stamp
    // is carried past the operator's latest, at most to the clock plus the lag: clocks that differ
    // by less than twice the lag skip nothing.
    let _turn = one_cluster_at_a_time().await;
    let mut world = World::start([None, Some("-90s")], "60 seconds").await;
    let booking = |day: u32| {
        minimal_booking("lot-1", &format!("2026-10-{day:02}T10:00:00"), &format!("2026-10-{:02}T10:00:00", day + 1))
    };
    let mut before = Vec::new();
    for day in 1..=3 {
        before.push(world.app.record(&world.operator, &booking(day)).await);
    }
    let mut reader = Reader::new(world.app.http(), world.credential.bearer());
    reader.catch_up().await;
    assert!(before.iter().all(|r| reader.bookings.contains_key(r)), "the reader has the bookings made on node 0");

    let (_, killed) = world.kill_leader().await;
    assert_eq!(killed, 0);
    world.cluster.wait_for(|roles| roles[1] == Role::Leader, "node 1 to be promoted").await;
    let db = connect(&world.cluster.url()).await;
    let behind: bool = db
        .query_one("SELECT now() < (SELECT max(changed_at) FROM app.bookings) - interval '60 seconds'", &[])
        .await
        .expect("node 1's clock")
        .get(0);
    assert!(behind, "node 1's clock ({:?}) is behind the stamps node 0 wrote", world.cluster.clock_offset(1));

    // A new booking and a change to an old one, on the node whose clock is behind: the reader,
    // from the cursor node 0 handed out, receives both.
    let mut recorded = String::new();
    for attempt in 0..50 {
        if let Ok(row) =
            db.query_one("SELECT platform.booking_record($1, $2)", &[&world.operator.id, &booking(20)]).await
        {
            recorded = row.get(0);
            break;
        }
        assert!(attempt < 49, "no booking recorded on the promoted node");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    db.execute(
        "SELECT platform.booking_update($1, $2, $3)",
        &[&world.operator.id, &before[0], &json!({"status": "cancelled"})],
    )
    .await
    .expect("a change on the promoted node");
    // The reader comes back once node 1's clock has passed the moment of its last read on node 0
    // (a little after the latest stamp node 0 wrote): its cursor is then behind node 1's watermark,
    // and not clamped.
    let deadline = std::time::Instant::now() + Duration::from_secs(150);
    let passed =
        "SELECT now() > (SELECT max(changed_at) FROM app.bookings WHERE reference = ANY($1)) + interval '2 seconds'";
    let mut session = None;
    loop {
        assert!(std::time::Instant::now() < deadline, "node 1's clock never passed node 0's stamps");
        if let Some(db) = connected(&mut session, &world.cluster.url()).await {
            match db.query_one(passed, &[&before]).await {
                Ok(row) if row.get::<_, bool>(0) => break,
                Ok(_) => {}
                // (a session Patroni ended: made again)
                Err(_) => session = None,
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    reader.catch_up().await;
    assert!(reader.bookings.contains_key(&recorded), "the booking recorded on the promoted node reached the reader");
    assert_eq!(
        reader.bookings[&before[0]]["status"], "cancelled",
        "the change made on the promoted node reached the reader"
    );
}
