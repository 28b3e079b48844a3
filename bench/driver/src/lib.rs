//! `make bench`'s driver as a library: the binary (`main.rs`) runs it, and the gateway's
//! `cargo bench` takes the 64 KiB bodies from it ([`texts::made`]), so both measure the
//! same texts.
//!
//! The layout: `scenarios` (what is measured), `steps` (the run, step by step), `instruments`
//! (wrk, pgbench, the gateway's /metrics), `process` (what a run starts, each a guard that stops
//! it), `measurements` (the JSON lines), `render` (the tables), `targets` (every target).

pub mod instruments;
pub mod measurements;
pub mod process;
pub mod render;
pub mod rounds;
pub mod scenarios;
pub mod settings;
pub mod shell;
pub mod steps;
pub mod targets;
pub mod texts;
