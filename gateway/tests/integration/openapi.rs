//! The OpenAPI document's body schemas are made from the field registries as the build renders them
//! from `sql/registry/` into typed statics (`src/registry.rs`). Here the same registries are read
//! from a migrated database, where the build rendered them into functions: every row, column by
//! column, must be what PostgreSQL itself returns, so the document can never describe a field other
//! than the one the database checks. And the document's examples of bodies and answers are replayed
//! against the service, answer by answer.

use serde_json::Value;

use gateway::openapi::exchanges::{self, Step};
use gateway::registry;

use crate::common::{connect, header_map, TestApp};

/// Each registry's rows as PostgreSQL returns them: one JSON object per row, in ordinal order.
async fn rows_in_the_database(app: &TestApp, function: &str) -> Vec<Value> {
    let client = connect(&app.database_url).await;
    let sql = format!("SELECT to_jsonb(f) FROM {function}() AS f ORDER BY f.ordinal");
    client.query(&sql, &[]).await.unwrap().iter().map(|row| row.get::<_, Value>(0)).collect()
}

#[tokio::test]
async fn every_field_registry_the_document_reads_is_what_postgresql_returns() {
    let app = TestApp::spawn().await;
    let registries: [(&str, Vec<Value>); 4] = [
        ("app.lot_fields", registry::LOT_FIELDS.iter().map(|f| f.as_postgres_gives_it()).collect()),
        ("app.rates_fields", registry::RATES_FIELDS.iter().map(|f| f.as_postgres_gives_it()).collect()),
        (
            "app.blocked_period_fields",
            registry::BLOCKED_PERIOD_FIELDS.iter().map(|f| f.as_postgres_gives_it()).collect(),
        ),
        ("app.booking_fields", registry::BOOKING_FIELDS.iter().map(|f| f.as_postgres_gives_it()).collect()),
    ];
    for (function, statics) in registries {
        let in_database = rows_in_the_database(&app, function).await;
        assert_eq!(statics.len(), in_database.len(), "{function}: rows");
        for (row, expected) in statics.iter().zip(&in_database) {
            assert_eq!(row, expected, "{function}");
        }
    }
}

#[tokio::test]
async fn the_white_space_of_the_not_blank_pattern_is_the_databases() {
    let app = TestApp::spawn().await;
    let client = connect(&app.database_url).await;
    let class: String = client.query_one("SELECT app.white_space_class()", &[]).await.unwrap().get(0);
    assert_eq!(registry::WHITE_SPACE_CLASS, class);
}

#[tokio::test]
async fn the_money_bound_of_the_registry_is_the_one_the_reader_applies() {
    let app = TestApp::spawn().await;
    let client = connect(&app.database_url).await;
    for field in registry::RATES_FIELDS.iter().filter(|f| f.kind == "price" || f.kind == "money") {
        let most = field.max_value.unwrap();
        let taken: bool =
            client.query_one(&format!("SELECT app.json_money('{most}', 'x') IS NOT NULL"), &[]).await.unwrap().get(0);
        assert!(taken, "{} at its most {most}", field.name);
        let above =
            client.query_one(&format!("SELECT app.json_money(to_jsonb('{most}'::numeric + 0.01), 'x')"), &[]).await;
        assert!(above.is_err(), "{} above its most", field.name);
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
