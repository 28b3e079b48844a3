//! GET /bookings over HTTP, with the default watermark lag (5 minutes): the answer's exact shape
//! and the Booking's fields, formats and nulls; `limit` (1-500, default 200, plain digits) and
//! `since` (absent or empty: from the beginning; over 512 characters: `invalid_query`; a token the
//! service did not issue to this operator: `invalid_cursor`); unknown and repeated parameters; the
//! `read_bookings` scope behind the uniform 401, with query errors answered before the credential
//! is looked at; one operator never sees another's bookings; and what the lag means for a client:
//! bookings newer than the watermark come, but the cursor is not committed to them, and a token
//! beyond the watermark is clamped back to it; and a booking stamped a day ahead delays the changes
//! after it by at most twice the lag and stalls nothing.
//!
//! Every booking here is newer than the watermark (now − 5 minutes), so every page "reached past
//! the watermark" and answers has_more false. The cursor's progress, has_more true, and the
//! no-skip property under concurrent writers are in `bookings_feed_cursor.rs`, whose database has
//! lag 0.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use gateway::webhooks::address::AddressPolicy;
use serde_json::{json, Value};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::common::bookings::{minimal_booking, FeedClient, Page};
use crate::common::webhooks::{wired_worker, FixedResolver, TestAuthority};
use crate::common::{assert_uniform_401, connect, create_database, Credential, Operator, TestApp};

/// An operator with a lot `harbour-1` ("Harbour North", America/Sao_Paulo) and a credential
/// holding every scope.
async fn operator_with_lot(app: &TestApp) -> (Operator, Credential) {
    let (operator, credential) = app.operator_with_credential().await;
    let lot = json!({
        "name": "Harbour North",
        "timezone": "America/Sao_Paulo",
        "handover": "self",
        "online_bookable": true,
    });
    app.put_lot_expecting(&credential, "harbour-1", &lot, 201).await;
    (operator, credential)
}

/// A customer with all four keys.
fn customer() -> Value {
    json!({ "first_name": "Ana", "last_name": "Silva", "email": "ana@example.test", "phone": "+351 900 000 000" })
}

/// A minimal booking of `harbour-1` checking in on day `day` of July 2026.
fn booking_on(day: u32) -> Value {
    minimal_booking("harbour-1", &format!("2026-07-{day:02}T09:00:00"), &format!("2026-07-{:02}T18:00:00", day + 2))
}

/// The created_at and cancelled_at the database holds for a booking.
async fn stored_times(app: &TestApp, operator: &Operator, reference: &str) -> (SystemTime, Option<SystemTime>) {
    let row = app
        .superuser()
        .await
        .query_one(
            "SELECT created_at, cancelled_at FROM app.bookings WHERE operator_id = $1 AND reference = $2",
            &[&operator.id, &reference],
        )
        .await
        .expect("the booking is stored");
    (row.get(0), row.get(1))
}

/// Asserts `text` is a UTC timestamp with exactly six fractional digits and `Z`
/// (`YYYY-MM-DDTHH:MM:SS.ffffffZ`), and answers the instant it names.
fn utc_instant(text: &Value) -> SystemTime {
    let text = text.as_str().unwrap_or_else(|| panic!("a timestamp is a string: {text}"));
    let shape: String = text.chars().map(|c| if c.is_ascii_digit() { 'd' } else { c }).collect();
    assert_eq!(shape, "dddd-dd-ddTdd:dd:dd.ddddddZ", "UTC with fractional seconds and Z: {text}");
    OffsetDateTime::parse(text, &Rfc3339).unwrap_or_else(|e| panic!("RFC 3339 ({e}): {text}")).into()
}

/// The one page of `query` (which must answer 200), with has_more false.
async fn last_page(app: &TestApp, credential: &Credential, query: &str) -> Page {
    let page = app.bookings_page(credential, query).await;
    assert!(!page.has_more, "has_more is false: {query}");
    page
}

// ---------------------------------------------------------------------------------------------
// The answer and the Booking
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn an_operator_without_bookings_gets_an_empty_page_with_a_cursor_and_has_more_false() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;

    let first = last_page(&app, &credential, "").await;
    assert_eq!(first.bookings, Vec::<Value>::new());
    // The cursor it answers is accepted, and an empty page answers the position it was given.
    let again = last_page(&app, &credential, &format!("since={}", first.next)).await;
    assert_eq!(again.bookings, Vec::<Value>::new());
    assert_eq!(again.next, first.next);
}

#[tokio::test]
async fn a_booking_carries_exactly_the_spec_fields_in_their_formats() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator_with_lot(&app).await;
    let reference = app
        .record(
            &operator,
            &json!({
                "reference": "BKFORMS01",
                "external_reference": "OP-778/2026",
                "lot_external_id": "harbour-1",
                "check_in_local": "2026-07-01T06:30:00",
                "check_out_local": "2026-07-05T22:15:59",
                "parking_days": 5,
                "status": "confirmed",
                "payment_status": "partial",
                "currency": "EUR",
                "total": 40.5,
                "channel": "marketplace",
                "flight_number": "TP1234",
                "customer": customer(),
                "vehicle_plates": ["AA-00-BB", "CC-11-DD"],
            }),
        )
        .await;
    assert_eq!(reference, "BKFORMS01");

    let page = last_page(&app, &credential, "").await;
    assert_eq!(page.bookings.len(), 1);
    let mut booking = page.bookings[0].clone();
    let (created_at, _) = stored_times(&app, &operator, &reference).await;
    assert_eq!(utc_instant(&booking["created_at"]), created_at, "created_at is the stored instant, to the microsecond");
    booking.as_object_mut().unwrap().remove("created_at");
    assert_eq!(
        booking,
        json!({
            "reference": "BKFORMS01",
            "external_reference": "OP-778/2026",
            "lot_external_id": "harbour-1",
            "lot_name": "Harbour North",
            "timezone": "America/Sao_Paulo",
            "check_in_local": "2026-07-01T06:30:00",
            "check_out_local": "2026-07-05T22:15:59",
            "parking_days": 5,
            "status": "confirmed",
            "payment_status": "partial",
            "currency": "EUR",
            "total": "40.50",
            "channel": "marketplace",
            "flight_number": "TP1234",
            "customer": customer(),
            "vehicle_plates": ["AA-00-BB", "CC-11-DD"],
            "cancelled_at": null,
        })
    );
}

#[tokio::test]
async fn what_is_unknown_is_null_no_plates_is_an_empty_list_and_a_cancelled_booking_has_cancelled_at() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator_with_lot(&app).await;
    let mut minimal = booking_on(1);
    minimal["reference"] = json!("BKNULLS01");
    minimal["total"] = json!("7");
    app.record(&operator, &minimal).await;
    let mut email_only = booking_on(2);
    email_only["reference"] = json!("BKNULLS02");
    email_only["customer"] = json!({ "email": "x@example.test" });
    email_only["vehicle_plates"] = json!([]);
    app.record(&operator, &email_only).await;
    let mut cancelled = booking_on(3);
    cancelled["reference"] = json!("BKNULLS03");
    app.record(&operator, &cancelled).await;
    app.update_booking(&operator, "BKNULLS03", &json!({ "status": "cancelled", "payment_status": "refunded" })).await;

    let page = last_page(&app, &credential, "").await;
    let by_reference = |reference: &str| -> Value {
        let found = page.bookings.iter().find(|booking| booking["reference"] == reference);
        found.unwrap_or_else(|| panic!("{reference} delivered")).clone()
    };
    assert_eq!(page.bookings.len(), 3);

    let first = by_reference("BKNULLS01");
    assert_eq!(first["external_reference"], Value::Null);
    assert_eq!(first["flight_number"], Value::Null);
    assert_eq!(first["customer"], json!({ "first_name": null, "last_name": null, "email": null, "phone": null }));
    assert_eq!(first["vehicle_plates"], json!([]));
    assert_eq!(first["cancelled_at"], Value::Null);
    assert_eq!(first["total"], "7.00", "money always has two decimals");
    assert_eq!(first["parking_days"], 2);

    let second = by_reference("BKNULLS02");
    assert_eq!(
        second["customer"],
        json!({ "first_name": null, "last_name": null, "email": "x@example.test", "phone": null })
    );
    assert_eq!(second["vehicle_plates"], json!([]));

    let third = by_reference("BKNULLS03");
    assert_eq!((third["status"].clone(), third["payment_status"].clone()), (json!("cancelled"), json!("refunded")));
    let (_, cancelled_at) = stored_times(&app, &operator, "BKNULLS03").await;
    assert_eq!(Some(utc_instant(&third["cancelled_at"])), cancelled_at, "cancelled_at is the stored instant");
    utc_instant(&third["created_at"]);
}

#[tokio::test]
async fn an_operator_sees_only_its_own_bookings() {
    let app = TestApp::spawn().await;
    let (mine, my_credential) = operator_with_lot(&app).await;
    let (theirs, their_credential) = operator_with_lot(&app).await;
    let my_references = vec![app.record(&mine, &booking_on(1)).await, app.record(&mine, &booking_on(2)).await];
    let their_references = vec![app.record(&theirs, &booking_on(1)).await];

    assert_eq!(last_page(&app, &my_credential, "limit=500").await.references(), my_references);
    assert_eq!(last_page(&app, &their_credential, "limit=500").await.references(), their_references);
}

// ---------------------------------------------------------------------------------------------
// limit and since
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn limit_defaults_to_200_and_takes_any_value_from_1_to_500() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator_with_lot(&app).await;
    app.record_bookings_in_bulk(&operator, "harbour-1", 201).await;
    let order = app.feed_order(&operator).await;

    // Every one of these bookings is newer than the watermark, so no page commits the cursor to
    // them and has_more is false even on a full page.
    assert_eq!(last_page(&app, &credential, "").await.references(), order[..200]);
    assert_eq!(last_page(&app, &credential, "limit=1").await.references(), order[..1]);
    assert_eq!(last_page(&app, &credential, "limit=137").await.references(), order[..137]);
    assert_eq!(last_page(&app, &credential, "limit=200").await.references(), order[..200]);
    assert_eq!(last_page(&app, &credential, "limit=500").await.references(), order);
}

#[tokio::test]
async fn a_limit_outside_1_to_500_or_not_plain_digits_is_invalid_query_even_without_a_credential() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();
    for limit in ["501", "0", "-1", "05", "abc", "", "+5", "5.0", "1e2", "%205", "5%20", "99999999999999999999"] {
        let query = format!("limit={limit}");
        app.get_bookings(&credential, &query).await.assert_error(422, "invalid_query", Some("limit"));
        // The query is checked before the credential is looked at.
        app.get(&crate::common::bookings::bookings_path(&query), &[]).await.assert_error(
            422,
            "invalid_query",
            Some("limit"),
        );
        app.get(&crate::common::bookings::bookings_path(&query), &[("authorization", "Bearer nope")])
            .await
            .assert_error(422, "invalid_query", Some("limit"));
    }
    app.get(&crate::common::bookings::bookings_path("limit"), &[("authorization", &bearer)]).await.assert_error(
        422,
        "invalid_query",
        Some("limit"),
    );
}

#[tokio::test]
async fn since_absent_or_empty_reads_from_the_beginning() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator_with_lot(&app).await;
    let references = vec![app.record(&operator, &booking_on(1)).await, app.record(&operator, &booking_on(2)).await];

    for query in ["", "limit=10", "since=", "since", "since=&limit=10", "limit=10&since="] {
        assert_eq!(last_page(&app, &credential, query).await.references(), references, "{query:?}");
    }
}

#[tokio::test]
async fn a_since_over_512_characters_is_invalid_query_even_without_a_credential() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    for since in ["a".repeat(513), "é".repeat(513), format!("{}.{}", "A".repeat(468), "B".repeat(44))] {
        let path =
            crate::common::bookings::bookings_path(&format!("since={}", crate::common::lots::form_encode(&since)));
        let response = app.get(&path, &[("authorization", &credential.bearer())]).await;
        response.assert_error(422, "invalid_query", Some("since"));
        app.get(&path, &[]).await.assert_error(422, "invalid_query", Some("since"));
    }
    // A NUL cannot be a token either, and is refused as a query value.
    app.get_bookings(&credential, "since=a%00b").await.assert_error(422, "invalid_query", Some("since"));

    // 512 characters are not too long: such a since is looked at, after the credential.
    let longest = format!("since={}", "a".repeat(512));
    app.get_bookings(&credential, &longest).await.assert_error(422, "invalid_cursor", Some("since"));
    assert_uniform_401(&app.get(&crate::common::bookings::bookings_path(&longest), &[]).await);
}

#[tokio::test]
async fn a_since_the_service_did_not_issue_to_this_operator_is_invalid_cursor() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator_with_lot(&app).await;
    app.record(&operator, &booking_on(1)).await;
    let token = last_page(&app, &credential, "").await.next;
    let (other_operator, other_credential) = operator_with_lot(&app).await;
    app.record(&other_operator, &booking_on(1)).await;
    let other_token = last_page(&app, &other_credential, "").await.next;
    assert_ne!(token, other_token);

    let (payload, signature) = token.split_once('.').expect("a token is payload.signature");
    let (_, other_signature) = other_token.split_once('.').unwrap();
    let swap = |text: &str, at: usize| -> String {
        let mut chars: Vec<char> = text.chars().collect();
        chars[at] = if chars[at] == 'A' { 'B' } else { 'A' };
        chars.into_iter().collect()
    };
    // The last character of a base64url text carries spare bits decode() ignores: another
    // spelling of the same bytes is still not the token the service issued.
    let spare_bits = |text: &str| -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let last = text.as_bytes()[text.len() - 1];
        let index = ALPHABET.iter().position(|c| *c == last).unwrap();
        format!("{}{}", &text[..text.len() - 1], ALPHABET[index ^ 1] as char)
    };
    assert_eq!(signature.len(), 43, "a signature is 32 bytes, unpadded");
    assert_ne!(payload.len() % 4, 0, "the payload's last character has spare bits");
    let refused = [
        format!("{payload}.{}", spare_bits(signature)),
        format!("{}.{signature}", spare_bits(payload)),
        "garbage".to_string(),
        "a.b".to_string(),
        ".".to_string(),
        format!("{payload}.{}", "A".repeat(43)),
        format!("{}.{signature}", swap(payload, 0)),
        format!("{}.{signature}", swap(payload, payload.len() - 1)),
        format!("{payload}.{}", swap(signature, 10)),
        token[..token.len() - 1].to_string(),
        format!("{token}A"),
        format!("{token}="),
        payload.to_string(),
        signature.to_string(),
        format!("{payload}.{other_signature}"),
        format!("{payload}..{signature}"),
        format!(" {token}"),
        token.to_lowercase(),
        other_token.clone(),
    ];
    for since in &refused {
        let query = format!("since={}", crate::common::lots::form_encode(since));
        app.get_bookings(&credential, &query).await.assert_error(422, "invalid_cursor", Some("since"));
    }
    // And the other way round: this operator's token is not the other's.
    let response = app.get_bookings(&other_credential, &format!("since={token}")).await;
    response.assert_error(422, "invalid_cursor", Some("since"));

    // A token is bound to the operator, not to the credential that received it.
    let second = app.issue(&operator, &["read_bookings"], None).await;
    app.bookings_page(&second, &format!("since={token}")).await;
    app.bookings_page(&credential, &format!("since={token}")).await;
}

#[tokio::test]
async fn an_unknown_or_repeated_parameter_is_invalid_query_naming_it_even_without_a_credential() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    let cases = [
        ("after=x", "after"),
        ("dry_run=true", "dry_run"),
        ("Limit=5", "Limit"),
        ("limit=5&cursor=x", "cursor"),
        ("limit=5&limit=5", "limit"),
        ("since=&since=", "since"),
        ("since%5B%5D=x", "since[]"),
    ];
    for (query, field) in cases {
        app.get_bookings(&credential, query).await.assert_error(422, "invalid_query", Some(field));
        app.get(&crate::common::bookings::bookings_path(query), &[]).await.assert_error(
            422,
            "invalid_query",
            Some(field),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Scope
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn reading_bookings_needs_the_read_bookings_scope_and_anything_else_is_the_uniform_401() {
    let app = TestApp::spawn().await;
    let (operator, all) = operator_with_lot(&app).await;
    app.record(&operator, &booking_on(1)).await;
    let token = last_page(&app, &all, "").await.next;

    let supply_reader = app.issue(&operator, &["read_supply"], None).await;
    let supply_writer = app.issue(&operator, &["write_supply"], None).await;
    let supply = app.issue(&operator, &["read_supply", "write_supply"], None).await;
    for credential in [&supply_reader, &supply_writer, &supply] {
        assert_uniform_401(&app.get_bookings(credential, "").await);
        assert_uniform_401(&app.get_bookings(credential, &format!("since={token}&limit=5")).await);
        // The credential is checked before the cursor is.
        assert_uniform_401(&app.get_bookings(credential, "since=garbage").await);
        // ...and it still works where its scope does.
        assert_eq!(app.ping(Some(&credential.bearer())).await.status, 200);
    }
    assert_uniform_401(&app.get(&crate::common::bookings::bookings_path(""), &[]).await);
    assert_uniform_401(&app.get(&crate::common::bookings::bookings_path("since=garbage"), &[]).await);

    let bookings_reader = app.issue(&operator, &["read_bookings"], None).await;
    assert_eq!(last_page(&app, &bookings_reader, "").await.bookings.len(), 1);
    app.revoke(&operator, &bookings_reader).await;
    assert_uniform_401(&app.get_bookings(&bookings_reader, "").await);
}

// ---------------------------------------------------------------------------------------------
// The watermark, at its default lag
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn bookings_newer_than_the_watermark_come_but_the_cursor_is_not_committed_to_them() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator_with_lot(&app).await;
    let mut references = Vec::new();
    for day in 1..=3 {
        references.push(app.record(&operator, &booking_on(day)).await);
    }

    // A full page of bookings recorded moments ago: has_more is false (no tight loop), and its
    // next stays at the watermark, so the same bookings come again from it.
    let first = last_page(&app, &credential, "limit=2").await;
    assert_eq!(first.references(), references[..2]);
    let again = last_page(&app, &credential, &format!("limit=2&since={}", first.next)).await;
    assert_eq!(again.references(), references[..2]);
    let all = last_page(&app, &credential, &format!("limit=500&since={}", again.next)).await;
    assert_eq!(all.references(), references);
}

#[tokio::test]
async fn a_token_beyond_the_watermark_is_clamped_back_to_it() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator_with_lot(&app).await;
    let references = vec![app.record(&operator, &booking_on(1)).await, app.record(&operator, &booking_on(2)).await];
    // A token of the service for a position an hour ahead (after both bookings), signed for this
    // operator by the database's own token function: the API never issues one past the watermark.
    let ahead: String = app
        .superuser()
        .await
        .query_one("SELECT app.cursor_token($1, now() + interval '1 hour', 'ZZZ')", &[&operator.id])
        .await
        .expect("app.cursor_token")
        .get(0);

    // Read from the watermark instead, the two bookings come (read from the token's own
    // position, none would), and the cursor answered is the watermark's.
    let clamped = last_page(&app, &credential, &format!("since={ahead}")).await;
    assert_eq!(clamped.references(), references);
    assert_ne!(clamped.next, ahead);
    assert_eq!(last_page(&app, &credential, &format!("since={}", clamped.next)).await.references(), references);
}

#[tokio::test]
async fn a_since_with_a_malformed_escape_is_invalid_query_not_invalid_cursor() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_credential().await;
    for query in ["since=%ZZ", "since=abc%", "since=%C3", "since=%FF"] {
        app.get_bookings(&credential, query).await.assert_error(422, "invalid_query", Some("since"));
        // Query syntax is refused before the credential is looked at.
        app.get(&crate::common::bookings::bookings_path(query), &[]).await.assert_error(
            422,
            "invalid_query",
            Some("since"),
        );
    }
}

#[tokio::test]
async fn the_feed_runs_under_read_committed_whatever_the_servers_default_isolation() {
    let url = crate::common::create_database(true).await;
    let database = url.rsplit('/').next().unwrap().split('?').next().unwrap().to_string();
    let admin = crate::common::connect(&url).await;
    admin
        .batch_execute(&format!("ALTER DATABASE \"{database}\" SET default_transaction_isolation = 'serializable'"))
        .await
        .unwrap();
    let app = TestApp::spawn_on(&url, |_| {}).await;
    let (operator, credential) = operator_with_lot(&app).await;
    let reference = app.record(&operator, &booking_on(1)).await;
    assert_eq!(
        last_page(&app, &credential, "").await.references(),
        [reference],
        "the gateway's connections read committed"
    );

    // A connection that keeps the server's default gets a refusal, never a page that could skip.
    let direct = crate::common::connect(&url).await;
    let level: String = direct.query_one("SHOW transaction_isolation", &[]).await.unwrap().get(0);
    assert_eq!(level, "serializable");
    direct.batch_execute("SET ROLE ingest_gateway").await.unwrap();
    let error = direct
        .query_one("SELECT status FROM api.bookings_get($1, NULL, 10)", &[&credential.bearer()])
        .await
        .expect_err("refused under SERIALIZABLE");
    assert_eq!(error.code().map(|code| code.code()), Some("25000"));
}

// ---------------------------------------------------------------------------------------------
// A stamp ahead of the clock
// ---------------------------------------------------------------------------------------------

/// A booking stamped a day ahead (as by a clock a day ahead, or an old primary running ahead) must
/// not carry every later change of its operator a day ahead too: a client following `next` with
/// `limit=5` would get the same five bookings on every poll, and the changes after them never.
/// Capped at the clock plus the lag, they reach the client once the watermark passes them, and
/// each capped stamp is counted. (A database of its own: the lag is a setting of the whole
/// database, 1 second here.)
#[tokio::test]
async fn a_stamp_a_day_ahead_delays_later_changes_by_at_most_twice_the_lag_and_stalls_nothing() {
    let database = create_database(true).await;
    connect(&database)
        .await
        .execute("UPDATE app.settings SET value = '1 second' WHERE name = 'bookings_watermark_lag'", &[])
        .await
        .expect("setting the watermark lag");
    let authority = TestAuthority::new();
    let (worker, _) =
        wired_worker(&database, &authority, 443, Arc::new(FixedResolver::default()), AddressPolicy::production());
    let app = TestApp::spawn_with_worker(&database, worker).await;
    let (operator, credential) = operator_with_lot(&app).await;
    let record = |n: u32| {
        let mut booking = booking_on(1 + n % 20);
        booking["reference"] = json!(format!("A-{n}"));
        let (app, operator) = (&app, &operator);
        async move { app.record(operator, &booking).await }
    };
    let mut client = FeedClient::new(&app, &credential, 5);
    // Polls as the spec's pattern does until the client holds A-0 to A-<last>.
    async fn receives(client: &mut FeedClient, last: u32) {
        let expected: Vec<String> = (0..=last).map(|n| format!("A-{n}")).collect();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !expected.iter().all(|reference| client.bookings.contains_key(reference)) {
            assert!(
                Instant::now() < deadline,
                "after {} pulls the client holds {:?}, not {expected:?}",
                client.pulls,
                client.bookings.keys().collect::<Vec<_>>()
            );
            client.pull().await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    record(0).await;
    record(1).await;
    receives(&mut client, 1).await;
    record(2).await;
    let restamped = app
        .superuser()
        .await
        .batch_execute(&format!(
            "SET session_replication_role = replica;
             UPDATE app.bookings SET changed_at = now() + interval '1 day'
              WHERE operator_id = '{}' AND reference = 'A-2'",
            operator.id
        ))
        .await;
    assert!(restamped.is_ok(), "A-2 stamped a day ahead: {restamped:?}");
    for n in 3..=9 {
        record(n).await;
    }
    receives(&mut client, 9).await;
    // And so does every booking after them.
    for n in 10..=14 {
        record(n).await;
    }
    receives(&mut client, 14).await;
    // Every booking after A-2 was capped, and counted.
    app.metric_reaches("ingest_booking_stamps_capped", 12.0).await;
}
