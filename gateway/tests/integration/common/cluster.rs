//! A throwaway PostgreSQL cluster of a test's own ([`PrivateCluster`]), for tests that stop the
//! database, crash it, need TLS or a standby (binaries from `PG_BIN`); and [`free_port`], the
//! loopback port every server a test starts listens on.

use std::path::{Path, PathBuf};
use std::process::Command;

use uuid::Uuid;

/// A throwaway PostgreSQL cluster under the temp dir, on a free loopback port below the ephemeral
/// range ([`free_port`]), trust auth. Stopped and removed on drop, also when the test panics. As
/// root the cluster belongs to the `postgres` OS user (initdb refuses root).
pub struct PrivateCluster {
    dir: PathBuf,
    port: u16,
    bin: PathBuf,
}

impl PrivateCluster {
    /// initdb (not started).
    pub async fn create() -> PrivateCluster {
        Self::create_with("").await
    }

    /// initdb (not started), with `extra_conf` appended to postgresql.conf.
    pub async fn create_with(extra_conf: &str) -> PrivateCluster {
        let extra_conf = extra_conf.to_string();
        let bin = PathBuf::from(std::env::var("PG_BIN").unwrap_or_else(|_| "/usr/lib/postgresql/15/bin".into()));
        let dir = std::env::temp_dir().join(format!("gw-pg-{}", Uuid::new_v4().simple()));
        let port = free_port();
        let cluster = PrivateCluster { dir, port, bin };
        let (dir, bin) = (cluster.dir.clone(), cluster.bin.clone());
        tokio::task::spawn_blocking(move || {
            std::fs::create_dir(&dir).expect("the cluster folder");
            if running_as_root() {
                run(Command::new("chown").arg("postgres:").arg(&dir));
                let reachable = as_owner(Path::new("test")).arg("-w").arg(&dir).status().is_ok_and(|s| s.success());
                assert!(
                    reachable,
                    "the postgres OS user cannot write {} (set TMPDIR to a folder it can reach)",
                    dir.display()
                );
            }
            run(as_owner(&bin.join("initdb")).arg("-D").arg(dir.join("data")).args([
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ]));
            // fsync off (no test survives an OS crash), but commits stay synchronous: a crash
            // (immediate stop) must not lose a committed fixture.
            let conf = format!(
                "\n# a test's private cluster\nlisten_addresses = '127.0.0.1'\nport = {port}\n\
                 unix_socket_directories = '{}'\nfsync = off\nfull_page_writes = off\n\
                 max_connections = 30\n{extra_conf}\n",
                dir.display()
            );
            use std::io::Write as _;
            std::fs::OpenOptions::new()
                .append(true)
                .open(dir.join("data/postgresql.conf"))
                .and_then(|mut file| file.write_all(conf.as_bytes()))
                .expect("writing postgresql.conf");
        })
        .await
        .expect("initdb");
        cluster
    }

    /// A hot standby of this running cluster, made by `pg_basebackup -R` (it streams from this one
    /// and replays as it comes) on a port of its own below the ephemeral range, with
    /// `hot_standby_feedback` on (the primary's vacuum does not cancel its queries); not started.
    pub async fn standby(&self) -> PrivateCluster {
        let (bin, primary_port) = (self.bin.clone(), self.port);
        let dir = std::env::temp_dir().join(format!("gw-pg-standby-{}", Uuid::new_v4().simple()));
        let port = free_port();
        let standby = PrivateCluster { dir, port, bin };
        let (dir, bin) = (standby.dir.clone(), standby.bin.clone());
        tokio::task::spawn_blocking(move || {
            std::fs::create_dir(&dir).expect("the standby's folder");
            if running_as_root() {
                run(Command::new("chown").arg("postgres:").arg(&dir));
            }
            run(as_owner(&bin.join("pg_basebackup"))
                .args(["-h", "127.0.0.1", "-p", &primary_port.to_string(), "-U", "postgres", "-D"])
                .arg(dir.join("data"))
                .args(["-R", "-X", "stream", "-c", "fast", "--no-sync"]));
            // (appended: the copied postgresql.conf names the primary's port and folder first)
            let conf = format!(
                "\n# the standby of a test's private cluster\nport = {port}\nunix_socket_directories = '{}'\n\
                 hot_standby = on\nhot_standby_feedback = on\n",
                dir.display()
            );
            use std::io::Write as _;
            std::fs::OpenOptions::new()
                .append(true)
                .open(dir.join("data/postgresql.conf"))
                .and_then(|mut file| file.write_all(conf.as_bytes()))
                .expect("writing the standby's postgresql.conf");
        })
        .await
        .expect("pg_basebackup");
        standby
    }

    /// The superuser URL of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// A URL of the cluster's `postgres` database for the login `user` (trust authentication).
    pub fn url_as(&self, user: &str) -> String {
        format!("postgres://{user}@127.0.0.1:{}/postgres", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Writes `name` into the data directory (before `start`: a server key or certificate, or a
    /// pg_hba.conf replacing initdb's), mode 0600 and owned by the cluster's OS user, as the server
    /// wants its key.
    pub fn write_data_file(&self, name: &str, contents: &[u8]) {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.dir.join("data").join(name);
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod 0600");
        if running_as_root() {
            run(Command::new("chown").arg("postgres:").arg(&path));
        }
    }

    /// Everything the server has logged so far.
    pub fn server_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    pub async fn start(&self) {
        self.pg_ctl(&["start", "-w", "-t", "30"]).await;
    }

    /// `pg_ctl stop -m fast`: sessions are ended, the server is gone when this returns.
    pub async fn stop(&self) {
        self.pg_ctl(&["stop", "-w", "-t", "30", "-m", "fast"]).await;
    }

    /// `pg_ctl stop -m immediate`: every process quits at once, nothing is cleaned up (as in a
    /// crash; the next start recovers). A session waiting for a lock is not woken first.
    pub async fn crash(&self) {
        self.pg_ctl(&["stop", "-w", "-t", "30", "-m", "immediate"]).await;
    }

    async fn pg_ctl(&self, args: &[&str]) {
        let mut command = as_owner(&self.bin.join("pg_ctl"));
        command.arg("-D").arg(self.dir.join("data")).arg("-l").arg(self.dir.join("server.log")).args(args);
        tokio::task::spawn_blocking(move || run(&mut command)).await.expect("pg_ctl");
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        if data.join("postmaster.pid").exists() {
            let _ = as_owner(&self.bin.join("pg_ctl"))
                .arg("-D")
                .arg(&data)
                .args(["stop", "-w", "-t", "30", "-m", "immediate"])
                .output();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub(super) fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

fn as_owner(program: &Path) -> Command {
    if running_as_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

pub(super) fn run(command: &mut Command) {
    let output = command.output().unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A loopback port nobody listens on right now, below the kernel's ephemeral range (32768-60999 on
/// Linux by default): a port inside it can be taken by any outgoing connection, even one of a
/// client connecting to this very port while the cluster is stopped (a TCP self-connect), and the
/// cluster could then not start again. Picked at random in 20000-31999 and checked by binding it.
pub fn free_port() -> u16 {
    for _ in 0..1000 {
        let random = u16::from_le_bytes(Uuid::new_v4().as_bytes()[..2].try_into().unwrap());
        let port = 20_000 + random % 12_000;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port in 20000-31999")
}
