//! `CPU_SCHEDULING`: every thread of `ingest serve` keeps the policy the process started with
//! unless `batch` is asked for (then every thread runs under `SCHED_BATCH`), and any other value
//! stops the start with a message naming the setting. Run as a process of its own: the policy is set
//! on the process's first thread, before any other.

use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Child;
use tokio::time::timeout;

use crate::common::process::{self, stdout_lines, until_serving};

/// Linux's number for `SCHED_BATCH` (`sched.h`).
const SCHED_BATCH: u32 = 3;

/// `ingest serve` with `CPU_SCHEDULING` as given (none: unset).
fn serve(policy: Option<&str>) -> Child {
    process::serve(&policy.map(|policy| ("CPU_SCHEDULING", policy)).into_iter().collect::<Vec<_>>())
}

/// Waits for the "serving" line: by then the runtime's workers and the log writer exist.
async fn serving(child: &mut Child) {
    until_serving(&mut stdout_lines(child)).await;
}

/// The scheduling policy of each of the process's threads.
fn thread_policies(pid: u32) -> Vec<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .map(|task| policy_in(&task.unwrap().path().join("stat")))
        .collect()
}

/// Field 41 of a `stat` file of `/proc`: the scheduling policy.
fn policy_in(stat: &std::path::Path) -> u32 {
    let stat = std::fs::read_to_string(stat).unwrap();
    // The fields after the command name, which is in parentheses and may hold spaces.
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    after_name.split(' ').nth(41 - 3).unwrap().parse().unwrap()
}

#[tokio::test]
async fn batch_puts_every_thread_under_sched_batch() {
    let mut child = serve(Some("batch"));
    serving(&mut child).await;
    let policies = thread_policies(child.id().unwrap());
    assert!(policies.len() >= 3, "main, log writer and runtime workers: {policies:?}");
    assert!(policies.iter().all(|&policy| policy == SCHED_BATCH), "{policies:?}");
}

#[tokio::test]
async fn by_default_and_with_normal_every_thread_keeps_the_policy_the_process_started_with() {
    let started_with = policy_in(std::path::Path::new("/proc/thread-self/stat"));
    assert_ne!(started_with, SCHED_BATCH, "the test must start ingest serve under another policy than batch");
    for asked in [None, Some(""), Some("normal")] {
        let mut child = serve(asked);
        serving(&mut child).await;
        let policies = thread_policies(child.id().unwrap());
        assert!(policies.len() >= 3, "main, log writer and runtime workers: {policies:?}");
        assert!(policies.iter().all(|&policy| policy == started_with), "{asked:?}, {started_with}: {policies:?}");
    }
}

#[tokio::test]
async fn another_value_stops_the_start_and_names_the_setting() {
    let mut child = serve(Some("idle"));
    let status = timeout(Duration::from_secs(10), child.wait()).await.expect("it stops").unwrap();
    assert_eq!(status.code(), Some(1));
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).await.unwrap();
    assert_eq!(stderr, "ingest: CPU_SCHEDULING must be batch or normal\n");
}
