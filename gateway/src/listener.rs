//! The accept loop the API and the admin listener share: at most as many open connections as the
//! listener has slots (past them, new ones wait in the listen backlog, and are refused by the
//! kernel when it is full: the process never grows for them), a deadline on each request head, a
//! deadline on each stalled write of an answer, and every connection watched by one graceful
//! shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http::{Request, Response};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_io_timeout::TimeoutStream;

use crate::response::Body;

/// How a listener's connections are served.
pub struct Connections {
    /// One permit per open connection.
    pub slots: Arc<Semaphore>,
    /// How many are open now.
    pub open: Arc<AtomicUsize>,
    /// A request head must arrive within this (it is also the idle keep-alive timeout).
    pub header_timeout: Duration,
    /// A write of an answer that waits this long without the client taking a byte fails, and the
    /// connection is closed: a client that stops reading its answers (pipelining requests
    /// meanwhile, or not) would otherwise hold its slot for ever. The clock runs only while a
    /// write waits, so a slow reader that keeps taking bytes is not cut off.
    pub send_timeout: Duration,
    /// The most a connection's read buffer holds (None: hyper's default).
    pub read_buffer: Option<usize>,
}

/// Whether a connection has ever had a request reach its service (its head complete): a service
/// marks it, and a connection without one is closed at once when draining begins.
#[derive(Clone, Default)]
pub struct FirstRequest(Arc<AtomicBool>);

impl FirstRequest {
    pub fn arrived(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn has_arrived(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Accepts on `listener` until `shutdown` completes, serving each connection with the service
/// `service(peer, first_request)` makes for it, watched by `graceful`. Once `draining()` completes,
/// a connection whose first request head never completed is closed at once (nothing is owed to
/// it); any other is left to `graceful`.
pub async fn accept_until<S, D>(
    listener: &TcpListener,
    connections: &Connections,
    graceful: &GracefulShutdown,
    shutdown: impl Future<Output = ()>,
    draining: impl Fn() -> D,
    service: impl Fn(SocketAddr, FirstRequest) -> S,
) where
    S: Service<Request<Incoming>, Response = Response<Body>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    D: Future<Output = ()> + Send + 'static,
{
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = connections.slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(%error, address = ?listener.local_addr().ok(), "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        connections.open.fetch_add(1, Ordering::Relaxed);
        let open = connections.open.clone();
        // An answer larger than the socket's send buffer goes out in several writes; without this,
        // Nagle's algorithm holds its last small segment until the client acknowledges the rest.
        let _ = stream.set_nodelay(true);
        let first_request = FirstRequest::default();
        let service = service(peer, first_request.clone());
        let mut stream = TimeoutStream::new(stream);
        stream.set_write_timeout(Some(connections.send_timeout));
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(connections.header_timeout);
        if let Some(bytes) = connections.read_buffer {
            builder.max_buf_size(bytes);
        }
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(Box::pin(stream)), service));
        let draining = draining();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = &mut connection => {}
                () = draining => {
                    // The service runs only while this task polls the connection, so no request can
                    // start between this check and the drop.
                    if first_request.has_arrived() {
                        let _ = connection.await;
                    }
                }
            }
            open.fetch_sub(1, Ordering::Relaxed);
            drop(slot);
        });
    }
}
