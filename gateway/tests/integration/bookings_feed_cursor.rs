//! The bookings cursor with the watermark lag at zero: a client following the spec's polling
//! pattern (store the page keyed on reference, then save `next`; when has_more is false, wait)
//! never misses a booking nor a booking's latest state.
//!
//! - A full drain of 3000 bookings in pages of 500 and of 137: every booking once, in feed order,
//!   has_more true until the last page.
//! - The no-skip property with real concurrency (writers committing out of order): a booking, or a change to
//!   one, held in an open transaction while a later booking commits, is still delivered from the
//!   `next` the client saved in between; so is a writer that began before a pull and wrote after it.
//! - Every change to a booking puts it back in the feed; a change that changes nothing does not.
//! - A randomized run: six writers on their own connections record and change bookings in
//!   transactions that commit (or roll back) after random delays, while one client polls; at the
//!   end the client holds exactly what the database holds. The seed is printed, and
//!   `BOOKINGS_FEED_SEED=<n>` replays a run's writes (not its timing).
//! - The reference client (`examples/poll_bookings.rs`) run end to end against the gateway.
//! - The first bookings of two lots, recorded by two transactions in crossing order, are both
//!   stored (a deadlock the randomized run once found).
//!
//! With the default lag (5 minutes) every booking a test records is newer than the watermark and
//! no cursor ever moves past it; these tests need lag 0, set once for this binary's database
//! before any gateway serves it ([`TestApp::spawn_zero_lag`]). The watermark is the whole
//! database's (a booking transaction held open by one test holds back every operator's cursor), so
//! the tests take turns ([`one_at_a_time`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use crate::common::bookings::{minimal_booking, one_at_a_time, FeedClient};
use crate::common::feed_stress::{spawn_writers, totals, XorShift};
use crate::common::{Credential, Operator, TestApp};

/// An operator with the lots `harbour-1` and `harbour-2` and a credential holding every scope.
async fn operator_with_lots(app: &TestApp) -> (Operator, Credential) {
    let (operator, credential) = app.operator_with_credential().await;
    app.put_lot_expecting(&credential, "harbour-1", &crate::common::lots::minimal_lot("Harbour One"), 201).await;
    app.put_lot_expecting(&credential, "harbour-2", &crate::common::lots::minimal_lot("Harbour Two"), 201).await;
    (operator, credential)
}

/// A minimal booking of `harbour-1` checking in on day `day` of July 2026.
fn booking_on(day: u32) -> Value {
    minimal_booking("harbour-1", &format!("2026-07-{day:02}T09:00:00"), &format!("2026-07-{:02}T18:00:00", day + 2))
}

/// A superuser session with a transaction open.
async fn open_transaction(app: &TestApp) -> tokio_postgres::Client {
    let session = app.superuser().await;
    session.batch_execute("BEGIN").await.expect("BEGIN");
    session
}

/// `platform.booking_record` in `session` (whatever transaction it has open); answers the reference.
async fn record_in(session: &tokio_postgres::Client, operator: &Operator, booking: &Value) -> String {
    session
        .query_one("SELECT platform.booking_record($1, $2)", &[&operator.id, booking])
        .await
        .unwrap_or_else(|e| panic!("platform.booking_record {booking}: {e:?}"))
        .get(0)
}

/// The references of a list, owned (for comparisons with a page's).
fn refs(references: &[&String]) -> Vec<String> {
    references.iter().map(|r| r.to_string()).collect()
}

// ---------------------------------------------------------------------------------------------
// A full drain
// ---------------------------------------------------------------------------------------------

/// Pulls from the beginning until has_more is false; answers each page's size and has_more, and
/// every reference delivered, in order.
async fn drain(client: &mut FeedClient) -> (Vec<usize>, Vec<bool>, Vec<String>) {
    let (mut sizes, mut more, mut delivered) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let pulled = client.pull().await;
        sizes.push(pulled.page.bookings.len());
        more.push(pulled.page.has_more);
        delivered.extend(pulled.page.references());
        if !pulled.page.has_more {
            return (sizes, more, delivered);
        }
        assert!(sizes.len() < 100, "the drain does not end");
    }
}

#[tokio::test]
async fn a_drain_of_3000_bookings_in_pages_of_500_or_137_delivers_each_once_in_order_with_has_more_until_the_end() {
    let _turn = one_at_a_time().await;
    let app = TestApp::spawn_zero_lag().await;
    let (operator, credential) = operator_with_lots(&app).await;
    let (other, _) = operator_with_lots(&app).await;
    app.record_bookings_in_bulk(&other, "harbour-1", 5).await;
    let recorded = app.record_bookings_in_bulk(&operator, "harbour-1", 3000).await;
    app.record_bookings_in_bulk(&other, "harbour-2", 5).await;
    let order = app.feed_order(&operator).await;
    assert_eq!(order.iter().collect::<BTreeSet<_>>(), recorded.iter().collect::<BTreeSet<_>>());

    for (limit, sizes, more) in [
        (500, vec![500; 6], [vec![true; 5], vec![false]].concat()),
        (137, [vec![137; 21], vec![123]].concat(), [vec![true; 21], vec![false]].concat()),
    ] {
        let mut client = FeedClient::new(&app, &credential, limit);
        let (page_sizes, has_more, delivered) = drain(&mut client).await;
        assert_eq!(page_sizes, sizes, "page sizes at limit {limit}");
        assert_eq!(has_more, more, "has_more at limit {limit}");
        assert_eq!(delivered, order, "every booking once, in (change time, reference) order, at limit {limit}");
        assert_eq!(client.bookings.len(), 3000, "3000 references after de-duplication");
        assert_eq!(client.bookings, app.bookings_in_database(&operator).await);

        // Caught up: the next pull is empty and answers the cursor it was given.
        let saved = client.cursor.clone();
        let pulled = client.pull().await;
        assert_eq!((pulled.page.bookings.len(), pulled.page.has_more), (0, false));
        assert_eq!(client.cursor, saved);
    }
}

// ---------------------------------------------------------------------------------------------
// No skip with real concurrency
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_booking_committed_after_a_later_one_still_comes_from_the_next_saved_in_between() {
    let _turn = one_at_a_time().await;
    let app = TestApp::spawn_zero_lag().await;
    let (operator, credential) = operator_with_lots(&app).await;
    let mut client = FeedClient::new(&app, &credential, 50);
    app.record(&operator, &booking_on(1)).await;
    client.catch_up(10).await;

    // Session A records a booking and holds its transaction open; session B records another and
    // commits.
    let session_a = open_transaction(&app).await;
    let held = record_in(&session_a, &operator, &booking_on(2)).await;
    let committed = app.record(&operator, &booking_on(3)).await;

    // The client pulls and saves next: B's booking comes, A's cannot yet.
    let pulled = client.pull().await;
    assert!(pulled.page.references().ends_with(&refs(&[&committed])), "{:?}", pulled.page.references());
    assert!(!client.bookings.contains_key(&held));
    assert!(!pulled.page.has_more);

    // A commits. Its booking is older in the feed than B's: a cursor committed to B's would have
    // passed it for good.
    session_a.batch_execute("COMMIT").await.unwrap();
    assert!(app.feed_order(&operator).await.ends_with(&refs(&[&held, &committed])));

    // Pulled again from the saved next, it comes.
    let pulled = client.pull().await;
    assert!(pulled.page.references().ends_with(&refs(&[&held, &committed])), "{:?}", pulled.page.references());
    client.catch_up(10).await;
    assert_eq!(client.bookings, app.bookings_in_database(&operator).await);
}

#[tokio::test]
async fn a_change_committed_after_a_later_booking_still_comes_from_the_next_saved_in_between() {
    let _turn = one_at_a_time().await;
    let app = TestApp::spawn_zero_lag().await;
    let (operator, credential) = operator_with_lots(&app).await;
    let mut client = FeedClient::new(&app, &credential, 50);
    let changed = app.record(&operator, &booking_on(1)).await;
    client.catch_up(10).await;
    assert_eq!(client.bookings[&changed]["status"], "confirmed");

    // Session A changes the booking's status and holds its transaction open; session B records
    // another booking and commits.
    let session_a = open_transaction(&app).await;
    session_a
        .execute(
            "SELECT platform.booking_update($1, $2, $3)",
            &[&operator.id, &changed, &json!({ "status": "cancelled" })],
        )
        .await
        .expect("platform.booking_update");
    let committed = app.record(&operator, &booking_on(3)).await;

    // The client pulls and saves next: the new booking comes; the change cannot yet.
    let pulled = client.pull().await;
    assert!(pulled.page.references().ends_with(&refs(&[&committed])), "{:?}", pulled.page.references());
    assert_eq!(client.bookings[&changed]["status"], "confirmed");

    session_a.batch_execute("COMMIT").await.unwrap();
    assert!(app.feed_order(&operator).await.ends_with(&refs(&[&changed, &committed])));

    // Pulled again from the saved next, the changed booking comes again, in its new state.
    let pulled = client.pull().await;
    assert!(pulled.page.references().ends_with(&refs(&[&changed, &committed])), "{:?}", pulled.page.references());
    assert_eq!(client.bookings[&changed]["status"], "cancelled");
    assert!(client.bookings[&changed]["cancelled_at"].is_string());
    client.catch_up(10).await;
    assert_eq!(client.bookings, app.bookings_in_database(&operator).await);
}

#[tokio::test]
async fn a_writer_that_began_before_a_pull_but_wrote_after_it_still_comes() {
    let _turn = one_at_a_time().await;
    let app = TestApp::spawn_zero_lag().await;
    let (operator, credential) = operator_with_lots(&app).await;
    let mut client = FeedClient::new(&app, &credential, 50);

    // Session A's transaction begins (and reads) before B's booking and the pull, but writes after.
    let session_a = open_transaction(&app).await;
    session_a.query_one("SELECT now()", &[]).await.unwrap();
    let committed = app.record(&operator, &booking_on(1)).await;
    let pulled = client.pull().await;
    assert_eq!(pulled.page.references(), [committed]);
    assert!(!pulled.page.has_more);

    let held = record_in(&session_a, &operator, &booking_on(2)).await;
    session_a.batch_execute("COMMIT").await.unwrap();
    let pulled = client.pull().await;
    assert_eq!(pulled.page.references(), [held]);
    assert_eq!(client.bookings, app.bookings_in_database(&operator).await);
}

#[tokio::test]
async fn every_change_to_a_booking_puts_it_back_in_the_feed_and_a_change_of_nothing_does_not() {
    let _turn = one_at_a_time().await;
    let app = TestApp::spawn_zero_lag().await;
    let (operator, credential) = operator_with_lots(&app).await;
    let mut client = FeedClient::new(&app, &credential, 50);
    let first = app.record(&operator, &booking_on(1)).await;
    let second = app.record(&operator, &booking_on(2)).await;
    assert_eq!(client.pull().await.page.references(), [first.clone(), second.clone()]);

    let changes = [
        (&first, json!({ "payment_status": "refunded" })),
        (&second, json!({ "total": "12.30", "vehicle_plates": ["ZZ-99-ZZ"] })),
        (&first, json!({ "customer": { "email": "late@example.test" }, "flight_number": "LH1" })),
        (&second, json!({ "lot_external_id": "harbour-2" })),
        (&first, json!({ "status": "cancelled" })),
        (&first, json!({ "status": "confirmed" })),
    ];
    for (reference, change) in changes {
        app.update_booking(&operator, reference, &change).await;
        let pulled = client.pull().await;
        assert_eq!(&pulled.page.references(), std::slice::from_ref(reference), "after {change}");
        assert_eq!(pulled.news, 1);
        assert_eq!(client.bookings, app.bookings_in_database(&operator).await, "after {change}");
    }
    assert_eq!(client.bookings[&second]["lot_name"], "Harbour Two");
    assert_eq!(client.bookings[&first]["cancelled_at"], Value::Null, "a booking confirmed again is not cancelled");

    // A change to what the booking already holds writes nothing and puts nothing back.
    app.update_booking(&operator, &first, &json!({ "status": "confirmed", "payment_status": "refunded" })).await;
    let pulled = client.pull().await;
    assert_eq!((pulled.page.bookings.len(), pulled.page.has_more), (0, false));
}

// ---------------------------------------------------------------------------------------------
// Randomized: many writers, one polling client
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writers_committing_out_of_order_at_random_never_make_a_polling_client_miss_a_booking_or_its_latest_state() {
    let _turn = one_at_a_time().await;
    let seed: u64 = std::env::var("BOOKINGS_FEED_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20_260_701);
    println!("bookings feed randomized run: seed {seed} (replay with BOOKINGS_FEED_SEED={seed})");
    const WRITERS: u64 = 6;
    const TRANSACTIONS: usize = 25;

    let app = TestApp::spawn_zero_lag().await;
    let (operator, credential) = operator_with_lots(&app).await;
    // Both lots have taken a booking before the writers start: the first booking of a lot marks
    // the lot's row, and the first bookings of two lots recorded concurrently in crossing order
    // deadlock (see the ignored test below), which is not what this test is about.
    let mut on_second_lot = booking_on(2);
    on_second_lot["lot_external_id"] = json!("harbour-2");
    let marks = [app.record(&operator, &booking_on(1)).await, app.record(&operator, &on_second_lot).await];
    let writers = spawn_writers(&app.database_url, &operator, seed, WRITERS, TRANSACTIONS);

    // The client polls while the writers write: store, save next, and wait a little when
    // has_more is false.
    let started = Instant::now();
    let mut rng = XorShift::new(seed ^ 0x00C1_1E27);
    let mut client = FeedClient::new(&app, &credential, 7);
    while writers.iter().any(|writer| !writer.is_finished()) {
        if !client.pull().await.page.has_more {
            tokio::time::sleep(Duration::from_millis(rng.below(10))).await;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the writers did not finish");
    }
    let totals = totals(writers, marks.len()).await;
    let pulls_while_writing = client.pulls;

    // Then it keeps pulling until has_more is false and a pull brings nothing new.
    client.catch_up(1000).await;
    println!("{totals:?}; {pulls_while_writing} pulls while writing, {} in all; {:?}", client.pulls, started.elapsed());
    let database = app.bookings_in_database(&operator).await;
    assert_eq!(database.len(), totals.recorded);
    assert!(totals.recorded > 50 && totals.changed > 20 && totals.rolled_back > 0, "{totals:?}");
    assert_eq!(client.bookings.len(), database.len(), "every booking, and no rolled-back one");
    for (reference, state) in &database {
        assert_eq!(client.bookings.get(reference), Some(state), "the latest state of {reference}");
    }
}

/// Found by the randomized test: when the first booking of a lot marked the lot's row, two
/// transactions that each recorded the first booking of a different lot and then one of the
/// other's lot waited on each other (40P01). Whether a lot has taken a booking is now read from the
/// bookings at delete time, and nothing writes the lot.
#[tokio::test]
async fn the_first_bookings_of_two_lots_recorded_concurrently_in_crossing_order_are_both_stored() {
    let _turn = one_at_a_time().await;
    let app = TestApp::spawn_zero_lag().await;
    let (operator, _) = operator_with_lots(&app).await;
    let mut on_second_lot = booking_on(2);
    on_second_lot["lot_external_id"] = json!("harbour-2");

    let one = open_transaction(&app).await;
    let two = open_transaction(&app).await;
    record_in(&one, &operator, &booking_on(1)).await;
    record_in(&two, &operator, &on_second_lot).await;
    // Each now records one on the other's lot. Nothing may make either wait for the other: a wait
    // here would be the first half of a deadlock, so it fails the test after a bounded time.
    let bounded = Duration::from_secs(5);
    let crossed_by_one = tokio::time::timeout(
        bounded,
        one.query_one("SELECT platform.booking_record($1, $2)", &[&operator.id, &on_second_lot]),
    )
    .await
    .expect("recording on the other transaction's lot does not wait");
    let crossed_by_two = tokio::time::timeout(
        bounded,
        two.query_one("SELECT platform.booking_record($1, $2)", &[&operator.id, &booking_on(3)]),
    )
    .await
    .expect("recording on the other transaction's lot does not wait");
    let committed_one = one.batch_execute("COMMIT").await;
    let committed_two = two.batch_execute("COMMIT").await;
    assert!(crossed_by_one.is_ok() && committed_one.is_ok(), "{crossed_by_one:?} {committed_one:?}");
    assert!(crossed_by_two.is_ok() && committed_two.is_ok(), "{crossed_by_two:?} {committed_two:?}");
    assert_eq!(app.bookings_in_database(&operator).await.len(), 4);
}

// ---------------------------------------------------------------------------------------------
// The reference client
// ---------------------------------------------------------------------------------------------

/// `target/<profile>/examples/poll_bookings`, beside this test binary's `deps` folder. `cargo test`
/// builds the examples with the tests, but not when it is given a single `--test`; then build it
/// first (`cargo build --example poll_bookings`).
fn reference_client_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe.parent().and_then(Path::parent).expect("target/<profile>/deps/<test binary>");
    let binary = profile.join("examples").join("poll_bookings");
    assert!(
        binary.is_file(),
        "{} is missing: `cargo test` builds it with the tests unless a single --test is named; \
         run `cargo build --example poll_bookings`",
        binary.display()
    );
    binary
}

/// A state folder of the reference client's, removed when dropped.
struct StateDir(PathBuf);

impl StateDir {
    fn new() -> StateDir {
        let dir = std::env::temp_dir().join(format!("gw-poll-bookings-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir(&dir).expect("the state folder");
        StateDir(dir)
    }

    /// Every file of the folder: its bytes and modification time.
    fn files(&self) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
        std::fs::read_dir(&self.0)
            .expect("reading the state folder")
            .map(|entry| {
                let entry = entry.unwrap();
                let name = entry.file_name().into_string().unwrap();
                let modified = entry.metadata().unwrap().modified().unwrap();
                (name, (std::fs::read(entry.path()).unwrap(), modified))
            })
            .collect()
    }

    /// The bookings the folder holds (`<reference>.json`), keyed on reference.
    fn bookings(&self) -> BTreeMap<String, Value> {
        self.files()
            .into_iter()
            .filter_map(|(name, (bytes, _))| {
                let reference = name.strip_suffix(".json")?.to_string();
                Some((reference, serde_json::from_slice(&bytes).expect("a stored booking is JSON")))
            })
            .collect()
    }

    fn cursor(&self) -> String {
        std::fs::read_to_string(self.0.join("cursor")).expect("the cursor file")
    }
}

impl Drop for StateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `poll_bookings --once` against the gateway with the state folder (at most 30 s); it must
/// succeed. Answers what it printed.
async fn run_reference_client(app: &TestApp, credential: &Credential, state: &StateDir) -> String {
    let mut command = Command::new(reference_client_binary());
    command
        .arg("--once")
        .env("INGEST_BASE_URL", format!("{}/v1", app.base_url()))
        .env("INGEST_CREDENTIAL", format!("{}.{}", credential.key_id, credential.secret))
        .env("STATE_DIR", &state.0)
        .env("POLL_SECONDS", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Waited for off the runtime, which keeps serving the gateway it talks to.
    let output = tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().expect("starting poll_bookings");
        let deadline = Instant::now() + Duration::from_secs(30);
        while child.try_wait().expect("waiting for poll_bookings").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("poll_bookings --once did not exit within 30 s");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        child.wait_with_output().expect("poll_bookings' output")
    })
    .await
    .expect("poll_bookings");
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "poll_bookings failed ({}): {stdout}{stderr}", output.status);
    assert_eq!(stderr, "", "nothing on stderr");
    stdout.into_owned()
}

#[tokio::test]
async fn the_reference_client_stores_each_booking_and_the_cursor_and_a_second_run_fetches_only_what_changed() {
    let _turn = one_at_a_time().await;
    let app = TestApp::spawn_zero_lag().await;
    let (operator, credential) = operator_with_lots(&app).await;
    let reader = app.issue(&operator, &["read_bookings"], None).await;
    let state = StateDir::new();
    app.record_bookings_in_bulk(&operator, "harbour-1", 250).await;

    // First run: two pages of its 200, one file per booking with the feed's state, and the cursor.
    let printed = run_reference_client(&app, &reader, &state).await;
    assert_eq!(printed, "stored 200 booking(s); has_more true\nstored 50 booking(s); has_more false\n");
    let first = state.files();
    let mut expected_names: BTreeSet<String> =
        app.bookings_in_database(&operator).await.keys().map(|reference| format!("{reference}.json")).collect();
    expected_names.insert("cursor".into());
    assert_eq!(first.keys().cloned().collect::<BTreeSet<_>>(), expected_names, "no temporary file is left");
    assert_eq!(state.bookings(), app.bookings_in_database(&operator).await);
    let cursor = state.cursor();
    // The saved cursor is the feed's own: nothing follows it.
    let after = app.bookings_page(&credential, &format!("since={cursor}")).await;
    assert_eq!((after.bookings.len(), after.has_more), (0, false));

    // Second run, after three new bookings: only they are fetched and stored, and the cursor moves.
    let new = [
        app.record(&operator, &booking_on(1)).await,
        app.record(&operator, &booking_on(2)).await,
        app.record(&operator, &booking_on(3)).await,
    ];
    let printed = run_reference_client(&app, &reader, &state).await;
    assert_eq!(printed, "stored 3 booking(s); has_more false\n");
    let second = state.files();
    assert_ne!(state.cursor(), cursor, "the cursor advanced");
    for (name, file) in &first {
        if name != "cursor" {
            assert_eq!(second.get(name), Some(file), "{name} is untouched");
        }
    }
    let added: BTreeSet<&String> = second.keys().filter(|name| !first.contains_key(*name)).collect();
    let new_names: Vec<String> = new.iter().map(|reference| format!("{reference}.json")).collect();
    assert_eq!(added, new_names.iter().collect::<BTreeSet<_>>());
    assert_eq!(state.bookings(), app.bookings_in_database(&operator).await);

    // Third run, after a change to one stored booking: it alone is stored again.
    let changed = app.feed_order(&operator).await[17].clone();
    app.update_booking(&operator, &changed, &json!({ "status": "cancelled" })).await;
    let cursor = state.cursor();
    let printed = run_reference_client(&app, &reader, &state).await;
    assert_eq!(printed, "stored 1 booking(s); has_more false\n");
    assert_ne!(state.cursor(), cursor, "the cursor advanced");
    let third = state.files();
    assert_eq!(third.keys().collect::<Vec<_>>(), second.keys().collect::<Vec<_>>());
    for (name, file) in &second {
        if name != "cursor" && *name != format!("{changed}.json") {
            assert_eq!(third.get(name), Some(file), "{name} is untouched");
        }
    }
    assert_eq!(state.bookings()[&changed]["status"], "cancelled");
    assert_eq!(state.bookings(), app.bookings_in_database(&operator).await);

    // Nothing new: nothing stored, the same cursor saved.
    let cursor = state.cursor();
    assert_eq!(run_reference_client(&app, &reader, &state).await, "stored 0 booking(s); has_more false\n");
    assert_eq!(state.cursor(), cursor);
}
