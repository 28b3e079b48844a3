//! Which rate-limit buckets a request spends, at the steps of the order of checks of
//! docs/design.md:
//!
//! 1. before routing, one token of the source's all-requests bucket;
//! 2. after 404/405, one token of the source's failed-authentication bucket, held while the request
//!    is in flight (refused 429 when none is left: the database is not asked);
//! 3. after the query checks, the claimed credential's buckets: one read token for a GET; one token
//!    of each write bucket for a PUT, of the burst bucket only for a dry run;
//! 4. after the answer: a 429 gives back everything taken; a 401 gives back the credential's tokens
//!    (a wrong secret never spends the real key's) and spends the held failed-authentication token;
//!    a 5xx gives back the credential's tokens too (the database could not say whether the secret
//!    was right: during an outage, anyone who knows a key id could otherwise empty its buckets) and
//!    keeps the source's; so does a request given up before its database call, its client gone
//!    ([`Admission::give_up`]).
//!
//! The held failed-authentication token is a [`Held`]: only a 401 spends it, and it is given back
//! when dropped, so every other end of the request gives it back without a line of its own — any
//! other answer, and also a panic answered 500 or a request future dropped unfinished (a client
//! gone, a shutdown), which never reach [`Admission::settle`]. However many requests a source has in
//! flight, it cannot fail authentication more often than its bucket allows; and it has at most as
//! many requests in flight (past step 2) as it has failed-authentication tokens left.
//!
//! Every answer but a 404 and a 401 carries `RateLimit-Policy` and `RateLimit` (IETF httpapi
//! rate-limit headers draft) describing the tightest bucket the request counted against (the
//! all-requests and credential buckets; the held failed-authentication token is not described), or
//! on a 429 the bucket that refused it.

use std::net::IpAddr;
use std::time::Instant;

use http::header::HeaderValue;
use http::{HeaderMap, StatusCode};

use crate::errors::Refusal;
use crate::ratelimit::{BucketId, BucketKind, Denial, Held, RateLimiter, Reservation, Standing, Subject};

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
    /// Step 2's failed-authentication token while the request is in flight: spent by a 401,
    /// given back when dropped (in [`Admission::settle`], or with the admission however the request
    /// ends).
    failed_auth_held: Option<Held<'a>>,
    counted: Vec<BucketId>,
    refused: Option<Denial>,
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
            failed_auth_held: None,
            counted: Vec::new(),
            refused: None,
        }
    }

    /// Step 1: the source's all-requests bucket.
    pub fn request(&mut self) -> Result<(), Refusal> {
        let Some(limiter) = self.limiter else { return Ok(()) };
        let id = (BucketKind::AllRequests, Subject::Source(self.source));
        self.counted.push(id.clone());
        limiter.take(self.now, &[id], &mut self.source_held).map_err(|denial| self.refuse(denial))
    }

    /// Step 2: holds one failed-authentication token of the source until the answer (a 401 spends
    /// it, anything else gives it back); a source with none left is refused here.
    pub fn source_may_authenticate(&mut self) -> Result<(), Refusal> {
        let Some(limiter) = self.limiter else { return Ok(()) };
        let id = (BucketKind::FailedAuth, Subject::Source(self.source));
        match limiter.hold(self.now, id) {
            Ok(held) => {
                self.failed_auth_held = Some(held);
                Ok(())
            }
            Err(denial) => Err(self.refuse(denial)),
        }
    }

    /// Step 3: the claimed credential's buckets (none when no well-formed key id is presented: the
    /// database answers 401, which spends the source's failed-authentication budget instead).
    pub fn credential(&mut self, cost: Cost) -> Result<(), Refusal> {
        let Some(limiter) = self.limiter else { return Ok(()) };
        let Some(key_id) = self.key_id.clone() else { return Ok(()) };
        let subject = Subject::Credential(key_id);
        let ids: Vec<BucketId> = match cost {
            Cost::Read => vec![(BucketKind::Reads, subject)],
            Cost::Write => vec![(BucketKind::WritesBurst, subject.clone()), (BucketKind::WritesHourly, subject)],
            Cost::DryRunWrite => vec![(BucketKind::WritesBurst, subject)],
        };
        self.counted.extend(ids.iter().cloned());
        limiter.take(self.now, &ids, &mut self.credential_held).map_err(|denial| self.refuse(denial))
    }

    /// The bucket that refused the request (a 429), if one did.
    pub fn refused_bucket(&self) -> Option<BucketKind> {
        self.refused.as_ref().map(|denial| denial.kind)
    }

    /// Step 4 for a request given up before its database call, its client gone: the credential's
    /// tokens given back, the held failed-authentication token too (dropped); the source's kept.
    pub fn give_up(mut self) {
        let Some(limiter) = self.limiter else { return };
        limiter.give_back(Instant::now(), &mut self.credential_held);
    }

    /// Step 4, once the answer is known; then the rate-limit headers (not on a 404).
    pub fn settle(mut self, status: StatusCode, headers: &mut HeaderMap) {
        let Some(limiter) = self.limiter else { return };
        let now = Instant::now();
        // The failed-authentication token: spent by a 401 only; any other answer drops it here,
        // which gives it back.
        let failed_auth = self.failed_auth_held.take();
        // The credential's tokens are spent only on an answer that verified it.
        if verified_no_credential(status) {
            limiter.give_back(now, &mut self.credential_held);
        }
        if status == StatusCode::UNAUTHORIZED {
            match failed_auth {
                Some(held) => held.spend(),
                // Every 401 comes after step 2; should one ever not, it still costs a token if
                // one is left.
                None => {
                    if let Ok(held) = limiter.hold(now, (BucketKind::FailedAuth, Subject::Source(self.source))) {
                        held.spend();
                    }
                }
            }
        } else {
            drop(failed_auth);
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            limiter.give_back(now, &mut self.source_held);
            limiter.give_back(now, &mut self.credential_held);
        }
        // Not on a 404 (no route), nor on a 401: the uniform 401 is the same bytes and headers
        // whatever its cause, and bucket counts would tell causes and histories apart.
        if status == StatusCode::NOT_FOUND || status == StatusCode::UNAUTHORIZED {
            return;
        }
        // A refused request describes the bucket that refused it; any other, the tightest it counted against.
        let described = match &self.refused {
            Some(denial) => vec![(denial.kind, self.subject_of(denial.kind))],
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

    fn refuse(&mut self, denial: Denial) -> Refusal {
        let refusal = Refusal::rate_limited(denial.retry_after);
        self.refused = Some(denial);
        refusal
    }
}

/// Whether an answer leaves the credential's tokens unspent: a 401 (a wrong secret never spends the
/// real key's tokens); a 5xx, after which the gateway cannot tell whether the database checked the
/// credential (the price: a request that timed out after its credential was checked spends none
/// either).
fn verified_no_credential(status: StatusCode) -> bool {
    status == StatusCode::UNAUTHORIZED || status.is_server_error()
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

#[cfg(test)]
mod tests {
    use std::net::IpAddr;
    use std::time::Duration;

    use super::*;
    use crate::ratelimit::{Limits, Rate};

    const KEY: &str = "pk_api_0123456789abcdef0123456789abcdef";

    fn peer() -> IpAddr {
        "192.0.2.7".parse().unwrap()
    }

    /// The spec's limits with `failed_auth` failed-authentication tokens that do not refill in a test.
    fn limiter(failed_auth: u32) -> RateLimiter {
        RateLimiter::new(Limits { failed_auth: Rate::new(failed_auth, Duration::from_secs(3600)), ..Limits::spec() })
    }

    /// A request through step 1 and 2, and the outcome of step 2 (its failed-authentication token
    /// held, or its refusal).
    fn arrive(limiter: &RateLimiter) -> (Admission<'_>, Result<(), Refusal>) {
        let mut admission = Admission::new(Some(limiter), peer(), Some(KEY));
        admission.request().expect("the all-requests bucket is far from empty");
        let outcome = admission.source_may_authenticate();
        (admission, outcome)
    }

    /// A request past step 2.
    fn admitted(limiter: &RateLimiter) -> Admission<'_> {
        let (admission, outcome) = arrive(limiter);
        outcome.expect("a failed-authentication token is left");
        admission
    }

    fn remaining(limiter: &RateLimiter, kind: BucketKind) -> u32 {
        let subject = match kind {
            BucketKind::AllRequests | BucketKind::FailedAuth => Subject::Source(peer()),
            _ => Subject::Credential(KEY.into()),
        };
        limiter.standing(Instant::now(), &[(kind, subject)]).unwrap().remaining
    }

    #[test]
    fn a_request_in_flight_holds_a_failed_auth_token_so_a_source_cannot_outrun_its_bucket() {
        let limiter = limiter(1);
        let first = admitted(&limiter);
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 0);
        // While it is in flight, the next requests of the source are refused at step 2.
        for _ in 0..5 {
            let (refused, outcome) = arrive(&limiter);
            let error = outcome.expect_err("no token left for a second request in flight");
            assert_eq!(error, Refusal::RateLimited { retry_after: 3600 });
            assert_eq!(refused.refused_bucket(), Some(BucketKind::FailedAuth));
            let mut headers = HeaderMap::new();
            refused.settle(StatusCode::TOO_MANY_REQUESTS, &mut headers);
            assert_eq!(headers["ratelimit-policy"], "\"failed_auth\";q=1;w=3600");
            assert_eq!(headers["ratelimit"], "\"failed_auth\";r=0;t=3600");
        }
        assert_eq!(remaining(&limiter, BucketKind::AllRequests), 239, "each refusal gave its all-requests token back");
        first.settle(StatusCode::UNAUTHORIZED, &mut HeaderMap::new());
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 0, "the 401 spent the held token");
        assert!(arrive(&limiter).1.is_err());
    }

    #[test]
    fn every_answer_but_a_401_gives_the_failed_auth_token_back() {
        let limiter = limiter(1);
        for status in [200, 201, 204, 413, 415, 422, 429, 500, 503] {
            let status = StatusCode::from_u16(status).unwrap();
            let mut admission = admitted(&limiter);
            admission.credential(Cost::Write).unwrap();
            admission.settle(status, &mut HeaderMap::new());
            assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 1, "{status} gave the token back");
        }
        let mut given_up = admitted(&limiter);
        given_up.credential(Cost::Write).unwrap();
        given_up.give_up();
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 1, "a request given up gave the token back");
        admitted(&limiter).settle(StatusCode::UNAUTHORIZED, &mut HeaderMap::new());
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 0);
    }

    #[test]
    fn a_request_that_never_settles_gives_the_token_back_too() {
        let limiter = limiter(1);
        // Its future dropped mid-body (a client gone, a shutdown).
        drop(admitted(&limiter));
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 1);
        // A panic in the handler, answered 500 by the guard above it.
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _admission = admitted(&limiter);
            panic!("a handler fault");
        }));
        assert!(unwound.is_err());
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 1);
    }

    #[test]
    fn a_401_spends_one_failed_auth_token_and_gives_back_the_credentials() {
        let limiter = limiter(20);
        let mut admission = admitted(&limiter);
        admission.credential(Cost::Write).unwrap();
        let mut headers = HeaderMap::new();
        admission.settle(StatusCode::UNAUTHORIZED, &mut headers);
        assert!(headers.is_empty(), "the uniform 401 carries no rate-limit header");
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 19);
        assert_eq!(remaining(&limiter, BucketKind::WritesBurst), 60);
        assert_eq!(remaining(&limiter, BucketKind::WritesHourly), 1000);
    }

    #[test]
    fn a_5xx_or_an_abandoned_request_gives_back_the_credentials_tokens_and_keeps_the_sources() {
        let limiter = limiter(20);
        for status in [500, 503] {
            let mut admission = admitted(&limiter);
            admission.credential(Cost::Write).unwrap();
            let mut headers = HeaderMap::new();
            admission.settle(StatusCode::from_u16(status).unwrap(), &mut headers);
            assert_eq!(remaining(&limiter, BucketKind::WritesBurst), 60, "{status}");
            assert_eq!(remaining(&limiter, BucketKind::WritesHourly), 1000, "{status}");
            assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 20, "{status}: the held token given back");
            assert_eq!(headers["ratelimit-policy"], "\"writes_burst\";q=60;w=60", "{status}");
        }
        let mut given_up = admitted(&limiter);
        given_up.credential(Cost::Write).unwrap();
        given_up.give_up();
        assert_eq!(remaining(&limiter, BucketKind::WritesBurst), 60, "given up");
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 20, "given up: the held token given back");
        assert_eq!(remaining(&limiter, BucketKind::AllRequests), 237, "the source's tokens were kept");
        // Any other answer verified the credential: its tokens stay spent.
        for (status, burst) in [(200, 59), (422, 58), (409, 57)] {
            let mut admission = admitted(&limiter);
            admission.credential(Cost::Write).unwrap();
            admission.settle(StatusCode::from_u16(status).unwrap(), &mut HeaderMap::new());
            assert_eq!(remaining(&limiter, BucketKind::WritesBurst), burst, "{status}");
        }
    }

    #[test]
    fn many_requests_at_once_with_one_token_left_fail_authentication_once() {
        let limiter = limiter(20);
        for _ in 0..19 {
            admitted(&limiter).settle(StatusCode::UNAUTHORIZED, &mut HeaderMap::new());
        }
        let barrier = std::sync::Barrier::new(40);
        let admitted_count = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..40 {
                scope.spawn(|| {
                    let (admission, outcome) = arrive(&limiter);
                    // Every one has passed step 2 or been refused before any answer comes back.
                    barrier.wait();
                    if outcome.is_ok() {
                        admitted_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        admission.settle(StatusCode::UNAUTHORIZED, &mut HeaderMap::new());
                    } else {
                        admission.settle(StatusCode::TOO_MANY_REQUESTS, &mut HeaderMap::new());
                    }
                });
            }
        });
        assert_eq!(admitted_count.into_inner(), 1, "one token, one failed authentication");
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 0);
    }

    #[test]
    fn the_headers_describe_the_tightest_bucket_counted_not_the_held_token() {
        let limiter = RateLimiter::new(Limits::spec());
        let mut admission = admitted(&limiter);
        admission.credential(Cost::Read).unwrap();
        let mut headers = HeaderMap::new();
        admission.settle(StatusCode::OK, &mut headers);
        assert_eq!(headers["ratelimit-policy"], "\"reads\";q=120;w=60");
        assert_eq!(headers["ratelimit"], "\"reads\";r=119;t=1");
        assert_eq!(remaining(&limiter, BucketKind::FailedAuth), 20);
    }

    #[test]
    fn lifted_limits_hold_nothing() {
        let mut admission = Admission::new(None, peer(), Some(KEY));
        admission.request().unwrap();
        admission.source_may_authenticate().unwrap();
        admission.credential(Cost::Read).unwrap();
        let mut headers = HeaderMap::new();
        admission.settle(StatusCode::UNAUTHORIZED, &mut headers);
        assert!(headers.is_empty());
    }
}
