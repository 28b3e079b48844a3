//! One delivery attempt: resolve, check every address, connect only to a checked one, TLS with the
//! registered host as SNI, one HTTP/1.1 POST, read the status line and nothing more. Five seconds
//! for the whole of it.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;
use tokio::net::TcpStream;
use tokio::time::timeout;
use tokio_rustls::TlsConnector;

use super::address::AddressPolicy;
use super::resolve::{Lookup, Resolve};
use super::signature;

/// The spec's delivery timeout: the whole attempt, lookup included.
pub const ATTEMPT_DEADLINE: Duration = Duration::from_secs(5);

/// What one attempt came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The endpoint answered with this status (2xx delivered; the database judges the rest).
    Answered(u16),
    /// No answer to judge.
    Failed(Failure),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    Timeout,
    ConnectionRefused,
    ConnectionFailed,
    TlsFailed,
    DnsFailed,
    Unresolvable,
    PrivateAddress,
}

impl Failure {
    /// The reason as `webhook.record_attempt` and the console name it.
    pub fn reason(self) -> &'static str {
        match self {
            Failure::Timeout => "timeout",
            Failure::ConnectionRefused => "connection_refused",
            Failure::ConnectionFailed => "connection_failed",
            Failure::TlsFailed => "tls_failed",
            Failure::DnsFailed => "dns_failed",
            Failure::Unresolvable => "unresolvable",
            Failure::PrivateAddress => "private_address",
        }
    }
}

/// One hint to send, as the claim hands it over.
pub struct Hint<'a> {
    pub url: &'a str,
    pub host: &'a str,
    pub secret: &'a str,
    pub body: &'a str,
}

/// Everything an attempt needs besides the hint. Built by [`Sender::production`]; tests build one
/// with their own resolver, trust anchors, port and address ranges (see `WorkerWiring`).
#[derive(Clone)]
pub struct Sender {
    pub(super) resolver: Arc<dyn Resolve>,
    pub(super) tls: TlsConnector,
    pub(super) port: u16,
    pub(super) policy: AddressPolicy,
}

impl Sender {
    pub async fn send(&self, hint: &Hint<'_>) -> Outcome {
        timeout(ATTEMPT_DEADLINE, self.attempt(hint)).await.unwrap_or(Outcome::Failed(Failure::Timeout))
    }

    async fn attempt(&self, hint: &Hint<'_>) -> Outcome {
        let addresses = match self.resolver.resolve(hint.host).await {
            Lookup::Addresses(addresses) if addresses.is_empty() => return Outcome::Failed(Failure::Unresolvable),
            Lookup::Addresses(addresses) => addresses,
            Lookup::NoRecords => return Outcome::Failed(Failure::Unresolvable),
            Lookup::Failed => return Outcome::Failed(Failure::DnsFailed),
        };
        // A request that cannot be built (a URL registered before its characters were checked) is a
        // failure recorded like any other, never a panic that would leave the hint in flight.
        let Some(request) = request(hint) else {
            return Outcome::Failed(Failure::ConnectionFailed);
        };
        // Any address that is not public, and nothing is sent: a name that answers one public and
        // one private address is how a rebinding attacker would pick.
        if !addresses.iter().all(|&address| self.policy.permits(address)) {
            return Outcome::Failed(Failure::PrivateAddress);
        }
        let stream = match connect_any(&addresses, self.port).await {
            Ok(stream) => stream,
            Err(failure) => return Outcome::Failed(failure),
        };
        let Ok(server_name) = ServerName::try_from(hint.host.to_string()) else {
            return Outcome::Failed(Failure::TlsFailed);
        };
        let Ok(tls) = self.tls.connect(server_name, stream).await else {
            return Outcome::Failed(Failure::TlsFailed);
        };
        let Ok((mut sender, connection)) = hyper::client::conn::http1::handshake(TokioIo::new(tls)).await else {
            return Outcome::Failed(Failure::ConnectionFailed);
        };
        let connection = tokio::spawn(connection);
        let outcome = match sender.send_request(request).await {
            // The status line is all that counts; the body is never read. A status outside
            // 100-599 is no HTTP answer the database can judge: a failed connection.
            Ok(response) if (100..=599).contains(&response.status().as_u16()) => {
                Outcome::Answered(response.status().as_u16())
            }
            Ok(_) => Outcome::Failed(Failure::ConnectionFailed),
            Err(_) => Outcome::Failed(Failure::ConnectionFailed),
        };
        connection.abort();
        outcome
    }
}

/// The POST: the exact body bytes, signed at the moment of sending; None when the URL's path or
/// query holds a character a request line cannot carry.
fn request(hint: &Hint<'_>) -> Option<http::Request<Full<Bytes>>> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs());
    http::Request::post(path_and_query(hint.url))
        .header(http::header::HOST, hint.host)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::USER_AGENT, "Service-Webhooks/1")
        .header("Service-Signature", signature::header_value(hint.secret, now, hint.body.as_bytes()))
        .header(http::header::CONTENT_LENGTH, hint.body.len())
        .body(Full::new(Bytes::copy_from_slice(hint.body.as_bytes())))
        .ok()
}

/// The path and query of a registered `https://host[:443][/path][?query]` URL (`/` when none).
pub fn path_and_query(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    match after_scheme.find(['/', '?']) {
        Some(at) if after_scheme[at..].starts_with('?') => format!("/{}", &after_scheme[at..]),
        Some(at) => after_scheme[at..].to_string(),
        None => "/".to_string(),
    }
}

/// Connects to the first checked address that accepts: refused everywhere is `connection_refused`,
/// any other failure `connection_failed`. Never looks the name up again.
async fn connect_any(addresses: &[IpAddr], port: u16) -> Result<TcpStream, Failure> {
    let mut failure = Failure::ConnectionRefused;
    for &address in addresses {
        match TcpStream::connect(SocketAddr::new(address, port)).await {
            Ok(stream) => return Ok(stream),
            Err(error) if error.kind() == io::ErrorKind::ConnectionRefused => {}
            Err(_) => failure = Failure::ConnectionFailed,
        }
    }
    Err(failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_target_is_the_urls_path_and_query() {
        assert_eq!(path_and_query("https://hooks.example.com"), "/");
        assert_eq!(path_and_query("https://hooks.example.com/"), "/");
        assert_eq!(path_and_query("https://hooks.example.com:443/in/hints"), "/in/hints");
        assert_eq!(path_and_query("https://hooks.example.com/in?op=7&x=%20"), "/in?op=7&x=%20");
        assert_eq!(path_and_query("https://hooks.example.com?op=7"), "/?op=7");
        assert_eq!(path_and_query("HTTPS://Hooks.Example.com:443?op=7"), "/?op=7");
    }

    #[test]
    fn a_url_a_request_line_cannot_carry_builds_no_request_instead_of_panicking() {
        let hint = |url| Hint { url, host: "hooks.example.com", secret: "whsec_x", body: "{}" };
        assert!(request(&hint("https://hooks.example.com/in?op=7")).is_some());
        assert!(request(&hint("https://hooks.example.com/a<b>?q=\"x\"")).is_none());
    }

    #[test]
    fn every_failure_has_the_reason_the_database_knows() {
        let reasons: Vec<&str> = [
            Failure::Timeout,
            Failure::ConnectionRefused,
            Failure::ConnectionFailed,
            Failure::TlsFailed,
            Failure::DnsFailed,
            Failure::Unresolvable,
            Failure::PrivateAddress,
        ]
        .iter()
        .map(|failure| failure.reason())
        .collect();
        assert_eq!(
            reasons,
            [
                "timeout",
                "connection_refused",
                "connection_failed",
                "tls_failed",
                "dns_failed",
                "unresolvable",
                "private_address"
            ]
        );
    }
}
