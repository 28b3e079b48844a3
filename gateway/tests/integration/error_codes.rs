//! Every error code from one source. The codes the SQL can raise are read off `sql/functions`: a
//! status and a code written together (`app.refuse(422, 'invalid_body', …)`), or a code a helper
//! takes by default (`p_error text DEFAULT 'unknown_field'`), in each function and in every function
//! it calls; the gateway's own come from its `Refusal` constructors. Then:
//!
//! - every code an `api.*` function or the gateway can answer is in the OpenAPI document's table
//!   (`gateway::registry::ERROR_CODES`, from `sql/registry/error_codes.toml`) with its status, and every code of that table is answered by
//!   something;
//! - each route's own list of 422 codes (the route table's `errors`) is exactly what its function
//!   can raise (but `invalid_query`, which every route answers);
//! - every code a `console.*`, `platform.*` or `webhook.*` function (or a trigger) can raise is in
//!   the table of docs/reference/errors.md, "Errors as the SQL raises them", with its status, and
//!   that table lists nothing else.
//!
//! A code handed to a helper without its status (`app.console_caller(…, 'forbidden')`) counts once
//! a table names it: such a code must be added to its table by hand.
//!
//! So a refusal added in SQL and forgotten in the document, or a code left in a list after its last
//! refusal went, fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gateway::registry::ERROR_CODES;
use gateway::routes::ROUTES;

const SCHEMAS: [&str; 5] = ["app", "api", "console", "platform", "webhook"];

/// A function of sql/functions: the functions it calls, and the codes written in it, each with its
/// status when written beside one.
#[derive(Default, Debug)]
struct Function {
    /// A trigger function (`RETURNS trigger`): it runs on a table's writes, whoever writes.
    trigger: bool,
    calls: BTreeSet<String>,
    codes: BTreeMap<String, Option<u16>>,
}

/// The text of every file under `dir` whose name ends in `.<extension>`, subfolders included.
fn read_tree(dir: &Path, extension: &str, files: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            read_tree(&path, extension, files);
        } else if path.extension().is_some_and(|ext| ext == extension) {
            files.push(std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The text without `--` comments (which mention codes they do not raise).
fn without_comments(sql: &str) -> String {
    sql.lines().map(|line| line.split_once("--").map_or(line, |(code, _)| code)).collect::<Vec<_>>().join("\n")
}

fn is_code(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

/// Every `'<code>'` literal of `text` that stands as an argument or a parameter's default (not one
/// compared with, as in `WHEN 'invalid_json'`), with the status written just before it (`422, '…'`),
/// if any.
fn literals(text: &str) -> Vec<(String, Option<u16>)> {
    let mut found = Vec::new();
    let parts: Vec<&str> = text.split('\'').collect();
    // Inside quotes: every odd part.
    for (at, literal) in parts.iter().enumerate().skip(1).step_by(2) {
        if !is_code(literal) {
            continue;
        }
        let before = parts[at - 1].trim_end();
        let after = parts.get(at + 1).map_or("", |after| after.trim_start());
        let argument = (before.ends_with(',') || before.ends_with('(') || before.ends_with("DEFAULT"))
            && (after.starts_with(',') || after.starts_with(')'));
        if !argument {
            continue;
        }
        let status = before
            .strip_suffix(',')
            .map(str::trim_end)
            .and_then(|b| b.get(b.len().saturating_sub(3)..))
            .and_then(|digits| digits.parse::<u16>().ok())
            .filter(|status| (400..600).contains(status));
        found.push((literal.to_string(), status));
    }
    found
}

/// The functions of sql/functions by name, each with what it calls and the codes it writes.
fn sql_functions() -> BTreeMap<String, Function> {
    let mut files = Vec::new();
    read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../sql/functions"), "sql", &mut files);
    let mut functions: BTreeMap<String, Function> = BTreeMap::new();
    for file in files {
        let text = without_comments(&file);
        for definition in text.split("CREATE OR REPLACE FUNCTION ").skip(1) {
            let name = definition[..definition.find('(').unwrap()].trim().to_string();
            let function = functions.entry(name.clone()).or_default();
            function.trigger |= definition.contains("RETURNS trigger");
            // The writes' dispatcher by name: what it calls is followed from its callers (below).
            if name == "app.write_named" {
                continue;
            }
            for schema in SCHEMAS {
                for (at, _) in definition.match_indices(&format!("{schema}.")) {
                    let rest = &definition[at + schema.len() + 1..];
                    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
                    if rest[end..].starts_with('(') && end > 0 {
                        let callee = format!("{schema}.{}", &rest[..end]);
                        if callee != name {
                            function.calls.insert(callee);
                        }
                    }
                }
            }
            // `app.run_write('lot', …)` reaches the dispatcher `app.write_named`, which calls the write
            // the name gives (`app.lot_write`) and no other.
            for (at, _) in definition.match_indices("app.run_write('") {
                let rest = &definition[at + "app.run_write('".len()..];
                function.calls.insert(format!("app.{}_write", &rest[..rest.find('\'').unwrap()]));
            }
            for (code, status) in literals(definition) {
                let known = function.codes.entry(code).or_default();
                *known = known.or(status);
            }
        }
    }
    functions
}

/// The codes `name` can raise, through every function it calls: those written with a status, or as
/// a helper's default code; and any other literal that a table names (`documented`), as a code
/// handed to a helper (`app.console_caller(…, 'forbidden')`).
fn reachable_codes(
    functions: &BTreeMap<String, Function>,
    name: &str,
    documented: &BTreeMap<String, u16>,
) -> BTreeMap<String, u16> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![name.to_string()];
    let mut codes = BTreeMap::new();
    while let Some(next) = stack.pop() {
        if !seen.insert(next.clone()) {
            continue;
        }
        let Some(function) = functions.get(&next) else { continue };
        stack.extend(function.calls.iter().cloned());
        for (code, status) in &function.codes {
            match (status, documented.get(code)) {
                (Some(status), _) => {
                    codes.insert(code.clone(), *status);
                }
                (None, Some(status)) => {
                    codes.insert(code.clone(), *status);
                }
                (None, None) => {}
            }
        }
    }
    codes
}

/// The codes the gateway answers by itself: a status beside a code (`Refusal::new(StatusCode::…,
/// "code")`, and the `(StatusCode::…, "code")` of the refusals that are not the contract's), and
/// the body faults its JSON syntax reading sends the database (`Fault { error: "invalid_json", … }`,
/// raised there as 422).
fn gateway_codes() -> BTreeMap<String, u16> {
    let mut codes = BTreeMap::new();
    let mut files = Vec::new();
    read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), "rs", &mut files);
    for text in files {
        // (a module's own tests, and a test module in a file of its own, answer nothing)
        let text = text.split("#[cfg(test)]").next().unwrap();
        for (at, _) in text.match_indices("Fault { error: \"") {
            let rest = &text[at + "Fault { error: \"".len()..];
            codes.insert(rest[..rest.find('"').unwrap()].to_string(), 422);
        }
        for (at, _) in text.match_indices("StatusCode::") {
            let rest = &text[at + "StatusCode::".len()..];
            let name_length = rest.find(|c: char| !(c.is_ascii_uppercase() || c == '_')).unwrap_or(rest.len());
            let (status, rest) = rest.split_at(name_length);
            // (a status alone, or computed at run time: no code beside it)
            let Some(code) = rest.strip_prefix(", \"").and_then(|r| r.split_once('"')).map(|(c, _)| c) else {
                continue;
            };
            let status = match status.trim() {
                "NOT_FOUND" => 404,
                "CONFLICT" => 409,
                "METHOD_NOT_ALLOWED" => 405,
                "PAYLOAD_TOO_LARGE" => 413,
                "UNSUPPORTED_MEDIA_TYPE" => 415,
                "UNPROCESSABLE_ENTITY" => 422,
                "TOO_MANY_REQUESTS" => 429,
                "INTERNAL_SERVER_ERROR" => 500,
                "SERVICE_UNAVAILABLE" => 503,
                name => panic!("a status this test does not know: StatusCode::{name}"),
            };
            codes.insert(code.to_string(), status);
        }
    }
    codes
}

/// The table of docs/reference/errors.md, "Errors as the SQL raises them": code → status.
fn console_table() -> BTreeMap<String, u16> {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reference/errors.md"))
        .expect("docs/reference/errors.md");
    let section =
        page.split("## Errors as the SQL raises them").nth(1).expect("the section").split("\n## ").next().unwrap();
    let mut table = BTreeMap::new();
    for row in section.lines().filter(|line| line.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let code = cells[1].trim_matches('`');
        let status: u16 = cells[2].trim_start_matches("PT").parse().expect("a status");
        table.insert(code.to_string(), status);
    }
    assert!(!table.is_empty(), "the table of console, platform and worker codes");
    table
}

#[test]
fn every_code_the_api_or_the_gateway_answers_is_documented_with_its_status_and_every_documented_code_is_answered() {
    let functions = sql_functions();
    let documented: BTreeMap<String, u16> =
        ERROR_CODES.iter().map(|known| (known.code.to_string(), known.status)).collect();
    let mut answered = gateway_codes();
    let api: Vec<&String> = functions.keys().filter(|name| name.starts_with("api.")).collect();
    assert!(api.len() >= 9, "{api:?}");
    for name in &api {
        for (code, status) in reachable_codes(&functions, name, &documented) {
            answered.insert(code, status);
        }
    }
    for (code, status) in &answered {
        assert_eq!(
            documented.get(code),
            Some(status),
            "{code} ({status}) is answered: the document's table must list it"
        );
    }
    for (code, status) in &documented {
        assert_eq!(answered.get(code), Some(status), "{code} ({status}) is documented: nothing answers it");
    }
}

#[test]
fn each_routes_list_of_422_codes_is_what_its_function_can_raise() {
    let functions = sql_functions();
    let documented: BTreeMap<String, u16> =
        ERROR_CODES.iter().map(|known| (known.code.to_string(), known.status)).collect();
    for spec in ROUTES {
        for operation in spec.operations {
            let raised: BTreeSet<String> = reachable_codes(&functions, operation.call.function, &documented)
                .into_iter()
                .filter(|(code, status)| *status == 422 && code != "invalid_query")
                .map(|(code, _)| code)
                .collect();
            let listed: BTreeSet<String> = operation.errors.iter().map(|code| code.to_string()).collect();
            assert_eq!(listed, raised, "{} {}: the route table's errors", operation.method, spec.template);
        }
    }
}

#[test]
fn every_code_of_the_console_platform_and_worker_functions_is_in_the_errors_reference_table_and_no_other() {
    let functions = sql_functions();
    let table = console_table();
    let mut raised = BTreeMap::new();
    // (and the triggers, which refuse a delete whoever tries it)
    let roots = functions.iter().filter(|(name, function)| {
        function.trigger || ["console.", "platform.", "webhook."].iter().any(|schema| name.starts_with(schema))
    });
    for (name, _) in roots {
        raised.extend(reachable_codes(&functions, name, &table));
    }
    for (code, status) in &raised {
        assert_eq!(
            table.get(code),
            Some(status),
            "{code} ({status}) is raised: docs/reference/errors.md's table must list it"
        );
    }
    for (code, status) in &table {
        assert_eq!(
            raised.get(code),
            Some(status),
            "{code} ({status}) is in docs/reference/errors.md's table: nothing raises it"
        );
    }
}
