//! PUT /lots/{external_id}/rates: the write result (201 created, 200 updated, 200 unchanged) with
//! the Rates read form, the two shapes (range, fixed) and their refusals (docs/design.md), money
//! exact to two decimals, the envelope and first-day refusals, currency, plain dates,
//! `envelope_widened` case by case, dry run, the transport refusals (415, 413, `invalid_query`),
//! the verbs of the route, the path id, GET /lots carrying the envelope, and the listing
//! requirement `lot_price_in_force` (rates never void a review by themselves). Every validation row
//! is pgTAP's; here each code is proved end to end.
//!
//! The uniform 401 of a lot that is not the caller's (and missing scopes) is `unauthorized.rs`; the
//! write log line is `logging.rs`.

use http::Method;
use serde_json::{json, Value};

use crate::common::lots::{full_lot, json_headers, minimal_lot, padded, raw_exchange, raw_put_head};
use crate::common::supply::{assert_rates_result, range, rates_read_form, ALL_RATES_CHANGED};
use crate::common::{header_map, Credential, TestApp, TestResponse};

const RATES_ALLOW: &str = "PUT, OPTIONS";
const KIB_64: usize = 64 * 1024;

/// PUT /v1/lots/harbour-1/rates with a raw body text (numbers exactly as written).
async fn put_raw(app: &TestApp, credential: &Credential, body: &str) -> TestResponse {
    app.request(Method::PUT, "/v1/lots/harbour-1/rates", json_headers(credential), body.to_string()).await
}

/// Asserts the lot has no envelope (GET /lots lists `rates: null`).
async fn assert_no_rates(app: &TestApp, credential: &Credential) {
    assert_eq!(app.listed_rates(credential, "harbour-1").await, Value::Null, "no envelope is stored");
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_first_rates_put_creates_the_envelope_and_answers_201_with_the_write_result_and_the_rates_read_form() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;

    let body = r#"{"floor_price":"10","base_price":20.5,"ceiling_price":"30.00","min_first_day_price":15,
                   "currency":"eur","dynamic":true,"valid_from":"2026-01-01","valid_to":"2026-12-31"}"#;
    let response = put_raw(&app, &credential, body).await;
    let answer = assert_rates_result(&response, 201, "harbour-1", "created", &ALL_RATES_CHANGED, true, false);
    let expected = json!({
        "channel": "marketplace",
        "currency": "EUR",
        "base_price": "20.50",
        "floor_price": "10.00",
        "ceiling_price": "30.00",
        "min_first_day_price": "15.00",
        "dynamic": true,
        "valid_from": "2026-01-01",
        "valid_to": "2026-12-31",
    });
    assert_eq!(answer["rates"], expected);
    // GET /lots now carries the envelope.
    assert_eq!(app.listed_rates(&credential, "harbour-1").await, expected);
}

#[tokio::test]
async fn a_rates_put_that_changes_fields_answers_200_updated_naming_exactly_those_fields_in_table_order() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let mut body = range("10.00", "20.00", "30.00");
    body["valid_from"] = json!("2026-01-01");
    app.put_rates_expecting(&credential, "harbour-1", &body, 201).await;

    // Same values written differently are no change: a number for a string, a lower-case currency
    // for the settlement currency, null for false and for absent.
    let written_differently = r#"{"floor_price":10,"base_price":"25.5","ceiling_price":30.000,"currency":"eur",
                                  "dynamic":null,"min_first_day_price":null,"valid_from":"2026-01-01","valid_to":"2027-06-30"}"#;
    let response = put_raw(&app, &credential, written_differently).await;
    let answer = assert_rates_result(&response, 200, "harbour-1", "updated", &["base_price", "valid_to"], false, false);
    let mut expected = rates_read_form("10.00", "25.50", "30.00");
    expected["valid_from"] = json!("2026-01-01");
    expected["valid_to"] = json!("2027-06-30");
    assert_eq!(answer["rates"], expected);
    assert_eq!(app.listed_rates(&credential, "harbour-1").await, expected);

    // An absent key means null: the window's start is cleared.
    let body = json!({ "floor_price": "10", "base_price": "25.50", "ceiling_price": "30", "valid_to": "2027-06-30" });
    let response = app.put_rates(&credential, "harbour-1", "", &body).await;
    let answer = assert_rates_result(&response, 200, "harbour-1", "updated", &["valid_from"], false, false);
    expected["valid_from"] = Value::Null;
    assert_eq!(answer["rates"], expected);
}

#[tokio::test]
async fn a_rates_put_equal_to_the_stored_envelope_answers_200_unchanged_with_an_empty_changed_list() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let created = app.put_rates_expecting(&credential, "harbour-1", &range("10.00", "20.00", "30.00"), 201).await;

    for body in [
        r#"{"floor_price":"10.00","base_price":"20.00","ceiling_price":"30.00"}"#,
        r#"{"floor_price":10,"base_price":20.0,"ceiling_price":"30.000","currency":null,"dynamic":false}"#,
        r#"{"ceiling_price":"30","floor_price":"10","base_price":"20","valid_from":null,"valid_to":null,"fixed_price":null}"#,
    ] {
        let response = put_raw(&app, &credential, body).await;
        let answer = assert_rates_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
        assert_eq!(answer["rates"], created["rates"]);
    }
    assert_eq!(app.listed_rates(&credential, "harbour-1").await, created["rates"]);
}

#[tokio::test]
async fn a_fixed_price_expands_to_floor_base_and_ceiling() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;

    let response = app.put_rates(&credential, "harbour-1", "", &json!({ "fixed_price": "25" })).await;
    let answer = assert_rates_result(&response, 201, "harbour-1", "created", &ALL_RATES_CHANGED, true, false);
    assert_eq!(answer["rates"], rates_read_form("25.00", "25.00", "25.00"));

    // The same envelope as a range is unchanged; a range around it moves floor and ceiling only.
    let response = app.put_rates(&credential, "harbour-1", "", &range("25", "25.00", "25.0")).await;
    assert_rates_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
    let response = app.put_rates(&credential, "harbour-1", "", &range("20", "25", "40")).await;
    let answer =
        assert_rates_result(&response, 200, "harbour-1", "updated", &["floor_price", "ceiling_price"], true, false);
    assert_eq!(answer["rates"], rates_read_form("20.00", "25.00", "40.00"));

    // Back to fixed, with the optional fields; range keys sent as null count as absent.
    let body = r#"{"fixed_price":22.5,"floor_price":null,"base_price":null,"ceiling_price":null,
                   "min_first_day_price":"22.50","valid_to":"2030-01-01"}"#;
    let response = put_raw(&app, &credential, body).await;
    let answer = assert_rates_result(
        &response,
        200,
        "harbour-1",
        "updated",
        &["base_price", "floor_price", "ceiling_price", "min_first_day_price", "valid_to"],
        false,
        false,
    );
    let mut expected = rates_read_form("22.50", "22.50", "22.50");
    expected["min_first_day_price"] = json!("22.50");
    expected["valid_to"] = json!("2030-01-01");
    assert_eq!(answer["rates"], expected);
    assert_eq!(app.listed_rates(&credential, "harbour-1").await, expected);
}

// ---------------------------------------------------------------------------------------------
// envelope_widened
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn envelope_widened_is_true_when_the_floor_goes_down_the_ceiling_up_dynamic_flips_or_no_envelope_existed() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let mut body = range("10.00", "20.00", "30.00");

    // (change, changed, envelope_widened), each compared with the envelope just before it.
    let response = app.put_rates(&credential, "harbour-1", "", &body).await;
    assert_rates_result(&response, 201, "harbour-1", "created", &ALL_RATES_CHANGED, true, false);
    let steps: Vec<(&str, Value, Vec<&str>, bool)> = vec![
        ("floor up", json!({ "floor_price": "12.00" }), vec!["floor_price"], false),
        ("ceiling down", json!({ "ceiling_price": "28.00" }), vec!["ceiling_price"], false),
        ("base moved", json!({ "base_price": "21.00" }), vec!["base_price"], false),
        (
            "both inward",
            json!({ "floor_price": "13.00", "ceiling_price": "27.00" }),
            vec!["floor_price", "ceiling_price"],
            false,
        ),
        ("first-day price", json!({ "min_first_day_price": "14.00" }), vec!["min_first_day_price"], false),
        (
            "validity window",
            json!({ "valid_from": "2026-01-01", "valid_to": "2030-12-31" }),
            vec!["valid_from", "valid_to"],
            false,
        ),
        ("floor down", json!({ "floor_price": "11.00" }), vec!["floor_price"], true),
        ("ceiling up", json!({ "ceiling_price": "35.00" }), vec!["ceiling_price"], true),
        ("dynamic on", json!({ "dynamic": true }), vec!["dynamic"], true),
        ("dynamic off", json!({ "dynamic": false }), vec!["dynamic"], true),
        (
            "floor down, ceiling down",
            json!({ "floor_price": "10.00", "ceiling_price": "30.00" }),
            vec!["floor_price", "ceiling_price"],
            true,
        ),
        (
            "floor up, ceiling up",
            json!({ "floor_price": "14.00", "ceiling_price": "31.00" }),
            vec!["floor_price", "ceiling_price"],
            true,
        ),
    ];
    for (what, change, changed, widened) in steps {
        for (key, value) in change.as_object().unwrap() {
            body[key] = value.clone();
        }
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        assert_eq!(response.status, 200, "{what}: {}", response.text());
        assert_rates_result(&response, 200, "harbour-1", "updated", &changed, widened, false);
        // Sent again: unchanged, and nothing widened.
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        assert_rates_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
    }
}

#[tokio::test]
async fn rates_never_void_a_review_and_a_price_in_force_meets_the_listing_requirement() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let credential = app.issue(&operator, &["read_supply", "write_supply"], None).await;
    app.put_lot_expecting(&credential, "harbour-1", &full_lot(&operator), 201).await;
    let unmet = |status: Value| status["unmet"].clone();
    assert_eq!(unmet(app.listing_status(&operator, "harbour-1").await), json!(["lot_price_in_force"]));

    // A window that does not hold today is no price in force.
    for (from, to) in [("2020-01-01", "2020-12-31"), ("2032-01-01", "2032-12-31")] {
        let mut body = range("10", "20", "30");
        body["valid_from"] = json!(from);
        body["valid_to"] = json!(to);
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        assert!(response.status.is_success(), "{}", response.text());
        assert_eq!(
            unmet(app.listing_status(&operator, "harbour-1").await),
            json!(["lot_price_in_force"]),
            "{from}..{to}"
        );
    }
    // An open window holds today.
    let body = range("10", "20", "30");
    let response = app.put_rates(&credential, "harbour-1", "", &body).await;
    assert_rates_result(&response, 200, "harbour-1", "updated", &["valid_from", "valid_to"], false, false);
    assert_eq!(unmet(app.listing_status(&operator, "harbour-1").await), json!([]));

    app.submit_for_review(&operator, "harbour-1").await;
    app.approve_review(&operator, "harbour-1").await;
    // Widening says it could void a review; it voids none by itself.
    let response = app.put_rates(&credential, "harbour-1", "", &range("5", "20", "50")).await;
    assert_rates_result(&response, 200, "harbour-1", "updated", &["floor_price", "ceiling_price"], true, false);
    assert_eq!(app.listing_status(&operator, "harbour-1").await["review_state"], "approved");
    let response = app.put_rates(&credential, "harbour-1", "", &json!({ "fixed_price": "20", "dynamic": true })).await;
    assert_rates_result(
        &response,
        200,
        "harbour-1",
        "updated",
        &["floor_price", "ceiling_price", "dynamic"],
        true,
        false,
    );
    assert_eq!(app.listing_status(&operator, "harbour-1").await["review_state"], "approved");
}

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn both_shapes_answer_422_invalid_body_field_fixed_price() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for body in [
        json!({ "fixed_price": "20", "floor_price": "10", "base_price": "20", "ceiling_price": "30" }),
        json!({ "fixed_price": "20", "floor_price": "10" }),
        json!({ "fixed_price": "20", "base_price": "20" }),
        json!({ "fixed_price": "20", "ceiling_price": "30" }),
        json!({ "fixed_price": "12.345", "ceiling_price": "30" }),
    ] {
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        response.assert_error(422, "invalid_body", Some("fixed_price"));
    }
    assert_no_rates(&app, &credential).await;
}

#[tokio::test]
async fn an_incomplete_range_answers_422_missing_field_naming_the_first_missing_price() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for (body, field) in [
        (json!({ "base_price": "20", "ceiling_price": "30" }), "floor_price"),
        (json!({ "floor_price": "10", "ceiling_price": "30" }), "base_price"),
        (json!({ "floor_price": "10", "base_price": "20" }), "ceiling_price"),
        (json!({ "ceiling_price": "30" }), "floor_price"),
        (json!({ "floor_price": "10" }), "base_price"),
        (json!({ "floor_price": "10", "base_price": null, "ceiling_price": "30" }), "base_price"),
        (
            json!({ "floor_price": "10", "base_price": "20", "ceiling_price": null, "fixed_price": null }),
            "ceiling_price",
        ),
    ] {
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        response.assert_error(422, "missing_field", Some(field));
    }
    assert_no_rates(&app, &credential).await;
}

#[tokio::test]
async fn neither_shape_answers_422_missing_field_fixed_price() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for body in [
        json!({}),
        json!({ "currency": "EUR", "dynamic": true, "valid_from": "2026-01-01" }),
        json!({ "fixed_price": null }),
        json!({ "fixed_price": null, "floor_price": null, "base_price": null, "ceiling_price": null }),
    ] {
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        response.assert_error(422, "missing_field", Some("fixed_price"));
    }
    assert_no_rates(&app, &credential).await;
}

#[tokio::test]
async fn an_unknown_key_answers_422_unknown_field_naming_it() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for (body, field) in [
        (json!({ "fixed_price": "20", "price": "20" }), "price"),
        // The read form's constant is not a write field.
        (json!({ "fixed_price": "20", "channel": "marketplace" }), "channel"),
        (json!({ "fixed_price": "20", "external_id": "harbour-1" }), "external_id"),
        (json!({ "Fixed_price": "20" }), "Fixed_price"),
        (json!({ "floor_price": "10", "base_price": "20", "ceiling_price": "30", "Prix (€)": 1 }), "Prix (€)"),
    ] {
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        response.assert_error(422, "unknown_field", Some(field));
    }
    assert_no_rates(&app, &credential).await;
}

#[tokio::test]
async fn a_body_that_is_not_a_json_object_is_refused_for_what_it_is() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for body in ["", "{", "not json", r#"{"fixed_price":}"#] {
        put_raw(&app, &credential, body).await.assert_error(422, "invalid_json", None);
    }
    for body in ["[]", r#"[{"fixed_price":"20"}]"#, r#""20""#, "20", "null"] {
        put_raw(&app, &credential, body).await.assert_error(422, "invalid_body", None);
    }
    put_raw(&app, &credential, r#"{"fixed_price":"20","fixed_price":"21"}"#).await.assert_error(
        422,
        "invalid_body",
        Some("fixed_price"),
    );
    assert_no_rates(&app, &credential).await;
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn money_is_two_decimals_and_a_third_non_zero_decimal_answers_422_invalid_body_never_rounded() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for (field, value) in [
        ("fixed_price", r#""12.345""#),
        ("fixed_price", "12.345"),
        ("fixed_price", r#""12.3400001""#),
        ("fixed_price", "12.3400001"),
        ("fixed_price", r#""12.001""#),
        ("fixed_price", r#""-1.00""#),
        ("fixed_price", "-1"),
        ("fixed_price", r#""12,50""#),
        ("fixed_price", r#""€12""#),
        ("fixed_price", r#""1e2""#),
        ("fixed_price", r#"" 12""#),
        ("fixed_price", r#""""#),
        ("fixed_price", "true"),
        ("fixed_price", "[12]"),
        ("fixed_price", "10000000000"),
    ] {
        let body = format!(r#"{{"{field}":{value}}}"#);
        put_raw(&app, &credential, &body).await.assert_error(422, "invalid_body", Some(field));
    }
    for field in ["floor_price", "base_price", "ceiling_price", "min_first_day_price"] {
        let mut body = range("10", "20", "30");
        body[field] = json!("12.345");
        app.put_rates(&credential, "harbour-1", "", &body).await.assert_error(422, "invalid_body", Some(field));
    }
    assert_no_rates(&app, &credential).await;

    // A third decimal that is zero is no third decimal.
    for (value, read) in [
        (r#""12.340""#, "12.34"),
        ("12.340", "12.34"),
        ("12.5", "12.50"),
        ("0", "0.00"),
        (r#""9999999999.99""#, "9999999999.99"),
    ] {
        let body = format!(r#"{{"fixed_price":{value}}}"#);
        let response = put_raw(&app, &credential, &body).await;
        assert!(response.status.is_success(), "{body}: {}", response.text());
        assert_eq!(response.json()["rates"]["base_price"], read, "{body}");
    }
}

#[tokio::test]
async fn floor_base_and_ceiling_out_of_order_answer_422_invalid_price_envelope() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for (body, field) in [
        (range("20.01", "20.00", "30.00"), "floor_price"),
        (range("40.00", "20.00", "30.00"), "floor_price"),
        (range("10.00", "30.01", "30.00"), "ceiling_price"),
        (range("10.00", "20.00", "0"), "ceiling_price"),
    ] {
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        response.assert_error(422, "invalid_price_envelope", Some(field));
    }
    assert_no_rates(&app, &credential).await;
    // Equal is in order.
    let response = app.put_rates(&credential, "harbour-1", "", &range("20", "20", "20")).await;
    assert_rates_result(&response, 201, "harbour-1", "created", &ALL_RATES_CHANGED, true, false);
}

#[tokio::test]
async fn a_first_day_price_outside_floor_to_ceiling_answers_422_invalid_first_day_price() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for (shape, first_day) in [
        (range("10", "20", "30"), "9.99"),
        (range("10", "20", "30"), "30.01"),
        (range("10", "20", "30"), "0"),
        (json!({ "fixed_price": "20" }), "20.01"),
    ] {
        let mut body = shape;
        body["min_first_day_price"] = json!(first_day);
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        response.assert_error(422, "invalid_first_day_price", Some("min_first_day_price"));
    }
    assert_no_rates(&app, &credential).await;
    // Both edges are within.
    for (first_day, status) in [("10", 201), ("30.00", 200)] {
        let mut body = range("10", "20", "30");
        body["min_first_day_price"] = json!(first_day);
        app.put_rates_expecting(&credential, "harbour-1", &body, status).await;
    }
}

#[tokio::test]
async fn a_currency_other_than_the_settlement_currency_answers_422_currency_is_not_settlement_currency() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for currency in ["USD", "gbp", "XXX"] {
        let mut body = range("10", "20", "30");
        body["currency"] = json!(currency);
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        response.assert_error(422, "currency_is_not_settlement_currency", Some("currency"));
    }
    for currency in [json!("EURO"), json!("EU"), json!(""), json!(978), json!(["EUR"])] {
        let mut body = range("10", "20", "30");
        body["currency"] = currency.clone();
        let response = app.put_rates(&credential, "harbour-1", "", &body).await;
        response.assert_error(422, "invalid_body", Some("currency"));
    }
    assert_no_rates(&app, &credential).await;
    // Absent, null and any letter case mean the settlement currency.
    let mut body = range("10", "20", "30");
    body["currency"] = json!("eUr");
    let answer = app.put_rates_expecting(&credential, "harbour-1", &body, 201).await;
    assert_eq!(answer["rates"]["currency"], "EUR");
    body["currency"] = Value::Null;
    let response = app.put_rates(&credential, "harbour-1", "", &body).await;
    assert_rates_result(&response, 200, "harbour-1", "unchanged", &[], false, false);
}

#[tokio::test]
async fn valid_from_and_valid_to_are_plain_dates_and_a_timestamp_is_refused_not_truncated() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for field in ["valid_from", "valid_to"] {
        for value in [
            json!("2026-01-01T00:00:00"),
            json!("2026-01-01T00:00:00Z"),
            json!("2026-01-01 00:00:00"),
            json!("2026-02-30"),
            json!("2026-1-1"),
            json!("01/02/2026"),
            json!("2026-01-01 "),
            json!(20260101),
            json!(""),
        ] {
            let mut body = range("10", "20", "30");
            body[field] = value.clone();
            let response = app.put_rates(&credential, "harbour-1", "", &body).await;
            assert_eq!(response.status, 422, "{field} {value}");
            response.assert_error(422, "invalid_body", Some(field));
        }
    }
    assert_no_rates(&app, &credential).await;
}

#[tokio::test]
async fn valid_to_before_valid_from_answers_422_invalid_validity_window() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let mut body = range("10", "20", "30");
    body["valid_from"] = json!("2026-06-02");
    body["valid_to"] = json!("2026-06-01");
    let response = app.put_rates(&credential, "harbour-1", "", &body).await;
    response.assert_error(422, "invalid_validity_window", Some("valid_to"));
    assert_no_rates(&app, &credential).await;
    // One day is a window.
    body["valid_to"] = json!("2026-06-02");
    let answer = app.put_rates_expecting(&credential, "harbour-1", &body, 201).await;
    assert_eq!(
        (answer["rates"]["valid_from"].clone(), answer["rates"]["valid_to"].clone()),
        (json!("2026-06-02"), json!("2026-06-02"))
    );
}

#[tokio::test]
async fn dynamic_is_a_boolean_defaulting_to_false() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for value in [json!("true"), json!(1), json!(0), json!({})] {
        let mut body = range("10", "20", "30");
        body["dynamic"] = value;
        app.put_rates(&credential, "harbour-1", "", &body).await.assert_error(422, "invalid_body", Some("dynamic"));
    }
    let answer = app.put_rates_expecting(&credential, "harbour-1", &range("10", "20", "30"), 201).await;
    assert_eq!(answer["rates"]["dynamic"], false);
}

// ---------------------------------------------------------------------------------------------
// Dry run
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_dry_run_of_a_create_answers_200_created_with_dry_run_true_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_lot().await;
    let response = app.put_rates(&credential, "harbour-1", "dry_run=true", &range("10", "20", "30")).await;
    let answer = assert_rates_result(&response, 200, "harbour-1", "created", &ALL_RATES_CHANGED, true, true);
    assert_eq!(answer["rates"], rates_read_form("10.00", "20.00", "30.00"));
    assert_no_rates(&app, &credential).await;
    let unmet = app.listing_status(&operator, "harbour-1").await["unmet"].clone();
    assert!(unmet.as_array().unwrap().contains(&json!("lot_price_in_force")), "{unmet}");

    // The real write still creates it.
    let response = app.put_rates(&credential, "harbour-1", "", &range("10", "20", "30")).await;
    assert_rates_result(&response, 201, "harbour-1", "created", &ALL_RATES_CHANGED, true, false);
}

#[tokio::test]
async fn a_dry_run_of_an_update_reports_it_and_leaves_the_stored_envelope_as_it_was() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    app.put_rates_expecting(&credential, "harbour-1", &range("10", "20", "30"), 201).await;

    let response = app.put_rates(&credential, "harbour-1", "dry_run=true", &range("5", "20", "30")).await;
    let answer = assert_rates_result(&response, 200, "harbour-1", "updated", &["floor_price"], true, true);
    assert_eq!(answer["rates"], rates_read_form("5.00", "20.00", "30.00"));
    assert_eq!(app.listed_rates(&credential, "harbour-1").await, rates_read_form("10.00", "20.00", "30.00"));

    let response = app.put_rates(&credential, "harbour-1", "dry_run=true", &range("10", "20", "30")).await;
    assert_rates_result(&response, 200, "harbour-1", "unchanged", &[], false, true);

    // Refusals are the real write's.
    let response = app.put_rates(&credential, "harbour-1", "dry_run=true", &json!({ "fixed_price": "12.345" })).await;
    response.assert_error(422, "invalid_body", Some("fixed_price"));
    let response = app.put_rates(&credential, "harbour-1", "dry_run=true", &range("30", "20", "10")).await;
    response.assert_error(422, "invalid_price_envelope", Some("floor_price"));
}

#[tokio::test]
async fn dry_run_accepts_only_the_literal_true_and_other_parameters_answer_invalid_query() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for (query, field) in [
        ("dry_run=false", "dry_run"),
        ("dry_run=1", "dry_run"),
        ("dry_run=True", "dry_run"),
        ("dry_run=", "dry_run"),
        ("dry_run", "dry_run"),
        ("dry_run=true&dry_run=true", "dry_run"),
        ("foo=1", "foo"),
        ("limit=5", "limit"),
    ] {
        let response = app.put_rates(&credential, "harbour-1", query, &range("10", "20", "30")).await;
        response.assert_error(422, "invalid_query", Some(field));
    }
    assert_no_rates(&app, &credential).await;
}

// ---------------------------------------------------------------------------------------------
// Transport, verbs, the path id
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_content_type_other_than_json_answers_415_and_a_body_over_64_kib_413_on_the_rates_route() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let bearer = credential.bearer();
    let body = range("10", "20", "30").to_string();
    for content_type in [None, Some("text/plain"), Some("application/json; charset=latin1"), Some("")] {
        let mut headers = vec![("authorization", bearer.as_str())];
        headers.extend(content_type.map(|value| ("content-type", value)));
        let response = app.request(Method::PUT, "/v1/lots/harbour-1/rates", header_map(&headers), body.clone()).await;
        response.assert_error(415, "unsupported_media_type", None);
    }
    // 415 comes before the lot is looked at.
    let response = app
        .request(Method::PUT, "/v1/lots/nope/rates", header_map(&[("content-type", "text/plain")]), body.clone())
        .await;
    response.assert_error(415, "unsupported_media_type", None);

    let over = padded(&range("10", "20", "30"), KIB_64 + 1);
    let response = app.request(Method::PUT, "/v1/lots/harbour-1/rates", json_headers(&credential), over.clone()).await;
    response.assert_error(413, "payload_too_large", None);
    let response =
        app.request(Method::PUT, "/v1/lots/nope/rates", header_map(&[("content-type", "text/plain")]), over).await;
    response.assert_error(413, "payload_too_large", None);
    let head = raw_put_head("/v1/lots/harbour-1/rates", &credential, &[&format!("content-length: {}", KIB_64 + 1)]);
    let response = raw_exchange(app.addr, &[head.as_bytes()]).await;
    assert_eq!((response.status.as_u16(), response.json()), (413, json!({ "error": "payload_too_large" })));
    assert_no_rates(&app, &credential).await;

    // At the limit, with a charset, it is a write like any other.
    let at_limit = padded(&range("10", "20", "30"), KIB_64);
    let headers = header_map(&[("authorization", &bearer), ("content-type", "Application/JSON; charset=UTF-8")]);
    let response = app.request(Method::PUT, "/v1/lots/harbour-1/rates", headers, at_limit).await;
    assert_rates_result(&response, 201, "harbour-1", "created", &ALL_RATES_CHANGED, true, false);
}

#[tokio::test]
async fn options_on_the_rates_route_answers_204_and_other_verbs_405_with_allow() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    for path in ["/v1/lots/harbour-1/rates", "/v1/lots/nope/rates?dry_run=maybe", "/v1/lots//rates"] {
        let response = app.request(Method::OPTIONS, path, header_map(&[]), "").await;
        assert_eq!(response.status, 204, "{path}");
        assert_eq!(response.header("allow"), Some(RATES_ALLOW));
        assert!(response.body.is_empty());
        response.request_id();
    }
    let bearer = credential.bearer();
    for method in [Method::GET, Method::POST, Method::DELETE, Method::PATCH] {
        let headers = header_map(&[("authorization", &bearer), ("content-type", "application/json")]);
        let response =
            app.request(method.clone(), "/v1/lots/harbour-1/rates", headers, "{\"fixed_price\":\"1\"}").await;
        response.assert_error(405, "method_not_allowed", None);
        assert_eq!(response.header("allow"), Some(RATES_ALLOW), "{method}");
    }
    let response = app.request(Method::HEAD, "/v1/lots/harbour-1/rates", header_map(&[]), "").await;
    assert_eq!((response.status.as_u16(), response.header("allow")), (405, Some(RATES_ALLOW)));
    assert_no_rates(&app, &credential).await;
}

#[tokio::test]
async fn the_path_id_is_percent_decoded_and_each_operator_has_its_own_envelope_under_one_id() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    app.put_lot_expecting(&credential, "a%2Fb%20%C3%A9", &minimal_lot("Slash"), 201).await;
    let response = app.put_rates(&credential, "a%2Fb%20%C3%A9", "", &json!({ "fixed_price": "7" })).await;
    assert_rates_result(&response, 201, "a/b é", "created", &ALL_RATES_CHANGED, true, false);
    assert_eq!(app.listed_rates(&credential, "a/b é").await, rates_read_form("7.00", "7.00", "7.00"));
    // The literal segment is another id.
    let response = app.put_rates(&credential, "a%252Fb", "", &json!({ "fixed_price": "7" })).await;
    crate::common::assert_uniform_401(&response);

    // Another operator's lot under the same id has an envelope of its own.
    let other = app.make_operator().await;
    let other_credential = app.issue(&other, &["read_supply", "write_supply"], None).await;
    app.put_lot_expecting(&other_credential, "harbour-1", &minimal_lot("Theirs"), 201).await;
    app.put_rates_expecting(&credential, "harbour-1", &range("10", "20", "30"), 201).await;
    assert_eq!(app.listed_rates(&other_credential, "harbour-1").await, Value::Null);
    let answer = app.put_rates_expecting(&other_credential, "harbour-1", &json!({ "fixed_price": "99" }), 201).await;
    assert_eq!(answer["envelope_widened"], true);
    assert_eq!(app.listed_rates(&credential, "harbour-1").await, rates_read_form("10.00", "20.00", "30.00"));
}

#[tokio::test]
async fn money_with_thousands_of_digits_is_invalid_body_naming_the_field() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = app.operator_with_lot().await;
    let digits = format!("1{}", "0".repeat(19_999));
    for body in [
        format!(r#"{{"fixed_price":{digits}}}"#),
        format!(r#"{{"fixed_price":"{digits}"}}"#),
        format!(r#"{{"fixed_price":"0.{digits}"}}"#),
        format!(r#"{{"fixed_price":0.{}1}}"#, "0".repeat(15_998)),
    ] {
        put_raw(&app, &credential, &body).await.assert_error(422, "invalid_body", Some("fixed_price"));
    }
    put_raw(&app, &credential, r#"{"fixed_price":"10.00","min_first_day_price":{"a":1,"a":2}}"#).await.assert_error(
        422,
        "invalid_body",
        Some("min_first_day_price.a"),
    );
    assert_no_rates(&app, &credential).await;
}
