//! Writes under a lot that wait on another write of the same lot: a first rates PUT behind another
//! first rates PUT answers 409 `conflict` with `Retry-After` (never a 500, never two envelopes); a
//! rates update, and a closure list replacement, behind another one compare with what that one
//! committed (the envelope "live just before the write", the list stored just before it), so
//! `changed`, `envelope_widened`, `result`, `added` and `removed` describe the write that happened.
//!
//! Made deterministic as in `lots_concurrency.rs`: a SQL session runs the very function the gateway
//! calls (as `ingest_gateway`, with a credential of its own) in a transaction it has not committed,
//! the HTTP request waits on it (seen in `pg_blocking_pids`), then the session commits.

use serde_json::{json, Value};

use crate::common::supply::{
    assert_closures_result, assert_rates_result, closures, period, range, rates_read_form, read_period,
};
use crate::common::{backend_pid, wait_for_sessions_blocked_by, Credential, Operator, TestApp, TestResponse};

/// An operator holding the lot `harbour-1`, and two write credentials: one for the held SQL
/// session, one for HTTP (so the credential's `last_used_at` row is never what is waited on).
async fn setup(app: &TestApp) -> (Operator, Credential, Credential) {
    let operator = app.make_operator().await;
    let holder = app.issue(&operator, &["read_supply", "write_supply"], None).await;
    let client = app.issue(&operator, &["read_supply", "write_supply"], None).await;
    app.put_lot_expecting(&client, "harbour-1", &crate::common::lots::minimal_lot("Harbour"), 201).await;
    (operator, holder, client)
}

/// A SQL session with `function` (api.lot_rates_put or api.lot_blocked_periods_put) run for
/// `harbour-1` and not committed; answers the session, its pid and the held write's answer.
async fn hold(
    app: &TestApp,
    function: &str,
    credential: &Credential,
    body: &Value,
) -> (tokio_postgres::Client, i32, i32, Value) {
    let session = app.superuser().await;
    session.batch_execute("BEGIN; SET LOCAL ROLE ingest_gateway").await.unwrap();
    let row = session
        .query_one(
            &format!("SELECT status, body FROM {function}($1, 'harbour-1', $2, false)"),
            &[&credential.bearer(), &body.to_string()],
        )
        .await
        .unwrap_or_else(|e| panic!("{function} in the held transaction: {e:?}"));
    let pid = backend_pid(&session).await;
    (session, pid, row.get(0), row.get(1))
}

/// A PUT under `harbour-1` as a task of its own (it will wait inside the database).
fn put_in_background(
    app: &TestApp,
    credential: &Credential,
    tail: &str,
    body: &Value,
) -> tokio::task::JoinHandle<TestResponse> {
    let (http, headers) = (app.http(), crate::common::lots::json_headers(credential));
    let (path, body) = (format!("/v1/lots/harbour-1/{tail}"), body.to_string());
    tokio::spawn(async move { http.request(http::Method::PUT, &path, headers, body).await })
}

#[tokio::test]
async fn a_first_rates_put_that_waits_on_another_first_rates_put_answers_409_and_a_retry_succeeds() {
    let app = TestApp::spawn().await;
    let (_operator, holder, client) = setup(&app).await;

    let (session, pid, status, _) = hold(&app, "api.lot_rates_put", &holder, &range("10", "20", "30")).await;
    assert_eq!(status, 201);
    let waiting = put_in_background(&app, &client, "rates", &range("11", "20", "30"));
    wait_for_sessions_blocked_by(&app.database_url, pid, 1).await;
    session.batch_execute("COMMIT").await.unwrap();

    let response = waiting.await.unwrap();
    response.assert_error(409, "conflict", None);
    let retry_after: u64 = response.header("retry-after").expect("Retry-After on a 409").parse().unwrap();
    assert!(retry_after >= 1);
    assert_eq!(app.lines_of(&response).len(), 1, "a refusal writes only its request line");
    assert_eq!(app.listed_rates(&client, "harbour-1").await, rates_read_form("10.00", "20.00", "30.00"));

    // Retried, it updates the envelope the other push created.
    let response = app.put_rates(&client, "harbour-1", "", &range("11", "20", "30")).await;
    assert_rates_result(&response, 200, "harbour-1", "updated", &["floor_price"], false, false);
}

#[tokio::test]
async fn a_rates_update_that_waits_on_another_compares_with_the_envelope_that_one_committed() {
    let app = TestApp::spawn().await;
    let (_operator, holder, client) = setup(&app).await;
    app.put_rates_expecting(&client, "harbour-1", &range("10", "20", "30"), 201).await;

    // Held: the floor goes down to 5. Sent meanwhile: a floor of 8, which is down from the 10
    // the request first sees, but up from the 5 live when it writes.
    let (session, pid, status, _) = hold(&app, "api.lot_rates_put", &holder, &range("5", "20", "30")).await;
    assert_eq!(status, 200);
    let waiting = put_in_background(&app, &client, "rates", &range("8", "20", "30"));
    wait_for_sessions_blocked_by(&app.database_url, pid, 1).await;
    session.batch_execute("COMMIT").await.unwrap();
    let response = waiting.await.unwrap();
    let answer = assert_rates_result(&response, 200, "harbour-1", "updated", &["floor_price"], false, false);
    assert_eq!(answer["rates"], rates_read_form("8.00", "20.00", "30.00"));

    // Sent meanwhile: exactly what the held write stores, so nothing is left to change.
    let (session, pid, _, _) = hold(&app, "api.lot_rates_put", &holder, &range("8", "20", "40")).await;
    let waiting = put_in_background(&app, &client, "rates", &range("8", "20", "40"));
    wait_for_sessions_blocked_by(&app.database_url, pid, 1).await;
    session.batch_execute("COMMIT").await.unwrap();
    let response = waiting.await.unwrap();
    assert_rates_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
}

#[tokio::test]
async fn a_closure_put_that_waits_on_another_compares_with_the_list_that_one_committed() {
    let app = TestApp::spawn().await;
    let (_operator, holder, client) = setup(&app).await;
    let first = period("2026-01-01", "2026-01-02", None);
    let second = period("2026-02-01", "2026-02-02", Some("B"));

    // Held: the first list is created. Sent meanwhile: it plus one more; the list is no longer
    // empty when this one writes, so it is an update adding one, not a create of two.
    let (session, pid, status, report) =
        hold(&app, "api.lot_blocked_periods_put", &holder, &closures(std::slice::from_ref(&first))).await;
    assert_eq!((status, report["result"].clone()), (201, json!("created")));
    let waiting = put_in_background(&app, &client, "blocked-periods", &closures(&[first.clone(), second.clone()]));
    wait_for_sessions_blocked_by(&app.database_url, pid, 1).await;
    session.batch_execute("COMMIT").await.unwrap();
    let response = waiting.await.unwrap();
    let list = assert_closures_result(&response, 200, "harbour-1", "updated", 1, 0, false);
    assert_eq!(
        list,
        json!([
            read_period("2026-01-01", "2026-01-02", None, 0),
            read_period("2026-02-01", "2026-02-02", Some("B"), 0)
        ])
    );

    // Sent meanwhile: exactly the list the held write stores.
    let (session, pid, _, _) =
        hold(&app, "api.lot_blocked_periods_put", &holder, &closures(std::slice::from_ref(&second))).await;
    let waiting = put_in_background(&app, &client, "blocked-periods", &closures(std::slice::from_ref(&second)));
    wait_for_sessions_blocked_by(&app.database_url, pid, 1).await;
    session.batch_execute("COMMIT").await.unwrap();
    let response = waiting.await.unwrap();
    assert_closures_result(&response, 200, "harbour-1", "unchanged", 0, 0, false);
    assert_eq!(
        app.closure_list(&client, "harbour-1").await,
        json!([read_period("2026-02-01", "2026-02-02", Some("B"), 0)])
    );
}
