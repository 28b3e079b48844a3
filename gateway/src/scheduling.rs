//! The CPU scheduling policy of the gateway's threads (`CPU_SCHEDULING`, Linux).
//!
//! Where the gateway shares its cores with PostgreSQL, each answer a backend sends wakes a gateway
//! thread, and Linux lets a freshly woken thread preempt the one running: the backend is switched
//! out in the middle of its work, twice per request. Under `SCHED_BATCH` the gateway's threads keep
//! the same share of the CPU (their nice value is unchanged), but a woken gateway thread waits for
//! the running backend's turn to end instead of cutting it short. It raises the gateway's throughput
//! at 16 connections, not at one, where the cores are idle (bench/FINDINGS.md, "CPU_SCHEDULING=batch
//! where the database shares the cores"). It helps only where the gateway and PostgreSQL share
//! cores, as in `make bench` (which asks for `batch`); in production the database usually runs
//! elsewhere, so the default, `normal`, leaves the policy the process was started with.

pub use crate::config::CpuScheduling;

impl CpuScheduling {
    /// Puts the calling thread under the policy. Called first thing in `main`, before any other
    /// thread exists: a thread starts under the policy of the thread that started it, so the
    /// runtime's workers, its blocking pool and the log writer all inherit it. Err: why the kernel
    /// refused (the process then runs under the policy it had).
    pub fn apply(self) -> Result<(), String> {
        match self {
            CpuScheduling::Normal => Ok(()),
            CpuScheduling::Batch => set_batch(),
        }
    }
}

#[cfg(target_os = "linux")]
fn set_batch() -> Result<(), String> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler reads `param` only during the call; pid 0 is the calling thread.
    // Moving from SCHED_OTHER to SCHED_BATCH needs no privilege.
    let status = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
    if status == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error().to_string())
    }
}

#[cfg(not(target_os = "linux"))]
fn set_batch() -> Result<(), String> {
    Err("SCHED_BATCH is Linux's".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(value: Option<&str>) -> Result<CpuScheduling, String> {
        crate::config::cpu_scheduling(&|name: &str| {
            assert_eq!(name, "CPU_SCHEDULING");
            value.map(str::to_string)
        })
    }

    #[test]
    fn normal_unless_batch_is_asked_for_and_nothing_else_is_taken() {
        assert_eq!(read(None), Ok(CpuScheduling::Normal));
        assert_eq!(read(Some("")), Ok(CpuScheduling::Normal));
        assert_eq!(read(Some("normal")), Ok(CpuScheduling::Normal));
        assert_eq!(read(Some("batch")), Ok(CpuScheduling::Batch));
        assert_eq!(read(Some("NORMAL")), Err("CPU_SCHEDULING must be batch or normal".to_string()));
        assert_eq!(read(Some("BATCH")), Err("CPU_SCHEDULING must be batch or normal".to_string()));
        assert_eq!(read(Some("idle")), Err("CPU_SCHEDULING must be batch or normal".to_string()));
    }
}
