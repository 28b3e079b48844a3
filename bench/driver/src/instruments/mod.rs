//! The instruments, each a program the driver runs and reads: wrk for HTTP, pgbench for SQL, and
//! the gateway's own /metrics for its clocks and counters.

pub mod gateway_metrics;
pub mod pgbench;
pub mod wrk;
