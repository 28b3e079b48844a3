//! Connection attempts while the database is unreachable: after a failed attempt, no request tries
//! to connect again until a backoff window has passed (100 ms, doubling up to 1 s, each shortened by
//! a random jitter down to half); then one request probes while every other answers 503 at once.
//! A success ends it. So an outage costs the database at most a few attempts a second whatever the
//! load, and the gateway notices the database back within a second or so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const FIRST_WINDOW: Duration = Duration::from_millis(100);
const LONGEST_WINDOW: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct ConnectBackoff {
    /// Set while an outage is known: the healthy path reads only this, never the lock.
    troubled: AtomicBool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    failures: u32,
    closed_until: Option<Instant>,
    /// A probe under way since then; abandoned probes (a request dropped mid-attempt) expire.
    probing_since: Option<Instant>,
}

/// Whether a request may use the pool now.
#[derive(Debug, PartialEq, Eq)]
pub enum Admission {
    /// No outage known: go ahead.
    Open,
    /// The window has passed: this request is the one probe.
    Probe,
    /// In the window, or another request is probing: answer 503 at once.
    BackOff,
}

impl ConnectBackoff {
    pub fn admit(&self, now: Instant, probe_deadline: Duration) -> Admission {
        if !self.troubled.load(Ordering::Acquire) {
            return Admission::Open;
        }
        let mut state = self.lock();
        let Some(until) = state.closed_until else { return Admission::Open };
        if now < until {
            return Admission::BackOff;
        }
        if state.probing_since.is_some_and(|since| now.saturating_duration_since(since) < probe_deadline) {
            return Admission::BackOff;
        }
        state.probing_since = Some(now);
        Admission::Probe
    }

    /// A connection attempt failed: the next window, `jitter` in 0.5..=1.0 of its full length.
    pub fn failed(&self, now: Instant, jitter: f64) {
        let mut state = self.lock();
        state.failures = state.failures.saturating_add(1);
        let doubling = FIRST_WINDOW.saturating_mul(1u32 << (state.failures - 1).min(10));
        let window = doubling.min(LONGEST_WINDOW).mul_f64(jitter.clamp(0.5, 1.0));
        state.closed_until = Some(now + window);
        state.probing_since = None;
        self.troubled.store(true, Ordering::Release);
    }

    /// The database answered: no outage.
    pub fn succeeded(&self) {
        if self.troubled.load(Ordering::Acquire) {
            *self.lock() = State::default();
            self.troubled.store(false, Ordering::Release);
        }
    }

    /// A probe ended without telling (it timed out waiting, say): let another probe.
    pub fn probe_ended(&self) {
        self.lock().probing_since = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A jitter factor in 0.5..1.0 from the operating system's randomness (via a v4 UUID).
pub fn jitter() -> f64 {
    let random = uuid::Uuid::new_v4().as_u128() as u64;
    0.5 + (random as f64 / u64::MAX as f64) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROBE: Duration = Duration::from_secs(5);

    #[test]
    fn without_a_failure_every_request_goes_ahead() {
        let backoff = ConnectBackoff::default();
        assert_eq!(backoff.admit(Instant::now(), PROBE), Admission::Open);
    }

    #[test]
    fn after_a_failure_requests_back_off_until_the_window_passes_then_one_probes() {
        let backoff = ConnectBackoff::default();
        let now = Instant::now();
        backoff.failed(now, 1.0);
        assert_eq!(backoff.admit(now + Duration::from_millis(99), PROBE), Admission::BackOff);
        assert_eq!(backoff.admit(now + Duration::from_millis(100), PROBE), Admission::Probe);
        assert_eq!(backoff.admit(now + Duration::from_millis(101), PROBE), Admission::BackOff, "one probe at a time");
        backoff.succeeded();
        assert_eq!(backoff.admit(now + Duration::from_millis(102), PROBE), Admission::Open);
    }

    #[test]
    fn windows_double_up_to_a_second_and_jitter_shortens_them() {
        let backoff = ConnectBackoff::default();
        let mut now = Instant::now();
        for expected in [100, 200, 400, 800, 1000, 1000, 1000] {
            backoff.failed(now, 1.0);
            let window = Duration::from_millis(expected);
            assert_eq!(backoff.admit(now + window - Duration::from_millis(1), PROBE), Admission::BackOff);
            assert_eq!(backoff.admit(now + window, PROBE), Admission::Probe);
            now += window;
        }
        backoff.failed(now, 0.5);
        assert_eq!(backoff.admit(now + Duration::from_millis(500), PROBE), Admission::Probe, "half the window");
    }

    #[test]
    fn an_abandoned_probe_expires() {
        let backoff = ConnectBackoff::default();
        let now = Instant::now();
        backoff.failed(now, 1.0);
        assert_eq!(backoff.admit(now + Duration::from_millis(100), PROBE), Admission::Probe);
        assert_eq!(backoff.admit(now + Duration::from_millis(100) + PROBE, PROBE), Admission::Probe);
        backoff.probe_ended();
        assert_eq!(backoff.admit(now + Duration::from_millis(200) + PROBE, PROBE), Admission::Probe);
    }

    #[test]
    fn jitter_stays_within_half_to_whole() {
        for _ in 0..1000 {
            let factor = jitter();
            assert!((0.5..=1.0).contains(&factor), "{factor}");
        }
    }
}
