//! The spec's five token buckets (Limits), held in this process's memory (`held_in:
//! edge-worker-memory`): per source address, all requests (240, 4/s) and failed authentications
//! (20, 1 per 3 s); per credential, reads (120, 2/s), writes in a burst (60, 1/s) and writes per hour
//! (1000, 1000/h). Each bucket starts full and refills continuously.
//!
//! A request reserves what it needs all-or-nothing: refused by any bucket, it is answered 429 and
//! takes nothing from any (a write refused by one write bucket is not charged to the other), and
//! what it reserved earlier on its way is given back. A 401 gives back the credential's tokens (a
//! wrong secret never spends the real key's).
//!
//! A failed-authentication token of the source is [held](RateLimiter::hold) while a request is in
//! flight ([`Held`]): only a 401 [spends](Held::spend) it; dropped any other way (another answer, a
//! panic, a client gone mid-body, a shutdown) it is given back. So however many requests are in
//! flight, a source cannot fail authentication more often than its bucket allows; the price is that
//! a source has at most as many requests in flight as it has failed-authentication tokens left.
//!
//! Memory is bounded: a bucket lives at most [`MAX_BUCKET_AGE`] (400 s), the spec's longest edge
//! worker life: like a replaced worker, it starts again full. When `max_buckets` are held, the ones
//! that are full again or too old go first, then the oldest, so a flood of distinct addresses costs
//! a bounded map and, at worst, fresh buckets for others.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub mod metrics;

/// No bucket outlives this: the spec's edge workers are replaced at least every 400 seconds.
pub const MAX_BUCKET_AGE: Duration = Duration::from_secs(400);

pub use crate::config::{Limits, Rate};

impl Rate {
    fn per_second(self) -> f64 {
        1.0 / self.interval.as_secs_f64()
    }
}

impl Limits {
    fn rate(&self, kind: BucketKind) -> Rate {
        match kind {
            BucketKind::AllRequests => self.all_requests,
            BucketKind::FailedAuth => self.failed_auth,
            BucketKind::Reads => self.reads,
            BucketKind::WritesBurst => self.writes_burst,
            BucketKind::WritesHourly => self.writes_hourly,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BucketKind {
    AllRequests,
    FailedAuth,
    Reads,
    WritesBurst,
    WritesHourly,
}

impl BucketKind {
    /// The bucket's name in the `RateLimit` headers.
    pub fn name(self) -> &'static str {
        match self {
            BucketKind::AllRequests => "all_requests",
            BucketKind::FailedAuth => "failed_auth",
            BucketKind::Reads => "reads",
            BucketKind::WritesBurst => "writes_burst",
            BucketKind::WritesHourly => "writes_hourly",
        }
    }
}

/// Whom a bucket counts: a source address (IPv6 already cut to its /64), or a credential's key id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    Source(IpAddr),
    Credential(String),
}

pub type BucketId = (BucketKind, Subject);

/// Why a request was refused: the bucket, and the whole seconds until it has the tokens (≥ 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    pub kind: BucketKind,
    pub retry_after: u32,
}

/// What a bucket looks like to a client (the `RateLimit-Policy` and `RateLimit` headers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub kind: BucketKind,
    /// `q`: the burst.
    pub quota: u32,
    /// `w`: seconds to refill from empty.
    pub window: u32,
    /// `r`: whole tokens left.
    pub remaining: u32,
    /// `t`: seconds until full again.
    pub reset: u32,
}

/// The tokens a request took on its way, to give back if it ends refused or unauthorized.
#[derive(Debug, Default)]
pub struct Reservation {
    taken: Vec<BucketId>,
}

/// One token held out of one bucket while a request is in flight: given back when dropped,
/// whatever ends the request, unless [`Held::spend`] keeps it.
#[must_use = "a held token is given back as soon as it is dropped"]
#[derive(Debug)]
pub struct Held<'a> {
    limiter: &'a RateLimiter,
    id: Option<BucketId>,
}

impl Held<'_> {
    /// Keeps the token: it is spent, never given back.
    pub fn spend(mut self) {
        self.id = None;
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            let mut buckets = self.limiter.lock();
            self.limiter.restore(&mut buckets, &id, Instant::now());
        }
    }
}

struct Bucket {
    tokens: f64,
    refilled_at: Instant,
    born: Instant,
}

pub struct RateLimiter {
    limits: Limits,
    buckets: Mutex<HashMap<BucketId, Bucket>>,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter").field("limits", &self.limits).finish_non_exhaustive()
    }
}

impl RateLimiter {
    pub fn new(limits: Limits) -> RateLimiter {
        RateLimiter { limits, buckets: Mutex::new(HashMap::new()) }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Takes one token from each of `ids`, all or none; on success they join `reservation`.
    pub fn take(&self, now: Instant, ids: &[BucketId], reservation: &mut Reservation) -> Result<(), Denial> {
        let mut buckets = self.lock();
        let mut refusal: Option<Denial> = None;
        for id in ids {
            let rate = self.limits.rate(id.0);
            let bucket = self.bucket(&mut buckets, id, now);
            if bucket.tokens < 1.0 {
                let retry_after = seconds_until(1.0 - bucket.tokens, rate);
                if refusal.as_ref().is_none_or(|r| retry_after > r.retry_after) {
                    refusal = Some(Denial { kind: id.0, retry_after });
                }
            }
        }
        if let Some(refusal) = refusal {
            return Err(refusal);
        }
        for id in ids {
            if let Some(bucket) = buckets.get_mut(id) {
                bucket.tokens -= 1.0;
            }
            reservation.taken.push(id.clone());
        }
        Ok(())
    }

    /// Takes one token of `id` and holds it until the [`Held`] is dropped (given back) or spent;
    /// refuses, taking nothing, when the bucket has no whole token left.
    pub fn hold(&self, now: Instant, id: BucketId) -> Result<Held<'_>, Denial> {
        let mut reservation = Reservation::default();
        self.take(now, std::slice::from_ref(&id), &mut reservation)?;
        Ok(Held { limiter: self, id: Some(id) })
    }

    /// Gives back every token of `reservation` (a bucket never holds more than its burst).
    pub fn give_back(&self, now: Instant, reservation: &mut Reservation) {
        let mut buckets = self.lock();
        for id in reservation.taken.drain(..) {
            self.restore(&mut buckets, &id, now);
        }
    }

    /// One token back into `id`'s bucket, never beyond its burst.
    fn restore(&self, buckets: &mut HashMap<BucketId, Bucket>, id: &BucketId, now: Instant) {
        let burst = f64::from(self.limits.rate(id.0).burst);
        let bucket = self.bucket(buckets, id, now);
        bucket.tokens = (bucket.tokens + 1.0).min(burst);
    }

    /// The tightest of `ids` (fewest whole tokens left).
    pub fn standing(&self, now: Instant, ids: &[BucketId]) -> Option<Standing> {
        let mut buckets = self.lock();
        ids.iter()
            .map(|id| {
                let rate = self.limits.rate(id.0);
                let bucket = self.bucket(&mut buckets, id, now);
                Standing {
                    kind: id.0,
                    quota: rate.burst,
                    window: seconds_until(f64::from(rate.burst), rate),
                    remaining: bucket.tokens.floor() as u32,
                    reset: if bucket.tokens >= f64::from(rate.burst) {
                        0
                    } else {
                        seconds_until(f64::from(rate.burst) - bucket.tokens, rate)
                    },
                }
            })
            .min_by_key(|standing| standing.remaining)
    }

    /// How many buckets are held (the memory bound made visible).
    pub fn held(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<BucketId, Bucket>> {
        self.buckets.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The bucket, refilled to `now`; made full when new or older than [`MAX_BUCKET_AGE`].
    fn bucket<'a>(&self, buckets: &'a mut HashMap<BucketId, Bucket>, id: &BucketId, now: Instant) -> &'a mut Bucket {
        if !buckets.contains_key(id) && buckets.len() >= self.limits.max_buckets {
            self.evict(buckets, now);
        }
        let rate = self.limits.rate(id.0);
        let burst = f64::from(rate.burst);
        let bucket = buckets.entry(id.clone()).or_insert(Bucket { tokens: burst, refilled_at: now, born: now });
        if now.saturating_duration_since(bucket.born) >= MAX_BUCKET_AGE {
            *bucket = Bucket { tokens: burst, refilled_at: now, born: now };
        }
        // Refilled up to the latest time seen, never back: a request that comes with an earlier
        // time than another's (it took its time before its step) must not credit a span twice.
        if now > bucket.refilled_at {
            let elapsed = (now - bucket.refilled_at).as_secs_f64();
            bucket.tokens = (bucket.tokens + elapsed * rate.per_second()).min(burst);
            bucket.refilled_at = now;
        }
        bucket
    }

    /// Drops buckets that are full again or too old (both are the same as no bucket), then, if the
    /// map is still over 90% of its bound, the oldest.
    fn evict(&self, buckets: &mut HashMap<BucketId, Bucket>, now: Instant) {
        buckets.retain(|id, bucket| {
            let rate = self.limits.rate(id.0);
            let refilled =
                bucket.tokens + now.saturating_duration_since(bucket.refilled_at).as_secs_f64() * rate.per_second();
            refilled < f64::from(rate.burst) && now.saturating_duration_since(bucket.born) < MAX_BUCKET_AGE
        });
        let keep = self.limits.max_buckets * 9 / 10;
        if buckets.len() > keep {
            let mut births: Vec<(Instant, BucketId)> = buckets.iter().map(|(id, b)| (b.born, id.clone())).collect();
            births.sort_by_key(|(born, _)| *born);
            for (_, id) in births.into_iter().take(buckets.len() - keep) {
                buckets.remove(&id);
            }
        }
    }
}

/// Whole seconds for a bucket of `rate` to gain `tokens`, at least 1.
fn seconds_until(tokens: f64, rate: Rate) -> u32 {
    let seconds = (tokens / rate.per_second() - 1e-9).ceil();
    (seconds.max(1.0)).min(f64::from(u32::MAX)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(max_buckets: usize) -> RateLimiter {
        RateLimiter::new(Limits { max_buckets, ..Limits::spec() })
    }

    fn reads(key: &str) -> BucketId {
        (BucketKind::Reads, Subject::Credential(key.into()))
    }

    fn source(ip: &str) -> BucketId {
        (BucketKind::AllRequests, Subject::Source(ip.parse().unwrap()))
    }

    fn failed_auth(ip: &str) -> BucketId {
        (BucketKind::FailedAuth, Subject::Source(ip.parse().unwrap()))
    }

    /// Takes `n` tokens of `id` for good.
    fn use_up(limiter: &RateLimiter, now: Instant, id: &BucketId, n: u32) {
        for _ in 0..n {
            limiter.take(now, std::slice::from_ref(id), &mut Reservation::default()).unwrap();
        }
    }

    fn remaining(limiter: &RateLimiter, now: Instant, id: &BucketId) -> u32 {
        limiter.standing(now, std::slice::from_ref(id)).unwrap().remaining
    }

    #[test]
    fn a_bucket_allows_its_burst_then_refuses_with_the_seconds_until_a_token() {
        let limiter = limiter(100);
        let now = Instant::now();
        let mut held = Reservation::default();
        for _ in 0..120 {
            limiter.take(now, &[reads("k")], &mut held).unwrap();
        }
        let refusal = limiter.take(now, &[reads("k")], &mut held).unwrap_err();
        assert_eq!(refusal, Denial { kind: BucketKind::Reads, retry_after: 1 });
        // 2 per second: half a second later one token is back.
        limiter.take(now + Duration::from_millis(500), &[reads("k")], &mut held).unwrap();
        assert!(limiter.take(now + Duration::from_millis(500), &[reads("k")], &mut held).is_err());
    }

    #[test]
    fn refill_is_continuous_and_never_beyond_the_burst() {
        let limiter = limiter(100);
        let now = Instant::now();
        let id = failed_auth("192.0.2.1");
        for _ in 0..20 {
            limiter.hold(now, id.clone()).unwrap().spend();
        }
        let refusal = limiter.hold(now, id.clone()).unwrap_err();
        assert_eq!(refusal.retry_after, 3, "one failed-authentication token every 3 s");
        assert!(limiter.hold(now + Duration::from_millis(2999), id.clone()).is_err());
        assert!(limiter.hold(now + Duration::from_secs(3), id.clone()).is_ok());
        let standing = limiter.standing(now + Duration::from_secs(3600), &[id]).unwrap();
        assert_eq!((standing.remaining, standing.quota, standing.reset), (20, 20, 0), "full, not more");
    }

    #[test]
    fn a_refused_request_takes_nothing_from_any_bucket() {
        let limiter = limiter(100);
        let now = Instant::now();
        let burst = (BucketKind::WritesBurst, Subject::Credential("k".into()));
        let hourly = (BucketKind::WritesHourly, Subject::Credential("k".into()));
        let mut held = Reservation::default();
        for _ in 0..60 {
            limiter.take(now, &[burst.clone(), hourly.clone()], &mut held).unwrap();
        }
        let refusal = limiter.take(now, &[burst.clone(), hourly.clone()], &mut held).unwrap_err();
        assert_eq!(refusal.kind, BucketKind::WritesBurst);
        let standing = limiter.standing(now, std::slice::from_ref(&hourly)).unwrap();
        assert_eq!(standing.remaining, 940, "the hourly bucket was not charged for the refused write");
    }

    #[test]
    fn giving_back_restores_the_tokens() {
        let limiter = limiter(100);
        let now = Instant::now();
        let mut held = Reservation::default();
        limiter.take(now, &[reads("k"), source("192.0.2.1")], &mut held).unwrap();
        assert_eq!(limiter.standing(now, &[reads("k")]).unwrap().remaining, 119);
        limiter.give_back(now, &mut held);
        assert_eq!(limiter.standing(now, &[reads("k")]).unwrap().remaining, 120);
        assert_eq!(limiter.standing(now, &[source("192.0.2.1")]).unwrap().remaining, 240);
        limiter.give_back(now, &mut held);
        assert_eq!(limiter.standing(now, &[reads("k")]).unwrap().remaining, 120, "given back once only");
    }

    #[test]
    fn the_refusal_names_the_bucket_that_needs_longest() {
        let limiter = limiter(100);
        let now = Instant::now();
        let hourly = (BucketKind::WritesHourly, Subject::Credential("k".into()));
        let burst = (BucketKind::WritesBurst, Subject::Credential("k".into()));
        use_up(&limiter, now, &hourly, 1000);
        use_up(&limiter, now, &burst, 60);
        let refusal = limiter.take(now, &[burst, hourly], &mut Reservation::default()).unwrap_err();
        assert_eq!(refusal, Denial { kind: BucketKind::WritesHourly, retry_after: 4 }, "3.6 s, rounded up");
    }

    #[test]
    fn no_bucket_outlives_400_seconds() {
        let limiter = limiter(100);
        let now = Instant::now();
        let hourly = (BucketKind::WritesHourly, Subject::Credential("k".into()));
        use_up(&limiter, now, &hourly, 1000);
        assert!(limiter.hold(now + Duration::from_secs(399), hourly.clone()).is_ok(), "110 tokens refilled by then");
        assert_eq!(
            limiter.standing(now + Duration::from_secs(399), std::slice::from_ref(&hourly)).unwrap().remaining,
            110
        );
        assert_eq!(
            limiter.standing(now + Duration::from_secs(400), &[hourly]).unwrap().remaining,
            1000,
            "born again full"
        );
    }

    #[test]
    fn a_flood_of_sources_keeps_the_map_bounded() {
        let limiter = limiter(1000);
        let now = Instant::now();
        for i in 0..50_000u32 {
            let ip = std::net::Ipv4Addr::from(0x0a00_0000 + i);
            limiter
                .take(now, &[(BucketKind::AllRequests, Subject::Source(IpAddr::V4(ip)))], &mut Reservation::default())
                .unwrap();
            assert!(limiter.held() <= 1000);
        }
    }

    #[test]
    fn a_held_token_is_taken_at_once_and_given_back_when_dropped() {
        let limiter = limiter(100);
        let now = Instant::now();
        let id = failed_auth("192.0.2.1");
        let held = limiter.hold(now, id.clone()).unwrap();
        assert_eq!(remaining(&limiter, now, &id), 19, "taken while the request is in flight");
        drop(held);
        assert_eq!(remaining(&limiter, now, &id), 20, "given back");
    }

    #[test]
    fn a_spent_token_is_not_given_back() {
        let limiter = limiter(100);
        let now = Instant::now();
        let id = failed_auth("192.0.2.1");
        limiter.hold(now, id.clone()).unwrap().spend();
        assert_eq!(remaining(&limiter, now, &id), 19);
    }

    #[test]
    fn with_one_token_left_only_one_of_many_requests_in_flight_holds_it() {
        let limiter = limiter(100);
        let now = Instant::now();
        let id = failed_auth("192.0.2.1");
        use_up(&limiter, now, &id, 19);
        let mut in_flight = Vec::new();
        let mut refused = 0;
        for _ in 0..40 {
            match limiter.hold(now, id.clone()) {
                Ok(held) => in_flight.push(held),
                Err(refusal) => {
                    assert_eq!(refusal, Denial { kind: BucketKind::FailedAuth, retry_after: 3 });
                    refused += 1;
                }
            }
        }
        assert_eq!((in_flight.len(), refused), (1, 39));
        // All of them fail authentication: one token is spent, as the bucket allows.
        in_flight.into_iter().for_each(Held::spend);
        assert_eq!(remaining(&limiter, now, &id), 0);
        assert!(limiter.hold(now, id).is_err());
    }

    #[test]
    fn a_held_token_is_given_back_by_a_panic_too() {
        let limiter = limiter(100);
        let now = Instant::now();
        let id = failed_auth("192.0.2.1");
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _held = limiter.hold(now, id.clone()).unwrap();
            panic!("a handler fault");
        }));
        assert!(unwound.is_err());
        assert_eq!(remaining(&limiter, now, &id), 20);
    }

    #[test]
    fn a_bucket_given_back_to_never_holds_more_than_its_burst() {
        let limiter = limiter(100);
        let now = Instant::now();
        let id = failed_auth("192.0.2.1");
        let held = limiter.hold(now, id.clone()).unwrap();
        // Refilled to full while the token was held: giving it back adds nothing.
        assert_eq!(remaining(&limiter, now + Duration::from_secs(3), &id), 20);
        drop(held);
        assert_eq!(remaining(&limiter, now + Duration::from_secs(3), &id), 20);
    }

    #[test]
    fn an_earlier_time_never_credits_a_span_twice() {
        let limiter = limiter(100);
        let now = Instant::now();
        let id = failed_auth("192.0.2.1");
        use_up(&limiter, now, &id, 20);
        // A request that took its time comes with `now` after another came with now + 2.9 s.
        assert!(limiter.hold(now + Duration::from_millis(2900), id.clone()).is_err());
        assert!(limiter.hold(now, id.clone()).is_err());
        // 5.9 s after `now` the bucket holds 5.9 / 3 tokens, not 2.9 / 3 more: one hold, not two.
        let later = now + Duration::from_millis(5900);
        limiter.hold(later, id.clone()).unwrap().spend();
        assert!(limiter.hold(later, id).is_err());
    }

    #[test]
    fn rates_parse_as_burst_per_seconds() {
        assert_eq!(Rate::parse("60/1s"), Some(Rate::new(60, Duration::from_secs(1))));
        assert_eq!(Rate::parse("1000/3.6s"), Some(Rate::new(1000, Duration::from_millis(3600))));
        for bad in ["60", "60/1", "0/1s", "60/0s", "60/-1s", "x/1s", "60/xs", ""] {
            assert_eq!(Rate::parse(bad), None, "{bad}");
        }
    }
}
