//! The process's one setting of the C allocator: the largest buffers go back to the system when
//! freed, the buffers of an ordinary large request or answer are kept for the next.
//!
//! glibc serves an allocation of 128 KiB or more from its own mapping, returned at `free`, but
//! raises that threshold to the size of every such block freed. After a few pages of 500 bookings
//! (300 KB answers, read into growing buffers) every later page comes from the heap, whose freed
//! space glibc keeps: the gateway's peak rose to ~64 MB at 64 connections on that route alone, and
//! to ~79 MB over a `make bench` run, against a target of 64 MiB. Fixed thresholds keep it bounded.
//!
//! Fixed at 128 KiB (glibc's starting value), every answer or body of 64–128 KB (a page of 200 lots
//! or 200 bookings, any 64 KiB body, whose buffers grow past 128 KiB as they are read) went into a
//! fresh mapping, unmapped when the request ended: 10–24 page faults and an `munmap` a request, 5–7 %
//! of the requests a second of those routes at one connection. At 256 KiB, with the heap's free top given back only above 512 KiB (glibc's own
//! ratio), those buffers come from the heap and are used again: no page fault, and the same peak
//! within a MiB or two (bench/FINDINGS.md, "Large answers: a mapping a request").

/// Blocks of at least this size get a mapping of their own, returned at `free`.
const MMAP_THRESHOLD: i32 = 256 * 1024;
/// Free space at the heap's top beyond this is given back to the system.
const TRIM_THRESHOLD: i32 = 2 * MMAP_THRESHOLD;

/// Fixes glibc's mmap and trim thresholds (see the module's text). Called first thing in `main`,
/// before any thread exists. Elsewhere than glibc, nothing.
pub fn return_large_buffers_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's allocation parameters; it is called once, before any
    // other thread could be allocating.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}
