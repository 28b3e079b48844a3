//! `ingest serve` as a process of its own, for what only the real binary shows: its start, its
//! threads, its own log at a given `LOG_LEVEL`.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};
use tokio::time::timeout;

/// `ingest serve` on 127.0.0.1:0, no admin listener, no worker, `LOG_LEVEL=info`, against a
/// database that is never reached (connections are made on the first request), with `settings` on
/// top; none of the edge or scheduling settings of the test's own environment. Killed when dropped.
pub fn serve(settings: &[(&str, &str)]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ingest"));
    command
        .arg("serve")
        .env_remove("EDGE_SECRET")
        .env_remove("EDGE_PEERS")
        .env_remove("CPU_SCHEDULING")
        .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")
        .env("LISTEN_ADDR", "127.0.0.1:0")
        .env("ADMIN_LISTEN_ADDR", "")
        .env("WEBHOOK_WORKER", "off")
        .env("LOG_LEVEL", "info")
        .envs(settings.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command.spawn().expect("starting ingest serve")
}

/// The process's standard output, line by line (taken from the child: call once).
pub fn stdout_lines(child: &mut Child) -> Lines<BufReader<ChildStdout>> {
    BufReader::new(child.stdout.take().expect("the standard output, once")).lines()
}

/// The lines written up to and including the "serving" line (within 10 s); by then the runtime's
/// workers and the log writer exist, and the listener is bound.
pub async fn until_serving(lines: &mut Lines<BufReader<ChildStdout>>) -> Vec<String> {
    let mut seen = Vec::new();
    let found = timeout(Duration::from_secs(10), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let serving = line.contains(r#""message":"serving""#);
            seen.push(line);
            if serving {
                return;
            }
        }
        panic!("ingest serve ended before serving: {seen:?}");
    })
    .await;
    assert!(found.is_ok(), "no serving line within 10 s");
    seen
}

/// SIGTERM, as a service manager stops it: the process drains, writes out what it buffered and ends.
pub fn terminate(child: &Child) {
    let pid = child.id().expect("the process runs");
    let status = std::process::Command::new("kill").arg("-TERM").arg(pid.to_string()).status().expect("kill");
    assert!(status.success(), "kill -TERM {pid}");
}
