//! What a run's statement is waiting for, watched from a second session: when the statement gives up
//! (`lock_timeout`), the run's message names the lock and the sessions holding it, which the
//! server's own error ("canceling statement due to lock timeout") does not.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_postgres::Client;

/// The lock a session waits for and who holds it, in one line: the mode, the relation (or the kind
/// of lock), and each blocking session's pid, application name, state and transaction start. No
/// query text (it may carry a value a client sent).
const WAITING_FOR: &str = "\
SELECT pg_catalog.format('%s on %s, held by %s', w.mode,
           coalesce(w.relation::pg_catalog.regclass::text, w.locktype),
           pg_catalog.string_agg(pg_catalog.format('pid %s (%s, %s since %s)', b.pid,
               coalesce(nullif(a.application_name, ''), 'no application name'),
               coalesce(a.state, 'state not visible'),
               coalesce(pg_catalog.to_char(a.xact_start, 'YYYY-MM-DD HH24:MI:SS TZ'), 'unknown')), ', '))
  FROM pg_catalog.pg_locks AS w
 CROSS JOIN LATERAL pg_catalog.unnest(pg_catalog.pg_blocking_pids($1)) AS b (pid)
  LEFT JOIN pg_catalog.pg_stat_activity AS a ON a.pid = b.pid
 WHERE w.pid = $1 AND NOT w.granted
 GROUP BY w.mode, w.relation, w.locktype";

/// Polls, every `every`, what the session `pid` waits for, and keeps the last answer seen.
pub struct LockWatch {
    seen: Arc<Mutex<Option<String>>>,
    task: JoinHandle<()>,
}

impl LockWatch {
    pub fn start(watcher: Client, pid: i32, every: Duration) -> LockWatch {
        let seen = Arc::new(Mutex::new(None));
        let task = tokio::spawn({
            let seen = seen.clone();
            async move {
                loop {
                    // (each look within a deadline: a watcher that hangs only leaves the wait unnamed)
                    let look = tokio::time::timeout(every * 4, watcher.query_opt(WAITING_FOR, &[&pid])).await;
                    if let Ok(Ok(Some(row))) = look {
                        *seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(row.get(0));
                    }
                    tokio::time::sleep(every).await;
                }
            }
        });
        LockWatch { seen, task }
    }

    /// The last wait seen, and forgets it (each try starts afresh).
    pub fn take(&self) -> Option<String> {
        self.seen.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take()
    }
}

impl Drop for LockWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}
