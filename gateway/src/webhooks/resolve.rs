//! Resolving an endpoint's host name just before each attempt: A and AAAA both, with "the name has no
//! address records" (`unresolvable`) told apart from "the lookup failed" (`dns_failed`).

use std::future::Future;
use std::net::IpAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use hickory_resolver::config::{ResolverConfig, ResolverOpts};
use hickory_resolver::error::ResolveErrorKind;
use hickory_resolver::proto::op::{Query, ResponseCode};
use hickory_resolver::proto::rr::{RData, RecordType};
use hickory_resolver::{Hosts, Name, TokioAsyncResolver};

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

/// The hosts file the system reads first (`hosts: files dns`).
pub const HOSTS_FILE: &str = "/etc/hosts";

/// The system's way: the hosts file first, then the name servers (`/etc/resolv.conf`).
///
/// A name the hosts file lists is answered by the hosts file alone, with every address it gives the
/// name (IPv4 and IPv6), as glibc's `files` source answers it; the name servers are not asked. The
/// file is read again whenever it changes, as the system reads it at each lookup (docker
/// `--add-host`, Kubernetes `hostAliases`, a staging machine's own entries).
///
/// Any other name goes to the name servers, fully qualified: the machine's search domains never
/// extend a customer's name. A and AAAA are asked separately, so that one of them failing is a
/// failed lookup (`dns_failed`) rather than an answer of the other's addresses only; no records of
/// either kind is `unresolvable`. (hickory's `lookup_ip` would keep none of this: it answers one
/// kind's addresses when the other's lookup fails, asks the name servers for a kind the hosts file
/// does not list, and never finds a fully qualified name in the hosts file, while a name that is not
/// fully qualified gets the search domains.)
///
/// Every answer, the hosts file's included, is then checked like any other (`delivery`).
pub struct SystemResolver {
    dns: TokioAsyncResolver,
    hosts: HostsFile,
}

impl SystemResolver {
    /// Production: `/etc/resolv.conf` and `/etc/hosts`.
    pub fn new() -> Result<Self, String> {
        let (config, options) = hickory_resolver::system_conf::read_system_conf()
            .map_err(|e| format!("cannot read the system's DNS configuration: {e}"))?;
        Ok(SystemResolver::with(config, options, HOSTS_FILE))
    }

    /// These name servers and options, and the hosts file at `hosts_file` (tests use files and name
    /// servers of their own).
    pub fn with(config: ResolverConfig, mut options: ResolverOpts, hosts_file: impl Into<PathBuf>) -> Self {
        // The hosts file is read here (see `HostsFile`), not by hickory: its copy is read once, and
        // only `lookup_ip` consults it.
        options.use_hosts_file = false;
        SystemResolver {
            dns: TokioAsyncResolver::tokio(config, options),
            hosts: HostsFile { path: hosts_file.into(), read: Arc::new(Mutex::new(None)) },
        }
    }

    async fn ask_name_servers(&self, host: &str) -> Lookup {
        // Fully qualified: the search domains of the machine never extend a customer's name.
        let name = format!("{host}.");
        let (v4, v6) = tokio::join!(self.dns.ipv4_lookup(name.as_str()), self.dns.ipv6_lookup(name.as_str()));
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
    }
}

/// One record type's answer: its addresses (none for "no records"), or None for a failed lookup.
///
/// "No records" is an answer of NXDOMAIN, or NOERROR with no records of the type. hickory files
/// SERVFAIL, REFUSED, FORMERR, NOTIMP and the like under `NoRecordsFound` too, with their code: those
/// are failed lookups.
fn addresses_of(answer: Result<Vec<IpAddr>, hickory_resolver::error::ResolveError>) -> Option<Vec<IpAddr>> {
    match answer {
        Ok(addresses) => Some(addresses),
        Err(error) => match error.kind() {
            ResolveErrorKind::NoRecordsFound { response_code, .. }
                if matches!(*response_code, ResponseCode::NXDomain | ResponseCode::NoError) =>
            {
                Some(Vec::new())
            }
            _ => None,
        },
    }
}

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, host: &'a str) -> Pin<Box<dyn Future<Output = Lookup> + Send + 'a>> {
        Box::pin(async move {
            match self.hosts.addresses(host).await {
                Some(addresses) => Lookup::Addresses(addresses),
                None => self.ask_name_servers(host).await,
            }
        })
    }
}

/// The hosts file, parsed by hickory's own reader (`addr name [alias …]`, `#` comments, names
/// matched whatever their case), kept until the file changes.
struct HostsFile {
    path: PathBuf,
    read: Arc<Kept>,
}

/// The last parse, and the version of the file it was read from.
type Kept = Mutex<Option<(Version, Arc<Hosts>)>>;

/// What tells one version of the file from the next, without reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Version {
    modified: Option<SystemTime>,
    len: u64,
    device: u64,
    inode: u64,
}

impl HostsFile {
    /// The addresses the file gives `host`, or None when it does not list it (or cannot be read: then
    /// the name servers answer, as with the system's `files` source).
    async fn addresses(&self, host: &str) -> Option<Vec<IpAddr>> {
        // The name as given: no search domains here either. (Names in the file are not fully
        // qualified, and hickory tells `a.b` from `a.b.` when it looks one up.)
        let name = Name::from_ascii(host).ok()?;
        let (path, read) = (self.path.clone(), self.read.clone());
        // File system calls block: off the runtime's threads. A parse only when the file changed.
        let hosts = tokio::task::spawn_blocking(move || current(&path, &read)).await.ok()??;
        let mut addresses = Vec::new();
        for record_type in [RecordType::A, RecordType::AAAA] {
            if let Some(found) = hosts.lookup_static_host(&Query::query(name.clone(), record_type)) {
                addresses.extend(found.iter().filter_map(|rdata| match rdata {
                    RData::A(a) => Some(IpAddr::V4(a.0)),
                    RData::AAAA(aaaa) => Some(IpAddr::V6(aaaa.0)),
                    _ => None,
                }));
            }
        }
        (!addresses.is_empty()).then_some(addresses)
    }
}

/// The file as it is now: the kept parse if the file has not changed, else a new one.
fn current(path: &std::path::Path, read: &Kept) -> Option<Arc<Hosts>> {
    use std::os::unix::fs::MetadataExt;

    let metadata = std::fs::metadata(path).ok()?;
    let version = Version {
        modified: metadata.modified().ok(),
        len: metadata.len(),
        device: metadata.dev(),
        inode: metadata.ino(),
    };
    let mut read = read.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((kept, hosts)) = read.as_ref() {
        if *kept == version {
            return Some(hosts.clone());
        }
    }
    // Read after the version was taken: a change in between is seen (and read again) next time.
    let file = std::fs::File::open(path).ok()?;
    let hosts = Arc::new(Hosts::default().read_hosts_conf(file).ok()?);
    *read = Some((version, hosts.clone()));
    Some(hosts)
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::Duration;

    use hickory_resolver::config::NameServerConfigGroup;
    use hickory_resolver::proto::op::{Message, MessageType};
    use tokio::net::UdpSocket;

    use super::*;

    /// A name server on 127.0.0.1 that answers every question with `code` and no records, and keeps
    /// the names it was asked.
    struct NameServer {
        addr: SocketAddr,
        asked: Arc<Mutex<Vec<String>>>,
        task: tokio::task::JoinHandle<()>,
    }

    impl NameServer {
        async fn start(code: ResponseCode) -> NameServer {
            let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let addr = socket.local_addr().unwrap();
            let asked = Arc::new(Mutex::new(Vec::new()));
            let kept = asked.clone();
            let task = tokio::spawn(async move {
                let mut buffer = [0u8; 4096];
                loop {
                    let Ok((n, from)) = socket.recv_from(&mut buffer).await else { return };
                    let Ok(request) = Message::from_vec(&buffer[..n]) else { continue };
                    for query in request.queries() {
                        kept.lock().unwrap().push(format!("{} {}", query.name(), query.query_type()));
                    }
                    let mut answer = Message::new();
                    answer
                        .set_id(request.id())
                        .set_message_type(MessageType::Response)
                        .set_op_code(request.op_code())
                        .set_recursion_desired(request.recursion_desired())
                        .set_recursion_available(true)
                        .set_response_code(code)
                        .add_queries(request.queries().to_vec());
                    let _ = socket.send_to(&answer.to_vec().unwrap(), from).await;
                }
            });
            NameServer { addr, asked, task }
        }

        fn asked(&self) -> Vec<String> {
            self.asked.lock().unwrap().clone()
        }
    }

    impl Drop for NameServer {
        fn drop(&mut self) {
            self.task.abort();
        }
    }

    /// Name servers at `addr` only, with search domains and an ndots that would extend a name if
    /// they were applied; one try of 500 ms.
    fn resolver(addr: SocketAddr, hosts_file: &std::path::Path) -> SystemResolver {
        let servers = NameServerConfigGroup::from_ips_clear(&[addr.ip()], addr.port(), true);
        let search = vec![Name::from_ascii("corp.example.").unwrap(), Name::from_ascii("example.test.").unwrap()];
        let config = ResolverConfig::from_parts(Some(Name::from_ascii("corp.example.").unwrap()), search, servers);
        let mut options = ResolverOpts::default();
        options.ndots = 5;
        options.timeout = Duration::from_millis(500);
        options.attempts = 1;
        options.cache_size = 0;
        SystemResolver::with(config, options, hosts_file)
    }

    /// A hosts file of the test's own, removed when dropped.
    struct TempHosts(PathBuf);

    impl TempHosts {
        fn new(contents: &str) -> TempHosts {
            let path = std::env::temp_dir().join(format!("hosts-{}", uuid::Uuid::new_v4().simple()));
            std::fs::write(&path, contents).unwrap();
            TempHosts(path)
        }
    }

    impl Drop for TempHosts {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    const HOSTS: &str = "\
# a staging machine's own entries
127.0.0.1   localhost
10.1.2.3    hooks.staging.test   alias.staging.test # and a comment
fd00::7     hooks.staging.test
2a00:1450:4001::1 v6only.staging.test
192.0.2.9   Mixed.Case.Test
";

    fn addresses(list: &[&str]) -> Lookup {
        Lookup::Addresses(list.iter().map(|a| a.parse().unwrap()).collect())
    }

    async fn resolve(resolver: &SystemResolver, host: &str) -> Lookup {
        tokio::time::timeout(Duration::from_secs(5), resolver.resolve(host)).await.expect("the lookup ended")
    }

    #[tokio::test]
    async fn the_hosts_file_answers_the_names_it_lists_and_the_name_servers_the_others_as_given() {
        let server = NameServer::start(ResponseCode::NXDomain).await;
        let hosts = TempHosts::new(HOSTS);
        let resolver = resolver(server.addr, &hosts.0);
        // Every address the file gives the name, IPv4 and IPv6, and no name server asked.
        assert_eq!(resolve(&resolver, "hooks.staging.test").await, addresses(&["10.1.2.3", "fd00::7"]));
        assert_eq!(resolve(&resolver, "alias.staging.test").await, addresses(&["10.1.2.3"]));
        assert_eq!(resolve(&resolver, "v6only.staging.test").await, addresses(&["2a00:1450:4001::1"]));
        assert_eq!(resolve(&resolver, "mixed.case.test").await, addresses(&["192.0.2.9"]));
        assert_eq!(resolve(&resolver, "HOOKS.staging.test").await, addresses(&["10.1.2.3", "fd00::7"]));
        assert_eq!(server.asked(), Vec::<String>::new(), "the hosts file answered alone");
        // Names not in the file (nor a suffix or a prefix of a name in it): the name servers.
        for host in ["other.staging.test", "staging.test", "hooks.staging.test.example"] {
            assert_eq!(resolve(&resolver, host).await, Lookup::NoRecords, "{host}");
        }
        let mut asked = server.asked();
        asked.sort();
        assert_eq!(
            asked,
            [
                "hooks.staging.test.example. A",
                "hooks.staging.test.example. AAAA",
                "other.staging.test. A",
                "other.staging.test. AAAA",
                "staging.test. A",
                "staging.test. AAAA",
            ],
            "each name once, fully qualified: no search domain, no local domain"
        );
    }

    #[tokio::test]
    async fn a_lookup_that_fails_is_a_failed_lookup_and_no_records_is_unresolvable() {
        let hosts = TempHosts::new(HOSTS);
        // An answer that is no answer: hickory calls these "no records found" too.
        for code in [ResponseCode::ServFail, ResponseCode::Refused, ResponseCode::FormErr, ResponseCode::NotImp] {
            let failing = NameServer::start(code).await;
            assert_eq!(
                resolve(&resolver(failing.addr, &hosts.0), "other.staging.test").await,
                Lookup::Failed,
                "{code}"
            );
        }
        // A name server that never answers: the lookup gives up (the resolver's timeout), failed.
        let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let silent = resolver(silent.local_addr().unwrap(), &hosts.0);
        assert_eq!(resolve(&silent, "other.staging.test").await, Lookup::Failed);
        // ...while the hosts file still answers at once.
        assert_eq!(resolve(&silent, "alias.staging.test").await, addresses(&["10.1.2.3"]));
        let empty = NameServer::start(ResponseCode::NoError).await;
        assert_eq!(resolve(&resolver(empty.addr, &hosts.0), "other.staging.test").await, Lookup::NoRecords);
    }

    #[tokio::test]
    async fn the_hosts_file_is_read_again_when_it_changes_and_a_missing_one_is_no_entries() {
        let server = NameServer::start(ResponseCode::NXDomain).await;
        let hosts = TempHosts::new("10.1.2.3 hooks.staging.test\n");
        let resolver = resolver(server.addr, &hosts.0);
        assert_eq!(resolve(&resolver, "hooks.staging.test").await, addresses(&["10.1.2.3"]));
        std::fs::write(&hosts.0, "10.9.9.9 hooks.staging.test\n::1 hooks.staging.test\n").unwrap();
        assert_eq!(resolve(&resolver, "hooks.staging.test").await, addresses(&["10.9.9.9", "::1"]));
        std::fs::remove_file(&hosts.0).unwrap();
        assert_eq!(resolve(&resolver, "hooks.staging.test").await, Lookup::NoRecords);
        assert_eq!(server.asked().len(), 2, "only once the file was gone: {:?}", server.asked());
    }
}
