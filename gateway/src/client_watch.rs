//! Whether a request's client is still waiting for its answer. hyper drops a request's future when
//! its connection closes; the request itself runs on as a task of its own (`dispatch`), and reads
//! this to know. Until its database call has started, a request whose client has gone is abandoned
//! ([`ClientWatch::gone`] ends the waits for a turn and for a pooled connection); once started,
//! it runs to its end, and is settled on what the database answered.

use tokio_util::sync::{CancellationToken, DropGuard};

#[derive(Clone, Default)]
pub struct ClientWatch(CancellationToken);

impl ClientWatch {
    /// A client that never goes: the gateway's own calls (the feed's publication).
    pub fn none() -> ClientWatch {
        ClientWatch::default()
    }

    pub fn has_gone(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Completes once the client has gone (at once if it already has).
    pub async fn gone(&self) {
        self.0.cancelled().await;
    }

    /// Marks the client gone when dropped: held by the future that awaits the answer, which hyper
    /// drops unfinished when the connection closes. (Dropped after the answer came, it marks a
    /// request that has already written its line: nothing reads it then.)
    pub fn gone_when_dropped(&self) -> DropGuard {
        self.0.clone().drop_guard()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_client_has_gone_once_the_guard_is_dropped_and_not_before() {
        let watch = ClientWatch::default();
        let guard = watch.gone_when_dropped();
        assert!(!watch.has_gone());
        let waiting = tokio::spawn({
            let watch = watch.clone();
            async move { watch.gone().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(guard);
        waiting.await.unwrap();
        assert!(watch.has_gone());
        // A request that answered first and dropped its guard then: nothing reads it any more.
        let answered = ClientWatch::default();
        drop(answered.gone_when_dropped());
        assert!(answered.has_gone());
    }
}
