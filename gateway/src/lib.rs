//! The Operator Ingest API gateway: a thin HTTP front for the rules PostgreSQL holds.
//!
//! Every rule of the API (authentication, scopes, validation, diffing, cursors) lives in PL/pgSQL
//! functions under forced row-level security (`sql/`). This crate owns transport only, and each
//! request costs one SQL round trip: one `api.*` function call that authenticates, checks scope,
//! sets the operator context and does the work.
//!
//! # Layout
//!
//! - [`config`]: settings from environment variables.
//! - [`server`]: the listener, connection tasks and graceful shutdown.
//! - [`dispatch`]: one request from bytes to answer: request id, routing, 404/405/OPTIONS, query
//!   syntax, the route handler, the log line.
//! - [`routes`]: the route table: path templates, their verbs, and the path matcher.
//! - [`query`]: query-string decoding with the refusal rules every route shares.
//! - [`body`]: request bodies of the write routes: size, content type, text.
//! - [`handlers`]: one module per read route, and one for the three PUT routes (`writes`); each
//!   turns a request into one database call.
//! - [`db`]: the connection pool and the single `call` every handler goes through.
//! - [`errors`]: the SQLSTATE table: database outcomes to HTTP status and error JSON.
//! - [`response`]: building answers with the headers every answer carries.
//! - [`credential`]: reading the key id a request presents, for log lines.
//! - [`telemetry`]: JSON log lines.
//! - [`migrate`]: embedded refinery migrations, then the function files.

pub mod body;
pub mod config;
pub mod credential;
pub mod db;
pub mod dispatch;
pub mod errors;
pub mod handlers;
pub mod migrate;
pub mod query;
pub mod response;
pub mod routes;
pub mod server;
pub mod telemetry;
