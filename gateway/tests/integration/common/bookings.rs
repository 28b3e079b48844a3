//! Fixtures of the bookings feed (GET /bookings): bookings recorded the way the booking engine
//! records them (`platform.booking_record` / `platform.booking_update` as the superuser, one at a
//! time or many in one statement), the exact shape of a page and of a Booking, a client that
//! follows the spec's polling pattern, the database's own view of the feed (a direct read as the
//! superuser, to compare with what a client holds), and a database whose watermark lag is zero.
//!
//! The watermark lag (`bookings_watermark_lag` in `app.settings`, default 5 minutes) is a setting
//! of the whole database, and so is the watermark itself: the writer lock every booking write
//! takes is not per operator, so a booking transaction held open by one test holds back every
//! operator's cursor. A binary that needs lag 0 therefore serves every test from
//! [`TestApp::spawn_zero_lag`] (the setting is written once, when its database is first used, before
//! any gateway serves it) and runs those tests one at a time ([`one_at_a_time`]).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{json, Value};
use tokio::sync::{Mutex, MutexGuard};

use super::lots::keys;
use super::{connect, test_database_url, Credential, Http, Operator, TestApp, TestResponse};

/// The keys of a GET /bookings answer, sorted.
pub const PAGE_KEYS: [&str; 3] = ["bookings", "has_more", "next"];

/// The Booking object's keys (spec "Booking"), sorted.
pub const BOOKING_KEYS: [&str; 18] = [
    "cancelled_at",
    "channel",
    "check_in_local",
    "check_out_local",
    "created_at",
    "currency",
    "customer",
    "external_reference",
    "flight_number",
    "lot_external_id",
    "lot_name",
    "parking_days",
    "payment_status",
    "reference",
    "status",
    "timezone",
    "total",
    "vehicle_plates",
];

/// The keys of a Booking's `customer`, sorted.
pub const CUSTOMER_KEYS: [&str; 4] = ["email", "first_name", "last_name", "phone"];

/// `/v1/bookings?<query>` (no `?` when `query` is empty).
pub fn bookings_path(query: &str) -> String {
    if query.is_empty() {
        "/v1/bookings".to_string()
    } else {
        format!("/v1/bookings?{query}")
    }
}

/// The query of one pull: `limit`, then `since` when there is a cursor (a token is base64url and
/// one dot: nothing in it needs escaping).
pub fn pull_query(since: Option<&str>, limit: u32) -> String {
    match since {
        Some(since) => format!("limit={limit}&since={since}"),
        None => format!("limit={limit}"),
    }
}

/// A booking for `platform.booking_record` with only the required fields: a two-day stay at the
/// lot from `check_in_local`, confirmed, paid, 10.00 EUR, sold on the marketplace.
pub fn minimal_booking(lot_external_id: &str, check_in_local: &str, check_out_local: &str) -> Value {
    json!({
        "lot_external_id": lot_external_id,
        "check_in_local": check_in_local,
        "check_out_local": check_out_local,
        "parking_days": 2,
        "status": "confirmed",
        "payment_status": "paid",
        "currency": "EUR",
        "total": "10.00",
        "channel": "marketplace",
    })
}

/// One answer of GET /bookings, its shape checked.
#[derive(Clone, Debug)]
pub struct Page {
    pub bookings: Vec<Value>,
    pub next: String,
    pub has_more: bool,
}

impl Page {
    /// The references of the page, in its order.
    pub fn references(&self) -> Vec<String> {
        self.bookings.iter().map(reference_of).collect()
    }
}

/// A booking's reference.
pub fn reference_of(booking: &Value) -> String {
    booking["reference"].as_str().unwrap_or_else(|| panic!("a booking without a reference: {booking}")).to_string()
}

/// Asserts a 200 GET /bookings answer: JSON, exactly `bookings`, `next` (a non-empty string) and
/// `has_more` (a boolean), and every booking exactly the Booking keys with `customer` exactly its
/// four; answers the page.
pub fn assert_page(response: &TestResponse) -> Page {
    assert_eq!(response.status, 200, "GET /bookings: {}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    response.request_id();
    let body = response.json();
    assert_eq!(keys(&body), PAGE_KEYS, "the page's keys: {body}");
    let next = body["next"].as_str().unwrap_or_else(|| panic!("next is a string: {body}")).to_string();
    assert!(!next.is_empty(), "next is not empty");
    let has_more = body["has_more"].as_bool().unwrap_or_else(|| panic!("has_more is a boolean: {body}"));
    let bookings = body["bookings"].as_array().unwrap_or_else(|| panic!("bookings is an array: {body}")).clone();
    for booking in &bookings {
        assert_eq!(keys(booking), BOOKING_KEYS, "a Booking's keys: {booking}");
        assert_eq!(keys(&booking["customer"]), CUSTOMER_KEYS, "a customer's keys: {booking}");
    }
    Page { bookings, next, has_more }
}

impl TestApp {
    /// GET /v1/bookings?<query> with the credential.
    pub async fn get_bookings(&self, credential: &Credential, query: &str) -> TestResponse {
        self.get(&bookings_path(query), &[("authorization", &credential.bearer())]).await
    }

    /// GET /v1/bookings?<query>, which must answer a well-formed 200 page.
    pub async fn bookings_page(&self, credential: &Credential, query: &str) -> Page {
        assert_page(&self.get_bookings(credential, query).await)
    }

    /// Records `booking` as the booking engine does; answers its reference.
    pub async fn record(&self, operator: &Operator, booking: &Value) -> String {
        self.superuser()
            .await
            .query_one("SELECT platform.booking_record($1, $2)", &[&operator.id, booking])
            .await
            .unwrap_or_else(|e| panic!("platform.booking_record {booking}: {e:?}"))
            .get(0)
    }

    /// Changes a booking as the booking engine does.
    pub async fn update_booking(&self, operator: &Operator, reference: &str, changes: &Value) {
        self.superuser()
            .await
            .execute("SELECT platform.booking_update($1, $2, $3)", &[&operator.id, &reference, changes])
            .await
            .unwrap_or_else(|e| panic!("platform.booking_update {reference} {changes}: {e:?}"));
    }

    /// Records `count` bookings of the lot in ONE statement (one transaction), each calling
    /// `platform.booking_record`: booking n (from 1) checks in n hours after 2026-07-01 00:00 for
    /// two days, has external reference `EXT-<n>` and a total of `<n mod 1000>.50` EUR. Answers the
    /// references in the order they were recorded.
    pub async fn record_bookings_in_bulk(&self, operator: &Operator, lot_external_id: &str, count: i32) -> Vec<String> {
        let sql = "SELECT array_agg(platform.booking_record($1, jsonb_build_object(
                       'lot_external_id', $2::text,
                       'external_reference', 'EXT-' || n,
                       'check_in_local', to_char(timestamp '2026-07-01' + n * interval '1 hour', 'YYYY-MM-DD\"T\"HH24:MI:SS'),
                       'check_out_local', to_char(timestamp '2026-07-03' + n * interval '1 hour', 'YYYY-MM-DD\"T\"HH24:MI:SS'),
                       'parking_days', 2,
                       'status', 'confirmed',
                       'payment_status', 'paid',
                       'currency', 'EUR',
                       'total', (n % 1000) || '.50',
                       'channel', 'marketplace')) ORDER BY n)
                     FROM generate_series(1, $3) AS n";
        self.superuser()
            .await
            .query_one(sql, &[&operator.id, &lot_external_id, &count])
            .await
            .unwrap_or_else(|e| panic!("recording {count} bookings: {e:?}"))
            .get(0)
    }

    /// The operator's bookings as the database holds them now, in the spec's Booking form (spelled
    /// here, independently of the feed's own query), keyed on reference: a direct read as the
    /// superuser.
    pub async fn bookings_in_database(&self, operator: &Operator) -> BTreeMap<String, Value> {
        self.superuser()
            .await
            .query(
                "SELECT b.reference, jsonb_build_object(
                        'reference', b.reference, 'external_reference', b.external_reference,
                        'lot_external_id', l.external_id, 'lot_name', l.name, 'timezone', l.timezone,
                        'check_in_local', to_char(b.check_in_local, 'YYYY-MM-DD\"T\"HH24:MI:SS'),
                        'check_out_local', to_char(b.check_out_local, 'YYYY-MM-DD\"T\"HH24:MI:SS'),
                        'parking_days', b.parking_days, 'status', b.status, 'payment_status', b.payment_status,
                        'currency', b.currency, 'total', b.total::text, 'channel', b.channel,
                        'flight_number', b.flight_number,
                        'customer', jsonb_build_object('first_name', b.customer_first_name,
                            'last_name', b.customer_last_name, 'email', b.customer_email, 'phone', b.customer_phone),
                        'vehicle_plates', to_jsonb(b.vehicle_plates),
                        'created_at', to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'),
                        'cancelled_at', to_char(b.cancelled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'))
                   FROM app.bookings AS b
                   JOIN app.lots AS l ON l.operator_id = b.operator_id AND l.id = b.lot_id
                  WHERE b.operator_id = $1",
                &[&operator.id],
            )
            .await
            .expect("reading the bookings")
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect()
    }

    /// The operator's references in the feed's order, (change time, reference), as the database
    /// holds them now.
    pub async fn feed_order(&self, operator: &Operator) -> Vec<String> {
        self.superuser()
            .await
            .query(
                "SELECT reference FROM app.bookings WHERE operator_id = $1
                  ORDER BY changed_at, reference COLLATE \"C\"",
                &[&operator.id],
            )
            .await
            .expect("reading the feed order")
            .iter()
            .map(|row| row.get(0))
            .collect()
    }

    /// The gateway against this binary's database with the feed's watermark lag set to zero (see
    /// the module doc: every test of such a binary must use it, and take turns).
    pub async fn spawn_zero_lag() -> TestApp {
        TestApp::spawn_on(zero_lag_database_url(), |_| {}).await
    }
}

/// This binary's test database with `bookings_watermark_lag` set to `0 seconds`, written once, on a
/// thread and runtime of its own (as the database itself is made), before any gateway serves it.
pub fn zero_lag_database_url() -> &'static str {
    static URL: OnceLock<&'static str> = OnceLock::new();
    URL.get_or_init(|| {
        let url = test_database_url();
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime").block_on(async {
                let updated = connect(url)
                    .await
                    .execute("UPDATE app.settings SET value = '0 seconds' WHERE name = 'bookings_watermark_lag'", &[])
                    .await
                    .expect("setting the watermark lag");
                assert_eq!(updated, 1, "the bookings_watermark_lag setting exists");
            })
        })
        .join()
        .expect("the watermark lag could not be set");
        url
    })
}

/// A turn of its own for a test of a zero-lag binary: the watermark is the whole database's, so a
/// booking transaction one test holds open would hold back another test's cursor. Held for the
/// whole test (every test has a runtime of its own; this lock belongs to none of them); a test
/// that panicked passes the turn on.
pub async fn one_at_a_time() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::const_new(());
    TURN.lock().await
}

/// A client following the spec's polling pattern: load the saved cursor (none at first); request
/// with since=cursor and limit; store the rows keyed on reference; save `next` (only after the
/// page is stored); when has_more is false, wait before the next pull (the caller's loop waits).
///
/// Storing keeps each booking's latest state: pulls are sequential and each reads the database
/// after the one before, so a booking delivered again carries a state at least as new.
pub struct FeedClient {
    http: Http,
    authorization: String,
    limit: u32,
    /// The saved cursor: None until the first page is stored.
    pub cursor: Option<String>,
    /// Every booking received, keyed on reference, in its latest state.
    pub bookings: BTreeMap<String, Value>,
    /// How many pulls were made.
    pub pulls: usize,
}

/// What one pull brought.
#[derive(Debug)]
pub struct Pulled {
    pub page: Page,
    /// How many of its bookings were new to the client or changed since it last stored them.
    pub news: usize,
}

impl FeedClient {
    pub fn new(app: &TestApp, credential: &Credential, limit: u32) -> FeedClient {
        FeedClient {
            http: app.http(),
            authorization: credential.bearer(),
            limit,
            cursor: None,
            bookings: BTreeMap::new(),
            pulls: 0,
        }
    }

    /// One pull from the saved cursor: the page is stored, then its `next` saved.
    pub async fn pull(&mut self) -> Pulled {
        let path = bookings_path(&pull_query(self.cursor.as_deref(), self.limit));
        let page = assert_page(&self.http.get(&path, &[("authorization", &self.authorization)]).await);
        self.pulls += 1;
        let mut news = 0;
        for booking in &page.bookings {
            if self.bookings.insert(reference_of(booking), booking.clone()).as_ref() != Some(booking) {
                news += 1;
            }
        }
        self.cursor = Some(page.next.clone());
        Pulled { page, news }
    }

    /// Pulls until has_more is false AND the last pull brought nothing new; answers how many pulls
    /// it made. Panics past `max_pulls` (a cursor that never settles).
    pub async fn catch_up(&mut self, max_pulls: usize) -> usize {
        for made in 1..=max_pulls {
            let pulled = self.pull().await;
            if !pulled.page.has_more && pulled.news == 0 {
                return made;
            }
        }
        panic!("the feed did not settle within {max_pulls} pulls (cursor {:?})", self.cursor);
    }
}
