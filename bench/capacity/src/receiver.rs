//! The operators' webhook receiver: HTTPS on port 443 of this machine, under a name the hosts file
//! gives it (`HOOK_HOST`), with a certificate from a test authority the gateway is told to trust
//! (`WEBHOOK_EXTRA_ROOTS`), as the webhook tests do. Every operator's endpoint is
//! `https://HOOK_HOST/op/<i>`: a hint is answered 204 and handed on as (operator, booking
//! reference, its `occurred_at`), so the operator pulls at once and the delivery is timed.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use time::OffsetDateTime;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;

pub const HOOK_HOST: &str = "hooks.capacity.test";

pub struct Hint {
    pub operator: u32,
    pub reference: String,
    /// Now − the hint's `occurred_at` (both this machine's clock).
    pub delay: time::Duration,
}

/// Writes a test authority (`ca.pem`) and a certificate for `HOOK_HOST` it signed (`cert.pem`,
/// `key.pem`) into `dir`.
pub fn make_certificates(dir: &Path) -> Result<(), String> {
    let fault = |e: rcgen::Error| e.to_string();
    let ca_key = rcgen::KeyPair::generate().map_err(fault)?;
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).map_err(fault)?;
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name.push(rcgen::DnType::CommonName, "capacity bench authority");
    let ca_cert = ca.self_signed(&ca_key).map_err(fault)?;
    let key = rcgen::KeyPair::generate().map_err(fault)?;
    let leaf = rcgen::CertificateParams::new(vec![HOOK_HOST.to_string()]).map_err(fault)?;
    let cert = leaf.signed_by(&key, &ca_cert, &ca_key).map_err(fault)?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    for (name, text) in [("ca.pem", ca_cert.pem()), ("cert.pem", cert.pem()), ("key.pem", key.serialize_pem())] {
        std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}

/// Serves on `address` until the process ends; every hint goes to `hints`.
pub async fn serve(address: SocketAddr, dir: &Path, hints: mpsc::UnboundedSender<Hint>) -> Result<(), String> {
    let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let certs = CertificateDer::pem_slice_iter(&read("cert.pem")?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("cert.pem: {e:?}"))?;
    let key = PrivateKeyDer::from_pem_slice(&read("key.pem")?).map_err(|e| format!("key.pem: {e:?}"))?;
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| e.to_string())?;
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind(address).await.map_err(|e| format!("the receiver on {address}: {e}"))?;
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let (acceptor, hints) = (acceptor.clone(), hints.clone());
            tokio::spawn(async move {
                let Ok(stream) = acceptor.accept(stream).await else { return };
                let service = service_fn(move |request| answer(request, hints.clone()));
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    Ok(())
}

async fn answer(
    request: Request<hyper::body::Incoming>,
    hints: mpsc::UnboundedSender<Hint>,
) -> Result<Response<Full<Bytes>>, hyper::Error> {
    let operator = request.uri().path().strip_prefix("/op/").and_then(|i| i.parse::<u32>().ok());
    let body = request.into_body().collect().await?.to_bytes();
    let hint: Option<(String, OffsetDateTime)> =
        serde_json::from_slice::<serde_json::Value>(&body).ok().and_then(|v| {
            let reference = v["booking_reference"].as_str()?.to_string();
            let at = OffsetDateTime::parse(v["occurred_at"].as_str()?, &time::format_description::well_known::Rfc3339)
                .ok()?;
            Some((reference, at))
        });
    let status = match (operator, hint) {
        (Some(operator), Some((reference, at))) => {
            let _ = hints.send(Hint { operator, reference, delay: OffsetDateTime::now_utc() - at });
            StatusCode::NO_CONTENT
        }
        _ => StatusCode::BAD_REQUEST,
    };
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    Ok(response)
}
