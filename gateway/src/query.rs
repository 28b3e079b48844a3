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

    #[test]
    fn a_name_without_a_value_is_present_and_empty() {
        let params = parse(Some("dry_run"), &["dry_run"]).unwrap();
        assert_eq!(params.get("dry_run"), Some(""));
    }
}
