//! Fixtures of the routes under an existing lot: PUT /lots/{external_id}/rates, GET and PUT
//! /lots/{external_id}/blocked-periods, their answers' exact shapes, bookings recorded the way the
//! booking engine records them (`platform.booking_record` / `platform.booking_update` as the
//! superuser), and the console's closure edit (`console.lot_blocked_periods_put`, as PostgREST calls it).

use http::Method;
use serde_json::{json, Value};

use super::lots::{assert_write_envelope, json_headers, keys, minimal_lot};
use super::{Credential, Operator, TestApp, TestResponse};

/// The Rates object's keys (spec "Rates"), sorted.
pub const RATES_KEYS: [&str; 9] = [
    "base_price",
    "ceiling_price",
    "channel",
    "currency",
    "dynamic",
    "floor_price",
    "min_first_day_price",
    "valid_from",
    "valid_to",
];

/// Every field name a rates `changed` can carry, in the order of the spec's Rates table (channel
/// is constant): what a create reports.
pub const ALL_RATES_CHANGED: [&str; 8] = [
    "currency",
    "base_price",
    "floor_price",
    "ceiling_price",
    "min_first_day_price",
    "dynamic",
    "valid_from",
    "valid_to",
];

/// The keys of a RatesWriteResult (without `dry_run`), sorted.
pub const RATES_RESULT_KEYS: [&str; 5] = ["changed", "envelope_widened", "external_id", "rates", "result"];

/// The keys of a closure write result (without `dry_run`), sorted.
pub const CLOSURES_RESULT_KEYS: [&str; 5] = ["added", "blocked_periods", "external_id", "removed", "result"];

/// The keys of one blocked period as read back, sorted.
pub const PERIOD_KEYS: [&str; 4] = ["ends_on", "overlapping_bookings", "reason", "starts_on"];

/// A range body.
pub fn range(floor: &str, base: &str, ceiling: &str) -> Value {
    json!({ "floor_price": floor, "base_price": base, "ceiling_price": ceiling })
}

/// The Rates read form of an envelope in EUR with no first-day price, not dynamic, no window.
pub fn rates_read_form(floor: &str, base: &str, ceiling: &str) -> Value {
    json!({
        "channel": "marketplace",
        "currency": "EUR",
        "base_price": base,
        "floor_price": floor,
        "ceiling_price": ceiling,
        "min_first_day_price": null,
        "dynamic": false,
        "valid_from": null,
        "valid_to": null,
    })
}

/// `/v1/lots/<segment>/<tail>` with `query` (without `?`, empty for none). `segment` is sent raw.
pub fn under_lot(segment: &str, tail: &str, query: &str) -> String {
    if query.is_empty() {
        format!("/v1/lots/{segment}/{tail}")
    } else {
        format!("/v1/lots/{segment}/{tail}?{query}")
    }
}

/// A blocked period entry for a PUT body (reason absent when None).
pub fn period(starts_on: &str, ends_on: &str, reason: Option<&str>) -> Value {
    match reason {
        Some(reason) => json!({ "starts_on": starts_on, "ends_on": ends_on, "reason": reason }),
        None => json!({ "starts_on": starts_on, "ends_on": ends_on }),
    }
}

/// A blocked period as read back.
pub fn read_period(starts_on: &str, ends_on: &str, reason: Option<&str>, overlapping_bookings: i64) -> Value {
    json!({ "starts_on": starts_on, "ends_on": ends_on, "reason": reason, "overlapping_bookings": overlapping_bookings })
}

/// A closure PUT body.
pub fn closures(periods: &[Value]) -> Value {
    json!({ "blocked_periods": periods })
}

impl TestApp {
    /// An operator with a read_supply + write_supply credential holding the lot `harbour-1`.
    pub async fn operator_with_lot(&self) -> (Operator, Credential) {
        let operator = self.make_operator().await;
        let credential = self.issue(&operator, &["read_supply", "write_supply"], None).await;
        self.put_lot_expecting(&credential, "harbour-1", &minimal_lot("Harbour"), 201).await;
        (operator, credential)
    }

    /// PUT /v1/lots/<segment>/rates?<query> with a JSON body and the credential.
    pub async fn put_rates(&self, credential: &Credential, segment: &str, query: &str, body: &Value) -> TestResponse {
        self.request(Method::PUT, &under_lot(segment, "rates", query), json_headers(credential), body.to_string()).await
    }

    /// PUT /v1/lots/<segment>/rates, which must answer `status`; answers the write result.
    pub async fn put_rates_expecting(
        &self,
        credential: &Credential,
        segment: &str,
        body: &Value,
        status: u16,
    ) -> Value {
        let response = self.put_rates(credential, segment, "", body).await;
        assert_eq!(response.status.as_u16(), status, "PUT {segment}/rates: {}", response.text());
        response.json()
    }

    /// The `rates` GET /v1/lots lists for the lot (the lot must be listed).
    pub async fn listed_rates(&self, credential: &Credential, external_id: &str) -> Value {
        self.listed_lot(credential, external_id).await.expect("the lot is listed")["rates"].clone()
    }

    /// GET /v1/lots/<segment>/blocked-periods?<query> with the credential.
    pub async fn get_closures(&self, credential: &Credential, segment: &str, query: &str) -> TestResponse {
        self.get(&under_lot(segment, "blocked-periods", query), &[("authorization", &credential.bearer())]).await
    }

    /// The lot's closure list, read back through GET (which must answer 200 with exactly its keys).
    pub async fn closure_list(&self, credential: &Credential, segment: &str) -> Value {
        let response = self.get_closures(credential, segment, "").await;
        assert_eq!(response.status, 200, "GET {segment}/blocked-periods: {}", response.text());
        assert_eq!(response.header("content-type"), Some("application/json"));
        let body = response.json();
        assert_eq!(keys(&body), ["blocked_periods", "external_id"], "{body}");
        for entry in body["blocked_periods"].as_array().expect("blocked_periods is an array") {
            assert_eq!(keys(entry), PERIOD_KEYS, "{entry}");
        }
        body["blocked_periods"].clone()
    }

    /// PUT /v1/lots/<segment>/blocked-periods?<query> with a JSON body and the credential.
    pub async fn put_closures(
        &self,
        credential: &Credential,
        segment: &str,
        query: &str,
        body: &Value,
    ) -> TestResponse {
        self.request(
            Method::PUT,
            &under_lot(segment, "blocked-periods", query),
            json_headers(credential),
            body.to_string(),
        )
        .await
    }

    /// A booking of `lot_external_id`, as the booking engine records it; answers its reference.
    /// Check-in and check-out are the lot's wall clock (`YYYY-MM-DDTHH:MM:SS`).
    pub async fn record_booking(
        &self,
        operator: &Operator,
        lot_external_id: &str,
        check_in_local: &str,
        check_out_local: &str,
        status: &str,
    ) -> String {
        let booking = json!({
            "lot_external_id": lot_external_id,
            "check_in_local": check_in_local,
            "check_out_local": check_out_local,
            "parking_days": 1,
            "status": status,
            "payment_status": "paid",
            "currency": "EUR",
            "total": "10.00",
            "channel": "marketplace",
        });
        self.superuser()
            .await
            .query_one("SELECT platform.booking_record($1, $2)", &[&operator.id, &booking])
            .await
            .unwrap_or_else(|e| panic!("platform.booking_record {booking}: {e:?}"))
            .get(0)
    }

    /// Changes a booking's status, as the booking engine does.
    pub async fn set_booking_status(&self, operator: &Operator, reference: &str, status: &str) {
        self.superuser()
            .await
            .execute(
                "SELECT platform.booking_update($1, $2, $3)",
                &[&operator.id, &reference, &json!({ "status": status })],
            )
            .await
            .unwrap_or_else(|e| panic!("platform.booking_update: {e:?}"));
    }

    /// The console's closure edit, as the operator's owner; answers its report.
    pub async fn console_put_closures(&self, operator: &Operator, external_id: &str, periods: &[Value]) -> Value {
        let rows = self
            .as_console(
                operator,
                "SELECT console.lot_blocked_periods_put($1, $2)",
                &[&external_id.to_string(), &json!(periods)],
            )
            .await;
        rows[0].get(0)
    }
}

/// Asserts a RatesWriteResult: status, exactly its keys (with `dry_run: true` only on a dry run),
/// result, changed, envelope_widened, and a `rates` object with exactly the Rates keys.
pub fn assert_rates_result(
    response: &TestResponse,
    status: u16,
    external_id: &str,
    result: &str,
    changed: &[&str],
    envelope_widened: bool,
    dry_run: bool,
) -> Value {
    let body = assert_write_envelope(response, status, &RATES_RESULT_KEYS, external_id, result, dry_run);
    assert_eq!(body["changed"], json!(changed), "{body}");
    assert_eq!(body["envelope_widened"], json!(envelope_widened), "{body}");
    assert_eq!(keys(&body["rates"]), RATES_KEYS, "the Rates keys: {}", body["rates"]);
    assert_eq!(body["rates"]["channel"], "marketplace");
    body
}

/// Asserts a closure write result: status, exactly its keys (with `dry_run: true` only on a dry
/// run), result, added, removed, and the list read back (each entry exactly its keys); answers the list.
pub fn assert_closures_result(
    response: &TestResponse,
    status: u16,
    external_id: &str,
    result: &str,
    added: i64,
    removed: i64,
    dry_run: bool,
) -> Value {
    let body = assert_write_envelope(response, status, &CLOSURES_RESULT_KEYS, external_id, result, dry_run);
    assert_eq!((body["added"].clone(), body["removed"].clone()), (json!(added), json!(removed)), "{body}");
    for entry in body["blocked_periods"].as_array().expect("blocked_periods is an array") {
        assert_eq!(keys(entry), PERIOD_KEYS, "{entry}");
    }
    body["blocked_periods"].clone()
}
