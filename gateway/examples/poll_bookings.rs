//! A reference operator-side client of GET /bookings, following the spec's polling pattern:
//! load the saved cursor (none at first); request with since=cursor and limit; store the rows keyed
//! on reference; save `next`; when has_more is false, wait before the next pull.
//!
//! Storage is a folder (`STATE_DIR`): one file per booking, `<reference>.json`, holding its latest
//! state (a booking delivered again simply overwrites its file: de-duplication on reference), and
//! the file `cursor`. Every file is written to a temporary name, fsynced, renamed into place and the
//! folder fsynced, so a crash leaves either the old or the new file, never half of one; and the
//! cursor is saved only after every booking of its page is durably stored. A crash between the two
//! re-delivers that page, which is harmless.
//!
//! ```text
//! INGEST_CREDENTIAL=pk_api_….pk_sec_… cargo run --example poll_bookings -- --once
//! ```
//!
//! Settings: `INGEST_BASE_URL` (default http://127.0.0.1:8080/v1; this example speaks plain HTTP,
//! for the local service of `make run` — a real integration uses the HTTPS base), `INGEST_CREDENTIAL`
//! (required), `STATE_DIR` (default ./bookings-state), `POLL_SECONDS` (default 60). `--once` drains
//! the feed until has_more is false, then exits.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::{Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

const PAGE_SIZE: u32 = 200;

#[tokio::main]
async fn main() -> Result<(), String> {
    let base = std::env::var("INGEST_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080/v1".into());
    let credential = std::env::var("INGEST_CREDENTIAL").map_err(|_| "INGEST_CREDENTIAL is not set")?;
    let state = PathBuf::from(std::env::var("STATE_DIR").unwrap_or_else(|_| "bookings-state".into()));
    let poll = Duration::from_secs(std::env::var("POLL_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60));
    let once = std::env::args().any(|arg| arg == "--once");
    fs::create_dir_all(&state).map_err(|e| format!("cannot create {}: {e}", state.display()))?;

    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    loop {
        let cursor = fs::read_to_string(state.join("cursor")).unwrap_or_default();
        let mut url = format!("{base}/bookings?limit={PAGE_SIZE}");
        if !cursor.is_empty() {
            url.push_str("&since=");
            url.push_str(&cursor); // base64url and '.': nothing to escape
        }
        let request = Request::get(&url)
            .header("authorization", format!("Bearer {credential}"))
            .body(Empty::new())
            .map_err(|e| e.to_string())?;
        let response = match client.request(request).await {
            Ok(response) => response,
            Err(error) => {
                eprintln!("request failed ({error}); retrying in 5 s");
                tokio::time::sleep(Duration::from_secs(5)).await;
                continue;
            }
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .unwrap_or(5);
        let body = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
        match status {
            StatusCode::OK => {}
            StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => {
                tokio::time::sleep(Duration::from_secs(retry_after)).await;
                continue;
            }
            // 401 (credential) and 422 (a saved cursor the service does not accept) need a person.
            _ => return Err(format!("GET /bookings answered {status}: {}", String::from_utf8_lossy(&body))),
        }

        let page: Value = serde_json::from_slice(&body).map_err(|e| format!("not JSON: {e}"))?;
        let bookings = page["bookings"].as_array().ok_or("no bookings array")?;
        for booking in bookings {
            let reference = booking["reference"].as_str().ok_or("a booking without reference")?;
            if reference.is_empty() || !reference.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
                return Err(format!("unexpected reference {reference:?}"));
            }
            write_durably(&state, &format!("{reference}.json"), booking.to_string().as_bytes())?;
        }
        let next = page["next"].as_str().ok_or("no next")?;
        write_durably(&state, "cursor", next.as_bytes())?;
        println!("stored {} booking(s); has_more {}", bookings.len(), page["has_more"]);

        if page["has_more"] != Value::Bool(true) {
            if once {
                return Ok(());
            }
            tokio::time::sleep(poll).await;
        }
    }
}

/// Write `name` in `dir` atomically and durably: temporary file, fsync, rename, fsync the folder.
fn write_durably(dir: &Path, name: &str, contents: &[u8]) -> Result<(), String> {
    let temporary = dir.join(format!(".{name}.tmp"));
    let describe = |e: std::io::Error| format!("cannot store {name}: {e}");
    let mut file = File::create(&temporary).map_err(describe)?;
    file.write_all(contents).map_err(describe)?;
    file.sync_all().map_err(describe)?;
    fs::rename(&temporary, dir.join(name)).map_err(describe)?;
    File::open(dir).and_then(|folder| folder.sync_all()).map_err(describe)
}
