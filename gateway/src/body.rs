//! Request bodies of the write routes: JSON only, at most 64 KiB, forwarded as text, never
//! re-encoded (the database parses it, keeping numbers exact).
//!
//! Order of refusals (docs/design.md): 413 before 415. A body announced or found to be over 64 KiB
//! is 413 without reading past 64 KiB. Content-Type must be `application/json` (case-insensitive),
//! with no parameter but `charset=utf-8`; anything else, or none, is 415. A body that is not UTF-8
//! cannot be JSON: it reaches the database as NULL, which answers 422 `invalid_json` after the
//! credential check, like every other body fault.

use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderMap, StatusCode};
use http_body_util::{BodyExt, Limited};

use crate::errors::Refusal;
use crate::outcome::Stop;

pub const MAX_BODY_BYTES: usize = 64 * 1024;

pub fn too_large() -> Refusal {
    Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large")
}

/// 413 when Content-Length already says the body is too large.
pub fn check_length(headers: &HeaderMap) -> Result<(), Refusal> {
    let announced = headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    match announced {
        Some(length) if length > MAX_BODY_BYTES as u64 => Err(too_large()),
        _ => Ok(()),
    }
}

/// 415 unless the one Content-Type is application/json, optionally with charset=utf-8.
pub fn check_content_type(headers: &HeaderMap) -> Result<(), Refusal> {
    let mut values = headers.get_all(CONTENT_TYPE).iter();
    let acceptable = match (values.next(), values.next()) {
        (Some(value), None) => value.to_str().is_ok_and(is_json),
        _ => false,
    };
    if acceptable {
        Ok(())
    } else {
        Err(Refusal::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type"))
    }
}

fn is_json(value: &str) -> bool {
    let mut parts = value.split(';');
    let media_type = parts.next().unwrap_or("").trim();
    media_type.eq_ignore_ascii_case("application/json")
        && parts.all(|parameter| {
            let (name, value) = parameter.split_once('=').unwrap_or((parameter, ""));
            let value = value.trim();
            let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
            name.trim().eq_ignore_ascii_case("charset") && value.eq_ignore_ascii_case("utf-8")
        })
}

/// Reads at most 64 KiB (413 past that) and answers the text, or None when it is not UTF-8 or holds
/// a NUL byte, which no JSON text does and PostgreSQL text cannot hold (the database refuses None
/// as `invalid_json`, after authentication, in the order of checks).
///
/// The whole body must arrive within `deadline`; a client that stalls, or goes away mid-body, is a
/// client gone ([`Stop::ClientGone`]): it gets no answer and nothing is written. So is a body
/// still arriving when `draining` completes (shutdown began): a half-sent request never holds a
/// shutdown up, and its client, told nothing, retries elsewhere.
pub async fn read<B>(body: B, deadline: Duration, draining: impl Future<Output = ()>) -> Result<Option<String>, Stop>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let collected = tokio::select! {
        collected = tokio::time::timeout(deadline, Limited::new(body, MAX_BODY_BYTES).collect()) => collected,
        () = draining => return Err(Stop::ClientGone("shutdown began before the body arrived")),
    };
    let bytes = match collected {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(error)) if error.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
            return Err(too_large().into())
        }
        Ok(Err(_)) => return Err(Stop::ClientGone("the body ended before its end")),
        Err(_) => return Err(Stop::ClientGone("the body did not arrive in time")),
    };
    // (the collected buffer becomes the String's without a copy when it is the only owner)
    Ok(String::from_utf8(Vec::from(bytes)).ok().filter(|text| !text.contains('\0')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn json_content_types_are_accepted() {
        for value in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json;charset=UTF-8",
            "application/json; charset=\"utf-8\"",
        ] {
            assert!(check_content_type(&headers(&[("content-type", value)])).is_ok(), "{value}");
        }
    }

    #[test]
    fn anything_else_is_415() {
        for value in [
            "text/plain",
            "application/json-patch+json",
            "application/jsonx",
            "application/json; charset=latin1",
            "application/json; boundary=x",
            "application/x-www-form-urlencoded",
            "",
        ] {
            let error = check_content_type(&headers(&[("content-type", value)])).unwrap_err();
            assert_eq!((error.status().as_u16(), error.code()), (415, "unsupported_media_type"), "{value}");
        }
        assert!(check_content_type(&headers(&[])).is_err());
        let twice = headers(&[("content-type", "application/json"), ("content-type", "application/json")]);
        assert!(check_content_type(&twice).is_err());
    }

    #[test]
    fn an_announced_length_over_64_kib_is_413() {
        assert!(check_length(&headers(&[("content-length", "65536")])).is_ok());
        let error = check_length(&headers(&[("content-length", "65537")])).unwrap_err();
        assert_eq!((error.status().as_u16(), error.code()), (413, "payload_too_large"));
    }

    #[tokio::test]
    async fn a_body_over_64_kib_is_413_and_one_at_the_limit_is_read() {
        let at_limit = http_body_util::Full::new(Bytes::from(vec![b' '; MAX_BODY_BYTES]));
        let deadline = Duration::from_secs(1);
        assert_eq!(
            read(at_limit, deadline, std::future::pending()).await.unwrap().map(|text| text.len()),
            Some(MAX_BODY_BYTES)
        );
        let over = http_body_util::Full::new(Bytes::from(vec![b' '; MAX_BODY_BYTES + 1]));
        let refused = read(over, deadline, std::future::pending()).await.unwrap_err();
        assert!(matches!(refused, Stop::Refused(refusal) if refusal.code() == "payload_too_large"));
    }

    /// A body whose next frame never comes.
    struct Stalled;

    impl http_body::Body for Stalled {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
            std::task::Poll::Pending
        }
    }

    #[tokio::test]
    async fn a_body_still_arriving_when_shutdown_begins_is_given_up_at_once() {
        let started = std::time::Instant::now();
        let error = read(Stalled, Duration::from_secs(60), std::future::ready(())).await.unwrap_err();
        assert!(matches!(error, Stop::ClientGone(_)));
        assert!(started.elapsed() < Duration::from_secs(5), "given up at once, not at the body deadline");
    }

    #[tokio::test]
    async fn a_body_that_is_not_utf8_is_no_text() {
        let latin1 = http_body_util::Full::new(Bytes::from_static(b"{\"name\":\"caf\xe9\"}"));
        assert_eq!(read(latin1, Duration::from_secs(1), std::future::pending()).await.unwrap(), None);
        let nul = http_body_util::Full::new(Bytes::from_static(b"{\"name\":\"a\x00b\"}"));
        assert_eq!(read(nul, Duration::from_secs(1), std::future::pending()).await.unwrap(), None);
    }
}
