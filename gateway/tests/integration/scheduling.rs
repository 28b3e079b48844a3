//! `CPU_SCHEDULING`: every thread of `ingest serve` keeps the policy the process started with
//! unless `batch` is asked for (then every thread runs under `SCHED_BATCH`), and any other value
//! stops the start with a message naming the setting. Run as a process of its own: the policy is set
//! on the process's first thread, before any other.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::time::timeout;

/// Linux's number for `SCHED_BATCH` (`sched.h`).
const SCHED_BATCH: u32 = 3;

/// `ingest serve` on 127.0.0.1:0 with `CPU_SCHEDULING` as given; the database is never reached
/// (connections are made on the first request).
fn serve(policy: Option<&str>) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ingest"));
    command
        .arg("serve")
        .env_remove("CPU_SCHEDULING")
        .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")
        .env("LISTEN_ADDR", "127.0.0.1:0")
        .env("ADMIN_LISTEN_ADDR", "")
        .env("WEBHOOK_WORKER", "off")
        .env("LOG_LEVEL", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(policy) = policy {
        command.env("CPU_SCHEDULING", policy);
    }
    command.spawn().expect("starting ingest serve")
}

/// Waits for the "serving" line: by then the runtime's workers and the log writer exist.
async fn serving(child: &mut Child) {
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let found = timeout(Duration::from_secs(10), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains(r#""message":"serving""#) {
                return;
            }
        }
        panic!("ingest serve ended before serving");
    })
    .await;
    assert!(found.is_ok(), "no serving line within 10 s");
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
