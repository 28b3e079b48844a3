//! Resolving an endpoint's host name just before each attempt: A and AAAA both, with "the name has no
//! address records" (`unresolvable`) told apart from "the lookup failed" (`dns_failed`).

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;

use hickory_resolver::error::ResolveErrorKind;
use hickory_resolver::TokioAsyncResolver;

/// What a lookup found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    Addresses(Vec<IpAddr>),
    NoRecords,
    Failed,
}

/// A resolver: the system's in production, a fixed table in tests.
pub trait Resolve: Send + Sync + 'static {
    fn resolve<'a>(&'a self, host: &'a str) -> Pin<Box<dyn Future<Output = Lookup> + Send + 'a>>;
}

/// The system's name servers (`/etc/resolv.conf`). A and AAAA are asked separately, so that one
/// of them failing is a failed lookup (`dns_failed`) rather than an answer of the other's addresses
/// only; no records of either kind is `unresolvable`.
pub struct SystemResolver(TokioAsyncResolver);

impl SystemResolver {
    pub fn new() -> Result<Self, String> {
        let (config, options) = hickory_resolver::system_conf::read_system_conf()
            .map_err(|e| format!("cannot read the system's DNS configuration: {e}"))?;
        Ok(SystemResolver(TokioAsyncResolver::tokio(config, options)))
    }
}

/// One record type's answer: its addresses (none for "no records"), or None for a failed lookup.
fn addresses_of(answer: Result<Vec<IpAddr>, hickory_resolver::error::ResolveError>) -> Option<Vec<IpAddr>> {
    match answer {
        Ok(addresses) => Some(addresses),
        Err(error) if matches!(error.kind(), ResolveErrorKind::NoRecordsFound { .. }) => Some(Vec::new()),
        Err(_) => None,
    }
}

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> Pin<Box<dyn Future<Output = Lookup> + Send + 'a>> {
        Box::pin(async move {
            // Fully qualified: the search domains of the machine never extend a customer's name.
            let name = format!("{host}.");
            let (v4, v6) = tokio::join!(self.0.ipv4_lookup(name.as_str()), self.0.ipv6_lookup(name.as_str()));
            let v4 = addresses_of(v4.map(|found| found.into_iter().map(|a| IpAddr::V4(a.0)).collect::<Vec<_>>()));
            let v6 = addresses_of(v6.map(|found| found.into_iter().map(|a| IpAddr::V6(a.0)).collect::<Vec<_>>()));
            match (v4, v6) {
                (Some(v4), Some(v6)) if v4.is_empty() && v6.is_empty() => Lookup::NoRecords,
                (Some(mut v4), Some(v6)) => {
                    v4.extend(v6);
                    Lookup::Addresses(v4)
                }
                _ => Lookup::Failed,
            }
        })
    }
}
