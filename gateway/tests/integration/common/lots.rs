//! Lot fixtures shared by the lot test binaries: write bodies, PUT /lots/{external_id} and GET /lots
//! calls, the log lines of one request, the listing review through the console's and platform's
//! functions, and a raw HTTP/1.1 exchange for bodies the pooled client cannot send (chunked, or
//! announced and never sent).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::{header_map, Credential, Http, Operator, TestApp, TestResponse};

/// The Lot read form's keys, exactly (spec "Lot: read form"), sorted.
pub const LOT_KEYS: [&str; 17] = [
    "arrival",
    "cancellation",
    "capacity",
    "city",
    "country_code",
    "external_id",
    "features",
    "handover",
    "latitude",
    "longitude",
    "max_stay_days",
    "media",
    "min_advance_days",
    "min_stay_days",
    "name",
    "online_bookable",
    "timezone",
];

/// Every field name `changed` can carry, in the order of the spec's field table (the cancellation
/// keys under their reviewed-list names): what a create reports.
pub const ALL_CHANGED: [&str; 18] = [
    "name",
    "timezone",
    "handover",
    "online_bookable",
    "capacity",
    "latitude",
    "longitude",
    "city",
    "country_code",
    "features",
    "arrival",
    "media",
    "min_advance_days",
    "min_stay_days",
    "max_stay_days",
    "cancellation_free_until_hours_before_check_in",
    "cancellation_penalty_percent_after",
    "cancellation_no_show_forfeits_full",
];

/// The keys of a LotWriteResult (without `dry_run`), sorted.
pub const WRITE_RESULT_KEYS: [&str; 5] = ["changed", "external_id", "listing_review_superseded", "lot", "result"];

/// The sorted keys of a JSON object.
pub fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> =
        value.as_object().unwrap_or_else(|| panic!("not an object: {value}")).keys().cloned().collect();
    keys.sort();
    keys
}

/// The four required fields only.
pub fn minimal_lot(name: &str) -> Value {
    json!({ "name": name, "timezone": "Europe/Lisbon", "handover": "self", "online_bookable": true })
}

/// The minimal lot's read form for `external_id`: every optional field null or its default.
pub fn minimal_read_form(external_id: &str, name: &str) -> Value {
    json!({
        "external_id": external_id,
        "name": name,
        "timezone": "Europe/Lisbon",
        "handover": "self",
        "online_bookable": true,
        "capacity": null,
        "latitude": null,
        "longitude": null,
        "city": null,
        "country_code": null,
        "features": [],
        "arrival": null,
        "media": null,
        "min_advance_days": 0,
        "min_stay_days": null,
        "max_stay_days": null,
        "cancellation": null,
    })
}

/// A lot with every field set, meeting every content requirement the API can satisfy (so it can
/// be submitted for review). `folder` is the operator's media folder (its id by default).
pub fn full_lot(operator: &Operator) -> Value {
    json!({
        "name": "Harbour Long Stay",
        "timezone": "Europe/Lisbon",
        "handover": "attended",
        "online_bookable": true,
        "capacity": 120,
        "latitude": "38.7742999",
        "longitude": -9.1342,
        "city": "Lisbon",
        "country_code": " pt ",
        "features": ["security", "indoor", "security"],
        "arrival": { "entrance": { "en": "Gate B, lane 2" }, "parkingLevel": "-1" },
        "media": { "heroUrl": format!("https://photos.example/lot-media/{}/hero.jpg", operator.id) },
        "min_stay_days": 1,
        "max_stay_days": 30,
        "cancellation": {
            "free_until_hours_before_check_in": 24,
            "penalty_percent_after": 50,
            "no_show_forfeits_full": true,
        },
    })
}

/// What [`full_lot`] reads back as.
pub fn full_read_form(operator: &Operator, external_id: &str) -> Value {
    json!({
        "external_id": external_id,
        "name": "Harbour Long Stay",
        "timezone": "Europe/Lisbon",
        "handover": "attended",
        "online_bookable": true,
        "capacity": 120,
        "latitude": "38.7743",
        "longitude": "-9.1342",
        "city": "Lisbon",
        "country_code": "PT",
        "features": ["indoor", "security"],
        "arrival": { "entrance": { "en": "Gate B, lane 2" }, "parkingLevel": "-1" },
        "media": { "heroUrl": format!("https://photos.example/lot-media/{}/hero.jpg", operator.id) },
        "min_advance_days": 0,
        "min_stay_days": 1,
        "max_stay_days": 30,
        "cancellation": {
            "free_until_hours_before_check_in": 24,
            "penalty_percent_after": "50.00",
            "no_show_forfeits_full": true,
        },
    })
}

/// `/v1/lots/<segment>` with `query` (without `?`, empty for none). `segment` is sent raw.
pub fn lot_path(segment: &str, query: &str) -> String {
    if query.is_empty() {
        format!("/v1/lots/{segment}")
    } else {
        format!("/v1/lots/{segment}?{query}")
    }
}

/// The headers of a JSON write with this credential.
pub fn json_headers(credential: &Credential) -> HeaderMap {
    header_map(&[("authorization", &credential.bearer()), ("content-type", "application/json")])
}

impl Http {
    /// PUT /v1/lots/<segment>?<query> with a JSON body and the credential.
    pub async fn put_lot_query(
        &self,
        credential: &Credential,
        segment: &str,
        query: &str,
        body: &Value,
    ) -> TestResponse {
        self.request(http::Method::PUT, &lot_path(segment, query), json_headers(credential), body.to_string()).await
    }
}

impl TestApp {
    /// PUT /v1/lots/<segment> with a JSON body and the credential.
    pub async fn put_lot(&self, credential: &Credential, segment: &str, body: &Value) -> TestResponse {
        self.http().put_lot_query(credential, segment, "", body).await
    }

    /// As [`TestApp::put_lot`] with a query string (e.g. `dry_run=true`).
    pub async fn put_lot_query(
        &self,
        credential: &Credential,
        segment: &str,
        query: &str,
        body: &Value,
    ) -> TestResponse {
        self.http().put_lot_query(credential, segment, query, body).await
    }

    /// PUT /v1/lots/<segment>, which must answer `status`; answers the write result.
    pub async fn put_lot_expecting(&self, credential: &Credential, segment: &str, body: &Value, status: u16) -> Value {
        let response = self.put_lot(credential, segment, body).await;
        assert_eq!(response.status.as_u16(), status, "PUT {segment}: {}", response.text());
        response.json()
    }

    /// GET /v1/lots?<query> with the credential.
    pub async fn list_lots(&self, credential: &Credential, query: &str) -> TestResponse {
        let path = if query.is_empty() { "/v1/lots".to_string() } else { format!("/v1/lots?{query}") };
        self.get(&path, &[("authorization", &credential.bearer())]).await
    }

    /// Every lot the credential's operator holds, following next_after with pages of 200.
    pub async fn all_lots(&self, credential: &Credential) -> Vec<Value> {
        let mut lots = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let query = match &after {
                Some(after) => format!("limit=200&after={}", form_encode(after)),
                None => "limit=200".to_string(),
            };
            let response = self.list_lots(credential, &query).await;
            assert_eq!(response.status, 200, "{}", response.text());
            let page = response.json();
            lots.extend(page["lots"].as_array().expect("lots is an array").iter().cloned());
            match page["next_after"].as_str() {
                Some(next) => after = Some(next.to_string()),
                None => return lots,
            }
        }
    }

    /// The external ids of [`TestApp::all_lots`], in the order listed.
    pub async fn lot_ids(&self, credential: &Credential) -> Vec<String> {
        self.all_lots(credential).await.iter().map(|lot| lot["external_id"].as_str().unwrap().to_string()).collect()
    }

    /// The listed entry of one lot, or None.
    pub async fn listed_lot(&self, credential: &Credential, external_id: &str) -> Option<Value> {
        self.all_lots(credential).await.into_iter().find(|lot| lot["external_id"] == external_id)
    }

    /// Every log line of the request that answered with `response` (request line first).
    pub fn lines_of(&self, response: &TestResponse) -> Vec<Value> {
        let id = response.request_id();
        self.logs().into_iter().filter(|line| line["request_id"] == id).collect()
    }

    /// The console's listing status of a lot (review_state, timezone_confirmed, …).
    pub async fn listing_status(&self, operator: &Operator, external_id: &str) -> Value {
        let rows =
            self.as_console(operator, "SELECT console.lot_listing_status($1)", &[&external_id.to_string()]).await;
        rows[0].get(0)
    }

    /// Submits the lot for review in the console (review `pending`).
    pub async fn submit_for_review(&self, operator: &Operator, external_id: &str) {
        let rows =
            self.as_console(operator, "SELECT console.lot_submit_for_review($1)", &[&external_id.to_string()]).await;
        let status: Value = rows[0].get(0);
        assert_eq!(status["review_state"], "pending", "{status}");
    }

    /// A reviewer approves the pending review (the platform's call).
    pub async fn approve_review(&self, operator: &Operator, external_id: &str) {
        self.superuser()
            .await
            .execute("SELECT platform.lot_review_approve($1, $2)", &[&operator.id, &external_id])
            .await
            .expect("platform.lot_review_approve");
    }
}

/// `value` form-encoded for a query string.
pub fn form_encode(value: &str) -> String {
    form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// Asserts a LotWriteResult: exactly its keys (with `dry_run: true` only on a dry run), the result,
/// the changed names, the review flag, and a lot with exactly the read form's keys.
pub fn assert_write_result(
    response: &TestResponse,
    status: u16,
    external_id: &str,
    result: &str,
    changed: &[&str],
    superseded: bool,
    dry_run: bool,
) -> Value {
    let body = assert_write_envelope(response, status, &WRITE_RESULT_KEYS, external_id, result, dry_run);
    assert_eq!(body["changed"], json!(changed));
    assert_eq!(body["listing_review_superseded"], json!(superseded));
    assert_eq!(keys(&body["lot"]), LOT_KEYS, "the read form's keys: {}", body["lot"]);
    assert_eq!(body["lot"]["external_id"], json!(external_id));
    body
}

/// The part every PUT route's answer shares: the status, JSON, a request id, exactly `result_keys`
/// (plus `dry_run: true` on a dry run), the external_id and the result. Answers the body.
pub fn assert_write_envelope(
    response: &TestResponse,
    status: u16,
    result_keys: &[&str],
    external_id: &str,
    result: &str,
    dry_run: bool,
) -> Value {
    assert_eq!(response.status.as_u16(), status, "body {}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    response.request_id();
    let body = response.json();
    let mut expected_keys: Vec<&str> = result_keys.to_vec();
    if dry_run {
        expected_keys.push("dry_run");
        expected_keys.sort_unstable();
        assert_eq!(body["dry_run"], json!(true));
    }
    assert_eq!(keys(&body), expected_keys, "the write result's keys: {body}");
    assert_eq!(body["external_id"], json!(external_id));
    assert_eq!(body["result"], json!(result), "{body}");
    body
}

/// An answer read off a raw connection.
#[derive(Debug)]
pub struct RawResponse {
    pub status: StatusCode,
    pub head: String,
    pub body: Bytes,
}

impl RawResponse {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_string())
        })
    }
}

/// Writes `parts` one after the other on a new connection (pausing briefly between them, so the
/// server sees them apart), then reads one answer: the head, then `Content-Length` bytes. The
/// request need not be complete: the server may answer before it has read everything announced.
pub async fn raw_exchange(addr: SocketAddr, parts: &[&[u8]]) -> RawResponse {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        for (index, part) in parts.iter().enumerate() {
            if index > 0 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            // The server may answer and close before it reads everything: a failed write is fine,
            // the answer is already on its way.
            if stream.write_all(part).await.is_err() {
                break;
            }
        }
        let mut received = Vec::new();
        let mut buffer = [0u8; 8192];
        loop {
            if let Some(end) = find(&received, b"\r\n\r\n") {
                let head = String::from_utf8(received[..end].to_vec()).expect("an ASCII head");
                let length: usize = head
                    .lines()
                    .find_map(|line| {
                        let (key, value) = line.split_once(':')?;
                        key.trim().eq_ignore_ascii_case("content-length").then(|| value.trim().parse().ok())?
                    })
                    .unwrap_or(0);
                if received.len() >= end + 4 + length {
                    let status = head.split(' ').nth(1).and_then(|s| s.parse::<u16>().ok()).expect("a status line");
                    let body = Bytes::copy_from_slice(&received[end + 4..end + 4 + length]);
                    return RawResponse { status: StatusCode::from_u16(status).unwrap(), head, body };
                }
            }
            let read = stream.read(&mut buffer).await.expect("reading the answer");
            assert!(read > 0, "the connection closed before a whole answer: {:?}", String::from_utf8_lossy(&received));
            received.extend_from_slice(&buffer[..read]);
        }
    };
    tokio::time::timeout(Duration::from_secs(20), exchange).await.expect("a raw answer within 20 s")
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// The head of a raw PUT request (ends with the blank line).
pub fn raw_put_head(path: &str, credential: &Credential, extra: &[&str]) -> String {
    let mut head = format!(
        "PUT {path} HTTP/1.1\r\nhost: localhost\r\nauthorization: {}\r\ncontent-type: application/json\r\n",
        credential.bearer()
    );
    for line in extra {
        head.push_str(line);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    head
}

/// One chunk of chunked transfer coding.
pub fn chunk(data: &[u8]) -> Vec<u8> {
    let mut chunk = format!("{:x}\r\n", data.len()).into_bytes();
    chunk.extend_from_slice(data);
    chunk.extend_from_slice(b"\r\n");
    chunk
}

/// The last chunk (no trailers).
pub const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

/// `body` as JSON text padded with trailing white space to exactly `size` bytes (still valid JSON).
pub fn padded(body: &Value, size: usize) -> Vec<u8> {
    let mut text = body.to_string().into_bytes();
    assert!(text.len() <= size, "the body is already {} bytes", text.len());
    text.resize(size, b' ');
    text
}
