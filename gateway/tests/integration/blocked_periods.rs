//! GET and PUT /lots/{external_id}/blocked-periods: the PUT's results (201 created when the list was
//! empty and now is not, 200 updated with added/removed counts, 200 unchanged when the stored list
//! equals the sent one as a set), the list read back earliest first with `overlapping_bookings`
//! (bookings recorded through `platform.booking_record`, inclusive on both edges, cancelled ones not
//! counted), every refusal with its `field` in the caller's coordinates, dry run, the console's
//! closures in the same list, the query and transport refusals, the verbs of the route and the path
//! id. Every rule row is pgTAP's; here each is proved end to end.
//!
//! The uniform 401 of a lot that is not the caller's (and missing scopes) is `unauthorized.rs`; the
//! write log line is `logging.rs`.

use http::Method;
use serde_json::{json, Value};

use crate::common::lots::{json_headers, minimal_lot, padded};
use crate::common::supply::{assert_closures_result, closures, period, read_period, under_lot};
use crate::common::{header_map, Credential, TestApp, TestResponse};

const CLOSURES_ALLOW: &str = "GET, PUT, OPTIONS";

async fn put(app: &TestApp, credential: &Credential, body: &Value) -> TestResponse {
    app.put_closures(credential, "harbour-1", "", body).await
}

/// PUT /v1/lots/harbour-1/blocked-periods with a raw body text.
async fn put_raw(app: &TestApp, credential: &Credential, body: impl Into<bytes::Bytes>) -> TestResponse {
    app.request(Method::PUT, "/v1/lots/harbour-1/blocked-periods", json_headers(credential), body).await
}

async fn assert_no_closures(app: &TestApp, credential: &Credential) {
    assert_eq!(app.closure_list(credential, "harbour-1").await, json!([]), "nothing is stored");
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_first_put_answers_201_created_with_the_list_read_back_earliest_first() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    assert_eq!(
        app.get_closures(&credential, "harbour-1", "").await.json(),
        json!({ "external_id": "harbour-1", "blocked_periods": [] })
    );

    let body = json!({ "blocked_periods": [
        { "starts_on": "2026-08-01", "ends_on": "2026-08-31", "reason": "  Resurfacing, lane 2  " },
        { "starts_on": "2026-03-05", "ends_on": "2026-03-05", "reason": null },
        { "starts_on": "2026-05-10", "ends_on": "2026-05-12" },
    ]});
    let response = put(&app, &credential, &body).await;
    let list = assert_closures_result(&response, 201, "harbour-1", "created", 3, 0, false);
    let expected = json!([
        read_period("2026-03-05", "2026-03-05", None, 0),
        read_period("2026-05-10", "2026-05-12", None, 0),
        read_period("2026-08-01", "2026-08-31", Some("  Resurfacing, lane 2  "), 0),
    ]);
    assert_eq!(list, expected, "earliest first; the reason verbatim, never trimmed");
    let response = app.get_closures(&credential, "harbour-1", "").await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.json(), json!({ "external_id": "harbour-1", "blocked_periods": expected }));
}

#[tokio::test]
async fn a_put_that_changes_the_list_answers_200_updated_with_the_added_and_removed_counts() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let a = period("2026-01-01", "2026-01-03", Some("A"));
    let b = period("2026-02-01", "2026-02-03", Some("B"));
    let c = period("2026-03-01", "2026-03-03", None);
    put(&app, &credential, &closures(&[a.clone(), b.clone(), c.clone()])).await;

    // b with another reason is another entry: b and c removed, b' and d added, a kept.
    let b_renamed = period("2026-02-01", "2026-02-03", Some("B, renamed"));
    let d = period("2026-04-01", "2026-04-30", Some("D"));
    let response = put(&app, &credential, &closures(&[d.clone(), a.clone(), b_renamed.clone()])).await;
    let list = assert_closures_result(&response, 200, "harbour-1", "updated", 2, 2, false);
    let expected = json!([
        read_period("2026-01-01", "2026-01-03", Some("A"), 0),
        read_period("2026-02-01", "2026-02-03", Some("B, renamed"), 0),
        read_period("2026-04-01", "2026-04-30", Some("D"), 0),
    ]);
    assert_eq!(list, expected);
    assert_eq!(app.closure_list(&credential, "harbour-1").await, expected);

    // One more, nothing removed; then one fewer, nothing added; then a moved end.
    let e = period("2026-05-01", "2026-05-01", None);
    let response = put(&app, &credential, &closures(&[a.clone(), b_renamed.clone(), d.clone(), e.clone()])).await;
    assert_closures_result(&response, 200, "harbour-1", "updated", 1, 0, false);
    let response = put(&app, &credential, &closures(&[a.clone(), b_renamed.clone(), e.clone()])).await;
    assert_closures_result(&response, 200, "harbour-1", "updated", 0, 1, false);
    let response =
        put(&app, &credential, &closures(&[a.clone(), b_renamed.clone(), period("2026-05-01", "2026-05-02", None)]))
            .await;
    let list = assert_closures_result(&response, 200, "harbour-1", "updated", 1, 1, false);
    assert_eq!(list[2], read_period("2026-05-01", "2026-05-02", None, 0));
}

#[tokio::test]
async fn a_put_equal_to_the_stored_list_as_a_set_answers_200_unchanged_with_nothing_added_or_removed() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let response = put(
        &app,
        &credential,
        &closures(&[period("2026-01-01", "2026-01-03", Some("A")), period("2026-02-01", "2026-02-03", None)]),
    )
    .await;
    let stored = assert_closures_result(&response, 201, "harbour-1", "created", 2, 0, false);

    for body in [
        // the same list in another order, a null reason for an absent one
        json!({ "blocked_periods": [
            { "starts_on": "2026-02-01", "ends_on": "2026-02-03", "reason": null },
            { "starts_on": "2026-01-01", "ends_on": "2026-01-03", "reason": "A" },
        ]}),
        // the list read back (overlapping_bookings is read-only and not a write key)
        json!({ "blocked_periods": [
            { "starts_on": "2026-01-01", "ends_on": "2026-01-03", "reason": "A" },
            { "starts_on": "2026-02-01", "ends_on": "2026-02-03" },
        ]}),
    ] {
        let response = put(&app, &credential, &body).await;
        let list = assert_closures_result(&response, 200, "harbour-1", "unchanged", 0, 0, false);
        assert_eq!(list, stored);
    }
}

#[tokio::test]
async fn an_empty_list_empties_the_stored_one_as_updated_and_is_unchanged_when_nothing_is_stored() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let response = put(&app, &credential, &closures(&[])).await;
    assert_eq!(assert_closures_result(&response, 200, "harbour-1", "unchanged", 0, 0, false), json!([]));

    let two = closures(&[period("2026-01-01", "2026-01-03", None), period("2026-02-01", "2026-02-03", None)]);
    assert_closures_result(&put(&app, &credential, &two).await, 201, "harbour-1", "created", 2, 0, false);
    let response = put(&app, &credential, &closures(&[])).await;
    assert_eq!(assert_closures_result(&response, 200, "harbour-1", "updated", 0, 2, false), json!([]));
    assert_no_closures(&app, &credential).await;
    let response = put(&app, &credential, &closures(&[])).await;
    assert_closures_result(&response, 200, "harbour-1", "unchanged", 0, 0, false);
    // Empty again, a new list is created again.
    assert_closures_result(&put(&app, &credential, &two).await, 201, "harbour-1", "created", 2, 0, false);
}

#[tokio::test]
async fn the_list_includes_the_consoles_closures_and_a_put_that_omits_them_removes_them() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_lot().await;
    let report =
        app.console_put_closures(&operator, "harbour-1", &[period("2026-06-01", "2026-06-07", Some("Console"))]).await;
    assert_eq!((report["result"].clone(), report["added"].clone()), (json!("created"), json!(1)));
    assert_eq!(
        app.closure_list(&credential, "harbour-1").await,
        json!([read_period("2026-06-01", "2026-06-07", Some("Console"), 0)])
    );

    let response = put(&app, &credential, &closures(&[period("2026-07-01", "2026-07-02", None)])).await;
    let list = assert_closures_result(&response, 200, "harbour-1", "updated", 1, 1, false);
    assert_eq!(list, json!([read_period("2026-07-01", "2026-07-02", None, 0)]));
}

// ---------------------------------------------------------------------------------------------
// overlapping_bookings
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn overlapping_bookings_counts_every_booking_but_cancelled_ones_touching_the_period_inclusively() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_lot().await;
    app.put_lot_expecting(&credential, "other-lot", &minimal_lot("Other"), 201).await;
    let stranger = app.make_operator().await;
    let stranger_credential = app.issue(&stranger, &["write_supply"], None).await;
    app.put_lot_expecting(&stranger_credential, "harbour-1", &minimal_lot("Theirs"), 201).await;

    // (check-in, check-out) on the lot's wall clock.
    app.record_booking(&operator, "harbour-1", "2026-03-10T08:00:00", "2026-03-12T18:00:00", "confirmed").await;
    app.record_booking(&operator, "harbour-1", "2026-03-10T08:00:00", "2026-03-12T18:00:00", "cancelled").await;
    let later_cancelled =
        app.record_booking(&operator, "harbour-1", "2026-03-09T08:00:00", "2026-03-09T20:00:00", "pending").await;
    app.record_booking(&operator, "harbour-1", "2026-03-17T00:00:00", "2026-03-18T00:00:00", "checked_in").await;
    app.record_booking(&operator, "harbour-1", "2026-03-20T10:00:00", "2026-03-25T10:00:00", "completed").await;
    app.record_booking(&operator, "harbour-1", "2026-04-01T23:30:00", "2026-04-02T00:30:00", "pending").await;
    // Not this lot's: another lot of the operator, another operator's lot under the same id.
    app.record_booking(&operator, "other-lot", "2026-03-10T08:00:00", "2026-03-12T18:00:00", "confirmed").await;
    app.record_booking(&stranger, "harbour-1", "2026-03-10T08:00:00", "2026-03-12T18:00:00", "confirmed").await;

    let body = closures(&[
        period("2026-03-01", "2026-03-10", Some("checked in on the last day")),
        period("2026-03-12", "2026-03-15", Some("checked out on the first day")),
        period("2026-03-16", "2026-03-19", Some("checked in")),
        period("2026-03-20", "2026-04-01", Some("completed, and one checking in on the last day")),
        period("2026-04-02", "2026-04-02", Some("checked out on the one day")),
        period("2026-05-01", "2026-05-31", Some("none")),
    ]);
    // Periods overlapping sold bookings are accepted; the read-back carries the counts.
    let response = put(&app, &credential, &body).await;
    let list = assert_closures_result(&response, 201, "harbour-1", "created", 6, 0, false);
    let counts = |list: &Value| -> Vec<i64> {
        list.as_array().unwrap().iter().map(|entry| entry["overlapping_bookings"].as_i64().unwrap()).collect()
    };
    assert_eq!(counts(&list), [2, 1, 1, 2, 1, 0], "{list}");
    assert_eq!(counts(&app.closure_list(&credential, "harbour-1").await), [2, 1, 1, 2, 1, 0]);

    // A booking cancelled later stops counting; the counts are read fresh.
    app.set_booking_status(&operator, &later_cancelled, "cancelled").await;
    assert_eq!(counts(&app.closure_list(&credential, "harbour-1").await), [1, 1, 1, 2, 1, 0]);
    let response = put(&app, &credential, &body).await;
    let list = assert_closures_result(&response, 200, "harbour-1", "unchanged", 0, 0, false);
    assert_eq!(counts(&list), [1, 1, 1, 2, 1, 0]);
    // The count carries no booking detail: each entry has exactly its four keys (checked above).
}

// ---------------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------------

/// Three good entries; `entries[index][key] = value` (None removes the key).
fn three_with(index: usize, key: &str, value: Option<Value>) -> Value {
    let mut entries = vec![
        period("2026-01-01", "2026-01-05", Some("first")),
        period("2026-02-01", "2026-02-05", Some("second")),
        period("2026-03-01", "2026-03-05", Some("third")),
    ];
    match value {
        Some(value) => entries[index][key] = value,
        None => {
            entries[index].as_object_mut().unwrap().remove(key);
        }
    }
    closures(&entries)
}

#[tokio::test]
async fn an_unusable_entry_answers_422_invalid_blocked_periods_naming_it_in_the_callers_coordinates() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let cases: Vec<(Value, &str)> = vec![
        // not a real calendar day, a timestamp, outside 2020..2032, absent or null
        (three_with(1, "starts_on", Some(json!("2026-02-30"))), "blocked_periods[1].starts_on"),
        (three_with(1, "starts_on", Some(json!("2026-02-01T00:00:00"))), "blocked_periods[1].starts_on"),
        (three_with(1, "starts_on", Some(json!("2026-02-01T00:00:00Z"))), "blocked_periods[1].starts_on"),
        (three_with(1, "starts_on", Some(json!("2026-2-1"))), "blocked_periods[1].starts_on"),
        (three_with(1, "starts_on", Some(json!("2019-12-31"))), "blocked_periods[1].starts_on"),
        (three_with(1, "starts_on", Some(json!(20260201))), "blocked_periods[1].starts_on"),
        (three_with(1, "starts_on", Some(Value::Null)), "blocked_periods[1].starts_on"),
        (three_with(1, "starts_on", None), "blocked_periods[1].starts_on"),
        (three_with(0, "ends_on", Some(json!("2026-01-32"))), "blocked_periods[0].ends_on"),
        (three_with(0, "ends_on", Some(json!("2033-01-01"))), "blocked_periods[0].ends_on"),
        (three_with(0, "ends_on", None), "blocked_periods[0].ends_on"),
        // ends_on before starts_on
        (three_with(0, "ends_on", Some(json!("2025-12-31"))), "blocked_periods[0].ends_on"),
        // reason blank, not a string, over 200 characters
        (three_with(2, "reason", Some(json!(""))), "blocked_periods[2].reason"),
        (three_with(2, "reason", Some(json!("  \t "))), "blocked_periods[2].reason"),
        (three_with(2, "reason", Some(json!("x".repeat(201)))), "blocked_periods[2].reason"),
        (three_with(2, "reason", Some(json!("é".repeat(201)))), "blocked_periods[2].reason"),
        (three_with(2, "reason", Some(json!(5))), "blocked_periods[2].reason"),
        (three_with(2, "reason", Some(json!(["x"]))), "blocked_periods[2].reason"),
        // not an array, or more than 100 entries
        (json!({ "blocked_periods": "2026-01-01" }), "blocked_periods"),
        (json!({ "blocked_periods": {} }), "blocked_periods"),
        (json!({ "blocked_periods": (0..101).map(day_period).collect::<Vec<_>>() }), "blocked_periods"),
    ];
    for (body, field) in cases {
        let response = put(&app, &credential, &body).await;
        assert_eq!(response.status, 422, "{field}: {body}");
        response.assert_error(422, "invalid_blocked_periods", Some(field));
    }
    // A null list counts as absent.
    let response = put(&app, &credential, &json!({ "blocked_periods": null })).await;
    response.assert_error(422, "missing_field", Some("blocked_periods"));
    assert_no_closures(&app, &credential).await;
}

/// One day of 2026 (day 0 is 2026-01-01), no reason.
fn day_period(day: i64) -> Value {
    let date = time::Date::from_calendar_date(2026, time::Month::January, 1).unwrap() + time::Duration::days(day);
    let text = format!("{:04}-{:02}-{:02}", date.year(), u8::from(date.month()), date.day());
    period(&text, &text, None)
}

#[tokio::test]
async fn overlapping_entries_answer_422_naming_the_later_starting_entrys_starts_on() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let cases: Vec<(Vec<Value>, &str)> = vec![
        // sharing one day collides; the later-starting entry is named, wherever it was sent
        (
            vec![period("2026-01-10", "2026-01-20", None), period("2026-01-01", "2026-01-10", None)],
            "blocked_periods[0].starts_on",
        ),
        (
            vec![period("2026-01-01", "2026-01-10", None), period("2026-01-10", "2026-01-20", None)],
            "blocked_periods[1].starts_on",
        ),
        // one inside another
        (
            vec![
                period("2026-01-05", "2026-01-06", None),
                period("2026-02-01", "2026-02-02", None),
                period("2026-01-01", "2026-01-31", None),
            ],
            "blocked_periods[0].starts_on",
        ),
        // the same period twice, even with other reasons
        (
            vec![period("2026-03-01", "2026-03-01", Some("a")), period("2026-03-01", "2026-03-01", Some("b"))],
            "blocked_periods[1].starts_on",
        ),
        // a long period reaching over a later one that does not touch its neighbour
        (
            vec![
                period("2026-01-01", "2026-12-31", None),
                period("2026-06-01", "2026-06-02", None),
                period("2026-03-01", "2026-03-02", None),
            ],
            "blocked_periods[2].starts_on",
        ),
    ];
    for (entries, field) in cases {
        let body = closures(&entries);
        let response = put(&app, &credential, &body).await;
        assert_eq!(response.status, 422, "{field}: {body}");
        response.assert_error(422, "invalid_blocked_periods", Some(field));
    }
    assert_no_closures(&app, &credential).await;

    // Adjacent days do not collide.
    let body = closures(&[period("2026-01-11", "2026-01-20", None), period("2026-01-01", "2026-01-10", None)]);
    assert_closures_result(&put(&app, &credential, &body).await, 201, "harbour-1", "created", 2, 0, false);
}

#[tokio::test]
async fn the_edges_of_every_rule_are_accepted() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let longest = "é".repeat(200);
    let body = closures(&[
        period("2020-01-01", "2020-01-01", Some("x")),
        period("2032-12-31", "2032-12-31", Some(&longest)),
        period("2024-02-29", "2024-03-01", Some(&"x".repeat(200))),
    ]);
    let list = assert_closures_result(&put(&app, &credential, &body).await, 201, "harbour-1", "created", 3, 0, false);
    assert_eq!(list[0]["starts_on"], "2020-01-01");
    assert_eq!(list[1]["starts_on"], "2024-02-29");
    assert_eq!(list[2]["reason"], json!(longest));

    // Exactly 100 entries.
    let hundred: Vec<Value> = (0..100).map(day_period).collect();
    let response = put(&app, &credential, &closures(&hundred)).await;
    let list = assert_closures_result(&response, 200, "harbour-1", "updated", 100, 3, false);
    assert_eq!(list.as_array().unwrap().len(), 100);
    assert_eq!((list[0]["starts_on"].clone(), list[99]["ends_on"].clone()), (json!("2026-01-01"), json!("2026-04-10")));
}

#[tokio::test]
async fn the_body_is_blocked_periods_and_nothing_else() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    put(&app, &credential, &json!({})).await.assert_error(422, "missing_field", Some("blocked_periods"));
    let response = put(&app, &credential, &json!({ "blocked_periods": [], "external_id": "harbour-1" })).await;
    response.assert_error(422, "unknown_field", Some("external_id"));
    put(&app, &credential, &json!({ "periods": [] })).await.assert_error(422, "unknown_field", Some("periods"));
    put(&app, &credential, &json!({ "Blocked_periods": [] })).await.assert_error(
        422,
        "unknown_field",
        Some("Blocked_periods"),
    );
    // An entry is an object of starts_on, ends_on and reason.
    let body = closures(&[period("2026-01-01", "2026-01-02", None), json!("2026-02-01")]);
    put(&app, &credential, &body).await.assert_error(422, "invalid_blocked_periods", Some("blocked_periods[1]"));
    let body = closures(&[json!({ "starts_on": "2026-01-01", "ends_on": "2026-01-02", "overlapping_bookings": 0 })]);
    put(&app, &credential, &body).await.assert_error(
        422,
        "invalid_blocked_periods",
        Some("blocked_periods[0].overlapping_bookings"),
    );
    // Not a JSON object at all.
    for body in ["", "{", "not json"] {
        put_raw(&app, &credential, body).await.assert_error(422, "invalid_json", None);
    }
    for body in ["[]", "null", r#""blocked_periods""#] {
        put_raw(&app, &credential, body).await.assert_error(422, "invalid_body", None);
    }
    put_raw(&app, &credential, &b"{\"blocked_periods\":[{\"reason\":\"caf\xe9\"}]}"[..]).await.assert_error(
        422,
        "invalid_json",
        None,
    );
    put_raw(&app, &credential, r#"{"blocked_periods":[],"blocked_periods":[]}"#).await.assert_error(
        422,
        "invalid_body",
        Some("blocked_periods"),
    );
    assert_no_closures(&app, &credential).await;
}

// ---------------------------------------------------------------------------------------------
// Dry run
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_dry_run_answers_200_with_dry_run_true_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_lot().await;
    app.record_booking(&operator, "harbour-1", "2026-01-02T08:00:00", "2026-01-03T08:00:00", "confirmed").await;
    let first =
        closures(&[period("2026-01-01", "2026-01-05", Some("Works")), period("2026-02-01", "2026-02-01", None)]);

    let response = app.put_closures(&credential, "harbour-1", "dry_run=true", &first).await;
    let list = assert_closures_result(&response, 200, "harbour-1", "created", 2, 0, true);
    assert_eq!(
        list,
        json!([
            read_period("2026-01-01", "2026-01-05", Some("Works"), 1),
            read_period("2026-02-01", "2026-02-01", None, 0),
        ])
    );
    assert_no_closures(&app, &credential).await;

    assert_closures_result(&put(&app, &credential, &first).await, 201, "harbour-1", "created", 2, 0, false);
    let response = app.put_closures(&credential, "harbour-1", "dry_run=true", &closures(&[])).await;
    assert_eq!(assert_closures_result(&response, 200, "harbour-1", "updated", 0, 2, true), json!([]));
    let response = app.put_closures(&credential, "harbour-1", "dry_run=true", &first).await;
    assert_closures_result(&response, 200, "harbour-1", "unchanged", 0, 0, true);
    assert_eq!(app.closure_list(&credential, "harbour-1").await.as_array().map(Vec::len), Some(2));

    // Refusals are the real write's; dry_run is the literal true only.
    let response =
        app.put_closures(&credential, "harbour-1", "dry_run=true", &three_with(1, "reason", Some(json!("")))).await;
    response.assert_error(422, "invalid_blocked_periods", Some("blocked_periods[1].reason"));
    for query in ["dry_run=1", "dry_run=false", "dry_run=", "dry_run=true&dry_run=true"] {
        let response = app.put_closures(&credential, "harbour-1", query, &closures(&[])).await;
        response.assert_error(422, "invalid_query", Some("dry_run"));
    }
    assert_eq!(app.closure_list(&credential, "harbour-1").await.as_array().map(Vec::len), Some(2));
}

// ---------------------------------------------------------------------------------------------
// Query, transport, verbs, the path id
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn get_accepts_no_query_parameter_not_even_dry_run() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for (query, field) in [("dry_run=true", "dry_run"), ("limit=5", "limit"), ("after=a", "after"), ("foo", "foo")] {
        app.get_closures(&credential, "harbour-1", query).await.assert_error(422, "invalid_query", Some(field));
        // The query is checked before the credential and the lot.
        let response = app.get(&under_lot("nope", "blocked-periods", query), &[]).await;
        response.assert_error(422, "invalid_query", Some(field));
    }
    let response = app.put_closures(&credential, "harbour-1", "limit=5", &closures(&[])).await;
    response.assert_error(422, "invalid_query", Some("limit"));
    assert_eq!(app.get_closures(&credential, "harbour-1", "").await.status, 200);
}

#[tokio::test]
async fn a_put_with_a_content_type_other_than_json_answers_415_and_one_over_64_kib_413() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let body = closures(&[period("2026-01-01", "2026-01-02", None)]);
    let headers = header_map(&[("authorization", &credential.bearer()), ("content-type", "text/plain")]);
    let response = app.request(Method::PUT, "/v1/lots/harbour-1/blocked-periods", headers, body.to_string()).await;
    response.assert_error(415, "unsupported_media_type", None);
    let over = padded(&body, 64 * 1024 + 1);
    put_raw(&app, &credential, over).await.assert_error(413, "payload_too_large", None);
    assert_no_closures(&app, &credential).await;
}

#[tokio::test]
async fn options_answers_204_and_other_verbs_405_with_allow_get_put_options() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for path in
        ["/v1/lots/harbour-1/blocked-periods", "/v1/lots/nope/blocked-periods?dry_run=x", "/v1/lots//blocked-periods"]
    {
        let response = app.request(Method::OPTIONS, path, header_map(&[]), "").await;
        assert_eq!(response.status, 204, "{path}");
        assert_eq!(response.header("allow"), Some(CLOSURES_ALLOW));
        assert!(response.body.is_empty());
        assert_eq!(response.header("content-type"), None);
        response.request_id();
    }
    let bearer = credential.bearer();
    for method in [Method::POST, Method::DELETE, Method::PATCH] {
        let headers = header_map(&[("authorization", &bearer), ("content-type", "application/json")]);
        let response = app
            .request(method.clone(), "/v1/lots/harbour-1/blocked-periods", headers, "{\"blocked_periods\":[]}")
            .await;
        response.assert_error(405, "method_not_allowed", None);
        assert_eq!(response.header("allow"), Some(CLOSURES_ALLOW), "{method}");
    }
    let response = app.request(Method::HEAD, "/v1/lots/harbour-1/blocked-periods", header_map(&[]), "").await;
    assert_eq!((response.status.as_u16(), response.header("allow")), (405, Some(CLOSURES_ALLOW)));
}

#[tokio::test]
async fn the_path_id_is_percent_decoded() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    app.put_lot_expecting(&credential, "a%2Fb", &minimal_lot("Slash"), 201).await;
    let response =
        app.put_closures(&credential, "a%2Fb", "", &closures(&[period("2026-01-01", "2026-01-01", None)])).await;
    assert_closures_result(&response, 201, "a/b", "created", 1, 0, false);
    let response = app.get_closures(&credential, "a%2Fb", "").await;
    assert_eq!(
        response.json(),
        json!({ "external_id": "a/b", "blocked_periods": [read_period("2026-01-01", "2026-01-01", None, 0)] })
    );
    // Each lot has its own list.
    assert_no_closures(&app, &credential).await;
}
