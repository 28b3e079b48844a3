//! The operators' HTTP client: keep-alive connections to the gateway, each request signed as
//! coming from its operator's own address through the edge (`X-Forwarded-Client`, the gateway's
//! `EDGE_SECRET`), so each operator counts against its own source buckets as behind the real edge.

use std::net::Ipv4Addr;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use hmac::{Hmac, Mac};
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use sha2::Sha256;

pub struct Api {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
    edge_secret: Vec<u8>,
}

/// What came back: the status (0 when no answer came) and the body.
pub struct Answer {
    pub status: u16,
    pub body: Bytes,
}

impl Api {
    pub fn new(base: &str, edge_secret: &str) -> Api {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        // Idle connections are dropped well before the gateway's keep-alive timeout
        // (HEADER_TIMEOUT_MS) closes them, as a well-behaved client does: else a request can be
        // sent on a connection the gateway is closing at that moment, and fail unanswered.
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(4096)
            .pool_idle_timeout(std::time::Duration::from_secs(4))
            .build(connector);
        Api { client, base: base.trim_end_matches('/').to_string(), edge_secret: edge_secret.as_bytes().to_vec() }
    }

    /// `method` `path` (under the base) for the operator at `source`, with `bearer` and, for a PUT,
    /// `body` as JSON.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        source: Ipv4Addr,
        bearer: &str,
        body: Option<String>,
    ) -> Answer {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {bearer}"))
            .header("x-forwarded-client", self.forwarded(source));
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let request = request.body(Full::new(Bytes::from(body.unwrap_or_default()))).expect("a valid request");
        match self.client.request(request).await {
            Ok(response) => {
                let status = response.status().as_u16();
                let body = response.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                Answer { status, body }
            }
            Err(_) => Answer { status: 0, body: Bytes::new() },
        }
    }

    /// `ip=<addr>;ts=<unix>;sig=<hex HMAC-SHA256(secret, "<addr>|<ts>")>`.
    fn forwarded(&self, source: Ipv4Addr) -> String {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.edge_secret).expect("any key length");
        mac.update(format!("{source}|{now}").as_bytes());
        let signature: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
        format!("ip={source};ts={now};sig={signature}")
    }
}

/// Operator `i`'s own address (a header value only: nothing is sent there).
pub fn source_of(i: u32) -> Ipv4Addr {
    let [_, a, b, c] = i.to_be_bytes();
    Ipv4Addr::new(10, a, b, c)
}
