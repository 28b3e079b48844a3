//! Real exchanges with the API, the document's examples of request bodies and answers
//! (`exchanges.json`, beside this file).
//!
//! Each step is one request as a client sends it (operation, method, target under the base path,
//! body) with the status and answer the service gave, or one booking recorded on the way through
//! `platform.booking_record`, as the booking engine records it. The integration test
//! `openapi::every_example_of_the_document_is_a_real_exchange` replays the steps in order for a new
//! operator and compares every answer with the one written here, so an example can never describe
//! an answer the service no longer gives. Values that differ on every run (a key id, a clock, a
//! cursor token, a generated reference) are listed under `volatile` by their JSON pointer with the
//! pattern the real value must match; only those are not compared. `RECORD_EXCHANGES=1` on that test
//! writes the answers it got back into the file instead.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;

/// The file, as compiled in.
pub const TEXT: &str = include_str!("exchanges.json");

/// One request and the service's answer to it.
#[derive(Debug)]
pub struct Exchange {
    /// The route table's operationId.
    pub operation: String,
    /// The example's name in the document (unique per operation and status).
    pub name: String,
    pub summary: String,
    pub method: String,
    /// The path under the base path, with its query string.
    pub target: String,
    pub body: Option<Value>,
    pub status: u16,
    pub answer: Value,
    /// JSON pointer into the answer → the pattern its value matches on every run.
    pub volatile: BTreeMap<String, String>,
}

#[derive(Debug)]
pub enum Step {
    Exchange(Exchange),
    /// A booking the platform records between two exchanges (`platform.booking_record`'s argument).
    BookingRecord(Value),
}

/// The steps, in order.
pub fn steps() -> &'static [Step] {
    static STEPS: OnceLock<Vec<Step>> = OnceLock::new();
    STEPS.get_or_init(|| parse(TEXT))
}

/// The exchanges, without the platform's steps.
pub fn exchanges() -> impl Iterator<Item = &'static Exchange> {
    steps().iter().filter_map(|step| match step {
        Step::Exchange(exchange) => Some(exchange),
        Step::BookingRecord(_) => None,
    })
}

/// Reads the file's steps; a step missing a member is a fault of the file, found by every test.
pub fn parse(text: &str) -> Vec<Step> {
    let steps: Vec<Value> = serde_json::from_str(text).expect("exchanges.json is a JSON array");
    steps.into_iter().map(step).collect()
}

fn step(value: Value) -> Step {
    if value.get("platform").is_some() {
        assert_eq!(value["platform"], "booking_record", "the one platform step exchanges.json knows");
        return Step::BookingRecord(value["booking"].clone());
    }
    let text =
        |key: &str| value[key].as_str().unwrap_or_else(|| panic!("exchanges.json: `{key}` in {value}")).to_string();
    let volatile = value
        .get("volatile")
        .and_then(Value::as_object)
        .map(|map| {
            map.iter().map(|(pointer, pattern)| (pointer.clone(), pattern.as_str().unwrap().to_string())).collect()
        })
        .unwrap_or_default();
    Step::Exchange(Exchange {
        operation: text("operation"),
        name: text("name"),
        summary: text("summary"),
        method: text("method"),
        target: text("target"),
        body: value.get("body").cloned(),
        status: value["status"].as_u64().and_then(|status| u16::try_from(status).ok()).expect("a status"),
        answer: value["answer"].clone(),
        volatile,
    })
}

/// The members of a step in the order the file keeps them: the request, then what came back.
const ORDER: [&str; 11] =
    ["platform", "booking", "operation", "name", "summary", "method", "target", "body", "status", "volatile", "answer"];

/// The file's text for `steps` (the test's recording): one step after another, each member pretty
/// printed, in [`ORDER`].
pub fn render(steps: &[Value]) -> String {
    let rendered: Vec<String> = steps
        .iter()
        .map(|step| {
            let object = step.as_object().expect("a step is an object");
            assert!(object.keys().all(|key| ORDER.contains(&key.as_str())), "a member exchanges.json does not know");
            let members: Vec<String> = ORDER
                .iter()
                .filter_map(|key| object.get(*key).map(|value| (key, value)))
                .map(|(key, value)| {
                    let value = serde_json::to_string_pretty(value).unwrap().replace('\n', "\n    ");
                    format!("    \"{key}\": {value}")
                })
                .collect();
            format!("  {{\n{}\n  }}", members.join(",\n"))
        })
        .collect();
    format!("[\n{}\n]\n", rendered.join(",\n"))
}
