//! The key id a request presents, for log lines and per-credential counters. This is not
//! authentication (that is `app.authenticate` in the database): it only reads a well-formed
//! `pk_api_…` key id out of the header, so that nothing else a client typed, and never a secret,
//! reaches a log line.

pub fn presented_key_id(authorization: Option<&str>) -> Option<&str> {
    let value = authorization?;
    let (scheme, rest) = value.split_at_checked(6)?;
    if !scheme.eq_ignore_ascii_case("bearer") || !rest.starts_with(' ') {
        return None;
    }
    let (key_id, _secret) = rest.trim_start_matches(' ').split_once('.')?;
    let hex = key_id.strip_prefix("pk_api_")?;
    (hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))).then_some(key_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "pk_api_0123456789abcdef0123456789abcdef";

    #[test]
    fn a_bearer_credential_presents_its_key_id() {
        let header = format!("Bearer {KEY}.pk_sec_x.y");
        assert_eq!(presented_key_id(Some(&header)), Some(KEY));
        let header = format!("bearer  {KEY}.s");
        assert_eq!(presented_key_id(Some(&header)), Some(KEY));
    }

    #[test]
    fn anything_that_is_not_a_key_id_presents_nothing() {
        assert_eq!(presented_key_id(None), None);
        assert_eq!(presented_key_id(Some("Basic dXNlcjpwYXNz")), None);
        assert_eq!(presented_key_id(Some(&format!("Bearer {KEY}"))), None);
        assert_eq!(presented_key_id(Some(&format!("Bearer{KEY}.s"))), None);
        assert_eq!(presented_key_id(Some("Bearer pk_sec_0123456789abcdef0123456789abcdef.s")), None);
        assert_eq!(presented_key_id(Some("Bearer pk_api_0123456789ABCDEF0123456789abcdef.s")), None);
        assert_eq!(presented_key_id(Some("Bearer my-password.s")), None);
        assert_eq!(presented_key_id(Some("Bé")), None);
    }
}
