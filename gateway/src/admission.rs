//! Which rate-limit buckets a request spends, at the steps of DESIGN §5's order of checks:
//!
//! 1. before routing, one token of the source's all-requests bucket;
//! 2. after 404/405, a refusal when the source's failed-authentication bucket is empty (the
//!    database is not asked);
//! 3. after the query checks, the claimed credential's buckets: one read token for a GET; one token
//!    of each write bucket for a PUT, of the burst bucket only for a dry run;
//! 4. after the answer: a 429 gives back everything taken; a 401 gives back the credential's tokens
//!    (a wrong secret never spends the real key's) and spends one failed-authentication token.
//!
//! Every answer but a 404 and a 401 carries `RateLimit-Policy` and `RateLimit` (IETF httpapi
//! rate-limit headers draft) describing the tightest bucket the request counted against, or on a
//! 429 the bucket that refused it.

use std::net::IpAddr;
use std::time::Instant;

use http::header::HeaderValue;
use http::{HeaderMap, StatusCode};

use crate::errors::ApiError;
use crate::ratelimit::{BucketId, BucketKind, RateLimiter, Refusal, Reservation, Standing, Subject};

/// What a route's credential buckets are charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    Read,
    Write,
    DryRunWrite,
}

pub struct Admission<'a> {
    limiter: Option<&'a RateLimiter>,
    now: Instant,
    source: IpAddr,
    key_id: Option<String>,
    source_held: Reservation,
    credential_held: Reservation,
    counted: Vec<BucketId>,
    refused: Option<Refusal>,
}

impl<'a> Admission<'a> {
    /// `limiter` None: limits lifted (`RATE_LIMITS=off`), nothing is counted.
    pub fn new(limiter: Option<&'a RateLimiter>, source: IpAddr, key_id: Option<&str>) -> Self {
        Admission {
            limiter,
            now: Instant::now(),
            source,
            // Only the buckets need it: no allocation per request while limits are lifted.
            key_id: limiter.and(key_id).map(str::to_string),
            source_held: Reservation::default(),
            credential_held: Reservation::default(),
            counted: Vec::new(),
            refused: None,
        }
    }

    /// Step 1: the source's all-requests bucket.
    pub fn request(&mut self) -> Result<(), ApiError> {
        let Some(limiter) = self.limiter else { return Ok(()) };
        let id = (BucketKind::AllRequests, Subject::Source(self.source));
        self.counted.push(id.clone());
        limiter.take(self.now, &[id], &mut self.source_held).map_err(|refusal| self.refuse(refusal))
    }

    /// Step 2: a source whose failed authentications used up their bucket is refused here.
    pub fn source_may_authenticate(&mut self) -> Result<(), ApiError> {
        let Some(limiter) = self.limiter else { return Ok(()) };
        let id = (BucketKind::FailedAuth, Subject::Source(self.source));
        limiter.has_token(self.now, &id).map_err(|refusal| self.refuse(refusal))
    }

    /// Step 3: the claimed credential's buckets (none when no well-formed key id is presented: the
    /// database answers 401, which spends the source's failed-authentication budget instead).
    pub fn credential(&mut self, cost: Cost) -> Result<(), ApiError> {
        let Some(limiter) = self.limiter else { return Ok(()) };
        let Some(key_id) = self.key_id.clone() else { return Ok(()) };
        let subject = Subject::Credential(key_id);
        let ids: Vec<BucketId> = match cost {
            Cost::Read => vec![(BucketKind::Reads, subject)],
            Cost::Write => vec![(BucketKind::WritesBurst, subject.clone()), (BucketKind::WritesHourly, subject)],
            Cost::DryRunWrite => vec![(BucketKind::WritesBurst, subject)],
        };
        self.counted.extend(ids.iter().cloned());
        limiter.take(self.now, &ids, &mut self.credential_held).map_err(|refusal| self.refuse(refusal))
    }

    /// The bucket that refused the request (a 429), if one did.
    pub fn refused_bucket(&self) -> Option<BucketKind> {
        self.refused.as_ref().map(|refusal| refusal.kind)
    }

    /// Step 4, once the answer is known; then the rate-limit headers (not on a 404).
    pub fn settle(mut self, status: StatusCode, headers: &mut HeaderMap) {
        let Some(limiter) = self.limiter else { return };
        let now = Instant::now();
        if status == StatusCode::TOO_MANY_REQUESTS {
            limiter.give_back(now, &mut self.source_held);
            limiter.give_back(now, &mut self.credential_held);
        } else if status == StatusCode::UNAUTHORIZED {
            limiter.give_back(now, &mut self.credential_held);
            limiter.spend(now, &(BucketKind::FailedAuth, Subject::Source(self.source)));
        }
        // Not on a 404 (no route), nor on a 401: the uniform 401 is the same bytes and headers
        // whatever its cause, and bucket counts would tell causes and histories apart.
        if status == StatusCode::NOT_FOUND || status == StatusCode::UNAUTHORIZED {
            return;
        }
        // A refused request describes the bucket that refused it; any other, the tightest it counted against.
        let described = match &self.refused {
            Some(refusal) => vec![(refusal.kind, self.subject_of(refusal.kind))],
            None => self.counted.clone(),
        };
        if let Some(standing) = limiter.standing(now, &described) {
            insert_headers(headers, &standing);
        }
    }

    fn subject_of(&self, kind: BucketKind) -> Subject {
        match kind {
            BucketKind::AllRequests | BucketKind::FailedAuth => Subject::Source(self.source),
            _ => Subject::Credential(self.key_id.clone().unwrap_or_default()),
        }
    }

    fn refuse(&mut self, refusal: Refusal) -> ApiError {
        let error = ApiError::rate_limited(refusal.retry_after);
        self.refused = Some(refusal);
        error
    }
}

/// `RateLimit-Policy: "reads";q=120;w=60` and `RateLimit: "reads";r=119;t=1`.
fn insert_headers(headers: &mut HeaderMap, standing: &Standing) {
    let name = standing.kind.name();
    let policy = format!("\"{name}\";q={};w={}", standing.quota, standing.window);
    let current = format!("\"{name}\";r={};t={}", standing.remaining, standing.reset);
    if let (Ok(policy), Ok(current)) = (HeaderValue::from_str(&policy), HeaderValue::from_str(&current)) {
        headers.insert("ratelimit-policy", policy);
        headers.insert("ratelimit", current);
    }
}
