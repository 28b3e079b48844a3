//! The process's one setting of the C allocator: large buffers go back to the system when freed.
//!
//! glibc serves an allocation of 128 KiB or more from its own mapping, returned at `free`, but
//! raises that threshold to the size of every such block freed. After a few pages of 500 bookings
//! (300 KB answers, read into growing buffers) every later page comes from the heap, whose freed
//! space glibc keeps, and the gateway's peak memory at 64 connections went past its target. A fixed
//! threshold keeps large buffers in mappings, for no measurable change in throughput.
//!
//! The price, kept: an answer of 64–128 KB (a page of 200 lots or 200 bookings) is read into a
//! fresh mapping by tokio-postgres (its read buffer doubles past 128 KiB), with its page faults,
//! every request. At 256 KiB (and the heap's top trimmed above 512 KiB) they went, but the peak
//! went past the target again (bench/FINDINGS.md, "The gateway's mmap threshold fixed at 128 KiB";
//! the figures: bench/RESULTS.md).

/// Fixes glibc's mmap threshold at 128 KiB (its starting value). Called first thing in `main`,
/// before any thread exists. Elsewhere than glibc, nothing.
pub fn return_large_buffers_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's allocation parameters; it is called once, before any
    // other thread could be allocating.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}
