//! The listener and its connections. `serve` takes an already bound listener and a shutdown
//! future, so tests run it on 127.0.0.1:0 and stop it at will; `run` is the `serve` command.
//!
//! Shutdown: stop accepting, let requests in flight finish (at most `SHUTDOWN_GRACE_SECONDS`),
//! then close the pool.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use crate::config::Config;
use crate::db::Database;
use crate::dispatch::{self, AppState};
use crate::telemetry::LogSink;

/// A client has this long to send its request head; a slow sender cannot hold a connection open.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

pub async fn run(config: Config) -> Result<(), String> {
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let db = Database::new(&config)?;
    tracing::info!(listen = %config.listen, base_path = %config.base_path, "serving");
    let state = Arc::new(AppState { config, db, log: LogSink::Stdout });
    serve(listener, state, shutdown_signal()).await;
    tracing::info!("stopped");
    Ok(())
}

pub async fn serve(listener: TcpListener, state: Arc<AppState>, shutdown: impl Future<Output = ()>) {
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(error) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let state = state.clone();
        let service = service_fn(move |request| {
            let state = state.clone();
            async move { Ok::<_, Infallible>(dispatch::handle(state, request).await) }
        });
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_READ_TIMEOUT)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(state.config.shutdown_grace) => {
            tracing::warn!("requests still in flight at the end of the shutdown grace period");
        }
    }
    state.db.close();
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
