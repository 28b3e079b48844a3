//! The source address a request is counted against (DESIGN §5): the connection's peer, unless the
//! gateway has an edge secret (`EDGE_SECRET`) and the request carries
//! `X-Forwarded-Client: ip=<addr>;ts=<unix seconds>;sig=<hex HMAC-SHA256(secret, "<addr>|<ts>")>`
//! with a valid signature (compared in constant time) made within 60 seconds of now. A header that
//! is absent, malformed, stale or badly signed is ignored: the peer counts. An IPv6 source counts as
//! its /64, an IPv4 one (also when written IPv4-mapped) as itself.

use std::net::{IpAddr, Ipv6Addr};

use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const FORWARDED_CLIENT: &str = "x-forwarded-client";

/// How far a signed timestamp may be from now, either way.
const MAX_SKEW_SECONDS: u64 = 60;

pub fn source_address(peer: IpAddr, forwarded: Option<&[u8]>, edge_secret: Option<&[u8]>, now_unix: u64) -> IpAddr {
    let signed = edge_secret.zip(forwarded).and_then(|(secret, header)| verified_client(header, secret, now_unix));
    counted_as(signed.unwrap_or(peer))
}

/// The address a bucket counts: IPv4 itself, IPv6 its /64.
pub fn counted_as(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
    }
}

fn verified_client(header: &[u8], secret: &[u8], now_unix: u64) -> Option<IpAddr> {
    let text = std::str::from_utf8(header).ok()?;
    let mut parts = text.split(';');
    let ip_text = parts.next()?.strip_prefix("ip=")?;
    let ts_text = parts.next()?.strip_prefix("ts=")?;
    let sig_text = parts.next()?.strip_prefix("sig=")?;
    if parts.next().is_some() || ts_text.is_empty() || !ts_text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ts: u64 = ts_text.parse().ok()?;
    if ts.abs_diff(now_unix) > MAX_SKEW_SECONDS {
        return None;
    }
    let signature = decode_hex(sig_text)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).ok()?;
    mac.update(format!("{ip_text}|{ts_text}").as_bytes());
    mac.verify_slice(&signature).ok()?;
    ip_text.parse().ok()
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len()).step_by(2).map(|at| u8::from_str_radix(&text[at..at + 2], 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"an edge secret of the deployment";
    const NOW: u64 = 1_800_000_000;

    fn signed(ip: &str, ts: u64, secret: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret).unwrap();
        mac.update(format!("{ip}|{ts}").as_bytes());
        let sig: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
        format!("ip={ip};ts={ts};sig={sig}")
    }

    fn source(header: Option<&str>, secret: Option<&[u8]>) -> IpAddr {
        source_address("198.51.100.7".parse().unwrap(), header.map(str::as_bytes), secret, NOW)
    }

    #[test]
    fn without_an_edge_secret_the_peer_counts_whatever_the_header_says() {
        let header = signed("203.0.113.9", NOW, SECRET);
        assert_eq!(source(Some(&header), None), "198.51.100.7".parse::<IpAddr>().unwrap());
        assert_eq!(source(None, Some(SECRET)), "198.51.100.7".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn a_validly_signed_recent_header_names_the_source() {
        assert_eq!(
            source(Some(&signed("203.0.113.9", NOW, SECRET)), Some(SECRET)),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );
        assert_eq!(
            source(Some(&signed("203.0.113.9", NOW - 60, SECRET)), Some(SECRET)),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );
        assert_eq!(
            source(Some(&signed("203.0.113.9", NOW + 60, SECRET)), Some(SECRET)),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn a_stale_forged_or_malformed_header_is_ignored() {
        let peer: IpAddr = "198.51.100.7".parse().unwrap();
        let good = signed("203.0.113.9", NOW, SECRET);
        for header in [
            signed("203.0.113.9", NOW - 61, SECRET),
            signed("203.0.113.9", NOW + 61, SECRET),
            signed("203.0.113.9", NOW, b"another secret"),
            good.replace("203.0.113.9", "203.0.113.10"),
            good.replace("ts=", "ts=+"),
            format!("{good};extra=1"),
            good.replace("sig=", "sig=0"),
            "ip=203.0.113.9".to_string(),
            String::new(),
            signed("not-an-address", NOW, SECRET),
        ] {
            assert_eq!(source(Some(&header), Some(SECRET)), peer, "{header}");
        }
    }

    #[test]
    fn ipv6_counts_as_its_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(counted_as("2001:db8:1:2:3:4:5:6".parse().unwrap()), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
        assert_eq!(counted_as("2001:db8:1:2:ffff::1".parse().unwrap()), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
        assert_eq!(counted_as("::ffff:192.0.2.1".parse().unwrap()), "192.0.2.1".parse::<IpAddr>().unwrap());
        assert_eq!(counted_as("192.0.2.1".parse().unwrap()), "192.0.2.1".parse::<IpAddr>().unwrap());
        let header = signed("2001:db8::abcd", NOW, SECRET);
        assert_eq!(source(Some(&header), Some(SECRET)), "2001:db8::".parse::<IpAddr>().unwrap());
    }
}
