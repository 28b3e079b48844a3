//! The Operator Ingest API gateway: a thin HTTP front for the rules PostgreSQL holds.
//!
//! Every rule of the API (authentication, scopes, validation, diffing, cursors) lives in PL/pgSQL
//! functions under forced row-level security (`sql/`). This crate owns transport only, and each
//! request costs one SQL round trip: one `api.*` function call that authenticates, checks scope,
//! sets the operator context and does the work (a feed read from a hot standby costs two: the
//! primary authenticates, the standby reads; [`standby`]).
//!
//! # Layout
//!
//! - [`config`]: settings from environment variables.
//! - [`server`]: the listener, connection tasks and graceful shutdown.
//! - [`listener`]: the accept loop the API and the admin listener share (connection cap,
//!   deadlines, graceful shutdown).
//! - [`admin`]: the admin listener: `/livez`, `/readyz`, `/metrics`, apart from the API.
//! - [`readiness`]: whether to be sent traffic: the database answers, the schema is not behind.
//! - [`client_watch`]: whether a request's client is still waiting for its answer.
//! - [`state`]: what every request shares, and the process's lifecycle as requests see it.
//! - [`dispatch`]: one request from bytes to answer: its turn, the order of checks as steps, then
//!   what became of it settled, logged and counted.
//! - [`outcome`]: what became of a request ([`outcome::Fate`]: answered, or its client gone), and
//!   how a step stops one ([`outcome::Stop`]).
//! - [`published`]: the OpenAPI document and its page served at the root (entity tags, gzip).
//! - [`routes`]: the route table: every route's verbs, scope, bucket, query rules, body and call;
//!   the path matcher.
//! - [`query`]: query-string decoding with the refusal rules every route shares.
//! - [`ratelimit`]: the spec's five token buckets, in memory, bounded.
//! - [`admission`]: which buckets a request spends at which step, and the rate-limit headers.
//! - [`source`]: the source address a request counts against (peer, or the signed edge header).
//! - [`body`]: request bodies of the write routes: size, content type, text.
//! - [`json_syntax`]: a body's JSON syntax read once, strictly: the fault it is refused with.
//! - [`calls`]: a route's database call as the route table declares it: the function, its
//!   arguments in order, how each is taken from a request, bound.
//! - [`request_call`]: a request's values for its operation's call, and the call.
//! - [`backoff`]: few connection attempts while the database is unreachable.
//! - [`db`]: the connection pool and the single `call` every handler goes through.
//! - [`standby`]: the bookings feed from a hot standby (`DATABASE_READ_URL`), the primary when it
//!   cannot serve, and the publication of the booking writers it needs.
//! - [`db_tls`]: `sslmode`/`sslrootcert` of a connection string and the TLS connector every
//!   database connection (pool, cancel requests, webhook worker, migrate) goes through.
//! - [`openapi`]: the published OpenAPI 3.1 document, made from the route table and the field
//!   registries, and the page that renders it (`<root>/docs`).
//! - [`registry`]: the contract's registries (fields, error codes, shared constants), as the build
//!   renders them from `sql/registry/` into typed statics; the database's functions come from the
//!   same files.
//! - [`errors`]: what a refusal is ([`errors::Refusal`]) and the SQLSTATE table: database outcomes
//!   to HTTP status and error JSON.
//! - [`response`]: building answers with the headers every answer carries.
//! - [`credential`]: reading the key id a request presents, for log lines.
//! - [`telemetry`]: JSON log lines.
//! - [`log_writer`]: the thread that writes them to standard output, in batches.
//! - [`metrics`]: the registry of a command's metrics (served by [`admin`]); each part owns its
//!   own handles (`dispatch::metrics`, `ratelimit::metrics`, `db::metrics`, `standby::metrics`,
//!   `webhooks::metrics`).
//! - [`migrate`]: embedded refinery migrations, then the function files.
//! - [`allocator`]: large buffers returned to the system when freed (glibc's mmap threshold).
//! - [`scheduling`]: the threads' CPU scheduling policy (`SCHED_BATCH`: no preempting a backend).
//! - [`webhooks`]: the webhook delivery worker (a task of `serve`, or `ingest webhooks` alone).

pub mod admin;
pub mod admission;
pub mod allocator;
pub mod backoff;
pub mod body;
pub mod calls;
pub mod client_watch;
pub mod config;
pub mod credential;
pub mod db;
pub mod db_tls;
pub mod dispatch;
pub mod errors;
pub mod json_syntax;
pub mod listener;
pub mod log_writer;
pub mod metrics;
pub mod migrate;
pub mod openapi;
pub mod outcome;
pub mod published;
pub mod query;
pub mod ratelimit;
pub mod readiness;
pub mod registry;
pub mod request_call;
pub mod response;
pub mod routes;
pub mod scheduling;
pub mod server;
pub mod source;
pub mod standby;
pub mod state;
pub mod telemetry;
pub mod webhooks;
