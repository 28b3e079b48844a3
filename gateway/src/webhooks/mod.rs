//! Webhook hints: the delivery worker and what it is made of.
//!
//! - [`worker`]: claims due hints, runs attempts with bounded concurrency, records outcomes.
//! - [`delivery`]: one attempt: resolve, check, connect, TLS, POST, read the status.
//! - [`address`]: which addresses count as public (IANA's special-purpose registries).
//! - [`resolve`]: A and AAAA lookups that tell "no records" from "lookup failed".
//! - [`signature`]: the `Service-Signature` header.
//!
//! The rules of hints themselves (made, merged, retried, dead) live in the database
//! (`sql/functions/webhook`, `sql/functions/app/webhooks`).

pub mod address;
pub mod delivery;
pub mod metrics;
pub mod resolve;
pub mod signature;
pub mod worker;
