//! Embeds the SQL: refinery embeds `sql/migrations` itself; this script lists `sql/functions` into
//! `$OUT_DIR/functions.rs` and makes any change under `sql/` rebuild the binary.
//!
//! It also renders the contract's registries, kept as data in `sql/registry/` (its README), into
//! both sides: each `<name>.toml` of fields becomes the PL/pgSQL function `app.<name>()` (applied
//! with the function files) and a typed Rust static (`$OUT_DIR/registry.rs`, included by
//! `src/registry.rs`), so the database and the gateway read one list, and a column the Rust side
//! misspells does not compile. `constants.toml` becomes one SQL function and one Rust `const` each;
//! `error_codes.toml` the Rust table of error codes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let sql = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sql");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed={}", sql.join("migrations").display());
    println!("cargo:rerun-if-changed={}", sql.join("functions").display());
    println!("cargo:rerun-if-changed={}", sql.join("registry").display());

    let root = sql.join("functions");
    let mut files = Vec::new();
    collect(&root, &mut files);
    // By path: a stable order (the files need none among themselves; see migrate.rs).
    files.sort();
    let mut entries: Vec<(String, PathBuf)> = files
        .iter()
        .map(|path| {
            println!("cargo:rerun-if-changed={}", path.display());
            let relative = path.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
            (format!("sql/functions/{relative}"), path.canonicalize().unwrap())
        })
        .collect();

    let rendered = out_dir.join("registry");
    std::fs::create_dir_all(&rendered).unwrap();
    let mut rust = String::new();
    let mut registries: Vec<PathBuf> = std::fs::read_dir(sql.join("registry"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    registries.sort();
    for path in registries {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).unwrap();
        let table: toml::Table = text.parse().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = format!("sql/registry/{stem}.toml");
        let functions = match stem.as_str() {
            "constants" => constants(&table, &source, &mut rust),
            "error_codes" => {
                error_codes(&table, &source, &mut rust);
                Vec::new()
            }
            _ => vec![fields(&table, &source, &mut rust)],
        };
        for (name, sql_text) in functions {
            let file = rendered.join(format!("{name}.sql"));
            std::fs::write(&file, sql_text).unwrap();
            entries.push((format!("{source}, rendered as {name}()"), file));
        }
    }
    std::fs::write(out_dir.join("registry.rs"), rust).unwrap();

    let mut out = String::from(
        "/// Every file of `sql/functions`, then the functions rendered from `sql/registry`, each named by\n\
         /// where it comes from in the repository.\n",
    );
    out.push_str("pub const FUNCTION_FILES: &[(&str, &str)] = &[\n");
    for (relative, path) in &entries {
        writeln!(out, "    ({relative:?}, include_str!({path:?})),").unwrap();
    }
    out.push_str("];\n");
    std::fs::write(out_dir.join("functions.rs"), out).unwrap();
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "sql") {
            files.push(path);
        }
    }
}

/// One result column of a registry.
struct Column {
    name: String,
    /// Its PostgreSQL type: text, text[], boolean, integer, numeric, jsonb or date.
    kind: String,
    not_null: bool,
}

/// A registry of fields: its function's SQL text (named `app.<stem>`), and its Rust struct and
/// static appended to `rust`.
fn fields(table: &toml::Table, source: &str, rust: &mut String) -> (String, String) {
    let function = identifier(&text(table, "function", source), source);
    let first_ordinal = table.get("first_ordinal").map_or(1, |value| value.as_integer().expect("an integer"));
    let columns: Vec<Column> = table["columns"]
        .as_array()
        .unwrap_or_else(|| panic!("{source}: columns"))
        .iter()
        .map(|column| {
            let column = column.as_table().expect("a column is a table");
            let kind = text(column, "type", source);
            assert!(
                ["text", "text[]", "boolean", "integer", "numeric", "jsonb", "date"].contains(&kind.as_str()),
                "{source}: no rendering of the type {kind}"
            );
            Column {
                name: identifier(&text(column, "name", source), source),
                kind,
                not_null: column.get("not_null").and_then(toml::Value::as_bool).unwrap_or(false),
            }
        })
        .collect();
    let rows = table["field"].as_array().unwrap_or_else(|| panic!("{source}: no [[field]]"));

    // The SQL: PL/pgSQL rather than SQL, whose plan is kept for the session (a SQL function's
    // VALUES is planned again at every call, and a write reads its registry several times).
    let signature: Vec<String> = std::iter::once("ordinal integer".to_string())
        .chain(columns.iter().map(|column| format!("{} {}", column.name, column.kind)))
        .collect();
    let mut values = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        let row = row.as_table().expect("a field is a table");
        for key in row.keys() {
            assert!(columns.iter().any(|column| &column.name == key), "{source}: a field has {key}, not a column");
        }
        let mut cells = vec![(first_ordinal + index as i64).to_string()];
        for column in &columns {
            let value = row.get(&column.name);
            assert!(!column.not_null || value.is_some(), "{source}: field {} has no {}", index + 1, column.name);
            cells.push(format!("{}::{}", sql_literal(value, &column.kind, source), column.kind));
        }
        values.push(format!("        ({})", cells.join(", ")));
    }
    let sql_text = format!(
        "-- Rendered by gateway/build.rs from {source}: edit that file.\n\
         CREATE OR REPLACE FUNCTION {function}()\n\
         RETURNS TABLE ({})\n\
         LANGUAGE plpgsql\nIMMUTABLE\nSET search_path = pg_catalog, pg_temp\nAS {BODY_TAG}\nBEGIN\n    RETURN QUERY VALUES\n{};\nEND\n{BODY_TAG};\n\
         REVOKE ALL ON FUNCTION {function}() FROM PUBLIC;\n",
        signature.join(", "),
        values.join(",\n"),
    );

    // The Rust: a struct of the columns, typed; the rows as a static; each row as PostgreSQL gives it.
    let stem = function.strip_prefix("app.").unwrap_or_else(|| panic!("{source}: a function of schema app"));
    let singular = stem.strip_suffix('s').unwrap_or(stem);
    let type_name: String = singular.split('_').map(capitalized).collect();
    writeln!(rust, "/// A row of `{function}()` ({source}).").unwrap();
    writeln!(rust, "#[derive(Clone, Copy, Debug, PartialEq)]\npub struct {type_name} {{").unwrap();
    writeln!(rust, "    /// Its place in the registry.\n    pub ordinal: i64,").unwrap();
    for column in &columns {
        writeln!(rust, "    pub {}: {},", column.name, rust_type(column)).unwrap();
    }
    writeln!(rust, "}}\n").unwrap();
    writeln!(rust, "impl {type_name} {{").unwrap();
    writeln!(rust, "    /// The row as PostgreSQL gives it (`to_jsonb` of the function's row).").unwrap();
    writeln!(rust, "    pub fn as_postgres_gives_it(&self) -> serde_json::Value {{").unwrap();
    writeln!(rust, "        let mut row = serde_json::Map::new();").unwrap();
    writeln!(rust, "        row.insert(\"ordinal\".into(), self.ordinal.into());").unwrap();
    for column in &columns {
        let read = match (column.kind.as_str(), column.not_null) {
            ("numeric" | "jsonb", true) => format!("json_of(self.{})", column.name),
            ("numeric" | "jsonb", false) => format!("self.{}.map_or(serde_json::Value::Null, json_of)", column.name),
            _ => format!("serde_json::json!(self.{})", column.name),
        };
        writeln!(rust, "        row.insert({:?}.into(), {read});", column.name).unwrap();
    }
    writeln!(rust, "        serde_json::Value::Object(row)\n    }}\n}}\n").unwrap();
    let static_name = stem.to_uppercase();
    writeln!(rust, "/// The rows of `{function}()`, in order ({source}).").unwrap();
    writeln!(rust, "pub static {static_name}: &[{type_name}] = &[").unwrap();
    for (index, row) in rows.iter().enumerate() {
        let row = row.as_table().unwrap();
        let mut members = vec![format!("ordinal: {}", first_ordinal + index as i64)];
        for column in &columns {
            members.push(format!("{}: {}", column.name, rust_literal(row.get(&column.name), column)));
        }
        writeln!(rust, "    {type_name} {{ {} }},", members.join(", ")).unwrap();
    }
    writeln!(rust, "];\n").unwrap();
    (function, sql_text)
}

/// `constants.toml`: each `[[constant]]` an IMMUTABLE SQL function answering its text `value`, and
/// a Rust `const` of the same text.
fn constants(table: &toml::Table, source: &str, rust: &mut String) -> Vec<(String, String)> {
    let mut functions = Vec::new();
    for constant in table["constant"].as_array().unwrap_or_else(|| panic!("{source}: no [[constant]]")) {
        let constant = constant.as_table().expect("a constant is a table");
        only_keys(constant, &["function", "rust", "value", "description"], source);
        let function = identifier(&text(constant, "function", source), source);
        let rust_name = text(constant, "rust", source);
        assert!(
            rust_name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'),
            "{source}: {rust_name} is not a const's name"
        );
        let (value, description) = (text(constant, "value", source), text(constant, "description", source));
        let comment: String = description.lines().map(|line| format!("-- {line}\n")).collect();
        functions.push((
            function.clone(),
            format!(
                "-- Rendered by gateway/build.rs from {source}: edit that file.\n{comment}\
                 CREATE OR REPLACE FUNCTION {function}()\nRETURNS text\nLANGUAGE sql\nIMMUTABLE\nPARALLEL SAFE\n\
                 SET search_path = pg_catalog, pg_temp\nAS {BODY_TAG}\n    SELECT {};\n{BODY_TAG};\n\
                 REVOKE ALL ON FUNCTION {function}() FROM PUBLIC;\n",
                quoted(&value)
            ),
        ));
        let doc: String = description.lines().map(|line| format!("/// {line}\n")).collect();
        writeln!(rust, "{doc}/// (`{function}()`, {source}.)\npub const {rust_name}: &str = {value:?};\n").unwrap();
    }
    functions
}

/// `error_codes.toml`: the Rust static `ERROR_CODES` (the SQL raises its codes as literals, which
/// `tests/integration/error_codes.rs` holds against it).
fn error_codes(table: &toml::Table, source: &str, rust: &mut String) {
    writeln!(
        rust,
        "/// An error code a client of the API can see ({source}).\n\
         #[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub struct ErrorCode {{\n    pub status: u16,\n    \
         pub code: &'static str,\n    pub meaning: &'static str,\n    pub when: &'static str,\n    \
         pub retry: &'static str,\n    pub example_field: Option<&'static str>,\n}}\n"
    )
    .unwrap();
    writeln!(rust, "/// Every error code of the API, in the order of the contract's table ({source}).").unwrap();
    writeln!(rust, "pub static ERROR_CODES: &[ErrorCode] = &[").unwrap();
    for code in table["code"].as_array().unwrap_or_else(|| panic!("{source}: no [[code]]")) {
        let code = code.as_table().expect("a code is a table");
        only_keys(code, &["status", "code", "meaning", "when", "retry", "example_field"], source);
        let status = code.get("status").and_then(toml::Value::as_integer).expect("a status");
        let name = text(code, "code", source);
        assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{source}: {name} is not a code");
        let example_field = code.get("example_field").map(|field| field.as_str().expect("a field name"));
        writeln!(
            rust,
            "    ErrorCode {{ status: {status}, code: {name:?}, meaning: {:?}, when: {:?}, retry: {:?}, example_field: {example_field:?} }},",
            text(code, "meaning", source),
            text(code, "when", source),
            text(code, "retry", source),
        )
        .unwrap();
    }
    writeln!(rust, "];\n").unwrap();
}

fn text(table: &toml::Table, key: &str, source: &str) -> String {
    table.get(key).and_then(toml::Value::as_str).unwrap_or_else(|| panic!("{source}: `{key}` is not text")).to_string()
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// The dollar-quote tag of every rendered body: no text of a registry may hold it.
const BODY_TAG: &str = "$registry$";

/// A text as an SQL literal, inside a body quoted with [`BODY_TAG`].
fn quoted(text: &str) -> String {
    assert!(!text.contains(BODY_TAG), "a registry's text holds {BODY_TAG}, which quotes the rendered body");
    format!("'{}'", text.replace('\'', "''"))
}

/// A function or column name, plain (`app.lot_fields`, `max_value`), as it goes into the SQL.
fn identifier(name: &str, source: &str) -> String {
    let plain = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    assert!(name.split('.').all(plain) && name.split('.').count() <= 2, "{source}: {name:?} is not a plain name");
    name.to_string()
}

/// Refuses a key the table does not take: a misspelt key would otherwise be dropped in silence.
fn only_keys(table: &toml::Table, known: &[&str], source: &str) {
    for key in table.keys() {
        assert!(known.contains(&key.as_str()), "{source}: {key} is not one of {known:?}");
    }
}

/// A numeric value as written: a TOML integer, or a decimal string (a TOML float is refused: it
/// would not keep its digits).
fn decimal(value: &toml::Value, source: &str) -> String {
    match value {
        toml::Value::Integer(number) => number.to_string(),
        toml::Value::String(text) => {
            let digits = text.strip_prefix('-').unwrap_or(text);
            let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
            let (whole, fraction) = digits.split_once('.').map_or((digits, None), |(w, f)| (w, Some(f)));
            assert!(
                all_digits(whole) && fraction.is_none_or(all_digits),
                "{source}: {text:?} is not a decimal (digits, then a point and digits)"
            );
            text.clone()
        }
        other => panic!("{source}: a numeric column takes an integer or a decimal string, not {other}"),
    }
}

/// A text[] element: plain, so that `'{a,b}'` needs no quoting.
fn element(value: &toml::Value, source: &str) -> String {
    let text = value.as_str().unwrap_or_else(|| panic!("{source}: a list of text"));
    assert!(
        !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "{source}: {text:?} is not a plain list element"
    );
    text.to_string()
}

fn sql_literal(value: Option<&toml::Value>, kind: &str, source: &str) -> String {
    let Some(value) = value else { return "NULL".into() };
    match kind {
        "text" | "jsonb" => quoted(value.as_str().unwrap_or_else(|| panic!("{source}: {value} is not text"))),
        "text[]" => {
            let list: Vec<String> = value.as_array().expect("a list").iter().map(|v| element(v, source)).collect();
            quoted(&format!("{{{}}}", list.join(",")))
        }
        "boolean" => value.as_bool().expect("a boolean").to_string(),
        "integer" => value.as_integer().expect("an integer").to_string(),
        "numeric" => decimal(value, source),
        "date" => match value {
            toml::Value::Datetime(date) if date.date.is_some() && date.time.is_none() => quoted(&date.to_string()),
            other => panic!("{source}: {other} is not a date"),
        },
        _ => unreachable!(),
    }
}

fn rust_type(column: &Column) -> String {
    let plain = match column.kind.as_str() {
        "text" | "numeric" | "jsonb" | "date" => "&'static str",
        "text[]" => "&'static [&'static str]",
        "boolean" => "bool",
        "integer" => "i64",
        _ => unreachable!(),
    };
    if column.not_null {
        plain.to_string()
    } else {
        format!("Option<{plain}>")
    }
}

fn rust_literal(value: Option<&toml::Value>, column: &Column) -> String {
    let Some(value) = value else { return "None".into() };
    let plain = match column.kind.as_str() {
        "text" | "jsonb" => format!("{:?}", value.as_str().unwrap()),
        "numeric" => format!("{:?}", decimal(value, "")),
        "date" => format!("{:?}", value.as_datetime().expect("a date").to_string()),
        "text[]" => {
            let list: Vec<String> =
                value.as_array().unwrap().iter().map(|v| format!("{:?}", v.as_str().unwrap())).collect();
            format!("&[{}]", list.join(", "))
        }
        "boolean" => value.as_bool().unwrap().to_string(),
        "integer" => value.as_integer().unwrap().to_string(),
        _ => unreachable!(),
    };
    if column.not_null {
        plain
    } else {
        format!("Some({plain})")
    }
}
