//! What the gateway publishes at the root, beside the API: the OpenAPI document
//! (`<root>/openapi.json`) and its page (`<root>/docs`), with no credential. Each is made once and
//! served with its entity tag (304 to a client that holds it) and, to a client that takes it,
//! gzip-compressed once.

use std::sync::OnceLock;

use bytes::Bytes;
use http::header::HeaderValue;
use http::request::Parts;
use http::{Method, Response, StatusCode};

use crate::errors::Refusal;
use crate::openapi;
use crate::query;
use crate::response::{self, Body};

/// The published texts and where they are served.
pub struct Published {
    document_path: String,
    document: Representation,
    /// What the page is made from.
    document_value: serde_json::Value,
    page_path: String,
    /// The page and its policy, made at its first request: making it (two megabytes, their hashes)
    /// has no place in every start, and most gateways are never asked for it.
    page: OnceLock<(Representation, HeaderValue)>,
}

/// One published text: as it is, with its entity tag, so a client that keeps it asks again for
/// nothing (304); gzip-compressed, once, when a client first takes gzip.
struct Representation {
    identity: Bytes,
    gzip: OnceLock<Bytes>,
    etag: HeaderValue,
}

impl Representation {
    fn new(text: String) -> Representation {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(text.as_bytes());
        let tag: String = digest[..12].iter().map(|byte| format!("{byte:02x}")).collect();
        Representation {
            identity: Bytes::from(text),
            gzip: OnceLock::new(),
            etag: HeaderValue::from_str(&format!("\"{tag}\"")).expect("hex is a header value"),
        }
    }

    fn gzip(&self) -> Bytes {
        self.gzip
            .get_or_init(|| {
                let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                std::io::Write::write_all(&mut encoder, &self.identity).expect("writing to memory");
                Bytes::from(encoder.finish().expect("writing to memory"))
            })
            .clone()
    }

    /// The answer to `headers`: 304 when the client holds this version, else the text, gzip when
    /// the client takes it.
    fn answer(&self, headers: &http::HeaderMap, content: impl FnOnce(Bytes) -> Response<Body>) -> Response<Body> {
        let held =
            headers.get_all(http::header::IF_NONE_MATCH).iter().filter_map(|v| v.to_str().ok()).any(|v| {
                v.split(',').map(str::trim).any(|tag| tag == "*" || tag.trim_start_matches("W/") == self.etag)
            });
        let mut response = if held {
            let mut response = Response::new(Body::new(Bytes::new()));
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        } else if takes_gzip(headers) {
            let mut response = content(self.gzip());
            response.headers_mut().insert(http::header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            response
        } else {
            content(self.identity.clone())
        };
        let answer_headers = response.headers_mut();
        answer_headers.insert(http::header::ETAG, self.etag.clone());
        answer_headers.insert(http::header::VARY, HeaderValue::from_static("accept-encoding"));
        answer_headers.insert(http::header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
        response
    }
}

/// Whether `Accept-Encoding` takes gzip (a `q` of 0 refuses it).
fn takes_gzip(headers: &http::HeaderMap) -> bool {
    headers.get_all(http::header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok()).any(|value| {
        value.split(',').any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            parts.next().is_some_and(|name| name.eq_ignore_ascii_case("gzip"))
                && !parts.any(|p| p.strip_prefix("q=").is_some_and(|q| q.trim_end_matches(['0', '.']).is_empty()))
        })
    })
}

/// One of the published texts.
#[derive(Clone, Copy)]
pub enum PublishedText {
    Document,
    Page,
}

impl PublishedText {
    /// The route label of its log lines and metrics.
    pub fn route(self) -> &'static str {
        match self {
            PublishedText::Document => "/openapi.json",
            PublishedText::Page => "/docs",
        }
    }
}

impl Published {
    pub fn new(base_path: &str) -> Published {
        let document_value = openapi::document(base_path);
        Published {
            document_path: openapi::path(base_path),
            document: Representation::new(document_value.to_string()),
            document_value,
            page_path: openapi::page::path(base_path),
            page: OnceLock::new(),
        }
    }

    fn page(&self) -> &(Representation, HeaderValue) {
        self.page.get_or_init(|| {
            let page = openapi::page::page(&self.document_value);
            let policy = HeaderValue::from_str(&page.content_security_policy).expect("the policy is ASCII");
            (Representation::new(page.html), policy)
        })
    }

    /// The text published at `path`, if one is.
    pub fn at(&self, path: &str) -> Option<PublishedText> {
        if path == self.document_path {
            Some(PublishedText::Document)
        } else if path == self.page_path {
            Some(PublishedText::Page)
        } else {
            None
        }
    }

    /// `GET <root>/openapi.json` and `GET <root>/docs`: no credential, no query parameter, GET (and
    /// OPTIONS) only.
    pub fn answer(&self, text: PublishedText, parts: &Parts) -> Result<Response<Body>, Refusal> {
        const ALLOW: &str = "GET, OPTIONS";
        match parts.method {
            Method::OPTIONS => Ok(response::options(ALLOW)),
            Method::GET => {
                query::check(parts.uri.query(), &[])?;
                Ok(match text {
                    PublishedText::Document => {
                        self.document.answer(&parts.headers, |body| response::json(StatusCode::OK, body))
                    }
                    PublishedText::Page => {
                        let (page, policy) = self.page();
                        page.answer(&parts.headers, |body| response::page(body, policy.clone()))
                    }
                })
            }
            _ => Ok(response::method_not_allowed(ALLOW)),
        }
    }
}
