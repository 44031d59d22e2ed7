//! [`Upstream`]: the tower service that forwards a request to the upstream
//! over hyper-util's pooled client. Its body is [`UpstreamBody`]
//! (`upstream_body.rs`), which the metadata rewrite reads too.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HOST, HeaderName};
use http::uri::{Authority, PathAndQuery, Scheme};
use http::{HeaderValue, Method, Request, Response, StatusCode, Uri, Version};
use http_body::Body;
use http_body_util::BodyExt;
use http_body_util::combinators::UnsyncBoxBody;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tower_terse::ErrorEnvelope;

use crate::connector::Connector;
use crate::consume::Consumed;
use crate::forwarded::{TrustedProxies, add_forwarded, untrusted};
use crate::headers::{hop_by_hop, remove_matching, remove_named_in_connection, underscored};
use crate::host::host_of;
use crate::path;
use crate::upstream_body::after;
pub use crate::upstream_body::{BoxError, IdleTimeout, UpstreamBody};
use crate::urls::{PublicOrigin, Redirects, RedirectsWanted};

/// The body a request takes to the upstream: none, when the client's has
/// ended already (a `GET`, most often: nothing to box and poll through),
/// or the client's, streamed.
enum ClientBody {
    Ended,
    Streamed(UnsyncBoxBody<Bytes, BoxError>),
}

impl Body for ClientBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, BoxError>>> {
        match self.get_mut() {
            ClientBody::Ended => Poll::Ready(None),
            ClientBody::Streamed(body) => Pin::new(body).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            ClientBody::Ended => true,
            ClientBody::Streamed(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self {
            ClientBody::Ended => http_body::SizeHint::with_exact(0),
            ClientBody::Streamed(body) => body.size_hint(),
        }
    }
}

/// The address of the client that sent a request, as the server puts it in
/// the request's extensions; [`Upstream`] sends it on in `X-Forwarded-For`.
///
/// ```
/// use terse_gateway::ClientAddr;
///
/// let mut request = http::Request::new(());
/// request.extensions_mut().insert(ClientAddr(([10, 0, 0, 7], 50000).into()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

/// How long the upstream took to answer with its status and headers, in the
/// extensions of every response [`Upstream`] gives (its own 502 and 504 too).
///
/// ```
/// use terse_gateway::UpstreamLatency;
///
/// fn latency<B>(response: &http::Response<B>) -> Option<std::time::Duration> {
///     response.extensions().get::<UpstreamLatency>().map(|l| l.0)
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpstreamLatency(pub Duration);

/// Why an upstream URL was refused.
///
/// ```
/// let err = terse_gateway::Upstream::new("http://127.0.0.1:8000/?q=1").unwrap_err();
/// assert!(err.to_string().contains("query"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamError(String);

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl StdError for UpstreamError {}

/// A tower service that forwards every request to one HTTP upstream and
/// gives its response back, streaming both ways.
///
/// ```
/// use std::time::Duration;
/// use terse_gateway::Upstream;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let upstream = Upstream::new("http://127.0.0.1:8000/api")?
///     .connect_timeout(Duration::from_secs(2))
///     .response_timeout(Duration::from_secs(10));
/// // Put the terse layer (and compression) around it, as `gateway` does.
/// let service = terse_gateway::gateway(tower_terse::TerseLayer::new(), upstream);
/// # drop(service);
/// # Ok(()) }
/// ```
///
/// On the way there it drops hop-by-hop headers (`Connection` and the
/// headers it names, `Keep-Alive`, `TE`, `Trailer`, `Transfer-Encoding`,
/// `Upgrade`, `Proxy-*`), replaces the client's `X-Forwarded-*`,
/// `Forwarded` and `X-Real-IP` (unless it is one of the
/// [`trusted_proxies`](Self::trusted_proxies)) with `X-Forwarded-For`
/// (from [`ClientAddr`]), `X-Real-IP`, `X-Forwarded-Proto` and
/// `X-Forwarded-Host` (and drops the other client-address headers, such
/// as `True-Client-IP`, `X-Client-IP` and `Client-IP`), resolves `.` and
/// `..` segments (a path climbing
/// above `/` answers 400 `bad_request_path`), asks for
/// `Accept-Encoding: identity` (the gateway compresses for its own
/// clients), and joins the upstream's path prefix to the request's path
/// (only the path and query of a request are used: the gateway is no open
/// proxy, and it refuses `CONNECT` with a 405).
/// The request body streams, never buffered. On the way back it drops the
/// hop-by-hop headers again.
///
/// What is the gateway's never reaches the upstream ([`Consumed`]): the
/// layer's query parameters (`format`, `fields`), its preference header,
/// and terse's media types in `Accept`. A `HEAD` goes upstream as a `GET`,
/// so the layer can give the headers of the body `GET` would get (its
/// length and token count in the format asked); the server sends no body
/// for a `HEAD`. Answers go to clients as HTTP/1.1 whatever the upstream
/// speaks, and `Location`, `Content-Location` and `Link` URLs under the
/// upstream's address point at the gateway's (the `Host` the client
/// used, or the [`public_origin`](Self::public_origin)); see
/// [`preserve_host`](Self::preserve_host) for URLs in bodies. So do the
/// URLs OAuth clients check (RFC 9728): the `resource_metadata` of
/// `WWW-Authenticate` challenges, and the `resource` of the JSON document
/// a `GET` of `/.well-known/oauth-protected-resource` (or a path below
/// it) answers, read whole when it is at most 64 KiB.
///
/// A request with more than one `Host`, a malformed one (not a host name
/// or IP literal with an optional port), HTTP/1.1 without one, or an
/// HTTP/2 `:authority` that is malformed or disagrees with `Host` answers
/// 400 `bad_request_host` (RFC 9112 §3.2) and is not forwarded. Request
/// headers with `_` in their names are dropped (see
/// [`remove_underscored`](crate::remove_underscored)).
///
/// An upstream that cannot be reached answers 502 `upstream_unavailable`;
/// one that does not answer within the response timeout (or connect
/// within the connect timeout) answers 504 `upstream_timeout`, both as
/// [`tower_terse::ErrorEnvelope`]. A body that stops for longer than the idle
/// timeout ends with an error, which aborts the client's response.
/// A request body the client breaks (a malformed chunk) answers 400
/// `bad_request_body`. `Upstream` never returns `Err`.
#[derive(Clone)]
pub struct Upstream {
    // The service is cloned for every request (hyper-util's adapter does):
    // one reference count to raise, and a pointer to copy.
    shared: Arc<Shared>,
}

/// What every clone of one [`Upstream`] shares.
#[derive(Clone)]
struct Shared {
    client: Client<Connector, ClientBody>,
    scheme: Scheme,
    authority: Authority,
    /// The `Host` the upstream gets (unless the client's is preserved):
    /// what hyper would write from the URI on every request, written once.
    host: HeaderValue,
    prefix: Arc<str>,
    connect_timeout: Duration,
    response_timeout: Duration,
    idle_timeout: Duration,
    trusted_proxies: Arc<TrustedProxies>,
    /// Dropped from untrusted clients besides [`UNTRUSTED_HEADERS`](crate::UNTRUSTED_HEADERS).
    untrusted_headers: Arc<[HeaderName]>,
    consumed: Consumed,
    preserve_host: bool,
    public_origin: Option<Arc<PublicOrigin>>,
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shared = &*self.shared;
        f.debug_struct("Upstream")
            .field("authority", &shared.authority)
            .field("prefix", &shared.prefix)
            .field("connect_timeout", &shared.connect_timeout)
            .field("response_timeout", &shared.response_timeout)
            .field("idle_timeout", &shared.idle_timeout)
            .field("consumed", &shared.consumed)
            .field("preserve_host", &shared.preserve_host)
            .field("public_origin", &shared.public_origin)
            .finish()
    }
}

/// The most an upstream connection reads ahead: what a response streamed
/// unchanged holds outside the memory budget is a few of these per
/// connection (hyper's default, about 400 KiB, made it over a megabyte).
const UPSTREAM_READ_BYTES: usize = 64 * 1024;

/// Defaults: 5 s to connect, 30 s to answer, 60 s of silence mid-body.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(30);
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

impl Upstream {
    /// An upstream at `url`: `http://host:port` with an optional path
    /// prefix (`http://127.0.0.1:8000/api` forwards `/tasks` to
    /// `/api/tasks`). Needs a tokio runtime when used, not when built.
    ///
    /// ```
    /// use terse_gateway::Upstream;
    ///
    /// assert!(Upstream::new("http://127.0.0.1:8000/api").is_ok());
    /// let err = Upstream::new("https://api.example.com").unwrap_err();
    /// assert!(err.to_string().contains("http://"));
    /// ```
    ///
    /// # Errors
    ///
    /// An [`UpstreamError`] when `url` is not an absolute `http://` URL
    /// without a query (TLS to the upstream is not supported: run the
    /// gateway beside the service).
    pub fn new(url: &str) -> Result<Upstream, UpstreamError> {
        let (authority, prefix) = Self::check(url)?;
        // The host, and the port unless it is http's own (as hyper does).
        let host = match authority.port_u16().filter(|&port| port != 80) {
            Some(port) => format!("{}:{port}", authority.host()),
            None => authority.host().to_owned(),
        };
        let host = HeaderValue::try_from(host)
            .map_err(|_| UpstreamError(format!("{url:?} has a host that is no header value")))?;
        let shared = Shared {
            client: Self::client(CONNECT_TIMEOUT),
            scheme: Scheme::HTTP,
            host,
            authority,
            prefix: prefix.into(),
            connect_timeout: CONNECT_TIMEOUT,
            response_timeout: RESPONSE_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            trusted_proxies: Arc::default(),
            untrusted_headers: Arc::new([]),
            consumed: Consumed::default(),
            preserve_host: false,
            public_origin: None,
        };
        Ok(Upstream {
            shared: Arc::new(shared),
        })
    }

    /// The settings, to change before the service is first cloned.
    fn settings(&mut self) -> &mut Shared {
        Arc::make_mut(&mut self.shared)
    }

    /// The authority and path prefix of an upstream URL, as
    /// [`new`](Self::new) takes it.
    pub(crate) fn check(url: &str) -> Result<(Authority, String), UpstreamError> {
        let uri: Uri = url
            .parse()
            .map_err(|err| UpstreamError(format!("{url:?} is not a URL: {err}")))?;
        if uri.scheme() != Some(&Scheme::HTTP) {
            return Err(UpstreamError(format!(
                "{url:?} must start with http:// (TLS to the upstream is not supported)"
            )));
        }
        let authority = uri
            .authority()
            .cloned()
            .ok_or_else(|| UpstreamError(format!("{url:?} has no host")))?;
        if uri.query().is_some() || authority.as_str().contains('@') {
            return Err(UpstreamError(format!(
                "{url:?} must have neither a query nor user info"
            )));
        }
        Ok((authority, uri.path().trim_end_matches('/').to_owned()))
    }

    fn client(connect_timeout: Duration) -> Client<Connector, ClientBody> {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(connect_timeout));
        connector.set_nodelay(true);
        Client::builder(TokioExecutor::new())
            .timer(TokioTimer::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .http1_max_buf_size(UPSTREAM_READ_BYTES)
            .build(Connector(connector))
    }

    /// The longest wait for a connection to the upstream (then 504).
    /// Default: 5 s.
    ///
    /// ```
    /// # use std::time::Duration;
    /// let upstream = terse_gateway::Upstream::new("http://127.0.0.1:8000")?
    ///     .connect_timeout(Duration::from_millis(500));
    /// # Ok::<(), terse_gateway::UpstreamError>(())
    /// ```
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        let settings = self.settings();
        settings.connect_timeout = timeout;
        settings.client = Self::client(timeout);
        self
    }

    /// The longest wait for the upstream's status and headers once the
    /// request is sent (the request body included); then 504. Default: 30 s.
    ///
    /// ```
    /// # use std::time::Duration;
    /// let upstream = terse_gateway::Upstream::new("http://127.0.0.1:8000")?
    ///     .response_timeout(Duration::from_secs(120));
    /// # Ok::<(), terse_gateway::UpstreamError>(())
    /// ```
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.settings().response_timeout = timeout;
        self
    }

    /// The longest the upstream may pause between two pieces of a
    /// response body (an SSE stream must send something at least this
    /// often). Default: 60 s.
    ///
    /// ```
    /// # use std::time::Duration;
    /// let upstream = terse_gateway::Upstream::new("http://127.0.0.1:8000")?
    ///     .idle_timeout(Duration::from_secs(300));
    /// # Ok::<(), terse_gateway::UpstreamError>(())
    /// ```
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.settings().idle_timeout = timeout;
        self
    }

    /// The proxies in front of the gateway whose `X-Forwarded-*`,
    /// `Forwarded`, `X-Real-IP` and other client-address headers
    /// (`True-Client-IP`, `X-Client-IP`, ...) are kept (and
    /// `X-Forwarded-For` appended to); from any other peer they are
    /// replaced or dropped. Default: none.
    ///
    /// ```
    /// let upstream = terse_gateway::Upstream::new("http://127.0.0.1:8000")?
    ///     .trusted_proxies("10.0.0.0/8".parse()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn trusted_proxies(mut self, trusted: TrustedProxies) -> Self {
        self.settings().trusted_proxies = Arc::new(trusted);
        self
    }

    /// More request headers that only a [trusted proxy](Self::trusted_proxies)
    /// may send, dropped from every other client besides
    /// [`UNTRUSTED_HEADERS`](crate::UNTRUSTED_HEADERS) (client addresses, schemes, URL overrides):
    /// say a header an authenticating proxy in front sets, which the
    /// service believes. Default: none.
    ///
    /// ```
    /// use http::HeaderName;
    ///
    /// let upstream = terse_gateway::Upstream::new("http://127.0.0.1:8000")?
    ///     .untrusted_headers([HeaderName::from_static("x-remote-user")]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn untrusted_headers(mut self, names: impl IntoIterator<Item = HeaderName>) -> Self {
        self.settings().untrusted_headers = names.into_iter().collect();
        self
    }

    /// The query parameters and header the gateway reads and the upstream
    /// never sees (see [`Consumed`]). Default: `format`, `fields` and
    /// `X-Prefer-Format`, as the layer's defaults; `terse gateway` sets the
    /// names of its `[layer]` section.
    ///
    /// ```
    /// let upstream = terse_gateway::Upstream::new("http://127.0.0.1:8000")?
    ///     .consume(terse_gateway::Consumed::new(["terse_format"], None));
    /// # Ok::<(), terse_gateway::UpstreamError>(())
    /// ```
    pub fn consume(mut self, consumed: Consumed) -> Self {
        self.settings().consumed = consumed;
        self
    }

    /// Sends the client's `Host` to the upstream rather than the upstream's
    /// own, for services that build absolute URLs (pagination links,
    /// redirects) from `Host`, such as Django (or Django REST framework's
    /// `next`). Default: off (the upstream sees its own address, and the
    /// client's in `X-Forwarded-Host`).
    ///
    /// ```
    /// let upstream = terse_gateway::Upstream::new("http://127.0.0.1:8000")?.preserve_host(true);
    /// # Ok::<(), terse_gateway::UpstreamError>(())
    /// ```
    pub fn preserve_host(mut self, preserve: bool) -> Self {
        self.settings().preserve_host = preserve;
        self
    }

    /// The origin clients reach the gateway at, used in rewritten
    /// `Location`, `Content-Location` and `Link` URLs instead of `http://`
    /// and the client's `Host` (behind a proxy that terminates TLS, say).
    /// Default: none, the client's `Host`.
    ///
    /// ```
    /// let upstream = terse_gateway::Upstream::new("http://127.0.0.1:8000")?
    ///     .public_origin("https://api.example.com".parse()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn public_origin(mut self, origin: PublicOrigin) -> Self {
        self.settings().public_origin = Some(Arc::new(origin));
        self
    }

    /// Whether the upstream takes a TCP connection within `within`: what a
    /// readiness probe asks before traffic is sent this way. The connection
    /// is closed at once, with no request on it, so the probe costs the
    /// upstream nothing it would log.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let service = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let upstream = terse_gateway::Upstream::new(&format!("http://{}", service.local_addr()?))?;
    /// assert!(upstream.reachable(std::time::Duration::from_secs(1)).await);
    /// # Ok(()) }
    /// ```
    pub async fn reachable(&self, within: Duration) -> bool {
        // `host()` keeps an IPv6 literal's brackets; the resolver takes it bare.
        let host = self.shared.authority.host();
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        let port = self.shared.authority.port_u16().unwrap_or(80);
        let connect = tokio::net::TcpStream::connect((host, port));
        matches!(tokio::time::timeout(within, connect).await, Ok(Ok(_)))
    }

    /// The URI of `original` on the upstream: its path with dot segments
    /// resolved (a path climbing above `/` would leave the prefix), joined
    /// to the prefix.
    fn target(&self, original: &Uri) -> Result<Uri, ErrorEnvelope> {
        let shared = &*self.shared;
        let unforwardable = || {
            ErrorEnvelope::new(
                StatusCode::BAD_REQUEST,
                "bad_request_target",
                "the request target cannot be forwarded",
            )
        };
        let Some(path) = path::resolve(original.path()) else {
            return Err(ErrorEnvelope::new(
                StatusCode::BAD_REQUEST,
                "bad_request_path",
                "the path climbs above the root with `..` segments",
            )
            .with_hint("send the path with its dot segments resolved"));
        };
        let consumed = original
            .path_and_query()
            .and_then(|pq| shared.consumed.query(pq));
        // Most requests go as they came: their bytes are shared, not copied.
        let unchanged =
            shared.prefix.is_empty() && matches!(path, Cow::Borrowed(_)) && consumed.is_none();
        let joined = match original.path_and_query().filter(|_| unchanged) {
            Some(as_sent) => as_sent.clone(),
            None => {
                let query = match &consumed {
                    Some(kept) => kept.query(),
                    None => original.query(),
                }
                .map(|q| format!("?{q}"))
                .unwrap_or_default();
                PathAndQuery::try_from(format!("{}{path}{query}", shared.prefix))
                    .map_err(|_| unforwardable())?
            }
        };
        // Put together from its parts, as the builder would, without its
        // steps through a `Result` each.
        let mut parts = http::uri::Parts::default();
        parts.scheme = Some(shared.scheme.clone());
        parts.authority = Some(shared.authority.clone());
        parts.path_and_query = Some(joined);
        Uri::from_parts(parts).map_err(|_| unforwardable())
    }
}

impl<B> tower::Service<Request<B>> for Upstream
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<UpstreamBody>;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let (mut parts, body) = request.into_parts();
        if parts.method == Method::CONNECT {
            let refusal = ErrorEnvelope::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "the gateway does not open tunnels (CONNECT)",
            );
            return Box::pin(std::future::ready(Ok(refusal.into_http_response())));
        }
        let target = match self.target(&parts.uri) {
            Ok(target) => target,
            Err(refusal) => return Box::pin(std::future::ready(Ok(refusal.into_http_response()))),
        };
        let client_addr = parts.extensions.get::<ClientAddr>().map(|c| c.0.ip());
        let from_proxy = client_addr.is_some_and(|ip| self.shared.trusted_proxies.contains(ip));
        // One pass over the request's headers (a few) finds what the rules
        // below read, and every header not passed on: hop-by-hop,
        // underscored (see `remove_underscored`), the layer's preference
        // header, and from a client that is no trusted proxy the headers
        // only such a proxy may send.
        let seen = RequestHeaders::of(&parts.headers, |name| {
            hop_by_hop(name)
                || underscored(name)
                || self.shared.consumed.is_header(name)
                || (!from_proxy && untrusted(name, &self.shared.untrusted_headers))
        });
        // Two `Content-Type`s leave the gateway and the upstream each
        // reading its own: the layer took the first for JSON, an upstream
        // that reads the last would get TOON. Refused, as two `Host`s are.
        if seen.content_types > 1 {
            let refusal = ErrorEnvelope::new(
                StatusCode::BAD_REQUEST,
                "bad_request_content_type",
                "the request has more than one Content-Type header",
            )
            .with_hint("send one Content-Type");
            return Box::pin(std::future::ready(Ok(refusal.into_http_response())));
        }
        let host = match host_of(&parts, seen.host.as_ref(), seen.hosts > 1) {
            Ok(host) => host,
            Err(refusal) => return Box::pin(std::future::ready(Ok(refusal.into_http_response()))),
        };
        // A layer outside (the OAuth metadata's) reads the answer's
        // redirects, whatever its headers.
        let metadata = parts.extensions.get::<RedirectsWanted>().is_some();
        // The client's host, should the answer have redirects to point back.
        let client_host = host.clone();
        let shared = self.shared.clone();
        if seen.connection {
            remove_named_in_connection(&mut parts.headers);
        }
        for name in seen.dropped {
            parts.headers.remove(name);
        }
        if seen.accept {
            shared.consumed.accept(&mut parts.headers);
        }
        add_forwarded(&mut parts.headers, client_addr, host.clone(), from_proxy);
        let host = host
            .filter(|_| shared.preserve_host)
            .unwrap_or_else(|| shared.host.clone());
        parts.headers.insert(HOST, host);
        // A `HEAD` is answered with the headers of the `GET`: the length and
        // token count of the body as served, which only the body gives. The
        // server sends no body for a `HEAD`.
        if parts.method == Method::HEAD {
            parts.method = Method::GET;
        }
        // The gateway compresses for its clients itself; an upstream that
        // compresses all the same is decompressed by the layer around.
        parts
            .headers
            .insert(ACCEPT_ENCODING, HeaderValue::from_static("identity"));
        parts.uri = target;
        parts.version = Version::HTTP_11;
        // Remembers whether the client's body broke (a malformed chunk, a
        // cut connection), so the failure is blamed on the client. A body
        // that has ended already cannot break: it is not sent on, and there
        // is no flag to share.
        let (body, client_failed) = if body.is_end_stream() {
            (ClientBody::Ended, None)
        } else {
            let failed = Arc::new(AtomicBool::new(false));
            let flag = failed.clone();
            let body = body.map_err(move |err| {
                flag.store(true, Ordering::Relaxed);
                err.into()
            });
            (ClientBody::Streamed(body.boxed_unsync()), Some(failed))
        };
        let request = Request::from_parts(parts, body);

        Box::pin(async move {
            // One reading of the clock for the start: the latency's and the
            // response timeout's.
            let started = tokio::time::Instant::now();
            let response_timeout = shared.response_timeout;
            // One timer for the exchange: the response timeout's, then the
            // body's idle timeout (see `UpstreamBody`), boxed to move on.
            let mut timer = Box::pin(tokio::time::sleep_until(after(started, response_timeout)));
            let mut answer = std::pin::pin!(shared.client.request(request));
            let outcome = std::future::poll_fn(|cx| match answer.as_mut().poll(cx) {
                Poll::Ready(answered) => Poll::Ready(Ok(answered)),
                Poll::Pending => timer.as_mut().poll(cx).map(Err),
            })
            .await;
            let latency = UpstreamLatency(started.elapsed());
            let mut response = match outcome {
                Ok(Ok(response)) => {
                    let (mut parts, body) = response.into_parts();
                    // The upstream connection's addresses are not in the
                    // answer: the `Connector`'s connections say nothing.
                    // One pass over the answer's few header names tells
                    // what is to be dropped or pointed back.
                    let seen = AnswerHeaders::of(&parts.headers);
                    if seen.connection {
                        remove_named_in_connection(&mut parts.headers);
                    }
                    if seen.hop_by_hop {
                        remove_matching(&mut parts.headers, hop_by_hop);
                    }
                    // A 304 has no body whatever length it names (the
                    // 200's, RFC 9110 §8.6), and caches never take a length
                    // from one (RFC 9111 §3.2). The server frames an answer
                    // by its body, which the decompression around reports
                    // as empty without saying it has ended: a declared
                    // length would disagree with it.
                    if parts.status == StatusCode::NOT_MODIFIED {
                        parts.headers.remove(CONTENT_LENGTH);
                    }
                    // The upstream's HTTP version is its own connection's:
                    // an HTTP/1.0 upstream must not make the gateway answer
                    // its clients in 1.0 and close their connections.
                    parts.version = Version::default();
                    let body = UpstreamBody::incoming(body, shared.idle_timeout, timer, started);
                    // Names `Connection` listed are gone: looked for again.
                    let wanted = match seen.connection {
                        true => Redirects::wanted(&parts.headers),
                        false => seen.redirects,
                    };
                    let redirects = (metadata || wanted)
                        .then(|| {
                            Redirects::new(
                                shared.authority.as_str(),
                                &shared.prefix,
                                shared.public_origin.as_deref(),
                                client_host.as_ref(),
                            )
                        })
                        .flatten();
                    if let Some(redirects) = redirects {
                        redirects.apply(&mut parts.headers);
                        if metadata {
                            parts.extensions.insert(redirects);
                        }
                    }
                    Response::from_parts(parts, body)
                }
                Ok(Err(_))
                    if client_failed
                        .as_ref()
                        .is_some_and(|flag| flag.load(Ordering::Relaxed)) =>
                {
                    ErrorEnvelope::new(
                        StatusCode::BAD_REQUEST,
                        "bad_request_body",
                        "the request body could not be read",
                    )
                    .with_hint("send a well-formed body of the length announced")
                    .into_http_response()
                }
                Ok(Err(err)) => failure(&err).into_http_response(),
                Err(_) => ErrorEnvelope::new(
                    StatusCode::GATEWAY_TIMEOUT,
                    "upstream_timeout",
                    format!("the upstream did not answer within {response_timeout:?}"),
                )
                .with_hint("retry later; the service behind the gateway is slow")
                .into_http_response(),
            };
            response.extensions_mut().insert(latency);
            Ok(response)
        })
    }
}

/// What one pass over a request's headers found: what the rules of
/// [`Upstream`] read, and the names it drops.
#[derive(Debug, Default)]
struct RequestHeaders {
    /// How many `Content-Type` values.
    content_types: usize,
    /// The first `Host`, and how many.
    host: Option<HeaderValue>,
    hosts: usize,
    /// A `Connection`, whose names go with it.
    connection: bool,
    /// An `Accept`, whose terse media types go ([`Consumed::accept`]).
    accept: bool,
    /// The names `drops` matched, each once.
    dropped: Vec<HeaderName>,
}

impl RequestHeaders {
    fn of(headers: &http::HeaderMap, drops: impl Fn(&HeaderName) -> bool) -> Self {
        let mut seen = RequestHeaders::default();
        for (name, value) in headers {
            if name == CONTENT_TYPE {
                seen.content_types += 1;
            } else if name == HOST {
                seen.hosts += 1;
                seen.host.get_or_insert_with(|| value.clone());
            } else if name == http::header::ACCEPT {
                seen.accept = true;
            }
            seen.connection |= name == http::header::CONNECTION;
            // A name's values come one after the other: it is dropped once.
            if drops(name) && seen.dropped.last() != Some(name) {
                seen.dropped.push(name.clone());
            }
        }
        seen
    }
}

/// What one pass over an upstream answer's header names found.
#[derive(Debug, Default, PartialEq, Eq)]
struct AnswerHeaders {
    /// A `Connection`, whose names go with it.
    connection: bool,
    /// A header [`hop_by_hop`] drops.
    hop_by_hop: bool,
    /// A header whose URLs may point back at the gateway
    /// ([`Redirects::wanted`]).
    redirects: bool,
}

impl AnswerHeaders {
    fn of(headers: &http::HeaderMap) -> Self {
        let mut seen = AnswerHeaders::default();
        for name in headers.keys() {
            // One match on the name's text (its length first) rather than
            // a comparison with each name that matters; the same names as
            // `hop_by_hop` and `Redirects::names` (a test holds them).
            match name.as_str() {
                "connection" => {
                    seen.connection = true;
                    seen.hop_by_hop = true;
                }
                "te" | "trailer" | "transfer-encoding" | "upgrade" | "keep-alive" => {
                    seen.hop_by_hop = true;
                }
                "location" | "content-location" | "link" | "www-authenticate" => {
                    seen.redirects = true;
                }
                text => seen.hop_by_hop |= text.starts_with("proxy-"),
            }
        }
        seen
    }
}

/// The envelope for a request the client could not complete.
fn failure(err: &hyper_util::client::legacy::Error) -> ErrorEnvelope {
    let timed_out = {
        let mut source: Option<&(dyn StdError + 'static)> = err.source();
        let mut found = false;
        while let Some(cause) = source {
            if cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
            {
                found = true;
            }
            source = cause.source();
        }
        found
    };
    if err.is_connect() && timed_out {
        ErrorEnvelope::new(
            StatusCode::GATEWAY_TIMEOUT,
            "upstream_timeout",
            "the upstream did not accept a connection in time",
        )
        .with_hint("retry later; the service behind the gateway is slow")
    } else if err.is_connect() {
        ErrorEnvelope::new(
            StatusCode::BAD_GATEWAY,
            "upstream_unavailable",
            "the upstream cannot be reached",
        )
        .with_hint("retry later; the service behind the gateway is down")
    } else {
        ErrorEnvelope::new(
            StatusCode::BAD_GATEWAY,
            "upstream_failed",
            "the upstream closed the connection without a complete answer",
        )
        .with_hint("retry later")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(names: &[&str]) -> AnswerHeaders {
        let mut headers = http::HeaderMap::new();
        for name in names {
            headers.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_static("x"),
            );
        }
        AnswerHeaders::of(&headers)
    }

    /// The one pass over a request's headers counts what the rules read
    /// and names each header to drop once, however many values it has.
    #[test]
    fn one_pass_over_a_request_finds_what_the_rules_read() {
        let mut headers = http::HeaderMap::new();
        for (name, value) in [
            ("host", "a.example"),
            ("content-type", "application/json"),
            ("x-forwarded-for", "10.0.0.1"),
            ("x-forwarded-for", "10.0.0.2"),
            ("accept", "*/*"),
            ("x_secret", "1"),
            ("host", "b.example"),
        ] {
            headers.append(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        let seen = RequestHeaders::of(&headers, |name| underscored(name) || untrusted(name, &[]));
        assert_eq!(seen.content_types, 1);
        assert_eq!(
            (seen.host.as_ref(), seen.hosts),
            (Some(&HeaderValue::from_static("a.example")), 2)
        );
        assert!(seen.accept && !seen.connection);
        assert_eq!(seen.dropped, ["x-forwarded-for", "x_secret"]);

        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::CONNECTION, HeaderValue::from_static("close"));
        let seen = RequestHeaders::of(&headers, hop_by_hop);
        assert!(seen.connection && !seen.accept && seen.host.is_none());
        assert_eq!(seen.dropped, ["connection"]);
    }

    /// The match on an answer's names finds what `hop_by_hop` and
    /// `Redirects::names` say of each.
    #[test]
    fn the_answers_names_are_read_as_the_rules_name_them() {
        for name in [
            "connection",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade",
            "keep-alive",
            "proxy-authenticate",
            "proxy-authorization",
            "proxy-x",
            "location",
            "content-location",
            "link",
            "www-authenticate",
            "content-type",
            "date",
            "x-te",
            "links",
            "proxy",
        ] {
            let header = HeaderName::from_static(name);
            let want = AnswerHeaders {
                connection: header == http::header::CONNECTION,
                hop_by_hop: hop_by_hop(&header),
                redirects: Redirects::names(&header),
            };
            assert_eq!(seen(&[name]), want, "{name}");
        }
    }

    /// The one pass over an answer's names finds what the lookups it
    /// replaces found.
    #[test]
    fn one_pass_over_an_answer_finds_what_to_drop_and_point_back() {
        assert_eq!(
            seen(&["content-type", "content-length", "date", "server"]),
            AnswerHeaders::default()
        );
        let connection = seen(&["content-type", "connection"]);
        assert!(connection.connection && connection.hop_by_hop && !connection.redirects);
        for name in [
            "keep-alive",
            "transfer-encoding",
            "upgrade",
            "proxy-authenticate",
        ] {
            let found = seen(&["date", name]);
            assert!(found.hop_by_hop && !found.connection, "{name}");
        }
        for name in ["location", "content-location", "link", "www-authenticate"] {
            let mut headers = http::HeaderMap::new();
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static("/x"),
            );
            assert!(Redirects::wanted(&headers), "{name}");
            let found = seen(&["content-type", name]);
            assert!(found.redirects && !found.hop_by_hop, "{name}");
        }
    }
}
