//! What the run starts and must stop, each a guard that stops it when dropped (at the end of its
//! step, or on the way out of a failed run): a server, a sampler, the database's cores, a standby.
//! Also what /proc says of a process: its CPU time and its memory.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::shell::{output, psql, Cluster, Fallible};

/// A server the run started (the gateway, the pass-through), stopped when dropped.
pub struct Server {
    child: Child,
    pub port: u16,
}

impl Server {
    /// Starts `command`, its output to `log`; the server is to listen on `port`.
    pub fn start(mut command: Command, log: &Path, port: u16) -> Fallible<Server> {
        let log = File::create(log)?;
        let child = command.stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log).spawn()?;
        Ok(Server { child, port })
    }

    /// Its process id (a launcher such as taskset or chrt execs the server in place).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    /// SIGTERM, as an orchestrator stops the gateway; SIGKILL if it has not ended in 10 s.
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A thread taking a sample at an interval until finished (or dropped).
pub struct Sampler<T> {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Vec<T>>>,
}

impl<T: Send + 'static> Sampler<T> {
    /// Calls `sample` now and every `interval`, keeping what it returns.
    pub fn every(interval: Duration, mut sample: impl FnMut() -> Option<T> + Send + 'static) -> Sampler<T> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut samples = Vec::new();
            let mut next = Instant::now();
            while !stopping.load(Ordering::Relaxed) {
                if Instant::now() >= next {
                    samples.extend(sample());
                    next += interval;
                }
                std::thread::sleep(Duration::from_millis(20).min(interval));
            }
            samples
        });
        Sampler { stop, thread: Some(thread) }
    }

    /// Stops it: the samples taken.
    pub fn finish(mut self) -> Vec<T> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().expect("joined once").join().unwrap_or_default()
    }
}

impl<T> Drop for Sampler<T> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// PostgreSQL's processes on some cores only, and on every core the run may use again when
/// dropped.
pub struct DatabaseOnCores<'a> {
    cluster_url: &'a str,
    all: String,
}

impl<'a> DatabaseOnCores<'a> {
    /// The server's processes, and every backend it starts from now on, on `cores` (taskset).
    pub fn pin(cluster_url: &'a str, cores: &str, all: &str) -> Fallible<DatabaseOnCores<'a>> {
        database_on_cores(cluster_url, cores)?;
        Ok(DatabaseOnCores { cluster_url, all: all.to_string() })
    }
}

impl Drop for DatabaseOnCores<'_> {
    fn drop(&mut self) {
        if let Err(e) = database_on_cores(self.cluster_url, &self.all) {
            eprintln!("PostgreSQL could not be given back every core: {e}");
        }
    }
}

fn database_on_cores(cluster_url: &str, cores: &str) -> Fallible<()> {
    let data_directory = psql(cluster_url, "SHOW data_directory")?;
    let postmaster_pid = std::fs::read_to_string(Path::new(&data_directory).join("postmaster.pid"))?;
    let postmaster = postmaster_pid.lines().next().unwrap_or_default().trim().to_string();
    // (only the postmaster's must succeed: a backend may end between the listing and its turn)
    output(Command::new("taskset").args(["-a", "-p", "-c", cores, &postmaster]))?;
    let backends = output(Command::new("pgrep").args(["-P", &postmaster])).unwrap_or_default();
    for pid in backends.split_whitespace() {
        let _ = output(Command::new("taskset").args(["-a", "-p", "-c", cores, pid]));
    }
    Ok(())
}

/// A hot standby of the local cluster (`sql/dev/cluster.sh standby`), removed when dropped.
pub struct Standby<'a> {
    cluster: &'a Cluster,
}

impl<'a> Standby<'a> {
    pub fn make(cluster: &'a Cluster) -> Fallible<Standby<'a>> {
        cluster.run(&["standby"])?;
        Ok(Standby { cluster })
    }
}

impl Drop for Standby<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.cluster.run(&["standby-stop"]) {
            eprintln!("{e}");
        }
    }
}

/// The CPU time process `pid` has used so far, in µs: its threads' user and system time.
pub fn cpu_us(pid: u32) -> Fallible<u64> {
    static TICKS: OnceLock<u64> = OnceLock::new();
    let ticks = *TICKS.get_or_init(|| {
        output(Command::new("getconf").arg("CLK_TCK")).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(100)
    });
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // (after the command's name, which may hold spaces: the state is field 3, utime 14, stime 15)
    let fields: Vec<&str> = stat.rsplit_once(") ").ok_or("an unreadable /proc stat")?.1.split(' ').collect();
    let ticks_used: u64 = fields[11].parse::<u64>()? + fields[12].parse::<u64>()?;
    Ok(ticks_used * 1_000_000 / ticks)
}

/// A memory figure of process `pid` from /proc/PID/status (`VmRSS`, `VmHWM`), in KiB.
pub fn memory_kib(pid: u32, field: &str) -> Fallible<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status").into())
}

/// The cores this process may use (a container's cpuset, say), from /proc/self/status.
pub fn allowed_cores() -> Fallible<Vec<u32>> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let list = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .ok_or("no Cpus_allowed_list in /proc/self/status")?;
    parse_core_list(list.trim())
}

/// "0-2,5" as [0, 1, 2, 5].
fn parse_core_list(list: &str) -> Fallible<Vec<u32>> {
    let mut cores = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((first, last)) => cores.extend(first.parse::<u32>()?..=last.parse::<u32>()?),
            None => cores.push(part.parse()?),
        }
    }
    Ok(cores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_list_is_read_with_its_ranges() {
        assert_eq!(parse_core_list("0-2,5").unwrap(), vec![0, 1, 2, 5]);
        assert_eq!(parse_core_list("3").unwrap(), vec![3]);
        assert!(parse_core_list("a").is_err());
    }

    #[test]
    fn this_process_is_read_from_proc() {
        let pid = std::process::id();
        assert!(memory_kib(pid, "VmHWM").unwrap() > 0);
        assert!(cpu_us(pid).is_ok());
        assert!(!allowed_cores().unwrap().is_empty());
    }
}
