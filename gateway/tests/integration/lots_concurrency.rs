//! Two first PUTs of one new external_id at once: one creates (201), the other answers 409
//! `conflict` with `Retry-After`, never a 500 and never two creates.
//!
//! Made deterministic with a write held open: a SQL session runs the very function the gateway
//! calls (`api.lot_put`, as `ingest_gateway`, with a credential of its own) inside a transaction it
//! has not committed, so the HTTP requests reach the unique key and wait there (seen in
//! `pg_blocking_pids`); then the session commits (the waiter answers 409) or rolls back (the
//! waiters race each other, and exactly one wins). Separate credentials keep the credential's
//! `last_used_at` row out of the picture: waiting there would not be the race under test.

use std::collections::BTreeMap;

use http::StatusCode;
use serde_json::{json, Value};

use crate::common::lots::{assert_write_result, minimal_lot, ALL_CHANGED};
use crate::common::{backend_pid, wait_for_sessions_blocked_by, Credential, Operator, TestApp, TestResponse};

/// A write_supply + read_supply credential of the operator.
async fn writer(app: &TestApp, operator: &Operator) -> Credential {
    app.issue(operator, &["read_supply", "write_supply"], None).await
}

/// A SQL session with `api.lot_put` run (not committed) for `external_id`, and its backend pid.
async fn hold_a_create(
    app: &TestApp,
    credential: &Credential,
    external_id: &str,
    body: &Value,
) -> (tokio_postgres::Client, i32) {
    let session = app.superuser().await;
    session.batch_execute("BEGIN; SET LOCAL ROLE ingest_gateway").await.unwrap();
    let row = session
        .query_one(
            "SELECT status, body FROM api.lot_put($1, $2, $3, false)",
            &[&credential.bearer(), &external_id, &body.to_string()],
        )
        .await
        .expect("api.lot_put in the held transaction");
    assert_eq!(row.get::<_, i32>(0), 201, "{}", row.get::<_, Value>(1));
    let pid = backend_pid(&session).await;
    (session, pid)
}

/// The PUT as a task of its own (it will wait inside the database).
fn put_in_background(
    app: &TestApp,
    credential: &Credential,
    segment: &str,
    body: &Value,
) -> tokio::task::JoinHandle<TestResponse> {
    let (http, credential, segment, body) = (app.http(), credential.clone(), segment.to_string(), body.clone());
    tokio::spawn(async move { http.put_lot_query(&credential, &segment, "", &body).await })
}

fn assert_conflict(response: &TestResponse) {
    response.assert_error(409, "conflict", None);
    let retry_after: u64 =
        response.header("retry-after").expect("Retry-After on a 409").parse().expect("Retry-After is whole seconds");
    assert!(retry_after >= 1, "Retry-After {retry_after}");
    response.request_id();
}

#[tokio::test]
async fn a_first_put_that_waits_on_another_create_of_the_same_id_answers_409_and_a_retry_succeeds() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let (holder, client) = (writer(&app, &operator).await, writer(&app, &operator).await);
    let body = minimal_lot("Harbour");

    let (session, pid) = hold_a_create(&app, &holder, "harbour-1", &body).await;
    let waiting = put_in_background(&app, &client, "harbour-1", &body);
    wait_for_sessions_blocked_by(&app.database_url, pid, 1).await;
    session.batch_execute("COMMIT").await.unwrap();

    let response = waiting.await.unwrap();
    assert_conflict(&response);
    // The refusal wrote only its request line, and no second lot.
    assert_eq!(app.lines_of(&response).len(), 1, "{:?}", app.lines_of(&response));
    assert_eq!(app.lot_ids(&client).await, ["harbour-1"]);

    // Retried, the same body finds the lot the other push created.
    let response = app.put_lot(&client, "harbour-1", &body).await;
    assert_write_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
}

#[tokio::test]
async fn a_first_put_that_waits_on_a_create_that_rolls_back_creates_the_lot() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let (holder, client) = (writer(&app, &operator).await, writer(&app, &operator).await);

    let (session, pid) = hold_a_create(&app, &holder, "harbour-1", &minimal_lot("Held")).await;
    let waiting = put_in_background(&app, &client, "harbour-1", &minimal_lot("Harbour"));
    wait_for_sessions_blocked_by(&app.database_url, pid, 1).await;
    session.batch_execute("ROLLBACK").await.unwrap();

    let response = waiting.await.unwrap();
    let answer = assert_write_result(&response, 201, "harbour-1", "created", &ALL_CHANGED, false, false);
    assert_eq!(answer["lot"]["name"], "Harbour");
}

#[tokio::test]
async fn two_http_puts_released_together_answer_exactly_one_201_and_one_409() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let holder = writer(&app, &operator).await;
    let (first, second) = (writer(&app, &operator).await, writer(&app, &operator).await);

    // Both requests queue behind the held create; when it rolls back they race for the key.
    let (session, pid) = hold_a_create(&app, &holder, "harbour-1", &minimal_lot("Held")).await;
    let a = put_in_background(&app, &first, "harbour-1", &minimal_lot("From A"));
    let b = put_in_background(&app, &second, "harbour-1", &minimal_lot("From B"));
    wait_for_sessions_blocked_by(&app.database_url, pid, 2).await;
    session.batch_execute("ROLLBACK").await.unwrap();

    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    let (created, refused) = match (a.status, b.status) {
        (StatusCode::CREATED, StatusCode::CONFLICT) => (a, b),
        (StatusCode::CONFLICT, StatusCode::CREATED) => (b, a),
        other => panic!("expected one 201 and one 409, got {other:?}: {:?} / {:?}", a.text(), b.text()),
    };
    assert_conflict(&refused);
    let name = created.json()["lot"]["name"].clone();
    let listed = app.listed_lot(&first, "harbour-1").await.expect("the lot is stored");
    assert_eq!(listed["name"], name, "the stored lot is the winner's");
    assert_eq!(app.lot_ids(&first).await, ["harbour-1"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_first_puts_never_create_twice_and_never_fail() {
    const PAIRS: usize = 20;
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let credential = writer(&app, &operator).await;
    // Used once, so neither request of a pair waits on the credential's last_used_at row.
    assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);

    let mut outcomes: BTreeMap<(u16, u16), usize> = BTreeMap::new();
    for pair in 0..PAIRS {
        let id = format!("race-{pair:02}");
        let body = minimal_lot("Race");
        let (a, b) = tokio::join!(
            put_in_background(&app, &credential, &id, &body),
            put_in_background(&app, &credential, &id, &body)
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        let mut statuses = [a.status.as_u16(), b.status.as_u16()];
        statuses.sort_unstable();
        match statuses {
            [201, 409] => {
                let refused = if a.status == 409 { &a } else { &b };
                assert_conflict(refused);
            }
            [200, 201] => {
                // The second saw the first's committed lot: the same body is unchanged.
                let second = if a.status == 200 { &a } else { &b };
                assert_eq!(second.json()["result"], json!("unchanged"), "{}", second.text());
            }
            other => panic!("pair {pair}: {other:?}: {:?} / {:?}", a.text(), b.text()),
        }
        *outcomes.entry((statuses[0], statuses[1])).or_default() += 1;
    }
    eprintln!("outcomes {outcomes:?}");
    let expected: Vec<String> = (0..PAIRS).map(|pair| format!("race-{pair:02}")).collect();
    assert_eq!(app.lot_ids(&credential).await, expected, "one lot per id: {outcomes:?}");
}
