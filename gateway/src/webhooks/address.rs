//! Which addresses a hint may be sent to: public unicast only.
//!
//! An address is refused when it lies in any entry of IANA's IPv4 or IPv6 Special-Purpose Address
//! Registry (`iana-ipv4-special-registry` as revised on 2020-09-04, `iana-ipv6-special-registry` as
//! updated on 2024-10-22), whatever the entry's "globally reachable" flag, or in the multicast
//! ranges. (Hand-written rather than taken from a crate: the maintained IP crates either follow
//! Rust's unstable `is_global`, or predate entries such as 3fff::/20 of 2024.) IPv6
//! outside 2000::/3 (the only range IANA allocates unicast from) is refused whole, which also covers
//! the unspecified, loopback, unique-local, link-local, site-local and multicast ranges and anything
//! reserved later. The IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) forms are judged by the
//! IPv4 address they carry. The tables are written here from the registries, never downloaded.
//!
//! A staging deployment may add ranges that count as public for it (`WEBHOOK_PUBLIC_RANGES`); with
//! none, the rules above hold exactly.
//!
//! A network with NAT64 prefixes of its own (RFC 6052 network-specific prefixes, often inside
//! 2000::/3 where the registries alone would find their addresses public) lists them
//! (`WEBHOOK_NAT64_PREFIXES`): an address in one is judged by the IPv4 address it carries at the
//! positions RFC 6052 §2.2 gives for the prefix's length, as 64:ff9b::/96's are.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

/// IPv4 special-purpose blocks (each registry entry, or the block that contains it), and multicast.
const IPV4_NOT_PUBLIC: &[(Ipv4Addr, u8)] = &[
    (Ipv4Addr::new(0, 0, 0, 0), 8),       // "this network" (RFC 791), incl. 0.0.0.0/32
    (Ipv4Addr::new(10, 0, 0, 0), 8),      // private-use (RFC 1918)
    (Ipv4Addr::new(100, 64, 0, 0), 10),   // shared address space, CGNAT (RFC 6598)
    (Ipv4Addr::new(127, 0, 0, 0), 8),     // loopback (RFC 1122)
    (Ipv4Addr::new(169, 254, 0, 0), 16),  // link-local (RFC 3927)
    (Ipv4Addr::new(172, 16, 0, 0), 12),   // private-use (RFC 1918)
    (Ipv4Addr::new(192, 0, 0, 0), 24), // IETF protocol assignments, DS-Lite, PCP/TURN anycast, NAT64 discovery (RFC 6890 …)
    (Ipv4Addr::new(192, 0, 2, 0), 24), // documentation TEST-NET-1 (RFC 5737)
    (Ipv4Addr::new(192, 31, 196, 0), 24), // AS112-v4 (RFC 7535)
    (Ipv4Addr::new(192, 52, 193, 0), 24), // AMT (RFC 7450)
    (Ipv4Addr::new(192, 88, 99, 0), 24), // deprecated 6to4 relay anycast (RFC 7526)
    (Ipv4Addr::new(192, 168, 0, 0), 16), // private-use (RFC 1918)
    (Ipv4Addr::new(192, 175, 48, 0), 24), // direct delegation AS112 service (RFC 7534)
    (Ipv4Addr::new(198, 18, 0, 0), 15), // benchmarking (RFC 2544)
    (Ipv4Addr::new(198, 51, 100, 0), 24), // documentation TEST-NET-2 (RFC 5737)
    (Ipv4Addr::new(203, 0, 113, 0), 24), // documentation TEST-NET-3 (RFC 5737)
    (Ipv4Addr::new(224, 0, 0, 0), 4),  // multicast (RFC 5771)
    (Ipv4Addr::new(240, 0, 0, 0), 4),  // reserved (RFC 1112), incl. limited broadcast 255.255.255.255/32
];

/// IPv6 special-purpose blocks inside 2000::/3 (everything outside it is refused as a whole).
const IPV6_GLOBAL_NOT_PUBLIC: &[(Ipv6Addr, u8)] = &[
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 23), // IETF protocol assignments: TEREDO, benchmarking, ORCHIDv2, AMT, AS112, … (RFC 2928 …)
    (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32), // documentation (RFC 3849)
    (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16), // 6to4 (RFC 3056)
    (Ipv6Addr::new(0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0), 48), // direct delegation AS112 service (RFC 7534)
    (Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20), // documentation (RFC 9637)
];

/// Where the IPv4 address an IPv6 address carries is the one that counts.
const IPV4_MAPPED: (Ipv6Addr, u8) = (Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0), 96); // RFC 4291
const NAT64_WELL_KNOWN: (Ipv6Addr, u8) = (Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96); // RFC 6052
const GLOBAL_UNICAST: (Ipv6Addr, u8) = (Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3);

fn in_v6((network, prefix): (Ipv6Addr, u8), address: Ipv6Addr) -> bool {
    Ipv6Net::new(network, prefix).is_ok_and(|net| net.contains(&address))
}

/// Whether `address` is a public unicast address by the registries alone.
pub fn is_public(address: IpAddr) -> bool {
    is_public_with(address, &[])
}

/// The registries, with `nat64` read as NAT64 prefixes besides 64:ff9b::/96. An address that lies in
/// any prefix that carries an IPv4 address (::ffff:0:0/96, 64:ff9b::/96, one of `nat64`) is judged
/// by what it carries, and must pass under every such prefix it lies in.
fn is_public_with(address: IpAddr, nat64: &[Nat64Prefix]) -> bool {
    match address {
        IpAddr::V4(v4) => !IPV4_NOT_PUBLIC
            .iter()
            .any(|&(network, prefix)| Ipv4Net::new(network, prefix).is_ok_and(|net| net.contains(&v4))),
        IpAddr::V6(v6) => {
            let built_in = [IPV4_MAPPED, NAT64_WELL_KNOWN].map(|(network, length)| Nat64Prefix { network, length });
            let mut carrying = built_in.iter().chain(nat64).filter(|prefix| prefix.contains(v6)).peekable();
            if carrying.peek().is_some() {
                return carrying.all(|prefix| prefix.embedded(v6).is_some_and(|v4| is_public(IpAddr::V4(v4))));
            }
            in_v6(GLOBAL_UNICAST, v6) && !IPV6_GLOBAL_NOT_PUBLIC.iter().any(|&block| in_v6(block, v6))
        }
    }
}

pub use crate::config::Nat64Prefix;

impl Nat64Prefix {
    fn contains(&self, address: Ipv6Addr) -> bool {
        in_v6((self.network, self.length), address)
    }

    /// The IPv4 address `address` (in this prefix) carries: the 32 bits after the prefix, skipping
    /// bits 64-71 (RFC 6052 §2.2). None when bits 64-71 are not zero: no address RFC 6052 forms.
    fn embedded(&self, address: Ipv6Addr) -> Option<Ipv4Addr> {
        let octets = address.octets();
        if self.length < 96 && octets[8] != 0 {
            return None;
        }
        let mut positions = (usize::from(self.length) / 8..16).filter(|&i| i != 8);
        let mut next = || positions.next().map(|i| octets[i]);
        Some(Ipv4Addr::new(next()?, next()?, next()?, next()?))
    }
}

/// The rule a worker applies: the registries, plus the ranges a staging deployment declares public.
#[derive(Clone, Debug, Default)]
pub struct AddressPolicy {
    also_public: Vec<IpNet>,
    /// `WEBHOOK_NAT64_PREFIXES`.
    nat64: Vec<Nat64Prefix>,
}

impl AddressPolicy {
    /// The production rule: the registries alone.
    pub fn production() -> Self {
        AddressPolicy::default()
    }

    /// The registries, plus `ranges` (`WEBHOOK_PUBLIC_RANGES`).
    pub fn with_public_ranges(ranges: &[IpNet]) -> Self {
        AddressPolicy { also_public: ranges.to_vec(), nat64: Vec::new() }
    }

    /// The same, with `prefixes` read as NAT64 prefixes (`WEBHOOK_NAT64_PREFIXES`): an address in one
    /// is judged by the IPv4 address it carries.
    pub fn with_nat64_prefixes(self, prefixes: &[Nat64Prefix]) -> Self {
        AddressPolicy { nat64: prefixes.to_vec(), ..self }
    }

    pub fn permits(&self, address: IpAddr) -> bool {
        is_public_with(address, &self.nat64) || self.also_public.iter().any(|range| range.contains(&address))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(text: &str) -> bool {
        is_public(text.parse().unwrap())
    }

    #[test]
    fn every_ipv4_special_block_is_refused_at_both_edges_and_its_neighbours_are_public() {
        // (first, last, the address just below, the address just above)
        let blocks = [
            ("0.0.0.0", "0.255.255.255", None, Some("1.0.0.0")),
            ("10.0.0.0", "10.255.255.255", Some("9.255.255.255"), Some("11.0.0.0")),
            ("100.64.0.0", "100.127.255.255", Some("100.63.255.255"), Some("100.128.0.0")),
            ("127.0.0.0", "127.255.255.255", Some("126.255.255.255"), Some("128.0.0.0")),
            ("169.254.0.0", "169.254.255.255", Some("169.253.255.255"), Some("169.255.0.0")),
            ("172.16.0.0", "172.31.255.255", Some("172.15.255.255"), Some("172.32.0.0")),
            ("192.0.0.0", "192.0.0.255", Some("191.255.255.255"), Some("192.0.1.0")),
            ("192.0.2.0", "192.0.2.255", Some("192.0.1.255"), Some("192.0.3.0")),
            ("192.31.196.0", "192.31.196.255", Some("192.31.195.255"), Some("192.31.197.0")),
            ("192.52.193.0", "192.52.193.255", Some("192.52.192.255"), Some("192.52.194.0")),
            ("192.88.99.0", "192.88.99.255", Some("192.88.98.255"), Some("192.88.100.0")),
            ("192.168.0.0", "192.168.255.255", Some("192.167.255.255"), Some("192.169.0.0")),
            ("192.175.48.0", "192.175.48.255", Some("192.175.47.255"), Some("192.175.49.0")),
            ("198.18.0.0", "198.19.255.255", Some("198.17.255.255"), Some("198.20.0.0")),
            ("198.51.100.0", "198.51.100.255", Some("198.51.99.255"), Some("198.51.101.0")),
            ("203.0.113.0", "203.0.113.255", Some("203.0.112.255"), Some("203.0.114.0")),
            ("224.0.0.0", "239.255.255.255", Some("223.255.255.255"), None),
            ("240.0.0.0", "255.255.255.255", None, None),
        ];
        for (first, last, below, above) in blocks {
            assert!(!public(first), "{first} must be refused");
            assert!(!public(last), "{last} must be refused");
            if let Some(below) = below {
                assert!(public(below), "{below} is public");
            }
            if let Some(above) = above {
                assert!(public(above), "{above} is public");
            }
        }
    }

    #[test]
    fn ipv6_outside_global_unicast_and_every_special_block_inside_it_are_refused() {
        for refused in [
            "::",
            "::1",
            "::2",
            "100::",
            "100::ffff",
            "100:0:0:1::1",
            "64:ff9b:1::1",
            "fc00::1",
            "fdff::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            "1fff:ffff::1",
            "4000::1",
            "5f00::1",
            "2001::",
            "2001::1",
            "2001:1::1",
            "2001:2::1",
            "2001:3::1",
            "2001:4:112::1",
            "2001:20::1",
            "2001:1ff:ffff::1",
            "2001:db8::1",
            "2001:db8:ffff::1",
            "2002::1",
            "2002:c000:0201::1",
            "2620:4f:8000::1",
            "3fff::1",
            "3fff:fff:ffff::1",
        ] {
            assert!(!public(refused), "{refused} must be refused");
        }
        for allowed in [
            "2000::1",
            "2001:200::1",
            "2001:db7:ffff::1",
            "2001:db9::1",
            "2003::1",
            "2620:4f:7fff::1",
            "2620:4f:8001::1",
            "2a00:1450:4001::1",
            "3ffe:ffff::1",
            "3fff:1000::1",
        ] {
            assert!(public(allowed), "{allowed} is public");
        }
    }

    #[test]
    fn every_ipv6_special_block_is_refused_at_both_edges_and_its_neighbours_are_public() {
        // (first, last, the address just below, the address just above)
        let blocks = [
            (
                "2001::",
                "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
                "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "2001:200::",
            ),
            (
                "2001:db8::",
                "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
                "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
                "2001:db9::",
            ),
            ("2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2003::"),
            (
                "2620:4f:8000::",
                "2620:4f:8000:ffff:ffff:ffff:ffff:ffff",
                "2620:4f:7fff:ffff:ffff:ffff:ffff:ffff",
                "2620:4f:8001::",
            ),
            (
                "3fff::",
                "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
                "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "3fff:1000::",
            ),
        ];
        for (first, last, below, above) in blocks {
            assert!(!public(first), "{first} must be refused");
            assert!(!public(last), "{last} must be refused");
            assert!(public(below), "{below} is public");
            assert!(public(above), "{above} is public");
        }
        // 2000::/3 itself: its first and last addresses are public, its neighbours are not.
        assert!(public("2000::"));
        assert!(public("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
        assert!(!public("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
        assert!(!public("4000::"));
    }

    #[test]
    fn ipv4_mapped_and_nat64_forms_are_judged_by_the_ipv4_address_they_carry() {
        for refused in [
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "64:ff9b::10.0.0.1",
            "64:ff9b::127.0.0.1",
            "64:ff9b::192.168.1.1",
            "::ffff:0.0.0.0",
        ] {
            assert!(!public(refused), "{refused} must be refused");
        }
        for allowed in ["::ffff:8.8.8.8", "64:ff9b::8.8.8.8"] {
            assert!(public(allowed), "{allowed} is public");
        }
        // The deprecated IPv4-compatible form is outside 2000::/3 and refused whatever it carries, and
        // so are the neighbours of the two carrying prefixes, and local-use NAT64 (RFC 8215).
        for refused in [
            "::8.8.8.8",
            "::fffe:808:808",
            "::1:0:808:808",
            "64:ff9a:ffff:ffff:ffff:ffff:808:808",
            "64:ff9b:0:0:0:1:808:808",
            "64:ff9b:1::808:808",
        ] {
            assert!(!public(refused), "{refused} must be refused");
        }
    }

    fn v6(text: &str) -> Ipv6Addr {
        text.parse().unwrap()
    }

    fn prefix(text: &str) -> Nat64Prefix {
        let parsed = Nat64Prefix::parse_list(text).unwrap();
        assert_eq!(parsed.len(), 1);
        parsed[0]
    }

    #[test]
    fn the_ipv4_address_sits_where_rfc_6052_puts_it_for_each_prefix_length() {
        // RFC 6052 §2.4's table: 192.0.2.33 under each length (bits 64-71 skipped: /40 splits the
        // address 3+1 octets around them, /48 2+2, /56 1+3, /64 puts it after them).
        let table = [
            ("2001:db8::/32", "2001:db8:c000:221::"),
            ("2001:db8:100::/40", "2001:db8:1c0:2:21::"),
            ("2001:db8:122::/48", "2001:db8:122:c000:2:2100::"),
            ("2001:db8:122:300::/56", "2001:db8:122:3c0:0:221::"),
            ("2001:db8:122:344::/64", "2001:db8:122:344:c0:2:2100:0"),
            ("2001:db8:122:344::/96", "2001:db8:122:344::192.0.2.33"),
        ];
        for (network, address) in table {
            let prefix = prefix(network);
            assert!(prefix.contains(v6(address)), "{address} in {network}");
            assert_eq!(prefix.embedded(v6(address)), Some(Ipv4Addr::new(192, 0, 2, 33)), "{address} in {network}");
        }
        // The suffix (bits after the IPv4 address) plays no part; bits 64-71 set: no such address.
        assert_eq!(
            prefix("2001:db8::/32").embedded(v6("2001:db8:c000:221:ff:ffff:ffff:ffff")),
            Some(Ipv4Addr::new(192, 0, 2, 33))
        );
        assert_eq!(prefix("2001:db8:122:344::/64").embedded(v6("2001:db8:122:344:1c0:2:2100:0")), None);
        assert_eq!(prefix("2001:db8:100::/40").embedded(v6("2001:db8:1c0:2:121::")), None);
    }

    #[test]
    fn an_address_in_a_listed_nat64_prefix_is_judged_by_the_ipv4_address_it_carries() {
        // Each length, in public space: 10.0.0.1 and 8.8.8.8 embedded by hand.
        let cases = [
            ("2a00:1450::/32", "2a00:1450:a00:1::", "2a00:1450:808:808::"),
            ("2a00:1450:4000::/40", "2a00:1450:400a:0:1::", "2a00:1450:4008:808:8::"),
            ("2a00:1450:4001::/48", "2a00:1450:4001:a00:0:100::", "2a00:1450:4001:808:8:800::"),
            ("2a00:1450:4001:800::/56", "2a00:1450:4001:80a:0:1::", "2a00:1450:4001:808:8:808::"),
            ("2a00:1450:4001:829::/64", "2a00:1450:4001:829:a:0:100:0", "2a00:1450:4001:829:8:808:800:0"),
            ("2a00:1450:4001:829::/96", "2a00:1450:4001:829::10.0.0.1", "2a00:1450:4001:829::8.8.8.8"),
        ];
        for (network, private, public) in cases {
            let (private, public) = (private.parse().unwrap(), public.parse().unwrap());
            assert!(AddressPolicy::production().permits(private), "unlisted, {private} is just a public address");
            let policy = AddressPolicy::production().with_nat64_prefixes(&[prefix(network)]);
            assert!(!policy.permits(private), "{private} carries 10.0.0.1 through {network}");
            assert!(policy.permits(public), "{public} carries 8.8.8.8 through {network}");
        }
        let policy = AddressPolicy::production().with_nat64_prefixes(&[prefix("2a00:1450:4001:829::/64")]);
        for refused in [
            "2a00:1450:4001:829:7f:0:100:0",     // 127.0.0.1
            "2a00:1450:4001:829:a9:fea9:fe00:0", // 169.254.169.254
            "2a00:1450:4001:829:64:4000:100:0",  // 100.64.0.1
            "2a00:1450:4001:829:108:808:800:0",  // bits 64-71 set: no address RFC 6052 forms
        ] {
            assert!(!policy.permits(refused.parse().unwrap()), "{refused} must be refused");
        }
        // Outside the prefix, and IPv4 itself: the rules as before.
        assert!(policy.permits("2a00:1450:4001:82a::a00:1".parse().unwrap()));
        assert!(!policy.permits("10.0.0.1".parse().unwrap()));
        assert!(!policy.permits("64:ff9b::10.0.0.1".parse().unwrap()));
        assert!(policy.permits("64:ff9b::8.8.8.8".parse().unwrap()));
        // A local-use prefix (RFC 8215), refused whole unlisted, carries what it carries once listed.
        let local = AddressPolicy::production().with_nat64_prefixes(&[prefix("64:ff9b:1::/48")]);
        assert!(!AddressPolicy::production().permits("64:ff9b:1:808:8:800::".parse().unwrap()));
        assert!(local.permits("64:ff9b:1:808:8:800::".parse().unwrap()));
        assert!(!local.permits("64:ff9b:1:a00:0:100::".parse().unwrap()));
        // A listed prefix overlapping ::ffff:0:0/96 or another listed one: every reading must pass.
        let overlapping = AddressPolicy::production()
            .with_nat64_prefixes(&[prefix("2a00:1450::/32"), prefix("2a00:1450:808:808::/64")]);
        assert!(overlapping.permits("2a00:1450:808:808:8:808:800:0".parse().unwrap()));
        assert!(!overlapping.permits("2a00:1450:808:808:a:0:100:0".parse().unwrap()));
        let over_mapped = AddressPolicy::production().with_nat64_prefixes(&[prefix("::/32")]);
        assert!(!over_mapped.permits("::ffff:10.0.0.1".parse().unwrap()));
        // Declared public ranges still add to it.
        let staging = AddressPolicy::with_public_ranges(&ranges("2a00:1450:4001:829::/96").unwrap())
            .with_nat64_prefixes(&[prefix("2a00:1450:4001:829::/64")]);
        assert!(staging.permits("2a00:1450:4001:829::a00:1".parse().unwrap()));
        assert!(!staging.permits("2a00:1450:4001:829:a:0:100:0".parse().unwrap()));
    }

    #[test]
    fn the_nat64_prefix_list_takes_rfc_6052_prefixes_only() {
        let listed = Nat64Prefix::parse_list(" 2a00:1450::/32, 64:ff9b:1::/48 ,,2001:db8:122:344::/96").unwrap();
        assert_eq!(listed, [prefix("2a00:1450::/32"), prefix("64:ff9b:1::/48"), prefix("2001:db8:122:344::/96")]);
        assert_eq!(Nat64Prefix::parse_list("").unwrap(), []);
        assert_eq!(Nat64Prefix::parse_list(" , ").unwrap(), []);
        for length in [32, 40, 48, 56, 64, 96] {
            assert!(Nat64Prefix::parse_list(&format!("2a00::/{length}")).is_ok(), "/{length}");
        }
        for (bad, says) in [
            ("2a00::/33", "/32, /40, /48, /56, /64 or /96"),
            ("2a00::/128", "/32, /40, /48, /56, /64 or /96"),
            ("2a00::/0", "/32, /40, /48, /56, /64 or /96"),
            ("10.0.0.0/8", "not an IPv6 prefix"),
            ("2a00:1450::", "not an IPv6 prefix"),
            ("nonsense", "not an IPv6 prefix"),
            ("2a00:1450::1/96", "bits are set beyond the /96 (2a00:1450::/96?)"),
            ("2a00:1450:4001:829:100::/96", "bits 64-71"),
            ("2a00:1450::/32,2a00::/129", "not an IPv6 prefix"),
        ] {
            let error = Nat64Prefix::parse_list(bad).unwrap_err();
            assert!(error.starts_with("WEBHOOK_NAT64_PREFIXES: "), "{error}");
            assert!(error.contains(says), "{bad}: {error}");
        }
    }

    #[test]
    fn a_staging_allow_list_adds_ranges_and_nothing_else() {
        let production = AddressPolicy::production();
        assert!(!production.permits("127.0.0.1".parse().unwrap()));
        assert!(!production.permits("10.1.2.3".parse().unwrap()));
        assert!(production.permits("8.8.8.8".parse().unwrap()));

        let staging = AddressPolicy::with_public_ranges(&ranges(" 10.20.0.0/16, fd00::/8 ").unwrap());
        assert!(staging.permits("10.20.3.4".parse().unwrap()));
        assert!(staging.permits("fd12::1".parse().unwrap()));
        assert!(!staging.permits("10.21.0.1".parse().unwrap()));
        assert!(!staging.permits("127.0.0.1".parse().unwrap()), "loopback only when listed");
        assert!(AddressPolicy::with_public_ranges(&ranges("").unwrap()).also_public.is_empty());
        assert!(ranges("10.0.0.0/33").unwrap_err().contains("WEBHOOK_PUBLIC_RANGES"));
        assert!(ranges("nonsense").is_err());
    }

    /// `WEBHOOK_PUBLIC_RANGES` as the settings read it.
    fn ranges(text: &str) -> Result<Vec<IpNet>, String> {
        crate::config::cidr_ranges("WEBHOOK_PUBLIC_RANGES", text)
    }
}
