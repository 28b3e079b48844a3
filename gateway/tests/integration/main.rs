//! The one integration-test binary of the crate (`cargo test --test integration`): every module
//! below is a file of its own, sharing one compiled harness ([`common`]) and, unless a test needs a
//! database or a cluster of its own, one migrated test database. Most are black-box: they talk HTTP
//! to a gateway serving on 127.0.0.1:0 and call only the documented `console`/`platform` SQL.
//!
//! - The routes: [`ping`], [`lots`], [`lots_list`], [`rates`], [`blocked_periods`], [`body_syntax`] (JSON syntax),
//!   [`bookings_feed`], [`bookings_feed_cursor`]; what every route shares: [`routing`],
//!   [`unauthorized`], [`logging`], [`rate_limits`]; races: [`lots_concurrency`],
//!   [`supply_concurrency`]; the route table's calls against the functions' signatures:
//!   [`route_calls`].
//! - Hostile and failing surroundings: [`slow_clients`], [`vanished_clients`], [`shutdown`],
//!   [`database_outage`], [`database_tls`], [`edge_source`] (the signed client address behind an
//!   edge), [`parsers_fuzz`] (proptest; `make fuzz` runs many more cases).
//! - Scaling out: [`standby`] (the feed from a real streaming standby: no skip, revocation,
//!   outage and lag), [`two_instances`] (two gateways and their workers on one database); high
//!   availability: [`failover`] (the leader of a Patroni cluster killed under load); the
//!   deployment as production runs it: [`deploy`] (the image's containers behind HAProxy, rolled
//!   and killed under load; ignored unless the image is built: `make test-deploy`).
//! - The database's side: [`migrate`], [`server_log_secrets`]; webhook delivery: [`webhooks`], and
//!   the operators' receiver example run against it: [`webhook_receiver_example`] (ignored unless
//!   Python is set up: `make test-examples`).
//! - The published contract: [`openapi`] (the document's body schemas against the database's field
//!   registries), [`error_codes`] (every code the SQL and the gateway can answer, against the
//!   document and the error tables), [`documentation`] (the markdown against the repository and
//!   the code: paths, links, make targets, settings).
//! - For the people who run it: [`operability`] (the admin listener: liveness, readiness, metrics),
//!   [`scheduling`] (the threads' CPU scheduling policy).

mod common;

mod blocked_periods;
mod body_syntax;
mod bookings_feed;
mod bookings_feed_cursor;
mod database_outage;
mod database_tls;
mod deploy;
mod documentation;
mod edge_source;
mod error_codes;
mod failover;
mod logging;
mod lots;
mod lots_concurrency;
mod lots_list;
mod migrate;
mod openapi;
mod operability;
mod parsers_fuzz;
mod ping;
mod rate_limits;
mod rates;
mod route_calls;
mod routing;
mod scheduling;
mod server_log_secrets;
mod shutdown;
mod slow_clients;
mod standby;
mod supply_concurrency;
mod two_instances;
mod unauthorized;
mod vanished_clients;
mod webhook_receiver_example;
mod webhooks;
