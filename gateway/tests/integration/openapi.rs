//! The OpenAPI document's body schemas are made from the field registries as the binary reads them
//! off the SQL text (`src/registry.rs`). Here the same registries are read from a migrated database:
//! every row, column by column, must be what PostgreSQL itself returns, so the document can never
//! describe a field other than the one the database checks. And the document's examples of bodies
//! and answers are replayed against the service, answer by answer.

use serde_json::Value;

use gateway::openapi::exchanges::{self, Step};
use gateway::registry::{self, Field};

use crate::common::{connect, header_map, TestApp};

/// Each registry's rows as PostgreSQL returns them: one JSON object per row, in ordinal order.
async fn rows_in_the_database(app: &TestApp, function: &str) -> Vec<Value> {
    let client = connect(&app.database_url).await;
    let sql = format!("SELECT to_jsonb(f) FROM {function}() AS f ORDER BY f.ordinal");
    client.query(&sql, &[]).await.unwrap().iter().map(|row| row.get::<_, Value>(0)).collect()
}

/// A parsed registry row in the JSON PostgreSQL gives it (`to_jsonb` of the row), column by column.
fn as_postgres_gives_it(field: &Field, row: &Value) -> Value {
    let mut parsed = serde_json::Map::new();
    for (column, value) in row.as_object().unwrap() {
        let read = match value {
            _ if field.is_null(column) => Value::Null,
            _ if column == "default_value" => field.json(column).unwrap(),
            Value::Bool(_) => Value::Bool(field.flag(column)),
            Value::Number(_) => serde_json::from_str(field.number(column).expect("a number")).unwrap(),
            Value::Array(_) => Value::from(field.list(column)),
            // texts and dates
            _ => Value::from(field.text(column).unwrap()),
        };
        parsed.insert(column.clone(), read);
    }
    Value::Object(parsed)
}

#[tokio::test]
async fn every_field_registry_the_document_reads_is_what_postgresql_returns() {
    let app = TestApp::spawn().await;
    for function in ["app.lot_fields", "app.rates_fields", "app.blocked_period_fields", "app.booking_fields"] {
        let in_database = rows_in_the_database(&app, function).await;
        let parsed = registry::fields(function);
        assert_eq!(parsed.len(), in_database.len(), "{function}: rows");
        for (field, row) in parsed.iter().zip(&in_database) {
            assert_eq!(&as_postgres_gives_it(field, row), row, "{function}: {}", field.name());
        }
    }
}

#[tokio::test]
async fn the_white_space_of_the_not_blank_pattern_is_the_databases() {
    let app = TestApp::spawn().await;
    let client = connect(&app.database_url).await;
    let class: String = client.query_one("SELECT app.white_space_class()", &[]).await.unwrap().get(0);
    assert_eq!(registry::white_space_class(), class);
}

#[tokio::test]
async fn the_money_bound_of_the_registry_is_the_one_the_reader_applies() {
    let app = TestApp::spawn().await;
    let client = connect(&app.database_url).await;
    for field in registry::rates_fields().iter().filter(|f| f.kind() == "price" || f.kind() == "money") {
        let most = field.number("max_value").unwrap();
        let taken: bool =
            client.query_one(&format!("SELECT app.json_money('{most}', 'x') IS NOT NULL"), &[]).await.unwrap().get(0);
        assert!(taken, "{} at its most {most}", field.name());
        let above =
            client.query_one(&format!("SELECT app.json_money(to_jsonb('{most}'::numeric + 0.01), 'x')"), &[]).await;
        assert!(above.is_err(), "{} above its most", field.name());
    }
}

/// The steps of `src/openapi/exchanges.json` replayed in order for a new operator: every answer is
/// the one the document shows, but for the values listed as volatile, which match their patterns.
/// With `RECORD_EXCHANGES=1` the answers got are written back into the file instead.
#[tokio::test]
async fn every_example_of_the_document_is_a_real_exchange() {
    let app = TestApp::spawn().await;
    let (operator, credential) = app.operator_with_credential().await;
    let recording = std::env::var_os("RECORD_EXCHANGES").is_some();
    let mut steps: Vec<Value> = serde_json::from_str(exchanges::TEXT).unwrap();
    for (step, parsed) in steps.iter_mut().zip(exchanges::steps()) {
        let exchange = match parsed {
            Step::BookingRecord(booking) => {
                app.superuser()
                    .await
                    .query_one("SELECT platform.booking_record($1, $2)", &[&operator.id, booking])
                    .await
                    .expect("platform.booking_record");
                continue;
            }
            Step::Exchange(exchange) => exchange,
        };
        let what = format!("{} {}", exchange.operation, exchange.name);
        let body = exchange.body.as_ref().map_or_else(Vec::new, |body| body.to_string().into_bytes());
        let response = app
            .request(
                exchange.method.parse().unwrap(),
                &format!("/v1{}", exchange.target),
                header_map(&[("authorization", &credential.bearer()), ("content-type", "application/json")]),
                body,
            )
            .await;
        assert_eq!(response.status.as_u16(), exchange.status, "{what}: {}", response.text());
        let mut answer = response.json();
        for (pointer, pattern) in &exchange.volatile {
            let value = answer.pointer_mut(pointer).unwrap_or_else(|| panic!("{what}: no {pointer}"));
            let text = value.as_str().unwrap_or_else(|| panic!("{what}: {pointer} is not a string"));
            assert!(regex::Regex::new(pattern).unwrap().is_match(text), "{what}: {pointer} = {text}");
            if !recording {
                *value =
                    exchange.answer.pointer(pointer).unwrap_or_else(|| panic!("{what}: {pointer} recorded")).clone();
            }
        }
        if recording {
            step["answer"] = answer;
        } else {
            assert_eq!(answer, exchange.answer, "{what}: the answer the document shows");
        }
    }
    if recording {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/openapi/exchanges.json");
        std::fs::write(path, exchanges::render(&steps)).unwrap();
    }
}
