//! Triggers are made again only when their definition changed. `CREATE OR REPLACE TRIGGER` takes a
//! lock on its table that stops every write to it (and waits behind any open transaction that
//! touched it) until the run commits; a run with nothing new must not take it.
//!
//! The convention of `sql/functions`: a trigger is one statement that begins a line with
//! `CREATE OR REPLACE TRIGGER <name>`, names its table after the first `ON`, and ends with `;` at
//! the end of a line. Such statements are taken out of the files' text; after the functions are in
//! place, each is run only when the trigger is missing or its comment does not carry the digest of
//! the statement's text, and the comment is then set to it. A trigger on the project's tables that
//! no file defines is dropped.

use sha2::{Digest, Sha256};
use tokio_postgres::Transaction;

/// A trigger as a file of `sql/functions` defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerDefinition {
    pub name: String,
    /// As written (schema-qualified: the files qualify every object).
    pub table: String,
    /// The whole statement, without its closing `;`.
    pub statement: String,
}

impl TriggerDefinition {
    /// What the trigger's comment holds once this definition is in force: the SHA-256 of the
    /// statement with its white space runs made single spaces (so re-indenting changes nothing).
    pub fn comment(&self) -> String {
        let normalized = self.statement.split_whitespace().collect::<Vec<_>>().join(" ");
        let digest = Sha256::digest(normalized.as_bytes());
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        format!("defined by sql/functions, sha256 {hex}")
    }
}

/// The text of a file with its trigger statements blanked out (line numbers kept, for the server's
/// error positions), and those statements. A `CREATE OR REPLACE TRIGGER` line whose statement does
/// not follow the convention is an error naming it.
pub fn split(file: &str, sql: &str) -> Result<(String, Vec<TriggerDefinition>), String> {
    let mut rest = String::with_capacity(sql.len());
    let mut definitions = Vec::new();
    let mut statement: Option<Vec<&str>> = None;
    for line in sql.lines() {
        if statement.is_none() && line.starts_with("CREATE OR REPLACE TRIGGER ") {
            statement = Some(Vec::new());
        }
        match &mut statement {
            Some(lines) => {
                lines.push(line);
                rest.push('\n');
                if line.trim_end().ends_with(';') {
                    let text = lines.join("\n");
                    definitions.push(parse(file, text.trim_end().trim_end_matches(';'))?);
                    statement = None;
                }
            }
            None => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    if let Some(lines) = statement {
        return Err(format!("sql/functions/{file}: a trigger statement without its closing `;`: {}", lines[0]));
    }
    Ok((rest, definitions))
}

fn parse(file: &str, statement: &str) -> Result<TriggerDefinition, String> {
    let words: Vec<&str> = statement.split_whitespace().collect();
    let name = words.get(4).copied();
    let table = words.iter().position(|word| *word == "ON").and_then(|on| words.get(on + 1)).copied();
    match (name, table) {
        (Some(name), Some(table)) if table.contains('.') => Ok(TriggerDefinition {
            name: name.to_string(),
            table: table.to_string(),
            statement: statement.to_string(),
        }),
        _ => Err(format!(
            "sql/functions/{file}: a trigger statement must name the trigger and then its schema-qualified table after ON: {}",
            statement.lines().next().unwrap_or_default()
        )),
    }
}

/// Makes each trigger of the tree that is missing or whose comment does not carry its definition's
/// digest, and sets the comment; the others are left alone (no lock taken on their tables). Runs in
/// the run's transaction, as the owner, after the functions are in place. Answers how many it made.
pub async fn make_changed(transaction: &Transaction<'_>, definitions: &[TriggerDefinition]) -> Result<usize, String> {
    let mut made = 0;
    for definition in definitions {
        let comment: Option<Option<String>> = transaction
            .query_opt(
                "SELECT pg_catalog.obj_description(t.oid, 'pg_trigger') FROM pg_catalog.pg_trigger AS t \
                  WHERE t.tgrelid = pg_catalog.to_regclass($1) AND t.tgname = $2",
                &[&definition.table, &definition.name],
            )
            .await
            .map_err(|e| format!("trigger {} on {}: {}", definition.name, definition.table, super::describe(&e)))?
            .map(|row| row.get(0));
        let wanted = definition.comment();
        if comment.flatten().as_deref() == Some(wanted.as_str()) {
            continue;
        }
        transaction
            .batch_execute(&format!(
                "{}; COMMENT ON TRIGGER {} ON {} IS {}",
                definition.statement,
                definition.name,
                definition.table,
                quote_literal(&wanted)
            ))
            .await
            .map_err(|e| format!("trigger {} on {}: {}", definition.name, definition.table, super::describe(&e)))?;
        tracing::info!(trigger = %definition.name, table = %definition.table, "trigger made");
        made += 1;
    }
    Ok(made)
}

/// Drops every trigger on a table of the project's schemas (those the owner role owns) that no file
/// defines: a trigger removed from the tree does not keep firing. Before the functions the tree no
/// longer defines are dropped, so a stale trigger never keeps its stale function.
pub async fn drop_undefined(transaction: &Transaction<'_>, definitions: &[TriggerDefinition]) -> Result<(), String> {
    let defined: Vec<String> = definitions.iter().map(|d| format!("{} {}", d.table, d.name)).collect();
    let stale = transaction
        .query(
            "SELECT pg_catalog.format('DROP TRIGGER %I ON %s', t.tgname, t.tgrelid::regclass) \
               FROM pg_catalog.pg_trigger AS t JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid \
               JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace \
              WHERE n.nspowner = 'ingest_owner'::pg_catalog.regrole AND NOT t.tgisinternal \
                AND NOT (pg_catalog.format('%s.%s %s', n.nspname, c.relname, t.tgname) = ANY ($1))",
            &[&defined],
        )
        .await
        .map_err(|e| format!("finding triggers the tree no longer defines: {}", super::describe(&e)))?;
    for row in stale {
        let drop: String = row.get(0);
        tracing::info!(statement = %drop, "dropping a trigger no file of sql/functions defines");
        transaction.batch_execute(&drop).await.map_err(|e| format!("{drop}: {}", super::describe(&e)))?;
    }
    Ok(())
}

fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
-- a comment
CREATE OR REPLACE FUNCTION app.f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE OR REPLACE TRIGGER stamp BEFORE INSERT OR UPDATE ON app.bookings
    FOR EACH ROW EXECUTE FUNCTION app.f();
SELECT 1;
CREATE OR REPLACE TRIGGER keep BEFORE TRUNCATE ON app.lots FOR EACH STATEMENT EXECUTE FUNCTION app.f();
";

    #[test]
    fn trigger_statements_are_taken_out_and_the_lines_kept() {
        let (rest, definitions) = split("x.sql", FILE).unwrap();
        assert_eq!(rest.lines().count(), FILE.lines().count(), "line numbers stay");
        assert!(!rest.contains("TRIGGER stamp") && !rest.contains("TRIGGER keep"), "{rest}");
        assert!(rest.contains("CREATE OR REPLACE FUNCTION app.f()") && rest.contains("SELECT 1;"));
        assert_eq!(
            definitions,
            [
                TriggerDefinition {
                    name: "stamp".into(),
                    table: "app.bookings".into(),
                    statement: "CREATE OR REPLACE TRIGGER stamp BEFORE INSERT OR UPDATE ON app.bookings\n    \
                                FOR EACH ROW EXECUTE FUNCTION app.f()"
                        .into(),
                },
                TriggerDefinition {
                    name: "keep".into(),
                    table: "app.lots".into(),
                    statement: "CREATE OR REPLACE TRIGGER keep BEFORE TRUNCATE ON app.lots FOR EACH STATEMENT \
                                EXECUTE FUNCTION app.f()"
                        .into(),
                },
            ]
        );
    }

    #[test]
    fn a_statement_against_the_convention_is_an_error_naming_it() {
        let unqualified = "CREATE OR REPLACE TRIGGER t BEFORE UPDATE ON lots FOR EACH ROW EXECUTE FUNCTION app.f();\n";
        assert!(split("a.sql", unqualified).unwrap_err().contains("sql/functions/a.sql"));
        let unclosed =
            "CREATE OR REPLACE TRIGGER t BEFORE UPDATE ON app.lots\n    FOR EACH ROW EXECUTE FUNCTION app.f()\n";
        assert!(split("b.sql", unclosed).unwrap_err().contains("without its closing"));
    }

    #[test]
    fn the_comment_follows_the_statement_but_not_its_layout() {
        let (_, definitions) = split("x.sql", FILE).unwrap();
        let mut relaid = definitions[0].clone();
        relaid.statement = relaid.statement.replace("\n    ", " ");
        assert_eq!(relaid.comment(), definitions[0].comment(), "white space changes nothing");
        let mut changed = definitions[0].clone();
        changed.statement = changed.statement.replace("INSERT OR UPDATE", "INSERT");
        assert_ne!(changed.comment(), definitions[0].comment(), "a changed definition changes the comment");
        assert!(definitions[0].comment().starts_with("defined by sql/functions, sha256 "));
    }
}
