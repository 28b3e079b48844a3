//! The `Service-Signature` header: `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>`, where the key is
//! the whole `whsec_…` secret and the signed text is `t`, a dot, then the raw body bytes (the scheme
//! of the widely used payment-provider webhooks the spec names).

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header value for `body` sent at `unix_seconds`, signed with `secret`.
pub fn header_value(secret: &str, unix_seconds: u64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(unix_seconds.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("t={unix_seconds},v1={hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Computed independently with
    /// `printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac "whsec_abab…ab"`.
    #[test]
    fn the_signature_matches_an_independent_computation() {
        let secret = format!("whsec_{}", "ab".repeat(32));
        let body = br#"{"event":"booking.changed","booking_reference":"BK0123456789ABCDEF","occurred_at":"2026-11-23T06:00:00.123456Z"}"#;
        assert_eq!(
            header_value(&secret, 1_700_000_000, body),
            "t=1700000000,v1=6e4787249b715a3b6360abaf18450202e596bad845bed5d96953cdedd8a639d1"
        );
    }

    #[test]
    fn the_time_and_every_body_byte_are_signed() {
        let secret = format!("whsec_{}", "ab".repeat(32));
        let base = header_value(&secret, 1_700_000_000, b"{}");
        assert_ne!(header_value(&secret, 1_700_000_001, b"{}")[13..], base[13..]);
        assert_ne!(header_value(&secret, 1_700_000_000, b"{ }"), base);
        assert_ne!(header_value(&format!("whsec_{}", "ac".repeat(32)), 1_700_000_000, b"{}"), base);
    }
}
