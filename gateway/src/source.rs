//! The source address a request is counted against (docs/design.md): the connection's peer, unless
//! - the gateway has an edge secret (`EDGE_SECRET`),
//! - the peer is one of the edge's addresses (`EDGE_PEERS`, CIDR ranges; none: the header is never
//!   honoured),
//! - and the request carries exactly one
//!   `X-Forwarded-Client: ip=<addr>;ts=<unix seconds>;sig=<hex HMAC-SHA256(secret, "<addr>|<ts>")>`
//!   with a valid signature (compared in constant time) made within 10 seconds of now, either way.
//!
//! Otherwise (no header, several, or one that is malformed, stale or badly signed, or a peer that
//! is not the edge) the peer counts. An IPv6 source counts as its /64, an IPv4 one (also when
//! written IPv4-mapped) as itself.

use std::net::{IpAddr, Ipv6Addr};

use hmac::{Hmac, Mac};
use ipnet::{IpNet, Ipv4Net};
use sha2::Sha256;

pub const FORWARDED_CLIENT: &str = "x-forwarded-client";

/// How far a signed timestamp may be from now, either way: an edge signs each request as it
/// forwards it, so this is clock skew plus transit, and bounds how long a seen header replays.
const MAX_SKEW_SECONDS: u64 = 10;

/// The source `peer`'s request counts against. `forwarded`: the request's `X-Forwarded-Client`
/// values, in order; `edge_peers`: the ranges the edge connects from (`EDGE_PEERS`).
pub fn source_address<'a>(
    peer: IpAddr,
    forwarded: impl IntoIterator<Item = &'a [u8]>,
    edge_secret: Option<&[u8]>,
    edge_peers: &[IpNet],
    now_unix: u64,
) -> IpAddr {
    let signed = edge_secret
        .filter(|_| is_edge_peer(peer, edge_peers))
        .and_then(|secret| the_only(forwarded).map(|header| (secret, header)))
        .and_then(|(secret, header)| verified_client(header, secret, now_unix));
    counted_as(signed.unwrap_or(peer))
}

/// Whether `peer` is in one of `ranges`. An IPv4 address matches alike whether it or the range is
/// written IPv4 or IPv4-mapped IPv6 (a dual-stack listener reports IPv4 peers mapped); an IPv6
/// range wider than `::ffff:0:0/96` (`::/0`, say) holds no IPv4 address.
fn is_edge_peer(peer: IpAddr, ranges: &[IpNet]) -> bool {
    let peer = peer.to_canonical();
    ranges.iter().any(|range| canonical_range(range).contains(&peer))
}

/// An IPv6 range inside `::ffff:0:0/96` as the IPv4 range it maps; any other as it is.
fn canonical_range(range: &IpNet) -> IpNet {
    match range {
        IpNet::V6(v6) if v6.prefix_len() >= 96 => match v6.network().to_ipv4_mapped() {
            Some(v4) => IpNet::V4(Ipv4Net::new(v4, v6.prefix_len() - 96).expect("an IPv4 prefix is at most 32")),
            None => *range,
        },
        _ => *range,
    }
}

/// The one value of `values`; none when there are none or several (which one an edge wrote is
/// then unknown: a client's own may have been passed on beside it).
fn the_only<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Option<&'a [u8]> {
    let mut values = values.into_iter();
    let first = values.next()?;
    values.next().is_none().then_some(first)
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
    const EDGE: &str = "198.51.100.7";

    fn signed(ip: &str, ts: u64, secret: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret).unwrap();
        mac.update(format!("{ip}|{ts}").as_bytes());
        let sig: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
        format!("ip={ip};ts={ts};sig={sig}")
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn ranges(text: &str) -> Vec<IpNet> {
        crate::config::cidr_ranges("EDGE_PEERS", text).unwrap()
    }

    /// The source of a request from `peer` carrying `headers`, with the secret and `peers`.
    fn source_from(peer: &str, headers: &[&str], secret: Option<&[u8]>, peers: &str) -> IpAddr {
        source_address(ip(peer), headers.iter().map(|header| header.as_bytes()), secret, &ranges(peers), NOW)
    }

    /// From the edge (198.51.100.0/24 configured), with the secret.
    fn source(header: Option<&str>, secret: Option<&[u8]>) -> IpAddr {
        source_from(EDGE, header.as_slice(), secret, "198.51.100.0/24")
    }

    #[test]
    fn without_an_edge_secret_the_peer_counts_whatever_the_header_says() {
        let header = signed("203.0.113.9", NOW, SECRET);
        assert_eq!(source(Some(&header), None), ip(EDGE));
        assert_eq!(source(None, Some(SECRET)), ip(EDGE));
    }

    #[test]
    fn a_validly_signed_recent_header_from_an_edge_peer_names_the_source() {
        assert_eq!(source(Some(&signed("203.0.113.9", NOW, SECRET)), Some(SECRET)), ip("203.0.113.9"));
    }

    #[test]
    fn the_signature_may_be_ten_seconds_from_now_either_way_and_no_more() {
        for ts in [NOW - 10, NOW + 10] {
            assert_eq!(source(Some(&signed("203.0.113.9", ts, SECRET)), Some(SECRET)), ip("203.0.113.9"), "{ts}");
        }
        for ts in [NOW - 11, NOW + 11, NOW - 60, NOW + 60] {
            assert_eq!(source(Some(&signed("203.0.113.9", ts, SECRET)), Some(SECRET)), ip(EDGE), "{ts}");
        }
    }

    #[test]
    fn a_peer_outside_the_edge_peers_counts_as_itself_even_with_a_valid_header() {
        let header = signed("203.0.113.9", NOW, SECRET);
        for peer in ["198.51.101.7", "10.0.0.1", "::ffff:198.51.101.7", "2001:db8::7"] {
            assert_eq!(
                source_from(peer, &[&header], Some(SECRET), "198.51.100.0/24, 2001:db8:1::/48"),
                counted_as(ip(peer)),
                "{peer}"
            );
        }
        for peer in ["198.51.100.0", "198.51.100.255", "2001:db8:1:ffff::1"] {
            assert_eq!(
                source_from(peer, &[&header], Some(SECRET), "198.51.100.0/24, 2001:db8:1::/48"),
                ip("203.0.113.9"),
                "{peer}"
            );
        }
    }

    #[test]
    fn with_no_edge_peers_the_header_is_never_honoured() {
        let header = signed("203.0.113.9", NOW, SECRET);
        for peers in ["", " , "] {
            assert_eq!(source_from(EDGE, &[&header], Some(SECRET), peers), ip(EDGE), "{peers:?}");
            assert_eq!(source_from("127.0.0.1", &[&header], Some(SECRET), peers), ip("127.0.0.1"), "{peers:?}");
        }
    }

    #[test]
    fn an_ipv4_mapped_peer_matches_ipv4_ranges_and_the_other_way_round() {
        let header = signed("203.0.113.9", NOW, SECRET);
        assert_eq!(source_from("::ffff:198.51.100.7", &[&header], Some(SECRET), "198.51.100.0/24"), ip("203.0.113.9"));
        assert_eq!(source_from("198.51.100.7", &[&header], Some(SECRET), "::ffff:198.51.100.0/120"), ip("203.0.113.9"));
        assert_eq!(source_from("::ffff:198.51.101.7", &[&header], Some(SECRET), "198.51.100.0/24"), ip("198.51.101.7"));
        assert!(is_edge_peer(ip("::ffff:127.0.0.1"), &ranges("127.0.0.0/8")));
        assert!(!is_edge_peer(ip("::1"), &ranges("127.0.0.0/8")));
        assert!(!is_edge_peer(ip("127.0.0.1"), &ranges("::1/128")));
        assert!(is_edge_peer(ip("127.0.0.1"), &ranges("::ffff:0:0/96")));
        assert!(is_edge_peer(ip("::ffff:127.0.0.1"), &ranges("::ffff:127.0.0.1/128")));
        assert!(!is_edge_peer(ip("127.0.0.1"), &ranges("::/0")));
        assert!(!is_edge_peer(ip("127.0.0.1"), &ranges("::127.0.0.1/128")), "IPv4-compatible is not IPv4-mapped");
        assert!(is_edge_peer(ip("2001:db8::1"), &ranges("::/0")));
    }

    #[test]
    fn two_headers_are_never_honoured_even_both_valid() {
        let a = signed("203.0.113.9", NOW, SECRET);
        let b = signed("203.0.113.10", NOW, SECRET);
        assert_eq!(source_from(EDGE, &[&a, &b], Some(SECRET), "198.51.100.0/24"), ip(EDGE));
        assert_eq!(source_from(EDGE, &[&a, &a], Some(SECRET), "198.51.100.0/24"), ip(EDGE));
        assert_eq!(source_from(EDGE, &["ip=1.2.3.4;ts=1;sig=00", &a], Some(SECRET), "198.51.100.0/24"), ip(EDGE));
        assert_eq!(source_from(EDGE, &[&a], Some(SECRET), "198.51.100.0/24"), ip("203.0.113.9"));
    }

    #[test]
    fn a_stale_forged_or_malformed_header_is_ignored() {
        let good = signed("203.0.113.9", NOW, SECRET);
        for header in [
            signed("203.0.113.9", NOW - 11, SECRET),
            signed("203.0.113.9", NOW + 11, SECRET),
            signed("203.0.113.9", NOW, b"another secret"),
            good.replace("203.0.113.9", "203.0.113.10"),
            good.replace("ts=", "ts=+"),
            format!("{good};extra=1"),
            format!("{good}, {good}"),
            good.replace("sig=", "sig=0"),
            "ip=203.0.113.9".to_string(),
            String::new(),
            signed("not-an-address", NOW, SECRET),
        ] {
            assert_eq!(source(Some(&header), Some(SECRET)), ip(EDGE), "{header}");
        }
    }

    #[test]
    fn ipv6_counts_as_its_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(counted_as(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
        assert_eq!(counted_as(ip("2001:db8:1:2:ffff::1")), ip("2001:db8:1:2::"));
        assert_eq!(counted_as(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
        assert_eq!(counted_as(ip("192.0.2.1")), ip("192.0.2.1"));
        let header = signed("2001:db8::abcd", NOW, SECRET);
        assert_eq!(source(Some(&header), Some(SECRET)), ip("2001:db8::"));
        assert_eq!(source_from("2001:db8:1:2:3:4:5:6", &[], Some(SECRET), "198.51.100.0/24"), ip("2001:db8:1:2::"));
    }
}
