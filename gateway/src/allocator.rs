//! The process's one setting of the C allocator: large buffers go back to the system when freed.
//!
//! glibc serves an allocation of 128 KiB or more from its own mapping, returned at `free`, but
//! raises that threshold to the size of every such block freed. After a few pages of 500 bookings
//! (300 KB answers, read into growing buffers) every later page comes from the heap, whose freed
//! space glibc keeps, and the gateway's memory grew with the largest answers it had served.
//!
//! The threshold is fixed at 256 KiB, and the heap's free top given back above 512 KiB: an answer
//! of 64–128 KB (a page of 200 lots or 200 bookings), which tokio-postgres reads into a buffer that
//! doubles past 128 KiB, is served from the heap without fresh page faults at every request, while
//! a buffer for a page of 500 bookings (300 KB) gets a mapping of its own, returned when freed. The
//! gateway's peak memory stays at or under the pass-through's on the same requests. A threshold of
//! 1 MiB, which would keep those pages in the heap too, made the gateway's memory larger over a
//! soak and the page no faster (bench/FINDINGS.md, "The gateway's allocator thresholds"; the
//! figures: bench/RESULTS.md).

/// Fixes glibc's mmap threshold at 256 KiB and its trim threshold at 512 KiB. Called first thing
/// in `main`, before any thread exists. Elsewhere than glibc, nothing.
pub fn return_large_buffers_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's allocation parameters; it is called once, before any
    // other thread could be allocating.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 * 1024);
    }
}
