//! The API's listener and the processes' commands. `serve` takes an already bound listener and a
//! shutdown future, so tests run it on 127.0.0.1:0 and stop it at will; `run` is the `serve`
//! command, and `serve_with_admin` adds the admin listener ([`crate::admin`]) and the standby's
//! publisher ([`crate::standby`]) beside the API. Both listeners accept through
//! [`crate::listener`].
//!
//! Shutdown: `/readyz` answers 503 at once; after `SHUTDOWN_DRAIN_SECONDS` (default 0) stop
//! accepting, let requests in flight finish (at most `SHUTDOWN_GRACE_SECONDS`), then close the
//! pool. A request not yet fully received is not in flight: a connection that has sent only part of
//! its first request head is closed at once (hyper's graceful shutdown closes idle keep-alive
//! connections itself, but waits for a first head to complete), and a body still arriving is given
//! up (`body::read`). Neither holds shutdown up until its timeout.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use hyper::service::service_fn;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};

use crate::admin::{self, Admin};
use crate::config::Config;
use crate::db::Database;
use crate::dispatch;
use crate::listener::{self, Connections};
use crate::readiness::Probe;
use crate::standby::Standby;
use crate::state::AppState;
use crate::telemetry::LogSink;
use crate::webhooks::worker::{Worker, WorkerWiring};

/// The most a connection's read buffer holds: a request head must fit in it (a larger head is
/// answered 431 by hyper), and a body passes through it in pieces of at most this size. hyper's
/// default (~400 KB) let each connection keep a buffer the size of the largest body it had read,
/// 64 KiB and more, for as long as it stayed open (bench/FINDINGS.md, "A connection's read buffer bounded"). hyper applies
/// the same bound to the bytes it queues for writing before it flushes; an answer's body is queued
/// as it is, never copied, so a larger answer is only flushed sooner.
const READ_BUFFER_LIMIT: usize = 16 * 1024;

/// The `serve` command: the API, the admin listener unless `ADMIN_LISTEN_ADDR` is empty, and the
/// webhook worker beside them unless `WEBHOOK_WORKER=off`. One signal stops all three; each lets its
/// work under way finish, and the admin listener answers (`/readyz`: 503) until the API is done.
pub async fn run(config: Config) -> Result<(), String> {
    let listener = bind(config.listen, "LISTEN_ADDR").await?;
    let admin_listener = match config.admin_listen {
        Some(address) => Some(bind(address, "ADMIN_LISTEN_ADDR").await?),
        None => None,
    };
    let db = Database::new(&config)?;
    let standby = Standby::from_config(&config)?;
    let probe = Probe::new(&config)?;
    let worker = match config.webhook_worker {
        true => {
            Some(Worker::new(config.webhooks.clone(), WorkerWiring::production(&config.webhooks)?, LogSink::Stdout)?)
        }
        false => None,
    };
    if let Some(worker) = &worker {
        worker.check_role().await?;
    }
    if config.edge_secret.is_some() && config.edge_peers.is_empty() {
        tracing::warn!(
            setting = "EDGE_PEERS",
            "EDGE_SECRET is set without EDGE_PEERS: X-Forwarded-Client is ignored and every request counts \
             against its connection's peer; list the edge's CIDR ranges in EDGE_PEERS"
        );
    }
    if config.edge_secret.is_none() && !config.edge_peers.is_empty() {
        tracing::warn!(
            setting = "EDGE_SECRET",
            "EDGE_PEERS is set without EDGE_SECRET: X-Forwarded-Client cannot be verified and is ignored; \
             every request counts against its connection's peer"
        );
    }
    tracing::info!(
        listen = %config.listen,
        base_path = %config.base_path,
        admin_listen = %config.admin_listen.map_or("off".to_string(), |address| address.to_string()),
        webhook_worker = worker.is_some(),
        feed_from_standby = standby.is_some(),
        "serving"
    );
    let (stop, stopped) = watch::channel(());
    let mut state = AppState::new(config, db, LogSink::Stdout).with_standby(standby);
    if let Some(worker) = &worker {
        state = state.with_webhook_metrics(worker.metrics());
    }
    let state = Arc::new(state);
    let worker = worker.map(|worker| tokio::spawn(worker.run(changed(stopped))));
    let admin = admin_listener.map(|listener| (listener, Admin::gateway(state.clone(), probe)));
    serve_with_admin(listener, admin, state, async move {
        shutdown_signal().await;
        let _ = stop.send(());
    })
    .await;
    if let Some(worker) = worker {
        let _ = worker.await;
    }
    tracing::info!("stopped");
    Ok(())
}

/// The `webhooks` command: the webhook worker alone, with the admin listener unless
/// `ADMIN_LISTEN_ADDR` is empty, until SIGTERM or SIGINT.
pub async fn run_webhook_worker(config: Config) -> Result<(), String> {
    let admin_listener = match config.admin_listen {
        Some(address) => Some(bind(address, "ADMIN_LISTEN_ADDR").await?),
        None => None,
    };
    let worker = Worker::new(config.webhooks.clone(), WorkerWiring::production(&config.webhooks)?, LogSink::Stdout)?;
    worker.check_role().await?;
    let admin_listen = config.admin_listen.map_or("off".to_string(), |address| address.to_string());
    tracing::info!(admin_listen, "delivering webhook hints");
    let (stopping, stopping_seen) = watch::channel(false);
    let (worker_done, admin_stop) = oneshot::channel::<()>();
    let admin = admin_listener.map(|listener| {
        let admin =
            Admin::worker(worker.metrics().clone(), config.webhooks.sweep_interval, stopping_seen, config.send_timeout);
        tokio::spawn(admin::serve(listener, Arc::new(admin), async move {
            let _ = admin_stop.await;
        }))
    });
    worker
        .run(async move {
            shutdown_signal().await;
            stopping.send_replace(true);
        })
        .await;
    drop(worker_done);
    if let Some(admin) = admin {
        let _ = admin.await;
    }
    tracing::info!("stopped");
    Ok(())
}

async fn bind(address: SocketAddr, setting: &str) -> Result<TcpListener, String> {
    TcpListener::bind(address).await.map_err(|e| format!("cannot listen on {address} ({setting}): {e}"))
}

/// The API on `listener` and, when given, the admin listener: the admin one keeps answering until
/// the API is done (so a balancer sees `/readyz` answer 503 while requests drain), then stops.
pub async fn serve_with_admin(
    listener: TcpListener,
    admin: Option<(TcpListener, Admin)>,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()>,
) {
    let (api_done, admin_stop) = oneshot::channel::<()>();
    let admin = admin.map(|(listener, admin)| {
        tokio::spawn(admin::serve(listener, Arc::new(admin), async move {
            let _ = admin_stop.await;
        }))
    });
    let publisher = publish_for_the_standby(&state);
    serve(listener, state, shutdown).await;
    // It publishes while requests drain (a feed read from the standby still needs a fresh
    // publication), and is aborted once the API is done: a publication under way may take the whole
    // DATABASE_TIMEOUT_MS, not on shutdown's time, and one after the pool closed only fails.
    if let Some(publisher) = publisher {
        publisher.abort();
        let _ = publisher.await;
    }
    drop(api_done);
    if let Some(admin) = admin {
        let _ = admin.await;
    }
}

/// The publication of the booking writers a standby's feed needs (`crate::standby`), beside the API
/// while it serves: None without a standby. Aborted when the API is done.
fn publish_for_the_standby(state: &Arc<AppState>) -> Option<tokio::task::JoinHandle<()>> {
    state.standby.is_some().then(|| {
        let state = state.clone();
        tokio::spawn(async move {
            if let Some(standby) = &state.standby {
                standby.publish(&state.db).await;
            }
        })
    })
}

async fn changed(mut receiver: watch::Receiver<()>) {
    let _ = receiver.changed().await;
}

/// Serves the API until `shutdown` completes: from then on `/readyz` answers 503, new requests are
/// still taken for `SHUTDOWN_DRAIN_SECONDS` (a balancer notices and stops sending), then the listener
/// closes and the requests in flight finish.
pub async fn serve(listener: TcpListener, state: Arc<AppState>, shutdown: impl Future<Output = ()>) {
    let graceful = GracefulShutdown::new();
    let announcing = state.clone();
    let shutdown = async move {
        shutdown.await;
        announcing.announce_shutdown();
        let drain = announcing.config.shutdown_drain;
        if !drain.is_zero() {
            tracing::info!(seconds = drain.as_secs(), "not ready: taking requests while the balancer drains");
            tokio::time::sleep(drain).await;
        }
    };
    let connections = Connections {
        slots: state.connection_slots.clone(),
        open: state.open_connections.clone(),
        header_timeout: state.config.header_timeout,
        send_timeout: state.config.send_timeout,
        read_buffer: Some(READ_BUFFER_LIMIT),
    };
    let serving = state.clone();
    listener::accept_until(
        &listener,
        &connections,
        &graceful,
        shutdown,
        || serving.draining(),
        |peer, first| {
            let state = state.clone();
            service_fn(move |request| {
                first.arrived();
                let state = state.clone();
                async move { dispatch::handle_to_the_end(state, request, peer.ip()).await.into_answer() }
            })
        },
    )
    .await;
    state.begin_draining();
    drop(listener);
    // The connections, then the requests whose clients have gone (each runs to its end).
    let in_flight = async {
        graceful.shutdown().await;
        state.requests_finished().await;
    };
    tokio::select! {
        () = in_flight => {}
        () = tokio::time::sleep(state.config.shutdown_grace) => {
            tracing::warn!("requests still in flight at the end of the shutdown grace period");
        }
    }
    state.db.close();
    if let Some(standby) = &state.standby {
        standby.close();
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    tracing::info!("shutting down");
}
