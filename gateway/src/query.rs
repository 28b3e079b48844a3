//! Query strings: form-decoded; a parameter the route does not know, one given twice, or one whose
//! name does not decode is `invalid_query` with `field` = its name. Values are checked by the route.

use crate::errors::ApiError;

#[derive(Debug, Default)]
pub struct Params(Vec<(&'static str, String)>);

impl Params {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(known, _)| *known == name).map(|(_, value)| value.as_str())
    }
}

impl Params {
    /// `dry_run`: absent is false; the only accepted value is the literal `true`.
    pub fn dry_run(&self) -> Result<bool, ApiError> {
        match self.get("dry_run") {
            None => Ok(false),
            Some("true") => Ok(true),
            Some(_) => Err(ApiError::invalid_query("dry_run")),
        }
    }

    /// A page size: plain ASCII digits without sign or leading zero, 1..=max; `default` when absent.
    /// More than `max` is refused, never reduced.
    pub fn limit(&self, default: i32, max: i32) -> Result<i32, ApiError> {
        let Some(value) = self.get("limit") else { return Ok(default) };
        let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) && !value.starts_with('0');
        match value.parse::<i32>() {
            Ok(limit) if digits && limit <= max => Ok(limit),
            _ => Err(ApiError::invalid_query("limit")),
        }
    }

    /// A cursor-like parameter: absent or empty is None ("from the beginning"); more than
    /// max_chars characters, or a NUL, is refused.
    pub fn optional_text(&self, name: &'static str, max_chars: usize) -> Result<Option<&str>, ApiError> {
        match self.get(name) {
            None | Some("") => Ok(None),
            Some(value) if value.chars().count() <= max_chars && !value.contains('\0') => Ok(Some(value)),
            Some(_) => Err(ApiError::invalid_query(name)),
        }
    }

    /// A text parameter of 1..=max_chars characters, or None when absent; empty is refused, and so
    /// is a NUL, which PostgreSQL text cannot hold.
    pub fn text(&self, name: &'static str, max_chars: usize) -> Result<Option<&str>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(value) if (1..=max_chars).contains(&value.chars().count()) && !value.contains('\0') => {
                Ok(Some(value))
            }
            Some(_) => Err(ApiError::invalid_query(name)),
        }
    }
}

pub fn parse(raw: Option<&str>, allowed: &[&'static str]) -> Result<Params, ApiError> {
    let mut params = Params::default();
    for (name, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        let known = allowed.iter().find(|known| **known == name).ok_or_else(|| ApiError::invalid_query(name.clone()))?;
        if params.get(known).is_some() {
            return Err(ApiError::invalid_query(*known));
        }
        params.0.push((known, value.into_owned()));
    }
    Ok(params)
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
        assert_eq!(error.code, "invalid_query");
        assert_eq!(error.field.as_deref(), Some("limit"));
    }

    #[test]
    fn a_repeated_parameter_is_refused() {
        let error = parse(Some("dry_run=true&dry_run=true"), &["dry_run"]).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("dry_run"));
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
        assert_eq!(parse(None, &["dry_run"]).unwrap().dry_run().unwrap(), false);
        assert_eq!(one("dry_run=true").dry_run().unwrap(), true);
        for refused in ["dry_run=false", "dry_run=1", "dry_run=True", "dry_run=", "dry_run", "dry_run=true%20"] {
            let error = one(refused).dry_run().unwrap_err();
            assert_eq!((error.code.as_ref(), error.field.as_deref()), ("invalid_query", Some("dry_run")), "{refused}");
        }
    }

    #[test]
    fn limit_is_plain_digits_within_range_with_a_default() {
        assert_eq!(parse(None, &["limit"]).unwrap().limit(50, 200).unwrap(), 50);
        assert_eq!(one("limit=1").limit(50, 200).unwrap(), 1);
        assert_eq!(one("limit=200").limit(50, 200).unwrap(), 200);
        for refused in ["limit=0", "limit=201", "limit=-1", "limit=+5", "limit=05", "limit=", "limit=5.0", "limit=1e2",
                        "limit=99999999999999999999", "limit=%205"] {
            let error = one(refused).limit(50, 200).unwrap_err();
            assert_eq!((error.code.as_ref(), error.field.as_deref()), ("invalid_query", Some("limit")), "{refused}");
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
            assert_eq!((error.code.as_ref(), error.field.as_deref()), ("invalid_query", Some("after")));
        }
    }

    #[test]
    fn an_optional_text_parameter_may_be_absent_or_empty_but_not_too_long() {
        let params = parse(Some("since="), &["since"]).unwrap();
        assert_eq!(params.optional_text("since", 512).unwrap(), None);
        assert_eq!(parse(None, &["since"]).unwrap().optional_text("since", 512).unwrap(), None);
        let longest = format!("since={}", "a".repeat(512));
        assert_eq!(parse(Some(&longest), &["since"]).unwrap().optional_text("since", 512).unwrap().map(str::len), Some(512));
        for refused in [format!("since={}", "a".repeat(513)), "since=a%00".to_string()] {
            let error = parse(Some(&refused), &["since"]).unwrap().optional_text("since", 512).unwrap_err();
            assert_eq!((error.code.as_ref(), error.field.as_deref()), ("invalid_query", Some("since")));
        }
    }

    #[test]
    fn a_name_without_a_value_is_present_and_empty() {
        let params = parse(Some("dry_run"), &["dry_run"]).unwrap();
        assert_eq!(params.get("dry_run"), Some(""));
    }
}
