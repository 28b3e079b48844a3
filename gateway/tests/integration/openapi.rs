//! The OpenAPI document's body schemas are made from the field registries as the binary reads them
//! off the SQL text (`src/registry.rs`). Here the same registries are read from a migrated database:
//! every row, column by column, must be what PostgreSQL itself returns, so the document can never
//! describe a field other than the one the database checks.

use serde_json::Value;

use gateway::registry::{self, Field};

use crate::common::{connect, TestApp};

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
