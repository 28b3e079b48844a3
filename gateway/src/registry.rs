//! The contract's registries, kept as data in `sql/registry/` and rendered by the build
//! (`gateway/build.rs`) into both sides: the database's functions (`app.lot_fields()`,
//! `app.rates_fields()`, `app.blocked_period_fields()`, `app.booking_fields()`,
//! `app.white_space_class()`), applied with the function files, and the typed statics here
//! ([`LOT_FIELDS`], [`RATES_FIELDS`], [`BLOCKED_PERIOD_FIELDS`], [`BOOKING_FIELDS`],
//! [`WHITE_SPACE_CLASS`]). The OpenAPI document's body schemas are made from these rows
//! ([`crate::openapi`]), so the document and the rules the database applies come from one list; a
//! column misspelt here does not compile. A test reads the same functions from a migrated
//! database and compares them row by row with these statics (`tests/integration/openapi.rs`).

include!(concat!(env!("OUT_DIR"), "/registry.rs"));

/// A numeric or jsonb value as written in the registry, as JSON.
fn json_of(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("the registry's {text:?} is not JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_has_a_name_a_kind_and_a_description_and_names_are_unique() {
        type Summary = Vec<(&'static str, &'static str, &'static str)>;
        let registries: [(&str, Summary); 4] = [
            ("lot", LOT_FIELDS.iter().map(|f| (f.name, f.kind, f.description)).collect()),
            ("rates", RATES_FIELDS.iter().map(|f| (f.name, f.kind, f.description)).collect()),
            ("blocked period", BLOCKED_PERIOD_FIELDS.iter().map(|f| (f.name, f.kind, f.description)).collect()),
            ("booking", BOOKING_FIELDS.iter().map(|f| (f.name, f.kind, f.description)).collect()),
        ];
        for (registry, fields) in registries {
            let mut names: Vec<&str> = fields.iter().map(|(name, _, _)| *name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), fields.len(), "{registry}: a name given twice");
            for (name, kind, description) in fields {
                assert!(!name.is_empty() && !kind.is_empty(), "{registry}");
                assert!(description.len() > 10, "{registry}.{name} has a description");
            }
        }
    }

    #[test]
    fn a_row_reads_as_postgresql_gives_it() {
        let features = LOT_FIELDS.iter().find(|f| f.name == "features").unwrap();
        assert_eq!(features.choices.map(<[_]>::len), Some(9));
        let row = features.as_postgres_gives_it();
        assert_eq!(row["default_value"], serde_json::json!([]));
        assert_eq!(row["max_value"], serde_json::json!(32));
        assert_eq!(row["min_value"], serde_json::Value::Null);
        let price = RATES_FIELDS.iter().find(|f| f.name == "base_price").unwrap();
        assert_eq!(price.as_postgres_gives_it()["max_value"].to_string(), "9999999999.99");
        assert_eq!(BLOCKED_PERIOD_FIELDS[0].ordinal, 0, "the list comes first");
        assert!(WHITE_SPACE_CLASS.starts_with(" \\t\\n"));
    }
}
