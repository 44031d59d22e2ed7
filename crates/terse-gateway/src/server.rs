//! Serving a gateway (or any tower service) on a TCP listener: HTTP/1.1 and
//! h2c, header limits, graceful shutdown.

use std::future::Future;
use std::time::Duration;

use http::{Request, Response};
use http_body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::{Service, ServiceExt};

use crate::upstream::{BoxError, ClientAddr};

/// Settings of [`serve`].
///
/// ```
/// let options = terse_gateway::ServerOptions::default();
/// assert_eq!(options.max_request_headers, 100);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerOptions {
    /// How long a shutdown waits for requests in flight. Default: 30 s.
    pub shutdown_timeout: Duration,
    /// Most headers an HTTP/1.1 request may have; more is a 431. Default: 100.
    pub max_request_headers: usize,
    /// Most bytes of request head (HTTP/1.1 read buffer, HTTP/2 header
    /// list). Default: 64 KiB.
    pub max_header_bytes: usize,
    /// How long a client may take to send a request head. Default: 30 s.
    pub header_read_timeout: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            shutdown_timeout: Duration::from_secs(30),
            max_request_headers: 100,
            max_header_bytes: 64 * 1024,
            header_read_timeout: Duration::from_secs(30),
        }
    }
}

/// Serves `service` on `listener` over HTTP/1.1 and HTTP/2 with prior
/// knowledge (h2c) until `shutdown` completes; then stops accepting, lets
/// requests in flight finish (up to
/// [`shutdown_timeout`](ServerOptions::shutdown_timeout)) and returns.
///
/// Each request carries the peer's address as a [`ClientAddr`] extension.
///
/// ```no_run
/// use terse_gateway::{ServerOptions, Upstream, gateway, serve, shutdown_signal};
///
/// # #[tokio::main]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let service = gateway(tower_terse::TerseLayer::new(), Upstream::new("http://127.0.0.1:8000")?);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// serve(listener, service, ServerOptions::default(), shutdown_signal()).await;
/// # Ok(()) }
/// ```
pub async fn serve<S, B>(
    listener: TcpListener,
    service: S,
    options: ServerOptions,
    shutdown: impl Future<Output = ()>,
) where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        .max_buf_size(options.max_header_bytes.max(8192))
        .max_headers(options.max_request_headers);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_header_list_size(u32::try_from(options.max_header_bytes).unwrap_or(u32::MAX));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(err) => {
                // Out of file descriptors and the like: wait, do not spin.
                tracing::warn!(target: "terse_gateway", "accept failed: {err}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = service
            .clone()
            .map_request(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(ClientAddr(peer));
                request
            });
        let connection = builder
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service))
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(target: "terse_gateway", %peer, "connection ended: {err}");
            }
        });
    }
    drop(listener);
    tracing::info!(target: "terse_gateway", "shutting down: draining requests in flight");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(options.shutdown_timeout) => {
            tracing::warn!(target: "terse_gateway", "shutdown timeout: closing the connections left");
        }
    }
}

/// Completes on SIGTERM or Ctrl-C (SIGINT): the `shutdown` of [`serve`].
///
/// ```no_run
/// # #[tokio::main] async fn main() {
/// terse_gateway::shutdown_signal().await;
/// println!("stopping");
/// # }
/// ```
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
