//! A high-availability cluster of a test's own, as self-managed production runs one: etcd (one
//! member) and two PostgreSQL 15 nodes under Patroni, from Debian's packages, synchronous
//! replication on (`synchronous_mode`), on loopback ports of the test's own, in a folder removed
//! when the cluster is dropped (panics included).
//!
//! Patroni's timing is the one docs/operating.md recommends: `ttl` 10 s, `loop_wait` 2 s,
//! `retry_timeout` 4 s (Patroni wants `loop_wait + 2 × retry_timeout ≤ ttl`). A node can run with
//! its clock set back (libfaketime in its Patroni's and so its server's environment), the way a
//! promoted standby whose clock lags the old primary's would stamp.
//!
//! [`PatroniCluster::kill`] is a machine's death: SIGKILL to the node's Patroni, its postmaster and
//! every server process, at once; nothing is shut down cleanly. [`PatroniCluster::restart`] starts
//! its Patroni again, which rewinds the old primary (`pg_rewind`) and rejoins it as a replica.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use uuid::Uuid;

use super::cluster::{run, running_as_root};
use super::{free_port, try_connect};

/// Debian's binaries.
const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// Patroni's settings (docs/operating.md, "Failover"): a dead leader's key expires after `TTL`
/// seconds, and the synchronous standby takes over at its next loop.
const TTL: u32 = 10;
const LOOP_WAIT: u32 = 2;
const RETRY_TIMEOUT: u32 = 4;

/// No step of making or healing the cluster may take longer.
const SETTLE: Duration = Duration::from_secs(90);

struct Node {
    name: String,
    pg_port: u16,
    rest_port: u16,
    /// libfaketime's offset for this node's clock ("-10m"), or none.
    clock_offset: Option<String>,
    patroni: Option<Child>,
}

pub struct PatroniCluster {
    dir: PathBuf,
    etcd: Child,
    nodes: Vec<Node>,
}

impl PatroniCluster {
    /// etcd and two nodes, node 0 bootstrapped first so it leads; returns once node 1 replicates
    /// synchronously. `clock_offsets[i]`: node i's clock offset for libfaketime, if any.
    pub async fn start(clock_offsets: [Option<&str>; 2]) -> PatroniCluster {
        let dir = std::env::temp_dir().join(format!("gw-patroni-{}", Uuid::new_v4().simple()));
        std::fs::create_dir(&dir).expect("the cluster's folder");
        if running_as_root() {
            run(Command::new("chown").arg("postgres:").arg(&dir));
        }
        let (etcd_port, etcd_peer_port) = (free_port(), free_port());
        let etcd = spawn_logged(
            Command::new("etcd").args([
                "--name",
                "etcd0",
                "--data-dir",
                &dir.join("etcd").to_string_lossy(),
                "--listen-client-urls",
                &format!("http://127.0.0.1:{etcd_port}"),
                "--advertise-client-urls",
                &format!("http://127.0.0.1:{etcd_port}"),
                "--listen-peer-urls",
                &format!("http://127.0.0.1:{etcd_peer_port}"),
                "--initial-advertise-peer-urls",
                &format!("http://127.0.0.1:{etcd_peer_port}"),
                "--initial-cluster",
                &format!("etcd0=http://127.0.0.1:{etcd_peer_port}"),
            ]),
            &dir.join("etcd.log"),
        );
        let nodes = clock_offsets
            .iter()
            .enumerate()
            .map(|(index, offset)| Node {
                name: format!("node{index}"),
                pg_port: free_port(),
                rest_port: free_port(),
                clock_offset: offset.map(String::from),
                patroni: None,
            })
            .collect();
        let mut cluster = PatroniCluster { dir, etcd, nodes };
        for index in 0..cluster.nodes.len() {
            cluster.write_config(index, etcd_port);
        }
        cluster.restart(0);
        cluster.wait_for(|roles| roles[0] == Role::Leader, "node 0 to lead").await;
        cluster.restart(1);
        cluster.wait_until_replicating().await;
        cluster
    }

    /// A URL of `database` for `user` that reaches whichever node leads, as a deployment's
    /// `DATABASE_URL` does: every node, and `target_session_attrs=read-write`.
    pub fn url_as(&self, database: &str, user: &str) -> String {
        let hosts: Vec<String> = self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.pg_port)).collect();
        format!("postgres://{user}@{}/{database}?target_session_attrs=read-write", hosts.join(","))
    }

    /// The superuser URL of the `postgres` database, wherever the leader is.
    pub fn url(&self) -> String {
        self.url_as("postgres", "postgres")
    }

    /// The superuser URL of node `index` alone.
    pub fn node_url(&self, index: usize) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.nodes[index].pg_port)
    }

    /// The index of the node that leads now (a primary), if one does.
    pub async fn leader(&self) -> Option<usize> {
        self.roles().await.iter().position(|role| *role == Role::Leader)
    }

    /// Node `index`'s machine dies: its Patroni, its postmaster and every server process get SIGKILL
    /// at once.
    pub fn kill(&mut self, index: usize) {
        let node = &mut self.nodes[index];
        let mut pids: Vec<String> = Vec::new();
        let patroni = node.patroni.take();
        if let Some(patroni) = &patroni {
            pids.push(patroni.id().to_string());
        }
        let pid_file = self.dir.join(&node.name).join("postmaster.pid");
        if let Some(postmaster) =
            std::fs::read_to_string(&pid_file).ok().and_then(|t| t.lines().next().map(String::from))
        {
            // Frozen first, so it starts no backend between the listing of its children and the kill.
            let _ = Command::new("kill").args(["-STOP", &postmaster]).stderr(Stdio::null()).status();
            let children = Command::new("pgrep").args(["-P", &postmaster]).output().expect("pgrep");
            pids.extend(String::from_utf8_lossy(&children.stdout).split_whitespace().map(String::from));
            pids.push(postmaster);
        }
        assert!(!pids.is_empty(), "node {index} runs nothing to kill");
        let _ = Command::new("kill").arg("-KILL").args(&pids).stderr(Stdio::null()).status();
        if let Some(mut patroni) = patroni {
            let _ = patroni.wait();
        }
        // (stale now: a later kill, or the server's own start, must not take its pid for a live one)
        let _ = std::fs::remove_file(&pid_file);
    }

    /// Starts node `index`'s Patroni (again): a stopped or killed node rejoins; a new one
    /// bootstraps or copies the leader.
    pub fn restart(&mut self, index: usize) {
        let node = &self.nodes[index];
        assert!(node.patroni.is_none(), "node {index}'s Patroni already runs");
        // (libfaketime through env, after setpriv: loaded into setpriv, it would make its shared
        // memory as root, which the node's processes could not open)
        let mut command = as_postgres("env");
        if let Some(offset) = &node.clock_offset {
            command
                .arg(format!("LD_PRELOAD={}", libfaketime().display()))
                .args([format!("FAKETIME={offset}"), "FAKETIME_DONT_FAKE_MONOTONIC=1".to_string()]);
        }
        command.arg("patroni").arg(self.dir.join(format!("{}.yml", node.name)));
        let log = self.dir.join(format!("{}.log", node.name));
        self.nodes[index].patroni = Some(spawn_logged(&mut command, &log));
    }

    /// Waits until both nodes run, one leads and the other replicates from it synchronously, and
    /// Patroni has recorded that replica as the synchronous one (its `/sync` answers 200): until
    /// then Patroni would not promote it.
    pub async fn wait_until_replicating(&self) {
        let started = Instant::now();
        loop {
            let roles = self.roles().await;
            let leader = roles.iter().position(|r| *r == Role::Leader);
            let replica = roles.iter().position(|r| *r == Role::Replica);
            if let (Some(leader), Some(replica)) = (leader, replica) {
                if self.synchronous_standbys(leader).await == 1 && self.patroni_says_synchronous(replica).await {
                    return;
                }
            }
            self.assert_within(started, "both nodes to run, one replicating synchronously");
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Waits until the roles satisfy `done`.
    pub async fn wait_for(&self, done: impl Fn(&[Role]) -> bool, what: &str) {
        let started = Instant::now();
        while !done(&self.roles().await) {
            self.assert_within(started, what);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Each node's role as its server answers now.
    pub async fn roles(&self) -> Vec<Role> {
        let mut roles = Vec::new();
        for index in 0..self.nodes.len() {
            roles.push(match probe(&self.node_url(index), "SELECT pg_is_in_recovery()").await {
                Some(true) => Role::Replica,
                Some(false) => Role::Leader,
                None => Role::Down,
            });
        }
        roles
    }

    /// Node `index`'s clock offset (what libfaketime was given), for messages.
    pub fn clock_offset(&self, index: usize) -> Option<&str> {
        self.nodes[index].clock_offset.as_deref()
    }

    /// Patroni's settings, for the test's report.
    pub fn settings() -> String {
        format!("ttl {TTL} s, loop_wait {LOOP_WAIT} s, retry_timeout {RETRY_TIMEOUT} s, synchronous_mode on")
    }

    async fn patroni_says_synchronous(&self, index: usize) -> bool {
        let http = super::Http::new(([127, 0, 0, 1], self.nodes[index].rest_port).into());
        let answer = http.try_request(http::Method::GET, "/sync", http::HeaderMap::new(), "").await;
        answer.is_ok_and(|response| response.status == 200)
    }

    async fn synchronous_standbys(&self, leader: usize) -> i64 {
        let Some(client) = try_connect(&self.node_url(leader)).await else { return 0 };
        client
            .query_one(
                "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' AND state = 'streaming'",
                &[],
            )
            .await
            .map(|row| row.get(0))
            .unwrap_or(0)
    }

    fn assert_within(&self, started: Instant, what: &str) {
        assert!(started.elapsed() < SETTLE, "waited {SETTLE:?} for {what}; Patroni's logs:\n{}", self.logs());
    }

    /// Every node's Patroni log and etcd's, for a failure's message.
    pub fn logs(&self) -> String {
        let mut text = String::new();
        for name in self.nodes.iter().map(|n| n.name.as_str()).chain(["etcd"]) {
            let log = std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            text.push_str(&format!("--- {name}\n{}\n", tail.into_iter().rev().collect::<Vec<_>>().join("\n")));
        }
        text
    }

    fn write_config(&self, index: usize, etcd_port: u16) {
        let node = &self.nodes[index];
        let dir = self.dir.display();
        let config = format!(
            "scope: ingest-tests
namespace: /{namespace}/
name: {name}
restapi:
  listen: 127.0.0.1:{rest}
  connect_address: 127.0.0.1:{rest}
etcd3:
  hosts: 127.0.0.1:{etcd_port}
bootstrap:
  dcs:
    ttl: {TTL}
    loop_wait: {LOOP_WAIT}
    retry_timeout: {RETRY_TIMEOUT}
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_log_hints: 'on'
        max_connections: 100
        max_wal_senders: 5
        max_replication_slots: 5
  initdb:
  - encoding: UTF8
  - locale: C.UTF-8
  - auth: trust
  pg_hba:
  - local all all trust
  - host all all 127.0.0.1/32 trust
  - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:{pg}
  connect_address: 127.0.0.1:{pg}
  data_dir: {dir}/{name}
  bin_dir: {PG_BIN}
  pgpass: {dir}/{name}.pgpass
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
    rewind:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: '{dir}'
    fsync: 'off'
    dynamic_shared_memory_type: mmap
",
            namespace = self.dir.file_name().unwrap().to_string_lossy(),
            name = node.name,
            rest = node.rest_port,
            pg = node.pg_port,
        );
        let path = self.dir.join(format!("{}.yml", node.name));
        std::fs::write(&path, config).expect("writing a Patroni configuration");
        if running_as_root() {
            run(Command::new("chown").arg("postgres:").arg(&path));
        }
    }
}

impl Drop for PatroniCluster {
    fn drop(&mut self) {
        for index in 0..self.nodes.len() {
            if self.nodes[index].patroni.is_some() {
                self.kill(index);
            }
        }
        let _ = self.etcd.kill();
        let _ = self.etcd.wait();
        // (the killed processes' folders: give the kernel a moment to let go of them)
        std::thread::sleep(Duration::from_millis(200));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Leader,
    Replica,
    Down,
}

/// One boolean query's answer on `url`, or None when the server does not answer (within 2 s).
async fn probe(url: &str, sql: &str) -> Option<bool> {
    let attempt = async { try_connect(url).await?.query_one(sql, &[]).await.ok().map(|row| row.get::<_, bool>(0)) };
    tokio::time::timeout(Duration::from_secs(2), attempt).await.ok().flatten()
}

/// `program` run as the `postgres` OS user when the tests run as root (setpriv execs it: the child's
/// pid is the program's own, so a kill reaches it).
fn as_postgres(program: &str) -> Command {
    if running_as_root() {
        let mut command = Command::new("setpriv");
        command.args(["--reuid=postgres", "--regid=postgres", "--init-groups", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// Starts `command` with its output appended to `log`.
fn spawn_logged(command: &mut Command, log: &Path) -> Child {
    let file = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("a log file");
    command
        .stdin(Stdio::null())
        .stdout(file.try_clone().expect("the log file"))
        .stderr(file)
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?}: {e} (make test installs patroni and etcd-server)"))
}

/// Debian's libfaketime (package faketime), wherever its architecture's folder is.
fn libfaketime() -> PathBuf {
    std::fs::read_dir("/usr/lib")
        .expect("/usr/lib")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path().join("faketime/libfaketime.so.1"))
        .find(|path| path.exists())
        .expect("libfaketime (make test installs faketime)")
}
