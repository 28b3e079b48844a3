//! The database's field registries, read off the SQL the binary embeds: `app.lot_fields`,
//! `app.rates_fields`, `app.blocked_period_fields` and `app.booking_fields` each return one row per
//! field (name, kind, bounds, choices, defaults, description) from a `RETURN QUERY VALUES` of plain
//! literals. The OpenAPI document's body schemas are made from these rows ([`crate::openapi`]), so
//! the document and the rules the database applies come from one list. A test reads the same
//! functions from a migrated database and compares them row by row with what is parsed here
//! (`tests/integration/openapi.rs`), so this reader can never drift from what PostgreSQL runs.
//!
//! The literals understood are the ones the registries use: `'text'` (with `''` for a quote),
//! numbers, `true`, `false` and `NULL`, each optionally cast (`::text[]`); arrays are text literals
//! (`'{a,b}'`) of plain elements, and jsonb defaults are text literals of JSON.

use std::collections::HashMap;

use serde_json::Value;

use crate::migrate::FUNCTION_FILES;

/// One literal of a registry row.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
}

/// One row of a registry, by column name.
#[derive(Clone, Debug)]
pub struct Field {
    values: HashMap<String, Literal>,
}

impl Field {
    fn get(&self, column: &str) -> &Literal {
        self.values.get(column).unwrap_or_else(|| panic!("the registry has no column {column}"))
    }

    /// Whether the column is NULL.
    pub fn is_null(&self, column: &str) -> bool {
        *self.get(column) == Literal::Null
    }

    /// A text column (NULL: None).
    pub fn text(&self, column: &str) -> Option<&str> {
        match self.get(column) {
            Literal::Text(text) => Some(text),
            Literal::Null => None,
            other => panic!("column {column} is not text: {other:?}"),
        }
    }

    /// The field's name.
    pub fn name(&self) -> &str {
        self.text("name").expect("every field has a name")
    }

    /// The field's kind.
    pub fn kind(&self) -> &str {
        self.text("kind").expect("every field has a kind")
    }

    /// The field's description.
    pub fn description(&self) -> &str {
        self.text("description").expect("every field has a description")
    }

    /// A numeric column, as written (NULL: None).
    pub fn number(&self, column: &str) -> Option<&str> {
        match self.get(column) {
            Literal::Number(number) => Some(number),
            Literal::Null => None,
            other => panic!("column {column} is not a number: {other:?}"),
        }
    }

    /// A boolean column (NULL reads as false).
    pub fn flag(&self, column: &str) -> bool {
        match self.get(column) {
            Literal::Bool(flag) => *flag,
            Literal::Null => false,
            other => panic!("column {column} is not a boolean: {other:?}"),
        }
    }

    /// A text[] column (NULL: empty).
    pub fn list(&self, column: &str) -> Vec<String> {
        let Some(text) = self.text(column) else { return Vec::new() };
        let inner = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')).expect("an array literal");
        inner.split(',').filter(|element| !element.is_empty()).map(str::to_string).collect()
    }

    /// A jsonb column (NULL: None).
    pub fn json(&self, column: &str) -> Option<Value> {
        self.text(column).map(|text| serde_json::from_str(text).expect("a JSON literal"))
    }
}

/// The rows of the registry function `name` (`app.lot_fields`), in their order.
pub fn fields(function: &str) -> Vec<Field> {
    let text = function_text(function);
    let columns = result_columns(text, function);
    let values_at = text.find("RETURN QUERY VALUES").unwrap_or_else(|| panic!("{function}: no RETURN QUERY VALUES"));
    let rows = parse_rows(&text[values_at + "RETURN QUERY VALUES".len()..]);
    rows.into_iter()
        .map(|row| {
            assert_eq!(
                row.len(),
                columns.len(),
                "{function}: a row of {} values for {} columns",
                row.len(),
                columns.len()
            );
            Field { values: columns.iter().cloned().zip(row).collect() }
        })
        .collect()
}

/// The lot write body's fields (`app.lot_fields`).
pub fn lot_fields() -> Vec<Field> {
    fields("app.lot_fields")
}

/// The rates write body's fields (`app.rates_fields`).
pub fn rates_fields() -> Vec<Field> {
    fields("app.rates_fields")
}

/// The closure list and its entries' fields (`app.blocked_period_fields`).
pub fn blocked_period_fields() -> Vec<Field> {
    fields("app.blocked_period_fields")
}

/// A booking's fields as the feed answers them (`app.booking_fields`).
pub fn booking_fields() -> Vec<Field> {
    fields("app.booking_fields")
}

/// What the database counts as white space (`app.white_space_class()`: the contents of a regular
/// expression's bracket expression), for the patterns of texts that may not be blank.
pub fn white_space_class() -> String {
    let text = function_text("app.white_space_class");
    let body = &text[text.find("SELECT").expect("a SELECT of the class")..];
    match Tokens::new(&body["SELECT".len()..]).next() {
        Some(Token::Literal(Literal::Text(class))) => class,
        other => panic!("app.white_space_class: not a text literal: {other:?}"),
    }
}

/// The text of the function file that creates `function`, from its `CREATE` on.
fn function_text(function: &str) -> &'static str {
    let create = format!("CREATE OR REPLACE FUNCTION {function}(");
    FUNCTION_FILES
        .iter()
        .find_map(|(_, sql)| sql.find(&create).map(|at| &sql[at..]))
        .unwrap_or_else(|| panic!("no function file creates {function}"))
}

/// The column names of `RETURNS TABLE (name type, …)`.
fn result_columns(text: &str, function: &str) -> Vec<String> {
    let start = text.find("RETURNS TABLE (").unwrap_or_else(|| panic!("{function}: not RETURNS TABLE")) + 15;
    let end = start + text[start..].find(')').expect("the column list ends");
    text[start..end]
        .split(',')
        .map(|column| column.split_whitespace().next().expect("a column name").to_string())
        .collect()
}

#[derive(Debug, PartialEq)]
enum Token {
    Open,
    Close,
    Comma,
    End,
    Literal(Literal),
}

/// The tokens of SQL literals, skipping white space, `--` comments and casts.
struct Tokens<'a> {
    rest: &'a str,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Tokens { rest: text }
    }

    fn skip_space_and_casts(&mut self) {
        loop {
            let trimmed = self.rest.trim_start();
            if let Some(comment) = trimmed.strip_prefix("--") {
                self.rest = comment.find('\n').map_or("", |at| &comment[at..]);
            } else if let Some(cast) = trimmed.strip_prefix("::") {
                let length =
                    cast.find(|c: char| !(c.is_ascii_alphanumeric() || "_[]".contains(c))).unwrap_or(cast.len());
                self.rest = &cast[length..];
            } else {
                self.rest = trimmed;
                return;
            }
        }
    }
}

impl Iterator for Tokens<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        self.skip_space_and_casts();
        let first = self.rest.chars().next()?;
        let (token, length) = match first {
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            ',' => (Token::Comma, 1),
            ';' => (Token::End, 1),
            '\'' => {
                let mut text = String::new();
                let mut chars = self.rest.char_indices().skip(1).peekable();
                let end = loop {
                    let (at, c) = chars.next().expect("a text literal ends");
                    if c == '\'' {
                        if chars.peek().is_some_and(|&(_, next)| next == '\'') {
                            chars.next();
                            text.push('\'');
                            continue;
                        }
                        break at + 1;
                    }
                    text.push(c);
                };
                (Token::Literal(Literal::Text(text)), end)
            }
            c if c == '-' || c.is_ascii_digit() => {
                let length = self.rest[1..]
                    .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .map_or(self.rest.len(), |at| at + 1);
                (Token::Literal(Literal::Number(self.rest[..length].to_string())), length)
            }
            _ => {
                let length = self.rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(self.rest.len());
                let literal = match &self.rest[..length] {
                    word if word.eq_ignore_ascii_case("null") => Literal::Null,
                    word if word.eq_ignore_ascii_case("true") => Literal::Bool(true),
                    word if word.eq_ignore_ascii_case("false") => Literal::Bool(false),
                    word => panic!("not a literal a registry may hold: {word:?}"),
                };
                (Token::Literal(literal), length)
            }
        };
        self.rest = &self.rest[length..];
        Some(token)
    }
}

/// `(a, b, …), (…);` as rows of literals.
fn parse_rows(text: &str) -> Vec<Vec<Literal>> {
    let mut rows = Vec::new();
    let mut tokens = Tokens::new(text);
    loop {
        assert_eq!(tokens.next(), Some(Token::Open), "a row opens");
        let mut row = Vec::new();
        loop {
            match tokens.next() {
                Some(Token::Literal(literal)) => row.push(literal),
                other => panic!("a literal expected, found {other:?}"),
            }
            match tokens.next() {
                Some(Token::Comma) => continue,
                Some(Token::Close) => break,
                other => panic!("a comma or the row's end expected, found {other:?}"),
            }
        }
        rows.push(row);
        match tokens.next() {
            Some(Token::Comma) => continue,
            Some(Token::End) => return rows,
            other => panic!("a comma or the end of the rows expected, found {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_literals_are_read_with_their_casts_quotes_and_comments() {
        let rows = parse_rows(
            "\n (1, 'it''s', '{a,b}'::text[], NULL::numeric, -90, 0.5, true) , -- a comment\n (2, '', NULL, NULL, 1000000, 9999999999.99, FALSE);",
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0],
            vec![
                Literal::Number("1".into()),
                Literal::Text("it's".into()),
                Literal::Text("{a,b}".into()),
                Literal::Null,
                Literal::Number("-90".into()),
                Literal::Number("0.5".into()),
                Literal::Bool(true),
            ]
        );
        assert_eq!(rows[1][1], Literal::Text(String::new()));
        assert_eq!(rows[1][6], Literal::Bool(false));
    }

    #[test]
    fn every_registry_reads_with_a_name_a_kind_and_a_description_per_field() {
        for function in ["app.lot_fields", "app.rates_fields", "app.blocked_period_fields", "app.booking_fields"] {
            let fields = fields(function);
            assert!(!fields.is_empty(), "{function}");
            for field in &fields {
                assert!(!field.name().is_empty() && !field.kind().is_empty(), "{function}");
                assert!(field.description().len() > 10, "{function}.{} has a description", field.name());
            }
        }
        let features = lot_fields().into_iter().find(|f| f.name() == "features").unwrap();
        assert_eq!(features.list("choices").len(), 9);
        assert_eq!(features.json("default_value"), Some(serde_json::json!([])));
        assert_eq!(features.number("max_value"), Some("32"));
        assert!(white_space_class().starts_with(" \\t\\n"));
    }
}
