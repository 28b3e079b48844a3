//! Log lines: one JSON object per line on standard output.
//!
//! Each request writes exactly one request line (request id, the key id as presented or null,
//! method, route template, status, duration, and for a 5xx the internal cause); each write that
//! succeeded (dry runs included) a second, write line. Operational events
//! (start, stop, faults outside a request) go through `tracing`, also as JSON lines. No line ever
//! carries a secret, an Authorization header, a body or a database message.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use crate::log_writer::{self, LogWriter, WriterGuard};

use serde_json::value::RawValue;
use serde_json::{json, Value};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Where request lines go: standard output, or memory (tests read them back).
#[derive(Clone, Default)]
pub enum LogSink {
    #[default]
    Stdout,
    Memory(Arc<Mutex<Vec<Value>>>),
}

impl LogSink {
    pub fn write(&self, mut line: Value) {
        if let Value::Object(fields) = &mut line {
            fields.insert("timestamp".into(), timestamp(OffsetDateTime::now_utc()).into());
            fields.insert("level".into(), "INFO".into());
        }
        match self {
            LogSink::Stdout => {
                // Serialized straight to bytes: `format!("{line}")` goes through `fmt` and costs
                // several times more per line.
                let mut text = Vec::with_capacity(256);
                if serde_json::to_writer(&mut text, &line).is_ok() {
                    text.push(b'\n');
                    write_stdout(&text);
                }
            }
            LogSink::Memory(lines) => lines.lock().unwrap_or_else(|e| e.into_inner()).push(line),
        }
    }

    /// A request line: the same as `write(line.to_json())`, but on standard output written
    /// straight from its fields, with no map built (every request pays for this line).
    pub fn write_request(&self, line: &RequestLine) {
        match self {
            LogSink::Stdout => write_stdout(&line.to_bytes(OffsetDateTime::now_utc())),
            LogSink::Memory(_) => self.write(line.to_json()),
        }
    }
}

fn timestamp(now: OffsetDateTime) -> String {
    now.format(&Rfc3339).unwrap_or_default()
}

pub struct RequestLine<'a> {
    pub request_id: &'a str,
    pub key_id: Option<&'a str>,
    pub method: &'a str,
    pub route: Option<&'static str>,
    pub status: u16,
    pub duration_ms: f64,
    pub cause: Option<&'a str>,
    /// The status the request was answered with when its client had gone before it could be sent
    /// (`status` is then 499, nginx's "client closed request").
    pub outcome: Option<u16>,
}

impl RequestLine<'_> {
    pub fn to_json(&self) -> Value {
        let mut line = json!({
            "message": "request",
            "request_id": self.request_id,
            "key_id": self.key_id,
            "method": self.method,
            "route": self.route,
            "status": self.status,
            "duration_ms": (self.duration_ms * 1000.0).round() / 1000.0,
        });
        if let Some(cause) = self.cause {
            line["cause"] = cause.into();
        }
        if let Some(outcome) = self.outcome {
            line["outcome"] = outcome.into();
        }
        line
    }

    /// The line as [`LogSink::write`] prints `to_json()` stamped at `now`, byte for byte: its keys
    /// in the map's (sorted) order, strings escaped and numbers written by serde_json.
    fn to_bytes(&self, now: OffsetDateTime) -> Vec<u8> {
        fn string(out: &mut Vec<u8>, key: &str, value: Option<&str>) {
            out.extend_from_slice(key.as_bytes());
            let _ = serde_json::to_writer(&mut *out, &value);
        }
        let mut out = Vec::with_capacity(256);
        out.push(b'{');
        if let Some(cause) = self.cause {
            string(&mut out, "\"cause\":", Some(cause));
            out.push(b',');
        }
        out.extend_from_slice(b"\"duration_ms\":");
        let _ = serde_json::to_writer(&mut out, &((self.duration_ms * 1000.0).round() / 1000.0));
        string(&mut out, ",\"key_id\":", self.key_id);
        out.extend_from_slice(b",\"level\":\"INFO\",\"message\":\"request\"");
        string(&mut out, ",\"method\":", Some(self.method));
        if let Some(outcome) = self.outcome {
            out.extend_from_slice(b",\"outcome\":");
            let _ = serde_json::to_writer(&mut out, &outcome);
        }
        string(&mut out, ",\"request_id\":", Some(self.request_id));
        string(&mut out, ",\"route\":", self.route);
        out.extend_from_slice(b",\"status\":");
        let _ = serde_json::to_writer(&mut out, &self.status);
        string(&mut out, ",\"timestamp\":", Some(&timestamp(now)));
        out.extend_from_slice(b"}\n");
        out
    }
}

/// The second line of a write: what it did, never a value. Built from the write report the
/// database answered: `result`; `changed` (field names) for lots and rates, `added`/`removed`
/// (counts) for closure lists; whether a listing review was voided (`listing_review_superseded`;
/// rates never void one, and say whether they could in `envelope_widened`); and `dry_run`.
pub struct WriteLine;

impl WriteLine {
    pub fn from_report(request_id: &str, key_id: Option<&str>, route: &str, report: &[u8]) -> Option<Value> {
        // The report's members are read as raw text, and only the few the line needs are parsed:
        // the rest (the lot, or every closure period: ~10 KB for 100) is checked as JSON but never
        // built into values (`cargo bench -p gateway --bench hot_paths -- write_line`).
        let members: HashMap<String, &RawValue> = serde_json::from_slice(report).ok()?;
        let value = |key: &str| members.get(key).and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok());
        let flag = |key: &str| value(key).and_then(|v| v.as_bool()).unwrap_or(false);
        let mut line = json!({
            "message": "write",
            "request_id": request_id,
            "key_id": key_id,
            "route": route,
            "result": value("result")?,
            "review_voided": flag("listing_review_superseded"),
            "dry_run": flag("dry_run"),
        });
        for key in ["changed", "added", "removed", "envelope_widened"] {
            if let Some(value) = value(key) {
                line[key] = value;
            }
        }
        Some(line)
    }
}

/// Standard output through one writer thread ([`log_writer`]), once `init` made it, so a slow or
/// blocked stdout never stalls a worker thread of the runtime. The spec wants one line per request,
/// so its buffer is lossless: when it is full, the writer of a new line waits for room
/// (back-pressure) instead of dropping it. Without `init` (tests), lines go straight to stdout.
static WRITER: OnceLock<LogWriter> = OnceLock::new();

fn write_stdout(text: &[u8]) {
    match WRITER.get() {
        Some(writer) => {
            let _ = writer.clone().write_all(text);
        }
        None => {
            let _ = std::io::stdout().lock().write_all(text);
        }
    }
}

/// Operational logging through `tracing`, as JSON lines on the same writer; `filter` is `LOG_LEVEL`
/// (`crate::config`: by default info, with the database driver at warn so server NOTICEs never
/// reach the log). Whatever the filter, the driver's own lines below WARN are never written
/// ([`driver_line_allowed`]). Keep the guard until the process ends: dropping it writes out what is
/// still buffered (waiting up to a second for that).
pub fn init(filter: &str) -> WriterGuard {
    use tracing_subscriber::filter::{filter_fn, FilterExt as _};
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::Layer as _;

    let (writer, guard) = log_writer::spawn(std::io::stdout());
    let _ = WRITER.set(writer.clone());
    // (checked when the settings were read)
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tokio_postgres=warn"));
    let lines = tracing_subscriber::fmt::layer()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_span_list(false)
        .with_writer(move || writer.clone())
        .with_filter(filter.and(filter_fn(|line| driver_line_allowed(line.target(), *line.level()))));
    let _ = tracing_subscriber::registry().with(lines).try_init();
    guard
}

/// The crates of the database driver, whose lines `LOG_LEVEL` never opens below WARN.
const DATABASE_DRIVER: [&str; 3] = ["tokio_postgres", "tokio_postgres_rustls", "postgres_protocol"];

/// Whether a line may be written whatever `LOG_LEVEL` says: any line of ours, and the database
/// driver's at WARN or ERROR only. At DEBUG the driver writes every statement with its parameters
/// (a bearer credential, a request body) and every batch's text; at INFO the server's NOTICEs, which
/// are database messages: none of that may reach the log.
fn driver_line_allowed(target: &str, level: tracing::Level) -> bool {
    level <= tracing::Level::WARN
        || !DATABASE_DRIVER
            .iter()
            .any(|driver| target.strip_prefix(driver).is_some_and(|rest| rest.is_empty() || rest.starts_with("::")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_drivers_lines_below_warn_are_never_written() {
        use tracing::Level;

        let line = driver_line_allowed;
        for driver in ["tokio_postgres", "tokio_postgres::query", "postgres_protocol::message", "tokio_postgres_rustls"]
        {
            for level in [Level::TRACE, Level::DEBUG, Level::INFO] {
                assert!(!line(driver, level), "{driver} at {level}");
            }
            assert!(line(driver, Level::WARN) && line(driver, Level::ERROR), "{driver}");
        }
        for ours in ["gateway::server", "gateway", "tokio_postgresql", "hyper", "rustls"] {
            assert!(line(ours, Level::TRACE) && line(ours, Level::INFO), "{ours}");
        }
    }

    #[test]
    fn a_request_line_on_stdout_is_the_same_bytes_as_its_json_form() {
        let now = OffsetDateTime::from_unix_timestamp_nanos(1_795_000_000_123_456_789).unwrap();
        let line = |key_id, route, cause, duration_ms| RequestLine {
            request_id: "67d348da-af7e-4a83-9169-f42654a246b5",
            key_id,
            method: "GET",
            route,
            status: 200,
            duration_ms,
            cause,
            outcome: None,
        };
        for line in [
            line(Some("pk_api_1"), Some("/ping"), None, 0.604_4),
            RequestLine { status: 499, outcome: Some(401), ..line(Some("pk_api_1"), Some("/lots"), None, 2.5) },
            line(None, None, Some("statement timed out"), 17.0),
            line(Some("odd \"key\" \u{1}\u{e9}\\"), Some("/lots"), Some("tab\there"), 0.000_4),
            line(None, Some("/lots/{external_id}"), None, 1e12),
            line(None, None, None, f64::NAN),
        ] {
            let mut expected = line.to_json();
            expected["timestamp"] = timestamp(now).into();
            expected["level"] = "INFO".into();
            assert_eq!(String::from_utf8(line.to_bytes(now)).unwrap(), format!("{expected}\n"));
        }
    }

    #[test]
    fn a_lot_write_line_names_the_changed_fields_and_whether_a_review_was_voided() {
        let report = r#"{"external_id":"x","result":"updated","changed":["name","city"],
                         "listing_review_superseded":true,"lot":{"name":"Secret name","city":"Paris"}}"#;
        let line = WriteLine::from_report("r1", Some("pk_api_1"), "/lots/{external_id}", report.as_bytes()).unwrap();
        assert_eq!(line["message"], "write");
        assert_eq!(line["result"], "updated");
        assert_eq!(line["changed"], json!(["name", "city"]));
        assert_eq!(line["review_voided"], true);
        assert_eq!(line["dry_run"], false);
        assert!(!line.to_string().contains("Secret name") && !line.to_string().contains("Paris"));
    }

    #[test]
    fn a_closure_write_line_carries_counts_and_a_dry_run_is_marked() {
        let report = r#"{"external_id":"x","result":"created","added":2,"removed":0,"dry_run":true,
                         "blocked_periods":[{"reason":"Private reason"}]}"#;
        let line =
            WriteLine::from_report("r1", None, "/lots/{external_id}/blocked-periods", report.as_bytes()).unwrap();
        assert_eq!((line["added"].clone(), line["removed"].clone()), (json!(2), json!(0)));
        assert_eq!(line["dry_run"], true);
        assert_eq!(line["key_id"], Value::Null);
        assert!(!line.to_string().contains("Private reason"));
    }

    #[test]
    fn a_report_that_is_not_an_object_with_a_result_gives_no_write_line() {
        for report in [r#"{"external_id":"x","changed":[]}"#, "[]", "not json", r#"{"result":"updated""#] {
            assert_eq!(WriteLine::from_report("r1", None, "/lots/{external_id}", report.as_bytes()), None, "{report}");
        }
    }

    #[test]
    fn a_rates_write_line_says_whether_the_envelope_widened() {
        let report =
            r#"{"external_id":"x","result":"updated","changed":["floor_price"],"envelope_widened":true,"rates":{}}"#;
        let line = WriteLine::from_report("r1", None, "/lots/{external_id}/rates", report.as_bytes()).unwrap();
        assert_eq!((line["envelope_widened"].clone(), line["review_voided"].clone()), (json!(true), json!(false)));
    }
}
