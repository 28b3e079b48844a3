//! Log lines: one JSON object per line on standard output.
//!
//! Each request writes exactly one request line (request id, the key id as presented or null,
//! method, route template, status, duration, and for a 5xx the internal cause); each write that
//! succeeded (dry runs included) a second, write line. Operational events
//! (start, stop, faults outside a request) go through `tracing`, also as JSON lines. No line ever
//! carries a secret, an Authorization header, a body or a database message.

use std::io::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use tracing_appender::non_blocking::{NonBlocking, NonBlockingBuilder, WorkerGuard};

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
            let ts = OffsetDateTime::now_utc().format(&Rfc3339).unwrap_or_default();
            fields.insert("timestamp".into(), ts.into());
            fields.insert("level".into(), "INFO".into());
        }
        match self {
            LogSink::Stdout => write_stdout(&format!("{line}\n")),
            LogSink::Memory(lines) => lines.lock().unwrap_or_else(|e| e.into_inner()).push(line),
        }
    }
}

pub struct RequestLine<'a> {
    pub request_id: &'a str,
    pub key_id: Option<&'a str>,
    pub method: &'a str,
    pub route: Option<&'static str>,
    pub status: u16,
    pub duration_ms: f64,
    pub cause: Option<&'a str>,
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
        line
    }
}

/// The second line of a write: what it did, never a value. Built from the write report the
/// database answered: `result`; `changed` (field names) for lots and rates, `added`/`removed`
/// (counts) for closure lists; whether a listing review was voided (`listing_review_superseded`;
/// rates never void one, and say whether they could in `envelope_widened`); and `dry_run`.
pub struct WriteLine;

impl WriteLine {
    pub fn from_report(request_id: &str, key_id: Option<&str>, route: &str, report: &str) -> Option<Value> {
        let report: Value = serde_json::from_str(report).ok()?;
        let mut line = json!({
            "message": "write",
            "request_id": request_id,
            "key_id": key_id,
            "route": route,
            "result": report.get("result")?,
            "review_voided": report.get("listing_review_superseded").and_then(Value::as_bool).unwrap_or(false),
            "dry_run": report.get("dry_run").and_then(Value::as_bool).unwrap_or(false),
        });
        for key in ["changed", "added", "removed", "envelope_widened"] {
            if let Some(value) = report.get(key) {
                line[key] = value.clone();
            }
        }
        Some(line)
    }
}

/// Standard output through one writer thread, once `init` made it: a line is handed to a bounded
/// buffer (8192 lines) and written there, so a slow or blocked stdout never stalls a worker thread
/// of the runtime. The spec wants one line per request, so the buffer is lossless: when it is full,
/// the writer of a new line waits for room (back-pressure) instead of dropping it. Without `init`
/// (tests), lines go straight to stdout.
static WRITER: OnceLock<NonBlocking> = OnceLock::new();

fn write_stdout(text: &str) {
    match WRITER.get() {
        Some(writer) => {
            let _ = writer.clone().write_all(text.as_bytes());
        }
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
}

/// The writer thread over `out`: lossless, 8192 lines of buffer.
fn writer_thread<W: std::io::Write + Send + 'static>(out: W) -> (NonBlocking, WorkerGuard) {
    NonBlockingBuilder::default().lossy(false).buffered_lines_limit(8192).thread_name("ingest-log-writer").finish(out)
}

/// Operational logging through `tracing`, as JSON lines on the same writer; filter from `LOG_LEVEL`
/// (default: info, with the database driver at warn so server NOTICEs never reach the log). Keep
/// the guard until the process ends: dropping it writes out what is still buffered (tracing-appender
/// waits up to a second for that).
pub fn init() -> WorkerGuard {
    let (writer, guard) = writer_thread(std::io::stdout());
    let _ = WRITER.set(writer.clone());
    let filter = tracing_subscriber::EnvFilter::try_from_env("LOG_LEVEL")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tokio_postgres=warn"));
    let _ = tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_span_list(false)
        .with_env_filter(filter)
        .with_writer(writer)
        .try_init();
    guard
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A standard output that takes 5 ms per write, and counts the lines it got.
    struct SlowOut(Arc<Mutex<usize>>);

    impl std::io::Write for SlowOut {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            std::thread::sleep(std::time::Duration::from_millis(5));
            *self.0.lock().unwrap() += 1;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_slow_stdout_never_stalls_the_writer_of_a_line_and_loses_no_line() {
        let written = Arc::new(Mutex::new(0));
        let (writer, guard) = writer_thread(SlowOut(written.clone()));
        let started = std::time::Instant::now();
        for n in 0..100 {
            writer.clone().write_all(format!("line {n}\n").as_bytes()).unwrap();
        }
        // Written straight to this output, 100 lines would take half a second.
        assert!(started.elapsed() < std::time::Duration::from_millis(100), "writing took {:?}", started.elapsed());
        drop(guard);
        assert_eq!(*written.lock().unwrap(), 100, "every line reached the output once the guard was dropped");
    }

    #[test]
    fn a_lot_write_line_names_the_changed_fields_and_whether_a_review_was_voided() {
        let report = r#"{"external_id":"x","result":"updated","changed":["name","city"],
                         "listing_review_superseded":true,"lot":{"name":"Secret name","city":"Paris"}}"#;
        let line = WriteLine::from_report("r1", Some("pk_api_1"), "/lots/{external_id}", report).unwrap();
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
        let line = WriteLine::from_report("r1", None, "/lots/{external_id}/blocked-periods", report).unwrap();
        assert_eq!((line["added"].clone(), line["removed"].clone()), (json!(2), json!(0)));
        assert_eq!(line["dry_run"], true);
        assert_eq!(line["key_id"], Value::Null);
        assert!(!line.to_string().contains("Private reason"));
    }

    #[test]
    fn a_rates_write_line_says_whether_the_envelope_widened() {
        let report =
            r#"{"external_id":"x","result":"updated","changed":["floor_price"],"envelope_widened":true,"rates":{}}"#;
        let line = WriteLine::from_report("r1", None, "/lots/{external_id}/rates", report).unwrap();
        assert_eq!((line["envelope_widened"].clone(), line["review_voided"].clone()), (json!(true), json!(false)));
    }
}
