//! Building answers. Every answer is JSON (or empty; the documentation page is HTML) and carries
//! `X-Request-Id`; the headers that
//! belong to a status (`WWW-Authenticate` on 401, `Retry-After` on 409/429/503) are added here, in
//! one place, so no route can forget them.

use bytes::Bytes;
use http::header::{
    HeaderValue, ALLOW, CONTENT_SECURITY_POLICY, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE, X_CONTENT_TYPE_OPTIONS,
};
use http::{Response, StatusCode};
use http_body_util::Full;

use crate::errors::Refusal;

pub type Body = Full<Bytes>;

pub const REQUEST_ID: &str = "x-request-id";

pub fn json(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The documentation page (`crate::openapi::page`), with the policy that keeps it to itself.
pub fn page(html: Bytes, policy: HeaderValue) -> Response<Body> {
    let mut response = Response::new(Full::new(html));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(CONTENT_SECURITY_POLICY, policy);
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// `{"error": code, "field": field}` (field omitted when there is none), with the status's headers.
pub fn error(refusal: &Refusal) -> Response<Body> {
    let mut body = serde_json::Map::new();
    body.insert("error".into(), refusal.code().into());
    if let Some(field) = refusal.field() {
        body.insert("field".into(), field.into());
    }
    let mut response = json(refusal.status(), serde_json::Value::Object(body).to_string());
    let headers = response.headers_mut();
    if refusal.status() == StatusCode::UNAUTHORIZED {
        headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    if let Some(seconds) = refusal.retry_after() {
        headers.insert(RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// 204 to OPTIONS on a known path.
pub fn options(allow: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::NO_CONTENT;
    insert_allow(&mut response, allow);
    response
}

pub fn method_not_allowed(allow: &str) -> Response<Body> {
    let mut response = error(&Refusal::method_not_allowed());
    insert_allow(&mut response, allow);
    response
}

fn insert_allow(response: &mut Response<Body>, allow: &str) {
    if let Ok(value) = HeaderValue::from_str(allow) {
        response.headers_mut().insert(ALLOW, value);
    }
}
