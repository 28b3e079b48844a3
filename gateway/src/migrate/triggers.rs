//! Triggers are made again only when their definition changed. `CREATE OR REPLACE TRIGGER` takes a
//! lock on its table that stops every write to it (and waits behind any open transaction that
//! touched it) until the run commits; a run with nothing new must not take it.
//!
//! The convention of `sql/functions`: a trigger is one statement that begins a line with
//! `CREATE OR REPLACE TRIGGER <name>` (a plain lower-case name), names its schema-qualified table
//! after the first `ON`, and ends with `;` at the end of a line, with no other `;` in it. A line that
//! begins another way to create a trigger, or a statement that breaks the rest, fails the run with
//! the file's name. Such statements are taken out of the files' text. After the first pass (the
//! functions then exist), each is run only when its trigger is not in force: missing, disabled, its
//! comment not carrying the digest of this statement, or the trigger no longer what that statement
//! made (its `pg_get_triggerdef` digest, kept in the comment too, differs: changed by hand). Then
//! every trigger on the project's tables that no file defines is dropped, before the functions the
//! tree no longer defines are, so neither a stale trigger nor a re-pointed one keeps a stale function.

use sha2::{Digest, Sha256};
use tokio_postgres::Transaction;

use super::Failure;

/// A trigger as a file of `sql/functions` defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerDefinition {
    pub name: String,
    /// `schema.table`, as written.
    pub table: String,
    /// The whole statement, without its closing `;`.
    pub statement: String,
}

impl TriggerDefinition {
    /// The SHA-256 of the statement with its white space runs made single spaces (so re-indenting
    /// changes nothing), in hex.
    pub fn digest(&self) -> String {
        let normalized = self.statement.split_whitespace().collect::<Vec<_>>().join(" ");
        Sha256::digest(normalized.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect()
    }

    /// The comment of a trigger this statement made, whose `pg_get_triggerdef` has the digest `made`.
    pub fn comment(&self, made: &str) -> String {
        format!("defined by sql/functions, sha256 {}; made as sha256 {made}", self.digest())
    }
}

/// The text of a file with its trigger statements blanked out (line numbers kept, for the server's
/// error positions), and those statements; an error naming the file for a statement against the
/// convention.
pub fn split(file: &str, sql: &str) -> Result<(String, Vec<TriggerDefinition>), String> {
    let refuse = |what: &str, line: &str| Err(refusal(file, what, line));
    let mut rest = String::with_capacity(sql.len());
    let mut definitions = Vec::new();
    let mut statement: Option<Vec<&str>> = None;
    for line in sql.lines() {
        if statement.is_none() && creates_a_trigger(line) {
            if !line.starts_with("CREATE OR REPLACE TRIGGER ") {
                return refuse("write a trigger as `CREATE OR REPLACE TRIGGER <name>` at the start of a line", line);
            }
            statement = Some(Vec::new());
        }
        let Some(lines) = &mut statement else {
            rest.push_str(line);
            rest.push('\n');
            continue;
        };
        lines.push(line);
        rest.push('\n');
        if line.contains(';') {
            if !line.trim_end().ends_with(';') || line.matches(';').count() > 1 {
                return refuse("a trigger statement must end with its only `;`, at the end of a line", line);
            }
            let text = lines.join("\n");
            definitions.push(parse(file, text.trim_end().trim_end_matches(';'))?);
            statement = None;
        }
    }
    if let Some(lines) = statement {
        return refuse("a trigger statement without its closing `;`", lines[0]);
    }
    Ok((rest, definitions))
}

/// Whether a line begins a statement that creates a trigger, in any letter case or indentation.
fn creates_a_trigger(line: &str) -> bool {
    let mut words = line.split_whitespace().map(str::to_ascii_lowercase);
    words.next().is_some_and(|first| first == "create")
        && words
            .find(|word| !matches!(word.as_str(), "or" | "replace" | "constraint"))
            .is_some_and(|word| word == "trigger")
}

/// The run's message for a file against the convention: the file, what is wrong, the line.
fn refusal(file: &str, what: &str, line: &str) -> String {
    format!("{file}: {what}: {}", line.trim())
}

fn plain_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn parse(file: &str, statement: &str) -> Result<TriggerDefinition, String> {
    let words: Vec<&str> = statement.split_whitespace().collect();
    let name = words.get(4).copied().filter(|name| plain_name(name));
    let table =
        words.iter().position(|word| *word == "ON").and_then(|on| words.get(on + 1)).copied().filter(|table| {
            table.split_once('.').is_some_and(|(schema, table)| plain_name(schema) && plain_name(table))
        });
    match (name, table) {
        (Some(name), Some(table)) => {
            Ok(TriggerDefinition { name: name.to_string(), table: table.to_string(), statement: statement.to_string() })
        }
        _ => Err(refusal(
            file,
            "a trigger statement must name the trigger (a plain lower-case name) and then its schema-qualified \
             table after ON",
            statement.lines().next().unwrap_or_default(),
        )),
    }
}

/// The trigger's comment, the digest of what it is now (`pg_get_triggerdef`), and whether it fires
/// as created (`tgenabled = 'O'`); no row when it does not exist.
const IN_FORCE: &str = "\
SELECT pg_catalog.obj_description(t.oid, 'pg_trigger'),
       pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.pg_get_triggerdef(t.oid), 'UTF8')), 'hex'),
       t.tgenabled = 'O'
  FROM pg_catalog.pg_trigger AS t
 WHERE t.tgrelid = (SELECT pg_catalog.to_regclass($1)) AND t.tgname = $2";

/// Makes each trigger of the tree that is not in force (see the module) and sets its comment; the
/// others are left alone (no lock taken on their tables). Runs in the run's transaction, as the
/// owner, after the first pass. Answers how many it made.
pub(super) async fn make_changed(
    transaction: &Transaction<'_>,
    definitions: &[TriggerDefinition],
) -> Result<usize, Failure> {
    let mut made = 0;
    for definition in definitions {
        let step = format!("trigger {} on {}", definition.name, definition.table);
        let state = transaction
            .query_opt(IN_FORCE, &[&definition.table, &definition.name])
            .await
            .map_err(|e| Failure::new(&step, &e))?;
        if let Some(row) = state {
            let (comment, now, enabled): (Option<String>, String, bool) = (row.get(0), row.get(1), row.get(2));
            if enabled && comment.as_deref() == Some(definition.comment(&now).as_str()) {
                continue;
            }
        }
        transaction.batch_execute(&definition.statement).await.map_err(|e| Failure::new(&step, &e))?;
        let now: String = transaction
            .query_one(IN_FORCE, &[&definition.table, &definition.name])
            .await
            .map_err(|e| Failure::new(&step, &e))?
            .get(1);
        transaction
            .batch_execute(&format!(
                "COMMENT ON TRIGGER {} ON {} IS {}",
                definition.name,
                definition.table,
                quote_literal(&definition.comment(&now))
            ))
            .await
            .map_err(|e| Failure::new(&step, &e))?;
        tracing::info!(trigger = %definition.name, table = %definition.table, "trigger made");
        made += 1;
    }
    Ok(made)
}

/// Drops every trigger on a table of the project's schemas (those the owner role owns) that no file
/// defines: a trigger removed from the tree does not keep firing.
pub(super) async fn drop_undefined(
    transaction: &Transaction<'_>,
    definitions: &[TriggerDefinition],
) -> Result<(), Failure> {
    let tables: Vec<&str> = definitions.iter().map(|d| d.table.as_str()).collect();
    let names: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
    let stale = transaction
        .query(
            "SELECT pg_catalog.format('DROP TRIGGER %I ON %s', t.tgname, t.tgrelid::pg_catalog.regclass) \
               FROM pg_catalog.pg_trigger AS t JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid \
               JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace \
              WHERE n.nspowner = 'ingest_owner'::pg_catalog.regrole AND NOT t.tgisinternal \
                AND NOT EXISTS (SELECT FROM ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::text[])) AS d (tbl, name) \
                                 WHERE pg_catalog.to_regclass(d.tbl) = t.tgrelid AND d.name = t.tgname)",
            &[&tables, &names],
        )
        .await
        .map_err(|e| Failure::new("finding triggers the tree no longer defines", &e))?;
    for row in stale {
        let drop: String = row.get(0);
        tracing::info!(statement = %drop, "dropping a trigger no file of sql/functions defines");
        transaction.batch_execute(&drop).await.map_err(|e| Failure::new(&drop, &e))?;
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
    fn a_statement_against_the_convention_is_refused_naming_its_file_not_swallowed() {
        let unqualified = "CREATE OR REPLACE TRIGGER t BEFORE UPDATE ON lots FOR EACH ROW EXECUTE FUNCTION app.f();\n";
        assert!(split("sql/functions/a.sql", unqualified).unwrap_err().starts_with("sql/functions/a.sql: "));
        let unclosed =
            "CREATE OR REPLACE TRIGGER t BEFORE UPDATE ON app.lots\n    FOR EACH ROW EXECUTE FUNCTION app.f()\n";
        assert!(split("b.sql", unclosed).unwrap_err().contains("without its closing"));
        let trailing = "CREATE OR REPLACE TRIGGER t BEFORE UPDATE ON app.lots\n    FOR EACH ROW EXECUTE FUNCTION app.f(); -- why\nSELECT 1;\n";
        assert!(split("c.sql", trailing).unwrap_err().contains("its only `;`"));
        let two =
            "CREATE OR REPLACE TRIGGER t BEFORE UPDATE ON app.lots FOR EACH ROW EXECUTE FUNCTION app.f(); SELECT 1;\n";
        assert!(split("d.sql", two).unwrap_err().contains("its only `;`"));
        for other in [
            "create or replace trigger t before update on app.lots for each row execute function app.f();\n",
            "    CREATE TRIGGER t BEFORE UPDATE ON app.lots FOR EACH ROW EXECUTE FUNCTION app.f();\n",
            "CREATE CONSTRAINT TRIGGER t AFTER UPDATE ON app.lots FOR EACH ROW EXECUTE FUNCTION app.f();\n",
        ] {
            assert!(split("e.sql", other).unwrap_err().contains("at the start of a line"), "{other}");
        }
        let function = "CREATE FUNCTION app.f() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';\n";
        assert_eq!(split("g.sql", function).unwrap().1, [], "a trigger function is no trigger statement");
        let quoted =
            "CREATE OR REPLACE TRIGGER \"T\" BEFORE UPDATE ON app.lots FOR EACH ROW EXECUTE FUNCTION app.f();\n";
        assert!(split("f.sql", quoted).unwrap_err().contains("plain lower-case name"));
    }

    #[test]
    fn the_digest_follows_the_statement_but_not_its_layout() {
        let (_, definitions) = split("x.sql", FILE).unwrap();
        let mut relaid = definitions[0].clone();
        relaid.statement = relaid.statement.replace("\n    ", " ");
        assert_eq!(relaid.digest(), definitions[0].digest(), "white space changes nothing");
        let mut changed = definitions[0].clone();
        changed.statement = changed.statement.replace("INSERT OR UPDATE", "INSERT");
        assert_ne!(changed.digest(), definitions[0].digest(), "a changed definition changes the digest");
        assert_eq!(
            definitions[0].comment("abc"),
            format!("defined by sql/functions, sha256 {}; made as sha256 abc", definitions[0].digest())
        );
    }
}
