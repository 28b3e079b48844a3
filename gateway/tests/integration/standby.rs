//! GET /bookings from a hot standby (`DATABASE_READ_URL`). Each test runs a private
//! cluster and a real streaming standby of it (`pg_basebackup -R`, [`PrivateCluster::standby`]),
//! with the feed's watermark lag at zero, and a gateway reading the feed from the standby.
//!
//! - The no-skip guarantee on the standby: writers commit out of order at random on the primary
//!   while a client polls the standby, with the standby's replay paused and resumed in the middle;
//!   at the end the client holds exactly what the database holds. The same run with the watermark
//!   taken from the standby's own `pg_locks` (which never shows the primary's writers) loses
//!   bookings: the test has teeth.
//! - Revocation and suspension are immediate while the standby lags.
//! - A standby that stops, or lags past `DATABASE_READ_MAX_LAG_MS`, costs nothing but speed: the
//!   primary serves the reads (never a 503 for it) and `ingest_standby_fallbacks_total` says why;
//!   once it is back, it serves again.
//! - A gateway whose connections reach a node in recovery (a demoted primary) serves nothing from it.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::bookings::{minimal_booking, FeedClient};
use crate::common::feed_stress::{spawn_writers, totals, XorShift};
use crate::common::{connect, Credential, Operator, PrivateCluster, TestApp};

/// FEED_PUBLISH_INTERVAL_MS of these gateways: the standby's watermark follows the primary's
/// within about this.
const PUBLISH_MS: u64 = 100;

/// A primary, migrated, with the watermark lag at zero, and its standby, started and caught up.
async fn primary_and_standby() -> (PrivateCluster, PrivateCluster) {
    let primary = PrivateCluster::create().await;
    primary.start().await;
    gateway::migrate::run(&primary.url()).await.expect("migrate the private cluster");
    let updated = connect(&primary.url())
        .await
        .execute("UPDATE app.settings SET value = '0 seconds' WHERE name = 'bookings_watermark_lag'", &[])
        .await
        .expect("setting the watermark lag");
    assert_eq!(updated, 1);
    let standby = primary.standby().await;
    standby.start().await;
    caught_up(&primary, &standby).await;
    (primary, standby)
}

/// Waits until the standby has replayed everything the primary has written so far.
async fn caught_up(primary: &PrivateCluster, standby: &PrivateCluster) {
    let written: String =
        connect(&primary.url()).await.query_one("SELECT pg_current_wal_lsn()::text", &[]).await.unwrap().get(0);
    let standby = connect(&standby.url()).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let replayed: bool = standby
            .query_one("SELECT coalesce(pg_last_wal_replay_lsn() >= $1::text::pg_lsn, false)", &[&written])
            .await
            .unwrap()
            .get(0);
        if replayed {
            return;
        }
        assert!(Instant::now() < deadline, "the standby did not replay up to {written}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the gateway has made a publication and the standby has replayed it: from then on
/// the standby serves the feed.
async fn standby_ready(app: &TestApp, primary: &PrivateCluster, standby: &PrivateCluster) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while app.metric("ingest_feed_publications_total{outcome=\"made\"}").await < 1.0 {
        assert!(Instant::now() < deadline, "the gateway made no publication");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    caught_up(primary, standby).await;
}

/// Waits until the last publication the standby holds is older than `bound` by its own clock (its
/// replay paused): from then on its feed reads fall back as lagging.
async fn publication_older_than(standby: &PrivateCluster, bound: Duration) {
    let session = connect(&standby.url()).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let older = "SELECT now() - published_at > make_interval(secs => $1) FROM app.booking_writers_published";
    while !session.query_one(older, &[&bound.as_secs_f64()]).await.unwrap().get::<_, bool>(0) {
        assert!(Instant::now() < deadline, "the standby's publication stayed fresh");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Pauses (true) or resumes (false) the standby's replay, and waits until it has.
async fn replay(standby: &PrivateCluster, paused: bool) {
    let session = connect(&standby.url()).await;
    let call = if paused { "SELECT pg_wal_replay_pause()" } else { "SELECT pg_wal_replay_resume()" };
    session.execute(call, &[]).await.expect(call);
    let wanted = if paused { "paused" } else { "not paused" };
    let deadline = Instant::now() + Duration::from_secs(10);
    while session.query_one("SELECT pg_get_wal_replay_pause_state()", &[]).await.unwrap().get::<_, String>(0) != wanted
    {
        assert!(Instant::now() < deadline, "replay not {wanted}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A gateway on the primary reading the feed from the standby, publishing every [`PUBLISH_MS`].
async fn gateway_with_standby(primary: &PrivateCluster, standby: &PrivateCluster, max_lag_ms: u64) -> TestApp {
    TestApp::spawn_on(&primary.url(), |settings| {
        settings
            .set("DATABASE_READ_URL", standby.url())
            .set("FEED_PUBLISH_INTERVAL_MS", PUBLISH_MS)
            .set("DATABASE_READ_MAX_LAG_MS", max_lag_ms)
            .set("DATABASE_READ_TIMEOUT_MS", 1000)
            .set("DATABASE_TIMEOUT_MS", 3000);
    })
    .await
}

/// An operator with the lots `harbour-1` and `harbour-2`, each holding a booking already (see the
/// randomized test of bookings_feed_cursor.rs), and a credential of every scope.
async fn operator_with_lots(app: &TestApp) -> (Operator, Credential, usize) {
    let (operator, credential) = app.operator_with_credential().await;
    for (lot, name) in [("harbour-1", "Harbour One"), ("harbour-2", "Harbour Two")] {
        app.put_lot_expecting(&credential, lot, &crate::common::lots::minimal_lot(name), 201).await;
        app.record(&operator, &minimal_booking(lot, "2026-07-01T09:00:00", "2026-07-03T18:00:00")).await;
    }
    (operator, credential, 2)
}

/// What a client polling the standby ended with, against the database.
struct Outcome {
    /// Bookings the client never received, or holds in a state that is not their latest.
    missed: Vec<String>,
    recorded: usize,
    pulls: usize,
    /// Pulls made while the standby's replay was paused.
    pulls_while_paused: usize,
}

/// Six writers commit out of order at random on the primary while a client polls the gateway (the
/// standby); half a second in, while they write, the standby's replay pauses for 1.5 s. At
/// the end, once the standby has replayed everything and a publication after it, the client
/// catches up; answers what it missed.
async fn stress(app: &TestApp, primary: &PrivateCluster, standby: &PrivateCluster, seed: u64) -> Outcome {
    const WRITERS: u64 = 6;
    const TRANSACTIONS: usize = 25;
    let (operator, credential, marks) = operator_with_lots(app).await;
    standby_ready(app, primary, standby).await;
    let writers = spawn_writers(&primary.url(), &operator, seed, WRITERS, TRANSACTIONS);
    let started = Instant::now();
    let mut rng = XorShift::new(seed ^ 0x00C1_1E27);
    let mut client = FeedClient::new(app, &credential, 7);
    let (mut paused_at, mut resumed, mut pulls_while_paused) = (None::<Instant>, false, 0);
    while writers.iter().any(|writer| !writer.is_finished()) {
        if paused_at.is_none() && started.elapsed() > Duration::from_millis(500) {
            replay(standby, true).await;
            paused_at = Some(Instant::now());
        }
        if !resumed && paused_at.is_some_and(|at| at.elapsed() > Duration::from_millis(1500)) {
            replay(standby, false).await;
            resumed = true;
        }
        pulls_while_paused += usize::from(paused_at.is_some() && !resumed);
        if !client.pull().await.page.has_more {
            tokio::time::sleep(Duration::from_millis(rng.below(10))).await;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the writers did not finish");
    }
    if !resumed {
        replay(standby, false).await;
    }
    let totals = totals(writers, marks).await;
    caught_up(primary, standby).await;
    tokio::time::sleep(Duration::from_millis(3 * PUBLISH_MS)).await;
    client.catch_up(1000).await;
    let database = app.bookings_in_database(&operator).await;
    assert_eq!(database.len(), totals.recorded, "{totals:?}");
    assert!(totals.recorded > 50 && totals.changed > 20, "{totals:?}");
    let missed = database
        .iter()
        .filter(|(reference, state)| client.bookings.get(*reference) != Some(*state))
        .map(|(reference, _)| reference.clone())
        .collect();
    Outcome { missed, recorded: totals.recorded, pulls: client.pulls, pulls_while_paused }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writers_committing_out_of_order_never_make_a_client_of_the_standby_miss_a_booking_even_across_a_replay_pause()
{
    let (primary, standby) = primary_and_standby().await;
    let app = gateway_with_standby(&primary, &standby, 60_000).await;
    let outcome = stress(&app, &primary, &standby, 20_261_126).await;
    println!(
        "standby feed: {} bookings, {} pulls ({} while replay was paused)",
        outcome.recorded, outcome.pulls, outcome.pulls_while_paused
    );
    assert!(outcome.pulls_while_paused > 10, "the client polled the paused standby");
    assert_eq!(outcome.missed, Vec::<String>::new(), "every booking in its latest state");
    let served = app.metric("ingest_standby_reads_total").await;
    assert!(served >= outcome.pulls as f64, "the standby served every pull ({served} of {})", outcome.pulls);
    for reason in ["unavailable", "lagging", "assertion", "error"] {
        let series = format!("ingest_standby_fallbacks_total{{reason=\"{reason}\"}}");
        assert_eq!(app.metric(&series).await, 0.0, "no fallback ({reason})");
    }
    assert!(app.metric("ingest_feed_publications_total{outcome=\"made\"}").await > 10.0);
    app.shutdown().await;
}

/// The teeth of the test above: the standby's watermark from its own pg_locks (the primary's
/// function, replicated like every function), which never shows a writer open on the primary.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_run_with_the_watermark_from_the_standbys_own_locks_loses_bookings() {
    let (primary, standby) = primary_and_standby().await;
    connect(&primary.url())
        .await
        .batch_execute(
            "CREATE OR REPLACE FUNCTION app.bookings_watermark_published(p_operator_id uuid)
             RETURNS timestamptz LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
             AS $$ SELECT app.bookings_watermark(p_operator_id) $$",
        )
        .await
        .expect("the watermark from pg_locks");
    let app = gateway_with_standby(&primary, &standby, 60_000).await;
    let outcome = stress(&app, &primary, &standby, 20_261_126).await;
    println!("with the standby's own locks: {} of {} bookings missed", outcome.missed.len(), outcome.recorded);
    assert!(!outcome.missed.is_empty(), "a watermark that cannot see the writers must lose bookings");
    app.shutdown().await;
}

#[tokio::test]
async fn a_revocation_or_a_suspension_on_the_primary_is_refused_at_once_while_the_standby_lags() {
    let (primary, standby) = primary_and_standby().await;
    let app = gateway_with_standby(&primary, &standby, 60_000).await;
    let (operator, credential) = app.operator_with_credential().await;
    let other = app.issue(&operator, &["read_bookings"], None).await;
    standby_ready(&app, &primary, &standby).await;
    assert_eq!(app.get_bookings(&credential, "").await.status, 200);
    replay(&standby, true).await;
    assert_eq!(app.get_bookings(&credential, "").await.status, 200, "the lagging standby serves");

    app.revoke(&operator, &credential).await;
    app.get_bookings(&credential, "").await.assert_error(401, "unauthorized", None);
    assert_eq!(app.get_bookings(&other, "").await.status, 200, "another credential is still served");
    app.suspend(&operator).await;
    app.get_bookings(&other, "").await.assert_error(401, "unauthorized", None);
    assert_eq!(app.metric("ingest_standby_reads_total").await, 3.0, "the standby served the three 200s");
    replay(&standby, false).await;
    app.shutdown().await;
}

/// GET /bookings answers 200 within `bound` (never a 503 because of the standby).
async fn served_within(app: &TestApp, credential: &Credential, bound: Duration) {
    let started = Instant::now();
    let response = app.get_bookings(credential, "").await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert!(started.elapsed() < bound, "answered after {:?}", started.elapsed());
}

#[tokio::test]
async fn a_standby_that_stops_or_lags_costs_only_speed_and_serves_again_once_back() {
    let (primary, standby) = primary_and_standby().await;
    let app = gateway_with_standby(&primary, &standby, 1500).await;
    let (operator, credential) = app.operator_with_credential().await;
    app.put_lot_expecting(&credential, "harbour-1", &crate::common::lots::minimal_lot("Harbour One"), 201).await;
    let reference =
        app.record(&operator, &minimal_booking("harbour-1", "2026-07-01T09:00:00", "2026-07-03T18:00:00")).await;
    standby_ready(&app, &primary, &standby).await;
    served_within(&app, &credential, Duration::from_secs(2)).await;
    assert_eq!(app.metric("ingest_standby_reads_total").await, 1.0);

    // Stopped: the primary serves, each read within the standby's deadline and the primary's call.
    standby.stop().await;
    for _ in 0..4 {
        served_within(&app, &credential, Duration::from_secs(3)).await;
    }
    assert_eq!(app.metric("ingest_standby_fallbacks_total{reason=\"unavailable\"}").await, 4.0);
    assert!(app.logs().iter().all(|line| line["status"] != 503 && line["status"] != 500));

    // Back: the standby serves again (after the pool's backoff lets it try).
    standby.start().await;
    caught_up(&primary, &standby).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while app.metric("ingest_standby_reads_total").await < 2.0 {
        assert!(Instant::now() < deadline, "the standby did not serve again");
        served_within(&app, &credential, Duration::from_secs(3)).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Lagging past DATABASE_READ_MAX_LAG_MS (1.5 s): the primary serves, and the booking recorded
    // meanwhile, which the paused standby cannot see, comes.
    replay(&standby, true).await;
    publication_older_than(&standby, Duration::from_millis(1500)).await;
    let late = app.record(&operator, &minimal_booking("harbour-1", "2026-07-02T09:00:00", "2026-07-04T18:00:00")).await;
    let page = app.bookings_page(&credential, "").await;
    let references: Vec<String> =
        page.bookings.iter().map(|booking| booking["reference"].as_str().unwrap().to_string()).collect();
    assert_eq!(references, [reference, late]);
    assert!(app.metric("ingest_standby_fallbacks_total{reason=\"lagging\"}").await >= 1.0);
    replay(&standby, false).await;
    assert_eq!(page.bookings.len(), 2, "{}", json!(page.bookings));
    app.shutdown().await;
}

/// A gateway whose `DATABASE_URL` reaches a node in recovery: a standby here, a primary demoted by
/// a failover in production while the gateway's connections were open to it. Every route answers
/// 503 `try_again` (SQLSTATE 25006, the connection dropped), none serves the standby's rows, and the
/// same requests on the primary succeed; its readiness says `not_primary`.
#[tokio::test]
async fn a_gateway_connected_to_a_node_in_recovery_answers_503_on_every_route_and_serves_nothing() {
    let (primary, standby) = primary_and_standby().await;
    let on_primary = TestApp::spawn_on(&primary.url(), |_| {}).await;
    let (_operator, credential) = on_primary.operator_with_credential().await;
    on_primary.put_lot_expecting(&credential, "harbour-1", &crate::common::lots::minimal_lot("Harbour One"), 201).await;
    caught_up(&primary, &standby).await;
    let on_standby = TestApp::spawn_on(&standby.url(), |_| {}).await;
    let bearer = credential.bearer();
    for path in ["/v1/ping", "/v1/lots", "/v1/bookings", "/v1/lots/harbour-1/blocked-periods"] {
        let response = on_standby.get(path, &[("authorization", &bearer)]).await;
        response.assert_error(503, "try_again", None);
        assert_eq!(response.header("retry-after"), Some("1"), "{path}");
        assert_eq!(on_primary.get(path, &[("authorization", &bearer)]).await.status, 200, "{path} on the primary");
    }
    let response = on_standby.put_lot(&credential, "harbour-2", &crate::common::lots::minimal_lot("Harbour Two")).await;
    response.assert_error(503, "try_again", None);
    let cause = on_standby.log_of(&response)["cause"].as_str().unwrap_or_default().to_string();
    assert!(cause.starts_with("sqlstate 25006"), "the log line says why: {cause}");
    let readiness = on_standby.admin().get("/readyz", &[]).await;
    assert_eq!(readiness.status, 503, "{}", readiness.text());
    assert_eq!(readiness.json(), json!({"status": "unready", "reason": "not_primary"}));
    assert_eq!(on_primary.admin().get("/readyz", &[]).await.status, 200);
    on_standby.shutdown().await;
    on_primary.shutdown().await;
}
