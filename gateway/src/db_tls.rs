//! TLS to PostgreSQL, the same for the gateway's pool (and its cancel requests), the webhook worker
//! and `migrate`: a connection string's `sslmode` and `sslrootcert` are read here, because
//! tokio-postgres refuses `verify-ca`/`verify-full` and knows no `sslrootcert`; the rest of the
//! string goes to tokio-postgres as it was, and every connection is made through one rustls
//! connector (tokio-postgres-rustls, ring provider) set up for the mode.
//!
//! Modes, as libpq: `disable` (no TLS); `allow`, `prefer` or none (TLS if the server offers it;
//! tokio-postgres has no `allow`, so it tries TLS first); `require` (TLS); `verify-ca` (TLS, the chain
//! must lead to a root of `sslrootcert`); `verify-full` (that, and the certificate must name the host:
//! `host`, also when `hostaddr` says where to connect). Without verification the certificate is not
//! checked, except that as in libpq an explicit `sslrootcert` makes `allow`/`prefer`/`require` check
//! the chain too. `verify-*` without `sslrootcert` is refused at start-up (libpq would fall back on
//! `~/.postgresql/root.crt`, of whichever user runs the process); `sslrootcert=system` takes the
//! public web roots (webpki-roots) and, as in libpq, implies `verify-full` and refuses weaker modes.
//!
//! No message made here quotes the connection string or a value from it but the `sslrootcert` path:
//! a password never reaches a log line or an error.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::Socket;
use tokio_postgres_rustls::MakeRustlsConnect;

/// `sslmode`, as libpq spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Option<SslMode> {
        Some(match value {
            "disable" => SslMode::Disable,
            "allow" => SslMode::Allow,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    /// What tokio-postgres is told: whether to ask for TLS, and whether to insist.
    fn wire(self) -> tokio_postgres::config::SslMode {
        use tokio_postgres::config::SslMode as Wire;
        match self {
            SslMode::Disable => Wire::Disable,
            SslMode::Allow | SslMode::Prefer => Wire::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => Wire::Require,
        }
    }
}

/// Where the trust anchors come from.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Roots {
    File(String),
    /// `sslrootcert=system`: the public web roots.
    System,
}

/// How the server's certificate is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    None,
    Chain,
    ChainAndName,
}

/// The stream of a connection made through [`DatabaseLink`]: plain or TLS.
pub type Connection = tokio_postgres::Connection<Socket, <MakeRustlsConnect as MakeTlsConnect<Socket>>::Stream>;

/// A connection string made ready: tokio-postgres's settings (its `sslmode` set) and the connector
/// every connection and cancel request to that database goes through.
#[derive(Clone)]
pub struct DatabaseLink {
    pub config: tokio_postgres::Config,
    pub tls: MakeRustlsConnect,
    pub mode: SslMode,
}

/// What `url` connects to, in words, its password only as set or unset (`ingest config`).
pub fn describe(url: &str) -> String {
    let Ok(link) = DatabaseLink::parse(url, "the connection string") else {
        return "(set; not a connection string this binary reads)".to_string();
    };
    let config = &link.config;
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let ports: Vec<String> = config.get_ports().iter().map(ToString::to_string).collect();
    // (libpq's spelling, as the URL takes it: what a multi-host URL needs to find the primary)
    let target_session_attrs = match config.get_target_session_attrs() {
        tokio_postgres::config::TargetSessionAttrs::ReadWrite => "read-write",
        tokio_postgres::config::TargetSessionAttrs::ReadOnly => "read-only",
        _ => "any",
    };
    format!(
        "host={} port={} dbname={} user={} sslmode={:?} target_session_attrs={target_session_attrs} password={}",
        hosts.join(","),
        ports.join(","),
        config.get_dbname().unwrap_or(""),
        config.get_user().unwrap_or(""),
        link.mode,
        if config.get_password().is_some() { "(set)" } else { "(unset)" }
    )
}

impl DatabaseLink {
    /// Bounds each host's TCP connect to `deadline` ÷ (hosts + 1). tokio-postgres tries the hosts
    /// of a multi-host URL in turn, each with the whole connect timeout: one that drops packets (a
    /// failed primary's machine, gone silent) would spend the caller's whole deadline, and the
    /// next host, the new primary, would never be tried (docs/operating.md, "Failover"). A
    /// connect on a working network takes milliseconds.
    pub fn bound_each_connect(&mut self, deadline: Duration) {
        let hosts = u32::try_from(self.config.get_hosts().len()).unwrap_or(u32::MAX).max(1);
        self.config.connect_timeout(deadline / hosts.saturating_add(1));
    }

    /// Reads `url` (URL or key=value form); `setting` names it in messages (`DATABASE_URL`). Reads
    /// the `sslrootcert` file now, so a missing one stops the start, not the first request.
    pub fn parse(url: &str, setting: &str) -> Result<DatabaseLink, String> {
        let split = split(url).map_err(|problem| format!("{setting}: {problem}"))?;
        let mut config: tokio_postgres::Config =
            split.rest.parse().map_err(|_| format!("{setting} is not a valid PostgreSQL connection string"))?;
        let (mode, roots) = resolve(split.sslmode.as_deref(), split.sslrootcert.as_deref())
            .map_err(|problem| format!("{setting}: {problem}"))?;
        let check = match (mode, &roots) {
            (SslMode::VerifyFull, _) => Check::ChainAndName,
            (SslMode::VerifyCa, _) => Check::Chain,
            (SslMode::Disable, _) | (_, None) => Check::None,
            (_, Some(_)) => Check::Chain,
        };
        let roots = match (check, roots) {
            (Check::None, _) | (_, None) => RootCertStore::empty(),
            (_, Some(roots)) => load_roots(&roots).map_err(|problem| format!("{setting}: {problem}"))?,
        };
        let tls = connector(check, roots).map_err(|problem| format!("{setting}: {problem}"))?;
        config.ssl_mode(mode.wire());
        Ok(DatabaseLink { config, tls: MakeRustlsConnect::new(tls), mode })
    }

    /// One connection (a failure is put in words by [`DatabaseLink::explain`] or
    /// [`DatabaseLink::explain_for_log`]).
    pub async fn connect(&self) -> Result<(tokio_postgres::Client, Connection), tokio_postgres::Error> {
        self.config.connect(self.tls.clone()).await
    }

    /// A connection error in words an operator can act on: tokio-postgres's own display leaves the
    /// cause out ("db error", "error performing TLS handshake"). None of it quotes the password.
    /// It holds the server's own message: for `migrate`'s answer to the person running it, never for
    /// a log line (see [`DatabaseLink::explain_for_log`]).
    pub fn explain(&self, error: &tokio_postgres::Error) -> String {
        self.explanation(error, true)
    }

    /// [`DatabaseLink::explain`] without the server's message (a log line carries no database
    /// message): its SQLSTATE, and our own hint where we have one.
    pub fn explain_for_log(&self, error: &tokio_postgres::Error) -> String {
        self.explanation(error, false)
    }

    fn explanation(&self, error: &tokio_postgres::Error, with_server_message: bool) -> String {
        let Some(db) = error.as_db_error() else {
            let mut text = error.to_string();
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                let certificate = cause
                    .downcast_ref::<std::io::Error>()
                    .and_then(|io| io.get_ref())
                    .and_then(|inner| inner.downcast_ref::<rustls::Error>());
                if let Some(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)) = certificate {
                    text.push_str(" (no certificate authority of sslrootcert signed the server's certificate)");
                }
                source = cause.source();
            }
            return text;
        };
        let mut text = match with_server_message {
            true => format!("{}: {} (SQLSTATE {})", db.severity(), db.message(), db.code().code()),
            false => format!("the server refused the connection (SQLSTATE {})", db.code().code()),
        };
        if self.mode == SslMode::Disable && db.code().code() == "28000" && db.message().ends_with("no encryption") {
            text.push_str(
                "; the server takes TLS connections only, and sslmode=disable sends none: \
                 use sslmode=verify-full with sslrootcert (see docs/operating.md)",
            );
        }
        text
    }
}

/// What [`split`] takes out of a connection string.
#[derive(Debug, PartialEq, Eq)]
struct Split {
    /// The string without `sslmode` and `sslrootcert`, otherwise as it was.
    rest: String,
    sslmode: Option<String>,
    sslrootcert: Option<String>,
}

/// libpq's other TLS keys: tokio-postgres would refuse them as unknown; said plainly here instead.
const UNSUPPORTED: [&str; 8] = [
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
];

/// Takes `sslmode` and `sslrootcert` out of `url`, reading it the way tokio-postgres does, so that
/// what it gets is the rest, unchanged: URL parameters are percent-decoded, key=value values may be
/// quoted and backslash-escaped. The last of a key given twice wins, as in libpq and tokio-postgres.
/// Anything malformed is left in place for tokio-postgres to refuse. (Its own reader is private
/// and refuses both keys, so these two are read here, and only these.)
fn split(url: &str) -> Result<Split, String> {
    let mut found = Split { rest: String::new(), sslmode: None, sslrootcert: None };
    let mut keep = |key: &str, value: String| -> Result<bool, String> {
        if UNSUPPORTED.contains(&key) {
            return Err(format!("{key} is not supported (of libpq's TLS settings, only sslmode and sslrootcert are)"));
        }
        match key {
            "sslmode" => found.sslmode = Some(value),
            "sslrootcert" => found.sslrootcert = Some(value),
            _ => return Ok(true),
        }
        Ok(false)
    };
    let rest = match ["postgres://", "postgresql://"].iter().find(|prefix| url.starts_with(*prefix)) {
        Some(prefix) => split_url(url, prefix.len(), &mut keep)?,
        None => split_key_values(url, &mut keep)?,
    };
    found.rest = rest;
    Ok(found)
}

/// URL form: the query starts at the first `?` after the credentials (tokio-postgres takes them up
/// to the first `@`, so a `?` in a password is not one); a parameter runs from its key to the next
/// `&` after its `=`.
fn split_url(
    url: &str,
    prefix: usize,
    keep: &mut impl FnMut(&str, String) -> Result<bool, String>,
) -> Result<String, String> {
    let after_credentials = url[prefix..].find('@').map_or(prefix, |at| prefix + at + 1);
    let Some(question) = url[after_credentials..].find('?').map(|q| after_credentials + q) else {
        return Ok(url.to_string());
    };
    let mut kept: Vec<&str> = Vec::new();
    let mut query = &url[question + 1..];
    while !query.is_empty() {
        let Some(equals) = query.find('=') else {
            kept.push(query);
            break;
        };
        let end = query[equals + 1..].find('&').map_or(query.len(), |amp| equals + 1 + amp);
        let kept_here = match (decode(&query[..equals]), decode(&query[equals + 1..end])) {
            (Some(key), Some(value)) => keep(&key, value)?,
            _ => true,
        };
        if kept_here {
            kept.push(&query[..end]);
        }
        query = query.get(end + 1..).unwrap_or("");
    }
    let base = &url[..question];
    Ok(if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) })
}

fn decode(text: &str) -> Option<String> {
    percent_encoding::percent_decode_str(text).decode_utf8().ok().map(|text| text.into_owned())
}

/// key=value form: `key = value` pairs apart by white space; a value is `'quoted'` or runs to the
/// next white space, `\` escaping the next character in both. A pair taken out leaves one space.
fn split_key_values(text: &str, keep: &mut impl FnMut(&str, String) -> Result<bool, String>) -> Result<String, String> {
    let mut rest = String::new();
    let mut copied = 0;
    let mut chars = text.char_indices().peekable();
    let skip_ws = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
    };
    loop {
        skip_ws(&mut chars);
        let Some(&(start, _)) = chars.peek() else { break };
        let mut key_end = start;
        while let Some((i, c)) = chars.next_if(|(_, c)| !c.is_whitespace() && *c != '=') {
            key_end = i + c.len_utf8();
        }
        skip_ws(&mut chars);
        if key_end == start || chars.next_if(|(_, c)| *c == '=').is_none() {
            break;
        }
        skip_ws(&mut chars);
        let quoted = chars.next_if(|(_, c)| *c == '\'').is_some();
        let mut value = String::new();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\'' if quoted => {
                    end = Some(i + 1);
                    break;
                }
                c if c.is_whitespace() && !quoted => {
                    end = Some(i);
                    break;
                }
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                c => value.push(c),
            }
        }
        let end = match end {
            Some(end) => end,
            None if !quoted && !value.is_empty() => text.len(),
            // An unterminated quote or a missing value: tokio-postgres says so.
            None => break,
        };
        if !keep(&text[start..key_end], value)? {
            rest.push_str(&text[copied..start]);
            rest.push(' ');
            copied = end;
        }
    }
    rest.push_str(&text[copied..]);
    Ok(rest)
}

/// The mode, and the roots when one is needed, from the two values; refuses what libpq refuses.
fn resolve(sslmode: Option<&str>, sslrootcert: Option<&str>) -> Result<(SslMode, Option<Roots>), String> {
    let roots = match sslrootcert {
        None | Some("") => None,
        Some("system") => Some(Roots::System),
        Some(path) => Some(Roots::File(path.to_string())),
    };
    let mode = match sslmode {
        None if roots == Some(Roots::System) => SslMode::VerifyFull,
        None => SslMode::Prefer,
        Some(value) => SslMode::parse(value)
            .ok_or("sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full".to_string())?,
    };
    if roots == Some(Roots::System) && mode != SslMode::VerifyFull {
        return Err("sslrootcert=system needs sslmode=verify-full (as in libpq)".into());
    }
    if matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) && roots.is_none() {
        return Err(format!(
            "sslmode={} needs sslrootcert: the PEM file of the certificate authority that signed the \
             server's certificate (or sslrootcert=system for the public web roots)",
            if mode == SslMode::VerifyCa { "verify-ca" } else { "verify-full" }
        ));
    }
    Ok((mode, roots))
}

fn load_roots(roots: &Roots) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match roots {
        Roots::System => store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        Roots::File(path) => {
            let certificates = CertificateDer::pem_file_iter(Path::new(path))
                .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
                .map_err(|e| format!("cannot read sslrootcert {path}: {e}"))?;
            for certificate in certificates {
                store.add(certificate).map_err(|e| format!("sslrootcert {path}: not a usable certificate: {e}"))?;
            }
            if store.is_empty() {
                return Err(format!("sslrootcert {path} holds no PEM certificate"));
            }
        }
    }
    Ok(store)
}

fn connector(check: Check, roots: RootCertStore) -> Result<ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let verifier: Arc<dyn ServerCertVerifier> = match check {
        Check::None => Arc::new(Unverified(provider)),
        Check::Chain | Check::ChainAndName => {
            let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|e| format!("TLS: {e}"))?;
            match check {
                Check::Chain => Arc::new(ChainOnly(webpki)),
                _ => webpki,
            }
        }
    };
    let mut tls = builder.dangerous().with_custom_certificate_verifier(verifier).with_no_client_auth();
    // What libpq 17 sends; needed for sslnegotiation=direct, ignored by older servers.
    tls.alpn_protocols = vec![b"postgresql".to_vec()];
    Ok(tls)
}

/// `allow`/`prefer`/`require` without `sslrootcert`: encrypted, the certificate not checked (what
/// libpq does). The handshake's signature is still checked against the certificate shown.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: webpki's verification, less the host name. Webpki checks the chain (and expiry)
/// before the name, so a name error means the chain was good.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWORD: &str = "s3cret-Pa55";

    #[test]
    fn each_host_connects_within_a_share_of_the_deadline_that_leaves_time_for_the_next() {
        let timeout_for = |url: &str| {
            let mut link = DatabaseLink::parse(url, "DATABASE_URL").unwrap();
            link.bound_each_connect(Duration::from_secs(6));
            link.config.get_connect_timeout().copied()
        };
        assert_eq!(timeout_for("postgres://u@db1/ingest"), Some(Duration::from_secs(3)));
        assert_eq!(
            timeout_for("postgres://u@db1,db2/ingest?target_session_attrs=read-write"),
            Some(Duration::from_secs(2))
        );
        assert_eq!(timeout_for("host=db1,db2,db3 dbname=ingest"), Some(Duration::from_millis(1500)));
    }

    fn split_ok(url: &str) -> (String, Option<String>, Option<String>) {
        let split = split(url).unwrap();
        (split.rest, split.sslmode, split.sslrootcert)
    }

    fn some(text: &str) -> Option<String> {
        Some(text.to_string())
    }

    #[test]
    fn a_connection_is_described_without_its_password_in_either_form() {
        let url = describe("postgres://gw:hunter2@db.internal:5433/ingest?sslmode=require");
        assert_eq!(
            url,
            "host=db.internal port=5433 dbname=ingest user=gw sslmode=Require target_session_attrs=any password=(set)"
        );
        let failover = describe("postgres://gw@db1,db2/ingest?target_session_attrs=read-write");
        assert!(
            failover.starts_with("host=db1,db2 port=5432,5432 ")
                && failover.contains(" target_session_attrs=read-write ")
        );
        let pairs = describe("host=db user=worker password='s3 cret' dbname=ingest");
        assert!(!pairs.contains("s3") && pairs.ends_with("password=(set)"), "{pairs}");
        assert_eq!(describe("nonsense ==="), "(set; not a connection string this binary reads)");
    }

    #[test]
    fn url_form_loses_only_the_two_keys_and_decodes_their_values() {
        let (rest, mode, root) = split_ok(concat!(
            "postgres://u:pw@db.example.test:6432/app?sslmode=verify-full&application_name=x",
            "&sslrootcert=%2Fetc%2Fca%20one.pem&hostaddr=10.0.0.1"
        ));
        assert_eq!(rest, "postgres://u:pw@db.example.test:6432/app?application_name=x&hostaddr=10.0.0.1");
        assert_eq!((mode, root), (some("verify-full"), some("/etc/ca one.pem")));

        assert_eq!(split_ok("postgresql://h/db?sslmode=require"), ("postgresql://h/db".into(), some("require"), None));
        assert_eq!(split_ok("postgres://h/db"), ("postgres://h/db".into(), None, None));
        assert_eq!(split_ok("postgres://h/db?sslmode=disable&sslmode=require").1, some("require"), "the last wins");
    }

    #[test]
    fn a_question_mark_in_the_password_is_not_the_query() {
        let (rest, mode, _) = split_ok("postgres://u:pa?sslmode=disable@h/db?sslmode=require");
        assert_eq!(rest, "postgres://u:pa?sslmode=disable@h/db");
        assert_eq!(mode, some("require"));
    }

    #[test]
    fn key_value_form_loses_only_the_two_keys_and_reads_quotes_and_escapes() {
        let (rest, mode, root) = split_ok(concat!(
            r"host=db.example.test hostaddr=127.0.0.1 sslmode = verify-full password='a b\'c'",
            r" sslrootcert='/etc/my ca.pem' dbname=app"
        ));
        assert_eq!(rest, r"host=db.example.test hostaddr=127.0.0.1   password='a b\'c'   dbname=app");
        assert_eq!((mode, root), (some("verify-full"), some("/etc/my ca.pem")));
        assert_eq!(split_ok(r"sslrootcert=/etc/a\ b.pem").2, some("/etc/a b.pem"));
        assert_eq!(split_ok("host=h sslmode='require'dbname=x").0, "host=h  dbname=x");
        // Malformed: left to tokio-postgres, which refuses it.
        assert_eq!(split_ok("host=h password='open").0, "host=h password='open");
    }

    #[test]
    fn the_rest_reaches_tokio_postgres_intact() {
        let url = format!(
            "host=db.example.test hostaddr=127.0.0.1 port=6432 user=u password='{PASSWORD} x' \
             sslmode=verify-ca sslrootcert=system"
        );
        let error = DatabaseLink::parse(&url, "DATABASE_URL").err().unwrap();
        assert_eq!(error, "DATABASE_URL: sslrootcert=system needs sslmode=verify-full (as in libpq)");

        let link = DatabaseLink::parse(&url.replace("verify-ca", "verify-full"), "DATABASE_URL").unwrap();
        assert_eq!(link.mode, SslMode::VerifyFull);
        assert_eq!(link.config.get_ssl_mode(), tokio_postgres::config::SslMode::Require);
        assert_eq!(link.config.get_hosts(), [tokio_postgres::config::Host::Tcp("db.example.test".into())]);
        assert_eq!(link.config.get_hostaddrs(), ["127.0.0.1".parse::<std::net::IpAddr>().unwrap()]);
        assert_eq!(link.config.get_password(), Some(format!("{PASSWORD} x").as_bytes()));
    }

    #[test]
    fn modes_as_libpq_reads_them() {
        assert_eq!(resolve(None, None), Ok((SslMode::Prefer, None)));
        assert_eq!(resolve(None, Some("")), Ok((SslMode::Prefer, None)));
        assert_eq!(resolve(None, Some("system")), Ok((SslMode::VerifyFull, Some(Roots::System))));
        assert_eq!(resolve(Some("allow"), None), Ok((SslMode::Allow, None)));
        assert_eq!(
            resolve(Some("require"), Some("/ca.pem")),
            Ok((SslMode::Require, Some(Roots::File("/ca.pem".into()))))
        );
        assert!(resolve(Some("require"), Some("system")).is_err());
        assert!(resolve(Some("verify-ca"), None).unwrap_err().contains("sslmode=verify-ca needs sslrootcert"));
        assert!(resolve(Some("verify-full"), Some("")).unwrap_err().contains("sslmode=verify-full needs sslrootcert"));
        assert!(resolve(Some("VERIFY-FULL"), None).unwrap_err().starts_with("sslmode must be one of"));

        let wire =
            |mode: &str| DatabaseLink::parse(&format!("host=h sslmode={mode}"), "X").unwrap().config.get_ssl_mode();
        use tokio_postgres::config::SslMode as Wire;
        assert_eq!(wire("disable"), Wire::Disable);
        assert_eq!(wire("allow"), Wire::Prefer);
        assert_eq!(wire("prefer"), Wire::Prefer);
        assert_eq!(wire("require"), Wire::Require);
    }

    #[test]
    fn bad_settings_are_clear_errors_that_never_quote_the_password() {
        let missing = std::env::temp_dir().join(format!("no-such-ca-{}.pem", uuid::Uuid::new_v4()));
        let not_pem = std::env::temp_dir().join(format!("not-a-ca-{}.pem", uuid::Uuid::new_v4()));
        std::fs::write(&not_pem, "hello").unwrap();
        let cases = [
            (format!("postgres://u:{PASSWORD}@h/db?sslmode=verify_full"), "DATABASE_URL: sslmode must be one of"),
            (format!("postgres://u:{PASSWORD}@h/db?sslmode={PASSWORD}"), "DATABASE_URL: sslmode must be one of"),
            (
                format!("postgres://u:{PASSWORD}@h/db?sslmode=verify-full"),
                "DATABASE_URL: sslmode=verify-full needs sslrootcert",
            ),
            (
                format!("postgres://u:{PASSWORD}@h/db?sslmode=verify-full&sslrootcert={}", missing.display()),
                "DATABASE_URL: cannot read sslrootcert /",
            ),
            (
                format!("user=u password={PASSWORD} host=h sslmode=verify-ca sslrootcert={}", not_pem.display()),
                "DATABASE_URL: sslrootcert /",
            ),
            (format!("postgres://u:{PASSWORD}@h/db?sslcert=/c.pem"), "DATABASE_URL: sslcert is not supported"),
            (format!("postgres://u:{PASSWORD}@h/db?nonsense={PASSWORD}"), "DATABASE_URL is not a valid PostgreSQL"),
            (format!("host=h password='{PASSWORD}"), "DATABASE_URL is not a valid PostgreSQL"),
        ];
        for (url, start) in cases {
            let error = DatabaseLink::parse(&url, "DATABASE_URL").err().unwrap_or_else(|| panic!("{url} must fail"));
            assert!(error.starts_with(start), "{url}: {error}");
            assert!(!error.contains(PASSWORD), "{url}: {error}");
        }
        let _ = std::fs::remove_file(not_pem);
    }

    #[test]
    fn a_pem_root_file_is_read_at_start_up() {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca = params.self_signed(&key).unwrap();
        let path = std::env::temp_dir().join(format!("db-tls-ca-{}.pem", uuid::Uuid::new_v4()));
        std::fs::write(&path, ca.pem()).unwrap();
        for mode in ["require", "verify-ca", "verify-full"] {
            let url = format!("postgres://h/db?sslmode={mode}&sslrootcert={}", path.display());
            assert!(DatabaseLink::parse(&url, "DATABASE_URL").is_ok(), "{mode}");
        }
        // disable never reads it.
        assert!(DatabaseLink::parse("postgres://h/db?sslmode=disable&sslrootcert=/nowhere.pem", "X").is_ok());
        let _ = std::fs::remove_file(path);
    }
}
