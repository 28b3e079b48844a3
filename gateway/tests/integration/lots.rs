//! PUT /lots/{external_id}: the write result (201 created, 200 updated, 200 unchanged), the read
//! form, dry run, the transport refusals (415, 413, `invalid_query`), the body refusals the gateway
//! and the database share (`invalid_json`, `too_many_lots`, `field_belongs_to_another_route`,
//! `unknown_field`, `missing_field`, `invalid_body` on the id), the path id, the verbs of the lot
//! routes, and the order of checks (docs/design.md): 404 → 405 → 413 → 415 → `invalid_query` → 401
//! → body errors. Every validation row of the body is pgTAP's; here each code is proved end to end.
//!
//! Listing (GET /lots) is `lots_list.rs`, the 409 race `lots_concurrency.rs`, the write log line
//! `logging.rs`.

use http::Method;
use serde_json::{json, Value};

use crate::common::lots::{
    assert_write_result, chunk, full_lot, full_read_form, json_headers, lot_path, minimal_lot, minimal_read_form,
    padded, raw_exchange, raw_put_head, ALL_CHANGED, LAST_CHUNK,
};
use crate::common::{header_map, Credential, TestApp, TestResponse};

const LOT_ALLOW: &str = "PUT, OPTIONS";
const LOTS_ALLOW: &str = "GET, OPTIONS";
const KIB_64: usize = 64 * 1024;

/// An operator with a write_supply + read_supply credential (and nothing else).
async fn writer(app: &TestApp) -> (crate::common::Operator, Credential) {
    let operator = app.make_operator().await;
    let credential = app.issue(&operator, &["read_supply", "write_supply"], None).await;
    (operator, credential)
}

/// PUT /v1/lots/<segment> with these headers and raw body.
async fn put_raw(app: &TestApp, path: &str, headers: &[(&str, &str)], body: impl Into<bytes::Bytes>) -> TestResponse {
    app.request(Method::PUT, path, header_map(headers), body).await
}

/// Asserts the operator holds no lot at all (nothing was stored).
async fn assert_no_lots(app: &TestApp, credential: &Credential) {
    assert_eq!(app.lot_ids(credential).await, Vec::<String>::new(), "nothing is stored");
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_first_put_creates_the_lot_and_answers_201_with_the_write_result_and_the_read_form() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;

    let response = app.put_lot(&credential, "harbour-1", &full_lot(&operator)).await;
    let body = assert_write_result(&response, 201, "harbour-1", "created", &ALL_CHANGED, false, false);
    assert_eq!(body["lot"], full_read_form(&operator, "harbour-1"));

    let response = app.put_lot(&credential, "bare", &minimal_lot("Bare lot")).await;
    let body = assert_write_result(&response, 201, "bare", "created", &ALL_CHANGED, false, false);
    assert_eq!(body["lot"], minimal_read_form("bare", "Bare lot"));
    assert_eq!(body["lot"]["features"], json!([]), "features is never null");

    // What was answered is what is stored.
    assert_eq!(app.lot_ids(&credential).await, ["bare", "harbour-1"]);
}

#[tokio::test]
async fn a_put_that_changes_fields_answers_200_updated_naming_exactly_those_fields_in_table_order() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;

    let mut body = full_lot(&operator);
    body["capacity"] = json!(150);
    body["online_bookable"] = json!(false);
    body["name"] = json!("Harbour Long Stay (North)");
    // Same values written differently are no change: a set in another order, a coordinate that
    // rounds to the stored one, a country in lower case, an explicit null for an absent key.
    body["features"] = json!(["indoor", "security", "indoor"]);
    body["latitude"] = json!(38.7743001);
    body["country_code"] = json!("pt");
    body["min_advance_days"] = json!(null);

    let response = app.put_lot(&credential, "harbour-1", &body).await;
    let answer = assert_write_result(
        &response,
        200,
        "harbour-1",
        "updated",
        &["name", "online_bookable", "capacity"],
        false,
        false,
    );
    let mut expected = full_read_form(&operator, "harbour-1");
    expected["name"] = json!("Harbour Long Stay (North)");
    expected["online_bookable"] = json!(false);
    expected["capacity"] = json!(150);
    assert_eq!(answer["lot"], expected);
    let mut listed = expected.clone();
    listed["rates"] = Value::Null;
    assert_eq!(app.listed_lot(&credential, "harbour-1").await, Some(listed));
}

#[tokio::test]
async fn a_put_equal_to_the_stored_lot_answers_200_unchanged_with_an_empty_changed_list() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    let created = app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;

    let response = app.put_lot(&credential, "harbour-1", &full_lot(&operator)).await;
    let answer = assert_write_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
    assert_eq!(answer["lot"], created["lot"]);

    // The stored form sent back is unchanged too.
    let mut stored = created["lot"].clone();
    stored.as_object_mut().unwrap().remove("external_id");
    let response = app.put_lot(&credential, "harbour-1", &stored).await;
    let answer = assert_write_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
    assert_eq!(answer["lot"], created["lot"]);
}

/// The text of the last write sent again is not read again (its digest is kept with the write), so
/// its answer must be byte for byte the one the full check gives to another text of equal values.
#[tokio::test]
async fn the_text_of_the_last_write_sent_again_answers_exactly_what_the_full_check_answers() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    let written = serde_json::to_string(&full_lot(&operator)).unwrap();
    let headers = json_headers(&credential);
    let path = lot_path("harbour-1", "");
    let response = app.request(Method::PUT, &path, headers.clone(), written.clone()).await;
    assert_eq!(response.status, 201);

    let other_text = serde_json::to_string_pretty(&full_lot(&operator)).unwrap();
    let full_check = app.request(Method::PUT, &path, headers.clone(), other_text).await;
    assert_write_result(&full_check, 200, "harbour-1", "unchanged", &[], false, false);
    let same_text = app.request(Method::PUT, &path, headers.clone(), written.clone()).await;
    assert_write_result(&same_text, 200, "harbour-1", "unchanged", &[], false, false);
    assert_eq!(same_text.body, full_check.body, "the same answer, byte for byte");

    let dry_run = app.request(Method::PUT, &lot_path("harbour-1", "dry_run=true"), headers, written).await;
    let answer = assert_write_result(&dry_run, 200, "harbour-1", "unchanged", &[], false, true);
    let mut expected = full_check.json();
    expected["dry_run"] = json!(true);
    assert_eq!(answer, expected);
}

#[tokio::test]
async fn an_absent_key_means_null_and_clears_the_stored_value() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;

    let body = json!({
        "name": "Harbour Long Stay", "timezone": "Europe/Lisbon", "handover": "attended", "online_bookable": true,
    });
    let response = app.put_lot(&credential, "harbour-1", &body).await;
    let cleared = [
        "capacity",
        "latitude",
        "longitude",
        "city",
        "country_code",
        "features",
        "arrival",
        "media",
        "min_stay_days",
        "max_stay_days",
        "cancellation_free_until_hours_before_check_in",
        "cancellation_penalty_percent_after",
        "cancellation_no_show_forfeits_full",
    ];
    let answer = assert_write_result(&response, 200, "harbour-1", "updated", &cleared, false, false);
    let mut expected = minimal_read_form("harbour-1", "Harbour Long Stay");
    expected["handover"] = json!("attended");
    assert_eq!(answer["lot"], expected);
}

#[tokio::test]
async fn a_reviewed_change_voids_a_pending_review_and_an_online_bookable_change_alone_does_not() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;
    // A price in force is a listing requirement too.
    app.put_rates_expecting(&credential, "harbour-1", &json!({ "fixed_price": "20.00" }), 201).await;
    app.submit_for_review(&operator, "harbour-1").await;
    app.approve_review(&operator, "harbour-1").await;

    let mut off_sale = full_lot(&operator);
    off_sale["online_bookable"] = json!(false);
    let response = app.put_lot(&credential, "harbour-1", &off_sale).await;
    assert_write_result(&response, 200, "harbour-1", "updated", &["online_bookable"], false, false);
    assert_eq!(app.listing_status(&operator, "harbour-1").await["review_state"], "approved");

    let mut renamed = off_sale.clone();
    renamed["city"] = json!("Lisboa");
    let response = app.put_lot(&credential, "harbour-1", &renamed).await;
    assert_write_result(&response, 200, "harbour-1", "updated", &["city"], true, false);
    assert_eq!(app.listing_status(&operator, "harbour-1").await["review_state"], "superseded");

    // Nothing left to void: a further reviewed change reports false.
    renamed["city"] = json!("Lisbon");
    let response = app.put_lot(&credential, "harbour-1", &renamed).await;
    assert_write_result(&response, 200, "harbour-1", "updated", &["city"], false, false);
}

// ---------------------------------------------------------------------------------------------
// Dry run
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_dry_run_of_a_create_answers_200_created_with_dry_run_true_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    assert_eq!(app.listed(&operator, &credential).await.last_used_at, None);

    let response = app.put_lot_query(&credential, "harbour-1", "dry_run=true", &full_lot(&operator)).await;
    let answer = assert_write_result(&response, 200, "harbour-1", "created", &ALL_CHANGED, false, true);
    assert_eq!(answer["lot"], full_read_form(&operator, "harbour-1"));
    // Rolled back, but the credential's use is still recorded.
    assert!(app.listed(&operator, &credential).await.last_used_at.is_some(), "last_used_at is recorded");

    assert_no_lots(&app, &credential).await;
    // The real write still creates it.
    let response = app.put_lot(&credential, "harbour-1", &full_lot(&operator)).await;
    assert_write_result(&response, 201, "harbour-1", "created", &ALL_CHANGED, false, false);
}

#[tokio::test]
async fn a_dry_run_of_an_update_reports_the_update_and_leaves_the_stored_lot_as_it_was() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    let created = app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;
    let listed_before = app.listed_lot(&credential, "harbour-1").await.expect("listed");

    let mut body = full_lot(&operator);
    body["name"] = json!("Renamed in a dry run");
    body["features"] = json!(null);
    let response = app.put_lot_query(&credential, "harbour-1", "dry_run=true", &body).await;
    let answer = assert_write_result(&response, 200, "harbour-1", "updated", &["name", "features"], false, true);
    assert_eq!(answer["lot"]["name"], "Renamed in a dry run");
    assert_eq!(answer["lot"]["features"], json!([]));

    assert_eq!(app.listed_lot(&credential, "harbour-1").await, Some(listed_before));
    let response = app.put_lot(&credential, "harbour-1", &full_lot(&operator)).await;
    let answer = assert_write_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
    assert_eq!(answer["lot"], created["lot"]);

    // A dry run of nothing is unchanged, and still a dry run.
    let response = app.put_lot_query(&credential, "harbour-1", "dry_run=true", &full_lot(&operator)).await;
    assert_write_result(&response, 200, "harbour-1", "unchanged", &[], false, true);
}

#[tokio::test]
async fn a_dry_run_reports_a_review_it_would_void_without_voiding_it() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;
    app.put_rates_expecting(&credential, "harbour-1", &json!({ "fixed_price": "20.00" }), 201).await;
    app.submit_for_review(&operator, "harbour-1").await;

    let mut body = full_lot(&operator);
    body["capacity"] = json!(80);
    let response = app.put_lot_query(&credential, "harbour-1", "dry_run=true", &body).await;
    assert_write_result(&response, 200, "harbour-1", "updated", &["capacity"], true, true);
    assert_eq!(app.listing_status(&operator, "harbour-1").await["review_state"], "pending");

    let response = app.put_lot(&credential, "harbour-1", &body).await;
    assert_write_result(&response, 200, "harbour-1", "updated", &["capacity"], true, false);
    assert_eq!(app.listing_status(&operator, "harbour-1").await["review_state"], "superseded");
}

#[tokio::test]
async fn dry_run_accepts_only_the_literal_true() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let refused = [
        "dry_run=false",
        "dry_run=1",
        "dry_run=True",
        "dry_run=TRUE",
        "dry_run=",
        "dry_run",
        "dry_run=true%20",
        "dry_run=yes",
        "dry_run=true&dry_run=true",
        "dry_run=false&dry_run=true",
    ];
    for query in refused {
        let response = app.put_lot_query(&credential, "harbour-1", query, &minimal_lot("Harbour")).await;
        response.assert_error(422, "invalid_query", Some("dry_run"));
    }
    assert_no_lots(&app, &credential).await;
    // The parameter name is form-decoded like any other.
    let response = app.put_lot_query(&credential, "harbour-1", "dry%5Frun=true", &minimal_lot("Harbour")).await;
    assert_write_result(&response, 200, "harbour-1", "created", &ALL_CHANGED, false, true);
}

#[tokio::test]
async fn an_unknown_query_parameter_on_a_lot_put_answers_invalid_query_naming_it() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    for (query, field) in [("foo=1", "foo"), ("limit=5", "limit"), ("after=a", "after"), ("dry_run=true&x", "x")] {
        let response = app.put_lot_query(&credential, "harbour-1", query, &minimal_lot("Harbour")).await;
        response.assert_error(422, "invalid_query", Some(field));
    }
    assert_no_lots(&app, &credential).await;
}

// ---------------------------------------------------------------------------------------------
// Content type and size
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_content_type_other_than_json_answers_415_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let bearer = credential.bearer();
    let body = minimal_lot("Harbour").to_string();
    let path = lot_path("harbour-1", "");

    let response = put_raw(&app, &path, &[("authorization", &bearer)], body.clone()).await;
    response.assert_error(415, "unsupported_media_type", None);
    for content_type in [
        "text/plain",
        "application/json; charset=latin1",
        "application/json; charset=utf-16",
        "application/jsonx",
        "application/json-patch+json",
        "application/x-www-form-urlencoded",
        "application/json; boundary=x",
        "",
    ] {
        let response =
            put_raw(&app, &path, &[("authorization", &bearer), ("content-type", content_type)], body.clone()).await;
        response.assert_error(415, "unsupported_media_type", None);
    }
    let twice = [
        ("authorization", bearer.as_str()),
        ("content-type", "application/json"),
        ("content-type", "application/json"),
    ];
    put_raw(&app, &path, &twice, body.clone()).await.assert_error(415, "unsupported_media_type", None);
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn json_with_a_utf8_charset_is_accepted_in_any_letter_case() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let bearer = credential.bearer();
    let cases = [
        ("application/json; charset=UTF-8", "a", 201),
        ("application/json;charset=utf-8", "b", 201),
        ("Application/JSON", "c", 201),
        ("application/json; charset=\"utf-8\"", "a", 200),
    ];
    for (content_type, id, status) in cases {
        let response = put_raw(
            &app,
            &lot_path(id, ""),
            &[("authorization", &bearer), ("content-type", content_type)],
            minimal_lot("Harbour").to_string(),
        )
        .await;
        assert_eq!(response.status.as_u16(), status, "{content_type}: {}", response.text());
    }
}

#[tokio::test]
async fn a_body_over_64_kib_announced_by_content_length_answers_413_without_being_read() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;

    // Announced and never sent: the answer cannot wait for the body.
    let head = raw_put_head("/v1/lots/harbour-1", &credential, &[&format!("content-length: {}", KIB_64 + 1)]);
    let response = raw_exchange(app.addr, &[head.as_bytes()]).await;
    assert_eq!(response.status, 413);
    assert_eq!(response.json(), json!({ "error": "payload_too_large" }));
    assert!(response.header("x-request-id").is_some());

    let head = raw_put_head("/v1/lots/harbour-1", &credential, &["content-length: 99999999999"]);
    assert_eq!(raw_exchange(app.addr, &[head.as_bytes()]).await.status, 413);

    // Sent in full, a valid lot padded to one byte over.
    let body = padded(&minimal_lot("Harbour"), KIB_64 + 1);
    let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body).await;
    response.assert_error(413, "payload_too_large", None);
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_chunked_body_over_64_kib_answers_413_once_64_kib_are_read_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let head = raw_put_head("/v1/lots/harbour-1", &credential, &["transfer-encoding: chunked"]);
    let body = padded(&minimal_lot("Harbour"), KIB_64 + 1);

    // One chunk one byte over the limit, the body never finished: answered without the rest.
    let big = chunk(&body);
    let response = raw_exchange(app.addr, &[head.as_bytes(), &big]).await;
    assert_eq!(response.status, 413);
    assert_eq!(response.json(), json!({ "error": "payload_too_large" }));

    // Several chunks adding up to one byte over, then the last chunk.
    let (first, rest) = body.split_at(KIB_64 / 2);
    let (second, third) = rest.split_at(KIB_64 / 2);
    assert_eq!(third.len(), 1);
    let parts = [chunk(first), chunk(second), chunk(third), LAST_CHUNK.to_vec()];
    let parts: Vec<&[u8]> = std::iter::once(head.as_bytes()).chain(parts.iter().map(Vec::as_slice)).collect();
    let response = raw_exchange(app.addr, &parts).await;
    assert_eq!(response.status, 413);
    assert_eq!(response.json(), json!({ "error": "payload_too_large" }));

    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_body_of_exactly_64_kib_passes_the_size_check() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;

    // With Content-Length: a valid lot padded with white space to the limit is stored.
    let body = padded(&minimal_lot("Harbour"), KIB_64);
    let response = app.request(Method::PUT, "/v1/lots/by-length", json_headers(&credential), body.clone()).await;
    assert_write_result(&response, 201, "by-length", "created", &ALL_CHANGED, false, false);

    // Chunked, in two chunks.
    let head = raw_put_head("/v1/lots/chunked", &credential, &["transfer-encoding: chunked"]);
    let (first, second) = body.split_at(1000);
    let response = raw_exchange(app.addr, &[head.as_bytes(), &chunk(first), &chunk(second), LAST_CHUNK]).await;
    assert_eq!(response.status, 201, "{:?}", response.body);
    assert_eq!(response.json()["result"], "created");

    // At the limit but not a lot: refused for what it is, not for its size.
    let mut not_a_lot = padded(&json!({ "name": "Harbour" }), KIB_64);
    let response = app.request(Method::PUT, "/v1/lots/x", json_headers(&credential), not_a_lot.clone()).await;
    response.assert_error(422, "missing_field", Some("timezone"));
    not_a_lot[0] = b'!';
    let response = app.request(Method::PUT, "/v1/lots/x", json_headers(&credential), not_a_lot).await;
    response.assert_error(422, "invalid_json", None);

    assert_eq!(app.lot_ids(&credential).await, ["by-length", "chunked"]);
}

// ---------------------------------------------------------------------------------------------
// Body refusals
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_body_that_does_not_parse_answers_422_invalid_json() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let deep = format!("{}{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    let bodies: [&[u8]; 11] = [
        deep.as_bytes(),
        b"",
        b"   ",
        b"{",
        b"not json",
        b"{\"name\":}",
        b"{'name':'Harbour'}",
        b"{\"name\":\"Harbour\",}",
        b"{\"a\":1}{\"b\":2}",
        b"{\"capacity\":NaN}",
        b"{\"name\":\"Harbour\" /* comment */}",
    ];
    for body in bodies {
        let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body.to_vec()).await;
        assert_eq!(response.status, 422, "{:?}", String::from_utf8_lossy(body));
        response.assert_error(422, "invalid_json", None);
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_body_that_is_not_utf8_or_holds_a_nul_byte_answers_422_invalid_json() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let latin1: &[u8] =
        b"{\"name\":\"Caf\xe9 Parking\",\"timezone\":\"Europe/Lisbon\",\"handover\":\"self\",\"online_bookable\":true}";
    // A raw NUL byte is valid UTF-8 but never JSON (and PostgreSQL text cannot hold it).
    let nul: &[u8] =
        b"{\"name\":\"Caf\x00\",\"timezone\":\"Europe/Lisbon\",\"handover\":\"self\",\"online_bookable\":true}";
    for body in [latin1, nul, b"\x00", b"\xff\xfe{\x00}\x00", b"{\"name\":\"\xc3\"}"] {
        let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body).await;
        response.assert_error(422, "invalid_json", None);
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_json_body_postgresql_cannot_hold_answers_422_invalid_body_naming_the_member() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let rest = r#""timezone":"Europe/Lisbon","handover":"self","online_bookable":true"#;
    let cases = [
        (format!(r#"{{"name":"Har\u0000bour",{rest}}}"#), "name"),
        (format!(r#"{{"name":"Harbour","city":"\ud800",{rest}}}"#), "city"),
        (format!(r#"{{"name":"Harbour","capacity":1e1000000000,{rest}}}"#), "capacity"),
        (format!(r#"{{"name":"Harbour","name":"Harbour",{rest}}}"#), "name"),
    ];
    for (body, field) in cases {
        let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body.clone()).await;
        assert_eq!(response.status, 422, "{body}: {}", response.text());
        response.assert_error(422, "invalid_body", Some(field));
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_number_written_with_an_exponent_beyond_20_answers_422_invalid_body_naming_the_member() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let rest = r#""name":"Harbour","timezone":"Europe/Lisbon","handover":"self","online_bookable":true"#;
    // 63 KB of a number PostgreSQL holds but writes out as 130 001 digits: refused at once (before the
    // unknown key is looked at), never written out.
    let huge = vec!["1e130000"; 7_000].join(",");
    let cases = [
        (format!(r#"{{{rest},"latitude":1e21,"longitude":0}}"#), "latitude"),
        (format!(r#"{{{rest},"arrival":{{"entrance":"North","n":1E-0021}}}}"#), "arrival"),
        (format!(r#"{{{rest},"zz":[{huge}]}}"#), "zz"),
    ];
    for (body, field) in cases {
        let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body).await;
        response.assert_error(422, "invalid_body", Some(field));
    }
    // An exponent of 20, and exponents inside strings, are read as before.
    let body = format!(r#"{{{rest},"latitude":4.5e-05,"longitude":1e-20,"arrival":{{"entrance":"Gate E99 1e999"}}}}"#);
    let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body).await;
    assert_eq!(response.status, 201, "{}", response.text());
}

#[tokio::test]
async fn a_key_repeated_in_a_nested_object_answers_422_invalid_body_naming_it() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let rest = r#""name":"Harbour","timezone":"Europe/Lisbon","handover":"self","online_bookable":true"#;
    let cases = [
        (
            format!(
                r#"{{{rest},"cancellation":{{"free_until_hours_before_check_in":1,"penalty_percent_after":"5",
                   "penalty_percent_after":"6","no_show_forfeits_full":true}}}}"#
            ),
            "cancellation.penalty_percent_after",
        ),
        (format!(r#"{{{rest},"arrival":{{"entrance":"North","entrance":"South"}}}}"#), "arrival.entrance"),
        (format!(r#"{{{rest},"arrival":{{"transfer":{{"line":"7","line":"8"}}}}}}"#), "arrival"),
    ];
    for (body, field) in cases {
        let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body.clone()).await;
        response.assert_error(422, "invalid_body", Some(field));
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_string_opening_with_a_colon_is_never_taken_for_a_repeated_key() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let rest = r#""timezone":"Europe/Lisbon","handover":"self","online_bookable":true"#;
    let body = format!(r#"{{"name":":x",{rest},"arrival":{{"note":": see the map","q":"\":"}}}}"#);
    let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body).await;
    assert_eq!(response.status, 201, "{}", response.text());
    assert_eq!(response.json()["lot"]["name"], ":x");
    // A colon written as \u003a (a colon in the stored text) does not hide a key given twice.
    let body = format!(r#"{{"name":"\u003a x",{rest},"arrival":{{"entrance":"North","entrance":"South"}}}}"#);
    let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body).await;
    response.assert_error(422, "invalid_body", Some("arrival.entrance"));
}

#[tokio::test]
async fn a_line_break_before_ull_is_text_like_any_other() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let rest = r#""timezone":"Europe/Lisbon","handover":"self","online_bookable":true"#;
    // `\n` then `ull`, and an escaped backslash before `null`: plain text, written as sent.
    let body = format!(r#"{{"name":"Lake\nullswater",{rest},"arrival":{{"note":"a\\null"}}}}"#);
    let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body).await;
    assert_eq!(response.status, 201, "{}", response.text());
    assert_eq!(response.json()["lot"]["name"], "Lake\nullswater");
    assert_eq!(response.json()["lot"]["arrival"]["note"], "a\\null");
}

#[tokio::test]
async fn a_coordinate_or_count_with_thousands_of_digits_answers_422_naming_the_field() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let rest = r#""name":"Harbour","timezone":"Europe/Lisbon","handover":"self","online_bookable":true"#;
    let digits = format!("1{}", "0".repeat(19_999));
    let cases = [
        (format!(r#"{{{rest},"latitude":{digits},"longitude":0}}"#), "invalid_coordinates", "latitude"),
        (format!(r#"{{{rest},"latitude":"{digits}","longitude":0}}"#), "invalid_coordinates", "latitude"),
        (format!(r#"{{{rest},"latitude":"1.{digits}","longitude":0}}"#), "invalid_coordinates", "latitude"),
        (format!(r#"{{{rest},"latitude":0,"longitude":"-{digits}"}}"#), "invalid_coordinates", "longitude"),
        (format!(r#"{{{rest},"capacity":{digits}}}"#), "invalid_body", "capacity"),
        (format!(r#"{{{rest},"max_stay_days":-{digits}}}"#), "invalid_body", "max_stay_days"),
    ];
    for (body, code, field) in cases {
        let response = app.request(Method::PUT, "/v1/lots/harbour-1", json_headers(&credential), body.clone()).await;
        response.assert_error(422, code, Some(field));
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn an_array_body_answers_422_too_many_lots() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let lot = minimal_lot("Harbour");
    for body in [json!([lot]), json!([lot, lot]), json!([])] {
        let response = app.put_lot(&credential, "harbour-1", &body).await;
        response.assert_error(422, "too_many_lots", None);
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_body_that_is_not_an_object_answers_422_invalid_body() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    for body in [json!(null), json!("Harbour"), json!(42), json!(true)] {
        let response = app.put_lot(&credential, "harbour-1", &body).await;
        response.assert_error(422, "invalid_body", None);
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_rates_key_answers_422_field_belongs_to_another_route() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    let rates = json!({ "fixed_price": "12.00" });
    for (base, extra) in [(full_lot(&operator), None), (minimal_lot("Harbour"), Some("colour")), (json!({}), None)] {
        let mut body = base;
        body["rates"] = rates.clone();
        if let Some(extra) = extra {
            body[extra] = json!("blue");
        }
        let response = app.put_lot(&credential, "harbour-1", &body).await;
        response.assert_error(422, "field_belongs_to_another_route", Some("rates"));
    }
    let mut body = minimal_lot("Harbour");
    body["rates"] = Value::Null;
    app.put_lot(&credential, "harbour-1", &body).await.assert_error(
        422,
        "field_belongs_to_another_route",
        Some("rates"),
    );
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn an_unknown_key_answers_422_unknown_field_naming_it() {
    let app = TestApp::spawn().await;
    let (operator, credential) = writer(&app).await;
    for key in ["colour", "Name", "operator_id", "review_state", "dry_run", "prix du lot (€)"] {
        let mut body = full_lot(&operator);
        body[key] = json!("x");
        let response = app.put_lot(&credential, "harbour-1", &body).await;
        response.assert_error(422, "unknown_field", Some(key));
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_missing_required_field_answers_422_missing_field_naming_it() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let cases = [
        ("name", None),
        ("name", Some(json!(null))),
        ("name", Some(json!(""))),
        ("name", Some(json!(" \t\n "))),
        ("timezone", None),
        ("timezone", Some(json!(null))),
        ("handover", None),
        ("online_bookable", None),
        ("online_bookable", Some(json!(null))),
    ];
    for (field, value) in cases {
        let mut body = minimal_lot("Harbour");
        match value {
            Some(value) => body[field] = value,
            None => {
                body.as_object_mut().unwrap().remove(field);
            }
        }
        let response = app.put_lot(&credential, "harbour-1", &body).await;
        response.assert_error(422, "missing_field", Some(field));
    }
    app.put_lot(&credential, "harbour-1", &json!({})).await.assert_error(422, "missing_field", Some("name"));
    assert_no_lots(&app, &credential).await;
}

// ---------------------------------------------------------------------------------------------
// The path id
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_path_id_is_percent_decoded_stored_and_listed_decoded() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;

    let response = app.put_lot(&credential, "a%2Fb", &minimal_lot("Slash")).await;
    let answer = assert_write_result(&response, 201, "a/b", "created", &ALL_CHANGED, false, false);
    assert_eq!(answer["lot"], minimal_read_form("a/b", "Slash"));
    let response = app.put_lot(&credential, "car%20park%20%C3%A9", &minimal_lot("Space")).await;
    assert_write_result(&response, 201, "car park é", "created", &ALL_CHANGED, false, false);

    // The same id however it is encoded, and a body external_id equal to the decoded path.
    let mut body = minimal_lot("Slash");
    body["external_id"] = json!("a/b");
    let response = app.put_lot(&credential, "a%2fb", &body).await;
    assert_write_result(&response, 200, "a/b", "unchanged", &[], false, false);
    let mut body = minimal_lot("Space");
    body["external_id"] = json!(null);
    let response = app.put_lot(&credential, "car%20park%20é".replace('é', "%c3%a9").as_str(), &body).await;
    assert_write_result(&response, 200, "car park é", "unchanged", &[], false, false);

    assert_eq!(app.lot_ids(&credential).await, ["a/b", "car park é"]);
}

#[tokio::test]
async fn a_body_external_id_that_differs_from_the_path_answers_422_invalid_body_external_id() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    for value in [json!("a%2Fb"), json!("A/B"), json!("a/b "), json!(""), json!(42), json!(["a/b"])] {
        let mut body = minimal_lot("Slash");
        body["external_id"] = value;
        let response = app.put_lot(&credential, "a%2Fb", &body).await;
        response.assert_error(422, "invalid_body", Some("external_id"));
    }
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_path_id_of_1_to_200_characters_is_accepted_and_any_other_answers_422_after_authentication() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let longest = "x".repeat(200);
    let longest_wide = "é".repeat(200);
    let response = app.put_lot(&credential, &longest, &minimal_lot("Long")).await;
    assert_write_result(&response, 201, &longest, "created", &ALL_CHANGED, false, false);
    let response = app.put_lot(&credential, &"%C3%A9".repeat(200), &minimal_lot("Wide")).await;
    assert_write_result(&response, 201, &longest_wide, "created", &ALL_CHANGED, false, false);
    let response = app.put_lot(&credential, "1", &minimal_lot("Short")).await;
    assert_write_result(&response, 201, "1", "created", &ALL_CHANGED, false, false);

    let too_long = "x".repeat(201);
    let wide_too_long = "%C3%A9".repeat(201);
    let mut body_with_id = minimal_lot("Long");
    body_with_id["external_id"] = json!(too_long);
    for segment in [too_long.as_str(), wide_too_long.as_str(), "%FF", "a%00b", "%C3"] {
        for body in [minimal_lot("Bad id"), body_with_id.clone()] {
            let response = app.put_lot(&credential, segment, &body).await;
            response.assert_error(422, "invalid_body", Some("external_id"));
            let response = app.put_lot_query(&credential, segment, "dry_run=true", &body).await;
            response.assert_error(422, "invalid_body", Some("external_id"));
        }
        // Without a credential the id is never looked at.
        let response = put_raw(&app, &lot_path(segment, ""), &[("content-type", "application/json")], "{}").await;
        response.assert_error(401, "unauthorized", None);
    }
    assert_eq!(app.lot_ids(&credential).await, vec!["1".to_string(), longest, longest_wide]);
}

// ---------------------------------------------------------------------------------------------
// Verbs
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn an_empty_id_is_the_lot_route_put_answers_invalid_body_and_other_verbs_405() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;

    let response = app.put_lot(&credential, "", &minimal_lot("No id")).await;
    response.assert_error(422, "invalid_body", Some("external_id"));
    put_raw(&app, "/v1/lots/", &[("content-type", "application/json")], "{}").await.assert_error(
        401,
        "unauthorized",
        None,
    );

    let response = app.get("/v1/lots/", &[("authorization", &credential.bearer())]).await;
    response.assert_error(405, "method_not_allowed", None);
    assert_eq!(response.header("allow"), Some(LOT_ALLOW));
    let response = app.request(Method::OPTIONS, "/v1/lots/", header_map(&[]), "").await;
    assert_eq!(response.status, 204);
    assert_eq!(response.header("allow"), Some(LOT_ALLOW));
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn options_on_the_lot_routes_answers_204_with_allow() {
    let app = TestApp::spawn().await;
    for (path, allow) in [
        ("/v1/lots/abc", LOT_ALLOW),
        ("/v1/lots/a%2Fb?dry_run=maybe", LOT_ALLOW),
        (&format!("/v1/lots/{}", "x".repeat(201)), LOT_ALLOW),
        ("/v1/lots", LOTS_ALLOW),
        ("/v1/lots?limit=0", LOTS_ALLOW),
    ] {
        let response = app.request(Method::OPTIONS, path, header_map(&[]), "").await;
        assert_eq!(response.status, 204, "{path}");
        assert_eq!(response.header("allow"), Some(allow), "{path}");
        assert!(response.body.is_empty());
        assert_eq!(response.header("content-type"), None);
        response.request_id();
    }
}

#[tokio::test]
async fn other_verbs_on_the_lot_routes_answer_405_with_allow() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let bearer = credential.bearer();
    let with_credential = [("authorization", bearer.as_str()), ("content-type", "application/json")];
    for method in [Method::GET, Method::POST, Method::DELETE, Method::PATCH] {
        for headers in [&with_credential[..], &[]] {
            let response = app.request(method.clone(), "/v1/lots/abc", header_map(headers), "{}").await;
            response.assert_error(405, "method_not_allowed", None);
            assert_eq!(response.header("allow"), Some(LOT_ALLOW), "{method}");
        }
    }
    for method in [Method::PUT, Method::POST, Method::DELETE, Method::PATCH] {
        let response = app.request(method.clone(), "/v1/lots", header_map(&with_credential), "{}").await;
        response.assert_error(405, "method_not_allowed", None);
        assert_eq!(response.header("allow"), Some(LOTS_ALLOW), "{method}");
    }
    for (path, allow) in [("/v1/lots/abc", LOT_ALLOW), ("/v1/lots", LOTS_ALLOW)] {
        let response = app.request(Method::HEAD, path, header_map(&[]), "").await;
        assert_eq!(response.status, 405, "HEAD {path}");
        assert_eq!(response.header("allow"), Some(allow));
    }
    assert_no_lots(&app, &credential).await;
}

// ---------------------------------------------------------------------------------------------
// Order of checks and the credential
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn checks_run_in_order_404_405_413_415_query_credential_then_body() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let bearer = credential.bearer();
    let over = padded(&minimal_lot("Harbour"), KIB_64 + 1);
    let text = [("content-type", "text/plain")];

    // 404 before everything: an unknown path under the lot, with every other fault.
    let response = put_raw(&app, "/v1/lots/abc/nope?dry_run=1", &text, over.clone()).await;
    response.assert_error(404, "not_found", None);
    // 405 before size, content type and query.
    let response = app.request(Method::POST, "/v1/lots/abc?dry_run=1", header_map(&text), over.clone()).await;
    response.assert_error(405, "method_not_allowed", None);
    // 413 before content type, query and credential.
    put_raw(&app, "/v1/lots/abc?dry_run=1", &text, over.clone()).await.assert_error(413, "payload_too_large", None);
    put_raw(&app, "/v1/lots/abc", &[], over.clone()).await.assert_error(413, "payload_too_large", None);
    // 415 before query and credential: a bad content type without a credential is 415, not 401.
    put_raw(&app, "/v1/lots/abc?dry_run=1", &text, "{}").await.assert_error(415, "unsupported_media_type", None);
    put_raw(&app, "/v1/lots/abc", &[], "{}").await.assert_error(415, "unsupported_media_type", None);
    // invalid_query before the credential.
    let json_only = [("content-type", "application/json")];
    put_raw(&app, "/v1/lots/abc?dry_run=1", &json_only, "{}").await.assert_error(422, "invalid_query", Some("dry_run"));
    put_raw(&app, "/v1/lots/abc?foo=1", &json_only, "[").await.assert_error(422, "invalid_query", Some("foo"));
    // 401 before any body error, and before the path id.
    for body in ["[", "[]", "{\"rates\":1}", "{\"colour\":1}", "{}", "\u{e9}"] {
        let response = put_raw(&app, "/v1/lots/abc", &json_only, body).await;
        response.assert_error(401, "unauthorized", None);
        assert_eq!(response.header("www-authenticate"), Some("Bearer"));
    }
    put_raw(&app, "/v1/lots/%FF", &json_only, "[").await.assert_error(401, "unauthorized", None);
    // A body that is not UTF-8 is a body fault like any other: after the query and the credential.
    let latin1: &[u8] = b"{\"name\":\"Caf\xe9\"}";
    put_raw(&app, "/v1/lots/abc?dry_run=1", &json_only, latin1).await.assert_error(
        422,
        "invalid_query",
        Some("dry_run"),
    );
    put_raw(&app, "/v1/lots/abc", &json_only, latin1).await.assert_error(401, "unauthorized", None);
    put_raw(&app, "/v1/lots/abc", &json_only, &b"\x00"[..]).await.assert_error(401, "unauthorized", None);
    // And with the credential, the body's own refusal.
    let auth_json = [("authorization", bearer.as_str()), ("content-type", "application/json")];
    put_raw(&app, "/v1/lots/abc", &auth_json, "[").await.assert_error(422, "invalid_json", None);
    put_raw(&app, "/v1/lots/abc", &auth_json, "[]").await.assert_error(422, "too_many_lots", None);
    put_raw(&app, "/v1/lots/abc", &auth_json, latin1).await.assert_error(422, "invalid_json", None);
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_chunked_body_found_over_64_kib_answers_413_before_its_content_type_is_looked_at() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = writer(&app).await;
    let over = chunk(&padded(&minimal_lot("Harbour"), KIB_64 + 1));
    for content_type in ["text/plain", "application/json"] {
        let head = format!(
            "PUT /v1/lots/abc?dry_run=1 HTTP/1.1\r\nhost: localhost\r\ncontent-type: {content_type}\r\n\
             transfer-encoding: chunked\r\n\r\n"
        );
        let response = raw_exchange(app.addr, &[head.as_bytes(), &over]).await;
        assert_eq!(response.status, 413, "{content_type}");
        assert_eq!(response.json(), json!({ "error": "payload_too_large" }));
    }
    // Within the limit, the content type is checked next.
    let head = "PUT /v1/lots/abc HTTP/1.1\r\nhost: localhost\r\ncontent-type: text/plain\r\n\
                transfer-encoding: chunked\r\n\r\n";
    let response = raw_exchange(app.addr, &[head.as_bytes(), &chunk(b"{}"), LAST_CHUNK]).await;
    assert_eq!(response.status, 415);
    assert_no_lots(&app, &credential).await;
}

#[tokio::test]
async fn a_credential_without_write_supply_answers_the_uniform_401_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let (operator, writer_credential) = writer(&app).await;
    let reader = app.issue(&operator, &["read_supply"], None).await;
    let bookings = app.issue(&operator, &["read_bookings", "read_supply"], None).await;
    for credential in [&reader, &bookings] {
        for query in ["", "dry_run=true"] {
            let response = app.put_lot_query(credential, "harbour-1", query, &full_lot(&operator)).await;
            assert_eq!(response.status, 401);
            assert_eq!(&response.body[..], br#"{"error":"unauthorized"}"#);
            assert_eq!(response.header("www-authenticate"), Some("Bearer"));
            // A bad body is never looked at either.
            let response = app.put_lot(credential, "harbour-1", &json!([])).await;
            response.assert_error(401, "unauthorized", None);
        }
    }
    assert_no_lots(&app, &writer_credential).await;
    // The writer of the same operator can.
    app.put_lot_expecting(&writer_credential, "harbour-1", &full_lot(&operator), 201).await;
}
