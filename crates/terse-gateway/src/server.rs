//! Serving a gateway (or any tower service) on a TCP listener: HTTP/1.1 and
//! h2c, header limits, connection deadlines and cap, graceful shutdown.

use std::future::Future;
use std::time::Duration;

use http::{Request, Response};
use http_body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, TryAcquireError};
use tower::{Service, ServiceExt};

use crate::conn::{Activity, Deadlines, Stall, Tracked, Watched, beside, watchdog};
use crate::in_place::InPlace;
use crate::limits;
use crate::shed::Open;
use crate::upstream::{BoxError, ClientAddr};

/// Settings of [`serve`].
///
/// The defaults are close to nginx's and hyper's: an anonymous client on
/// the open network can neither hold a connection it does not use, nor
/// make the server keep bytes it does not read, nor open connections until
/// the process runs out of file descriptors.
///
/// ```
/// let options = terse_gateway::ServerOptions::default();
/// assert_eq!(options.max_request_headers, 100);
/// assert_eq!(options.idle_timeout, std::time::Duration::from_secs(60));
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
    /// How long a client may take from connecting to a complete request
    /// head (HTTP/1.1; also between the requests of a connection) or to the
    /// HTTP/2 preface and SETTINGS; then the connection is closed.
    /// Default: 30 s.
    pub header_read_timeout: Duration,
    /// How long a connection may stay open with no request in flight; then
    /// it is closed (HTTP/2: with a GOAWAY). Default: 60 s.
    pub idle_timeout: Duration,
    /// How long a client may take no bytes of a response (a full socket
    /// buffer, or an HTTP/2 stream window left at 0); then the connection
    /// is closed and everything held for it freed. Default: 60 s.
    pub send_timeout: Duration,
    /// Most client connections open at once. At the cap, a new client is
    /// taken (one descriptor over the cap) and the connection that has
    /// waited longest with no request in flight, of a sample of 64, is
    /// closed to make room (gracefully, if it has had a request); when all
    /// of them are busy, the new client waits until one ends, and the
    /// clients after it in the listen backlog. `None`: derived from the
    /// file-descriptor limit, which [`serve`] raises from its soft to its
    /// hard value.
    /// Default: `None`.
    pub max_connections: Option<usize>,
    /// Most concurrent streams per HTTP/2 connection. Default: 100.
    pub max_concurrent_streams: u32,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            shutdown_timeout: Duration::from_secs(30),
            max_request_headers: HYPER_MAX_HEADERS,
            max_header_bytes: 64 * 1024,
            header_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            send_timeout: Duration::from_secs(60),
            max_connections: None,
            max_concurrent_streams: 100,
        }
    }
}

/// hyper's limit on request headers when none is named, and the gateway's
/// default.
const HYPER_MAX_HEADERS: usize = 100;

/// How long a connection closed for idleness has to send its GOAWAY.
const GOAWAY_GRACE: Duration = Duration::from_secs(1);

/// How often an `accept` failure (out of file descriptors, say) is logged
/// at most; the failures in between are counted in the next line.
const ACCEPT_LOG_INTERVAL: Duration = Duration::from_secs(10);

/// Serves `service` on `listener` over HTTP/1.1 and HTTP/2 with prior
/// knowledge (h2c) until `shutdown` completes; then stops accepting, lets
/// requests in flight finish (up to
/// [`shutdown_timeout`](ServerOptions::shutdown_timeout)) and returns.
///
/// Any tower service of `http` requests serves this way, an axum `Router`
/// as well as a [`gateway`](crate::gateway): a service that embeds the
/// layer gets the same connection deadlines as the gateway (the examples
/// `agent-api` and `mcp-server` do).
///
/// hyper moves each response several times on its way out: a service
/// whose body type is large (tower-http's compression body is some 6 KiB)
/// should box it where it is made ([`BoxResponseBody`](crate::BoxResponseBody)),
/// as [`gateway`](crate::gateway) does with its compressed bodies
/// ([`Compress`](crate::Compress)).
///
/// Each request carries the peer's address as a [`ClientAddr`] extension.
/// Each connection is held to the deadlines of [`ServerOptions`], and at
/// most [`max_connections`](ServerOptions::max_connections) are open at
/// once. `accept` errors back off (up to a second) instead of spinning.
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
    let fd_limit = limits::raise_fd_limit();
    let max_connections = options
        .max_connections
        .unwrap_or_else(|| limits::default_max_connections(fd_limit))
        .clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
    let mut builder = auto::Builder::new(TokioExecutor::new());
    let mut http1 = builder.http1();
    // The header deadline of every request head after the first is the
    // watchdog's (`Stall::Head`), as the first's always was: hyper's own
    // timer for it cost a timer set, registered and dropped per request.
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .max_buf_size(options.max_header_bytes.max(8192));
    // hyper's own limit is the default's 100 headers, read into tables on
    // the stack; a limit named explicitly, even 100, makes it fill tables
    // on the heap, element by element, for every request (about a
    // thousand instructions each).
    if options.max_request_headers != HYPER_MAX_HEADERS {
        http1.max_headers(options.max_request_headers);
    }
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(options.max_concurrent_streams)
        .max_header_list_size(u32::try_from(options.max_header_bytes).unwrap_or(u32::MAX));
    let builder = Arc::new(builder);
    let deadlines = Deadlines {
        handshake: options.header_read_timeout,
        idle: options.idle_timeout,
        send: options.send_timeout,
    };
    let slots = Arc::new(Semaphore::new(max_connections));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut accept_errors = AcceptErrors::default();
    let mut shutdown = std::pin::pin!(shutdown);
    let open = Arc::new(Open::default());
    loop {
        let accept = async {
            tokio::select! {
                accepted = listener.accept() => Some(accepted),
                () = &mut shutdown => None,
            }
        };
        let (slot, accepted) = match slots.clone().try_acquire_owned() {
            Ok(slot) => {
                let Some(accepted) = accept.await else { break };
                (slot, accepted)
            }
            Err(TryAcquireError::Closed) => break,
            // At the cap: the next client is taken (one descriptor over the
            // cap) and the connection idle the longest is asked to close to
            // make room; the client waits for its slot meanwhile, and if
            // every connection is busy, until one ends.
            Err(TryAcquireError::NoPermits) => {
                let Some(accepted) = accept.await else { break };
                if accepted.is_ok() && !open.shed_one() {
                    tracing::debug!(target: "terse_gateway", "at the connection cap with every connection busy");
                }
                let slot = tokio::select! {
                    slot = slots.clone().acquire_owned() => slot,
                    () = &mut shutdown => break,
                };
                let Ok(slot) = slot else { break };
                (slot, accepted)
            }
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => {
                accept_errors.ok();
                accepted
            }
            Err(err) => {
                // Out of file descriptors and the like: back off, do not spin.
                let pause = accept_errors.failed(&err);
                drop(slot);
                tokio::select! {
                    () = tokio::time::sleep(pause) => continue,
                    () = &mut shutdown => break,
                }
            }
        };
        let _ = stream.set_nodelay(true);
        let activity = Activity::new();
        let tracking = activity.clone();
        let service = service
            .clone()
            .map_request(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(ClientAddr(peer));
                request
            })
            .map_future(move |future| {
                let request = tracking.request();
                async move {
                    let response = future.await?;
                    // Not boxed here: a service whose body is large boxes
                    // it where it is made (the gateway does, see
                    // `Compress`), before the layers outside move it.
                    Ok::<_, S::Error>(response.map(|body| Tracked::new(body, request)))
                }
            });
        let (registration, shed) = open.register(activity.clone());
        let io = TokioIo::new(Watched::new(stream, activity.clone()));
        let builder = builder.clone();
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let connection = builder.serve_connection(io, InPlace::new(service));
            let mut connection = std::pin::pin!(connection);
            let side = async {
                tokio::select! {
                    stall = watchdog(&activity, deadlines) => Side::Stall(stall),
                    _ = stopping.wait_for(|stop| *stop) => Side::Stop,
                    () = shed.asked() => Side::Shed,
                }
            };
            let ended = match beside(connection.as_mut(), std::pin::pin!(side)).await {
                Ok(ended) => Some(ended),
                Err(Side::Stall(stall)) => {
                    tracing::debug!(target: "terse_gateway", %peer, "closing a stalled connection: {stall:?}");
                    if stall != Stall::Idle {
                        return;
                    }
                    connection.as_mut().graceful_shutdown();
                    None
                }
                Err(Side::Stop) => {
                    connection.as_mut().graceful_shutdown();
                    None
                }
                Err(Side::Shed) => {
                    tracing::debug!(target: "terse_gateway", %peer, "closing an idle connection to make room at the connection cap");
                    // No request yet: nothing owed, nothing to say goodbye with.
                    if !activity.handshake_done() {
                        return;
                    }
                    connection.as_mut().graceful_shutdown();
                    None
                }
            };
            let ended = match ended {
                Some(ended) => ended,
                // A graceful end still owes its client the answers in
                // flight, as long as the client reads them.
                None => tokio::select! {
                    ended = connection.as_mut() => ended,
                    stall = watchdog(&activity, deadlines) => {
                        // Nothing left in flight: a moment to send the
                        // GOAWAY, then the connection is dropped.
                        if stall == Stall::Idle {
                            let _ = tokio::time::timeout(GOAWAY_GRACE, connection.as_mut()).await;
                        }
                        return;
                    }
                },
            };
            if let Err(err) = ended {
                tracing::debug!(target: "terse_gateway", %peer, "connection ended: {err}");
            }
            drop(registration);
            drop(slot);
        });
    }
    drop(listener);
    tracing::info!(target: "terse_gateway", "shutting down: draining requests in flight");
    let _ = stop.send(true);
    let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
    tokio::select! {
        _ = slots.acquire_many(all) => {}
        () = tokio::time::sleep(options.shutdown_timeout) => {
            tracing::warn!(target: "terse_gateway", "shutdown timeout: closing the connections left");
        }
    }
}

/// Why a connection's task stops serving it before it ends.
enum Side {
    /// The watchdog's deadline passed.
    Stall(Stall),
    /// The server is shutting down.
    Stop,
    /// Asked to make room at the connection cap.
    Shed,
}

/// `accept` failures: how long to back off, and when to log.
#[derive(Debug, Default)]
struct AcceptErrors {
    /// Failures in a row.
    streak: u32,
    /// Failures not logged yet, and when the last line was logged.
    unlogged: u64,
    logged: Option<tokio::time::Instant>,
}

impl AcceptErrors {
    fn ok(&mut self) {
        self.streak = 0;
    }

    /// Logs at most once per [`ACCEPT_LOG_INTERVAL`]; gives the pause
    /// before the next `accept`: 10 ms, doubling to a second.
    fn failed(&mut self, err: &std::io::Error) -> Duration {
        self.streak = self.streak.saturating_add(1);
        self.unlogged += 1;
        let now = tokio::time::Instant::now();
        if self
            .logged
            .is_none_or(|at| now.duration_since(at) >= ACCEPT_LOG_INTERVAL)
        {
            tracing::warn!(
                target: "terse_gateway",
                "accept failed ({} time(s) since the last line): {err}; backing off",
                self.unlogged
            );
            self.unlogged = 0;
            self.logged = Some(now);
        }
        Duration::from_millis(10 << self.streak.min(7)).min(Duration::from_secs(1))
    }
}

/// Completes on SIGTERM or Ctrl-C (SIGINT): the `shutdown` of [`serve`].
///
/// The handlers are installed when this is called, not when the future is
/// first polled: a signal that comes between the two still stops the server
/// cleanly. That matters most as PID 1 of a container, where a SIGTERM
/// with no handler is ignored and the process is killed at the end of the
/// grace period instead. Call it inside a tokio runtime.
///
/// ```no_run
/// # #[tokio::main] async fn main() {
/// terse_gateway::shutdown_signal().await;
/// println!("stopping");
/// # }
/// ```
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        // A handler that cannot be installed never completes: the other may.
        async fn received(signal: Option<Signal>) {
            match signal {
                Some(mut signal) => {
                    signal.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        let terminate = received(signal(SignalKind::terminate()).ok());
        let interrupt = received(signal(SignalKind::interrupt()).ok());
        async move {
            tokio::select! {
                () = terminate => {}
                () = interrupt => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
