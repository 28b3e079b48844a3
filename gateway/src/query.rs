//! Query strings: form-decoded; a parameter the route does not know, one given twice, or one whose
//! name or value does not decode exactly (a `%` not followed by two hex digits, bytes that are not
//! UTF-8) is `invalid_query` with `field` = its name. Values are checked by the route.

use std::borrow::Cow;

use crate::errors::Refusal;

#[derive(Debug, Default)]
pub struct Params(Vec<(&'static str, String)>);

impl Params {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(known, _)| *known == name).map(|(_, value)| value.as_str())
    }
}

impl Params {
    /// `dry_run`: absent is false; the only accepted value is the literal `true`.
    pub fn dry_run(&self) -> Result<bool, Refusal> {
        match self.get("dry_run") {
            None => Ok(false),
            Some("true") => Ok(true),
            Some(_) => Err(Refusal::invalid_query("dry_run")),
        }
    }

    /// A page size: plain ASCII digits without sign or leading zero, 1..=max; `default` when absent.
    /// More than `max` is refused, never reduced.
    pub fn limit(&self, default: i32, max: i32) -> Result<i32, Refusal> {
        let Some(value) = self.get("limit") else { return Ok(default) };
        let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) && !value.starts_with('0');
        match value.parse::<i32>() {
            Ok(limit) if digits && limit <= max => Ok(limit),
            _ => Err(Refusal::invalid_query("limit")),
        }
    }

    /// A cursor-like parameter: absent or empty is None ("from the beginning"); more than
    /// max_chars characters, or a NUL, is refused.
    pub fn optional_text(&self, name: &'static str, max_chars: usize) -> Result<Option<&str>, Refusal> {
        match self.get(name) {
            None | Some("") => Ok(None),
            Some(value) if value.chars().count() <= max_chars && !value.contains('\0') => Ok(Some(value)),
            Some(_) => Err(Refusal::invalid_query(name)),
        }
    }

    /// A text parameter of 1..=max_chars characters, or None when absent; empty is refused, and so
    /// is a NUL, which PostgreSQL text cannot hold.
    pub fn text(&self, name: &'static str, max_chars: usize) -> Result<Option<&str>, Refusal> {
        match self.get(name) {
            None => Ok(None),
            Some(value) if (1..=max_chars).contains(&value.chars().count()) && !value.contains('\0') => Ok(Some(value)),
            Some(_) => Err(Refusal::invalid_query(name)),
        }
    }
}

/// A query parameter of a route (an entry of the route table), with its rule.
#[derive(Debug)]
pub struct Param {
    pub name: &'static str,
    pub rule: Rule,
    pub description: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Absent is false; the only accepted value is the literal `true`.
    DryRun,
    /// Plain ASCII digits, 1..=max; `default` when absent. More is refused, never reduced.
    Limit { default: i32, max: i32 },
    /// 1..=max_chars characters when present.
    Text { max_chars: usize },
    /// Absent or empty is none; at most max_chars characters.
    Cursor { max_chars: usize },
}

/// A request's query once every rule of its route has passed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub dry_run: bool,
    pub limit: Option<i32>,
    /// The route's one text parameter (`after`, `since`), when given.
    pub text: Option<String>,
}

/// Decodes the query and checks each of the route's parameters, in the table's order.
pub fn check(raw: Option<&str>, params: &[Param]) -> Result<Query, Refusal> {
    let names: Vec<&'static str> = params.iter().map(|param| param.name).collect();
    let parsed = parse(raw, &names)?;
    let mut query = Query::default();
    for param in params {
        match param.rule {
            Rule::DryRun => query.dry_run = parsed.dry_run()?,
            Rule::Limit { default, max } => query.limit = Some(parsed.limit(default, max)?),
            Rule::Text { max_chars } => query.text = parsed.text(param.name, max_chars)?.map(str::to_string),
            Rule::Cursor { max_chars } => query.text = parsed.optional_text(param.name, max_chars)?.map(str::to_string),
        }
    }
    Ok(query)
}

pub fn parse(raw: Option<&str>, allowed: &[&'static str]) -> Result<Params, Refusal> {
    let mut params = Params::default();
    for pair in raw.unwrap_or("").split('&').filter(|pair| !pair.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = form_decode(raw_name);
        let known = name
            .as_deref()
            .and_then(|name| allowed.iter().find(|known| **known == name))
            .ok_or_else(|| Refusal::invalid_query(name.unwrap_or_else(|| lossy_form_decode(raw_name))))?;
        if params.get(known).is_some() {
            return Err(Refusal::invalid_query(*known));
        }
        let value = form_decode(raw_value).ok_or_else(|| Refusal::invalid_query(*known))?;
        params.0.push((known, value));
    }
    Ok(params)
}

/// `application/x-www-form-urlencoded` decoding (`+` is a space, `%XX` a byte) that refuses what it
/// cannot decode exactly: a `%` without two hex digits after it, or bytes that are not UTF-8.
fn form_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let malformed_escape = bytes.iter().enumerate().any(|(at, &byte)| {
        byte == b'%'
            && !(bytes.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit))
    });
    if malformed_escape {
        return None;
    }
    let spaced = raw.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced).decode_utf8().ok().map(Cow::into_owned)
}

/// A name that does not decode, as readable as it can be made, for the refusal's `field`.
fn lossy_form_decode(raw: &str) -> String {
    let spaced = raw.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_query_and_an_empty_query_are_no_parameters() {
        assert!(parse(None, &[]).unwrap().0.is_empty());
        assert!(parse(Some(""), &[]).unwrap().0.is_empty());
    }

    #[test]
    fn an_unknown_parameter_is_refused_with_its_decoded_name() {
        let error = parse(Some("lim%69t=5"), &[]).unwrap_err();
        assert_eq!(error.code(), "invalid_query");
        assert_eq!(error.field(), Some("limit"));
    }

    #[test]
    fn a_repeated_parameter_is_refused() {
        let error = parse(Some("dry_run=true&dry_run=true"), &["dry_run"]).unwrap_err();
        assert_eq!(error.field(), Some("dry_run"));
    }

    #[test]
    fn values_are_form_decoded() {
        let params = parse(Some("after=a%2Fb+c&limit=5"), &["after", "limit"]).unwrap();
        assert_eq!(params.get("after"), Some("a/b c"));
        assert_eq!(params.get("limit"), Some("5"));
        assert_eq!(params.get("since"), None);
    }

    fn one(query: &str) -> Params {
        parse(Some(query), &["dry_run", "limit", "after"]).unwrap()
    }

    #[test]
    fn dry_run_accepts_only_the_literal_true() {
        assert!(!parse(None, &["dry_run"]).unwrap().dry_run().unwrap());
        assert!(one("dry_run=true").dry_run().unwrap());
        for refused in ["dry_run=false", "dry_run=1", "dry_run=True", "dry_run=", "dry_run", "dry_run=true%20"] {
            let error = one(refused).dry_run().unwrap_err();
            assert_eq!((error.code(), error.field()), ("invalid_query", Some("dry_run")), "{refused}");
        }
    }

    #[test]
    fn limit_is_plain_digits_within_range_with_a_default() {
        assert_eq!(parse(None, &["limit"]).unwrap().limit(50, 200).unwrap(), 50);
        assert_eq!(one("limit=1").limit(50, 200).unwrap(), 1);
        assert_eq!(one("limit=200").limit(50, 200).unwrap(), 200);
        for refused in [
            "limit=0",
            "limit=201",
            "limit=-1",
            "limit=+5",
            "limit=05",
            "limit=",
            "limit=5.0",
            "limit=1e2",
            "limit=99999999999999999999",
            "limit=%205",
        ] {
            let error = one(refused).limit(50, 200).unwrap_err();
            assert_eq!((error.code(), error.field()), ("invalid_query", Some("limit")), "{refused}");
        }
    }

    #[test]
    fn a_text_parameter_is_one_to_max_characters() {
        assert_eq!(parse(None, &["after"]).unwrap().text("after", 200).unwrap(), None);
        assert_eq!(one("after=a%2Fb").text("after", 200).unwrap(), Some("a/b"));
        let longest = format!("after={}", "é".repeat(200));
        assert_eq!(one(&longest).text("after", 200).unwrap().map(|v| v.chars().count()), Some(200));
        let refused = ["after=".into(), "after".into(), format!("after={}", "x".repeat(201)), "after=a%00b".into()];
        for refused in refused {
            let error = one(&refused).text("after", 200).unwrap_err();
            assert_eq!((error.code(), error.field()), ("invalid_query", Some("after")));
        }
    }

    #[test]
    fn an_optional_text_parameter_may_be_absent_or_empty_but_not_too_long() {
        let params = parse(Some("since="), &["since"]).unwrap();
        assert_eq!(params.optional_text("since", 512).unwrap(), None);
        assert_eq!(parse(None, &["since"]).unwrap().optional_text("since", 512).unwrap(), None);
        let longest = format!("since={}", "a".repeat(512));
        assert_eq!(
            parse(Some(&longest), &["since"]).unwrap().optional_text("since", 512).unwrap().map(str::len),
            Some(512)
        );
        for refused in [format!("since={}", "a".repeat(513)), "since=a%00".to_string()] {
            let error = parse(Some(&refused), &["since"]).unwrap().optional_text("since", 512).unwrap_err();
            assert_eq!((error.code(), error.field()), ("invalid_query", Some("since")));
        }
    }

    #[test]
    fn a_malformed_escape_or_bytes_that_are_not_utf8_are_refused_naming_the_parameter() {
        for refused in
            ["since=%ZZ", "since=%", "since=a%2", "since=%2G", "since=%C3", "since=%FF%FE", "since=ok&limit=%zz1"]
        {
            let error = parse(Some(refused), &["since", "limit"]).unwrap_err();
            let field = if refused.contains("limit") { "limit" } else { "since" };
            assert_eq!((error.code(), error.field()), ("invalid_query", Some(field)), "{refused}");
        }
        let error = parse(Some("sin%ZZce=1"), &["since"]).unwrap_err();
        assert_eq!(error.field(), Some("sin%ZZce"), "a name that does not decode is named as sent");
        assert_eq!(parse(Some("since=%C3%A9%2B+%25"), &["since"]).unwrap().get("since"), Some("é+ %"));
    }

    #[test]
    fn a_name_without_a_value_is_present_and_empty() {
        let params = parse(Some("dry_run"), &["dry_run"]).unwrap();
        assert_eq!(params.get("dry_run"), Some(""));
    }
}
