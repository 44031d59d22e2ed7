//! The terse layer in front of any HTTP service, in any language.
//!
//! A reverse proxy with [`TerseLayer`] around it: a service written in
//! Python, Node, Go or Java answers JSON as it always has, and agents that
//! ask for it (`?format=toon`, `X-Prefer-Format: compact`, `Accept:
//! text/toon`) get TOON or compact lines, with `X-Token-Count`. The
//! `terse gateway` command runs it from a TOML file ([`Config`]); this crate
//! is the same gateway as a library, for whoever builds their own proxy.
//!
//! ```
//! use tower_terse::TerseLayer;
//! use tower_terse::compact::{CompactResource, Template};
//! use terse_gateway::{Upstream, gateway};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tasks = CompactResource::new("task", Template::parse("{title} due {due|date}")?);
//! let layer = TerseLayer::new().compact_resource("/api/tasks", tasks);
//! let service = gateway(layer, Upstream::new("http://127.0.0.1:8000")?);
//! // `service` is a tower `Service<http::Request<B>>`; `serve` runs it.
//! # drop(service);
//! # Ok(()) }
//! ```
//!
//! # Design
//!
//! The service [`gateway`] builds is, from the outside in:
//!
//! 1. tower-http's compression ([`Compress`]), which honours the client's
//!    `Accept-Encoding` on the way out (not SSE, not small bodies), its
//!    body boxed once so the server moves a pointer, and left out of the
//!    requests that accept no coding;
//! 2. [`RequestLog`]: one `info` line per request;
//! 3. the [`TerseLayer`], which rewrites what a client asked for and
//!    passes everything else through (errors, non-JSON, streams); or, for
//!    the requests to an MCP endpoint ([`mcp_gateway`], `[mcp]` in the
//!    config), the [`McpLayer`] instead (see [MCP](#mcp));
//! 4. [`Inflate`]: tower-http's decompression, so an upstream that
//!    compresses (gzip, br, zstd, deflate), even unasked, still gets
//!    rewritten; a body too large to rewrite goes out compressed as it
//!    came to a client that takes the coding, and inflating is CPU work
//!    under the layer's `BlockingLimit` otherwise;
//! 5. [`ResourceMetadata`]: the `resource` of an OAuth protected-resource
//!    metadata answer (RFC 9728) moved to the gateway, with the URLs the
//!    upstream worked out for it;
//! 6. [`Upstream`], the forwarding itself over hyper-util's pooled client:
//!    `Host` validated, hop-by-hop and underscored headers dropped,
//!    dot segments resolved,
//!    forwarding headers replaced ([`TrustedProxies`]), the gateway's own
//!    parameters and media types consumed ([`Consumed`]), `HEAD` sent as
//!    `GET`, redirect, `Link` and `WWW-Authenticate` metadata URLs
//!    pointed back at the gateway, timeouts
//!    answered with 502/504 in [`tower_terse::ErrorEnvelope`].
//!
//! Request bodies stream to the upstream unbuffered. Response bodies stream
//! back unless the layer reads one to rewrite or count it, and the layer
//! never reads more than its `max_body_bytes`. [`serve`] speaks HTTP/1.1
//! and h2c with hyper-util's auto server, bounds request heads, and drains
//! requests in flight on shutdown. Requests that upgrade the connection
//! (WebSocket) are not proxied: `Upgrade` is a hop-by-hop header.
//!
//! # MCP
//!
//! An MCP server on the Streamable HTTP transport, in any language, gets
//! its `tools/call` results served as TOON or compact lines: the requests
//! to its endpoint's path (exactly that path) go through [`McpLayer`]
//! rather than the HTTP layer, which never sees the JSON-RPC answers and
//! event streams. Events stream one by one, `Mcp-Session-Id`,
//! `MCP-Protocol-Version` and `Last-Event-ID` pass both ways, and GET
//! streams and DELETE pass untouched.
//!
//! ```
//! use tower_terse::TerseLayer;
//! use tower_terse::mcp::{McpLayer, McpTool};
//! use terse_gateway::{Upstream, mcp_gateway};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let events = McpTool::from_template("events", "event", "{start|time} {title}")?;
//! let mcp = McpLayer::new().tool("list_events", events);
//! let service = mcp_gateway(TerseLayer::new(), "/mcp", mcp, Upstream::new("http://127.0.0.1:8000")?);
//! # drop(service);
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// Nothing reachable from a request or a config file may panic.
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod boxed;
mod compress;
pub mod config;
mod conn;
mod connector;
mod consume;
mod forwarded;
mod headers;
mod host;
mod in_place;
mod inflate;
mod limits;
mod log;
mod mcp;
mod mcp_access;
mod mcp_order;
mod path;
mod resource_metadata;
mod server;
mod shed;
mod upstream;
mod upstream_body;
mod urls;
mod www_authenticate;

use tower::{Layer as _, ServiceBuilder};
use tower_terse::mcp::{Mcp, McpLayer};
use tower_terse::{Terse, TerseLayer};

pub use boxed::{BoxResponseBody, BoxResponseBodyFuture};
pub use compress::{Compress, CompressBody, CompressFuture};
pub use config::{Config, ConfigError};
pub use consume::Consumed;
pub use forwarded::{CidrError, MAX_TRUSTED_PROXIES, TrustedProxies, UNTRUSTED_HEADERS};
pub use headers::{remove_hop_by_hop, remove_underscored};
pub use inflate::{BATCH_BYTES, Inflate, InflateFuture, Inflated, READY_BYTES, REWIND_BYTES, Tee};
pub use log::{LogBody, LogFuture, RequestLog, RequestLogLayer};
pub use mcp::{McpSplit, SplitFuture};
pub use mcp_access::McpAccess;
pub use resource_metadata::{MetadataFuture, ResourceMetadata, ResourceMetadataLayer};
pub use server::{ServerOptions, serve, shutdown_signal};
pub use upstream::{
    BoxError, ClientAddr, IdleTimeout, Upstream, UpstreamBody, UpstreamError, UpstreamLatency,
};
pub use urls::{OriginError, PublicOrigin};

/// The service [`gateway`] builds.
///
/// ```
/// fn store(service: terse_gateway::Gateway) -> Box<terse_gateway::Gateway> {
///     Box::new(service)
/// }
/// ```
pub type Gateway = Compress<
    RequestLog<
        McpSplit<
            Terse<Inflate<ResourceMetadata<Upstream>>>,
            Mcp<Inflate<ResourceMetadata<Upstream>>>,
        >,
    >,
>;

/// `layer` in front of `upstream`, with decompression inside it and
/// compression and the request log outside (see the [crate] docs).
///
/// ```
/// let service = terse_gateway::gateway(
///     tower_terse::TerseLayer::new(),
///     terse_gateway::Upstream::new("http://127.0.0.1:8000")?,
/// );
/// # drop(service);
/// # Ok::<(), terse_gateway::UpstreamError>(())
/// ```
pub fn gateway(layer: TerseLayer, upstream: Upstream) -> Gateway {
    build(layer, None, McpAccess::loopback(), upstream, true)
}

/// [`gateway`] with an MCP endpoint: the requests to `mcp_path` (exactly
/// that path, as clients ask the gateway for it) go through `mcp` instead
/// of `layer` (see [MCP](crate#mcp)). Only loopback hosts may call it
/// ([`McpAccess::loopback`]); [`mcp_gateway_with_access`] says who else.
///
/// ```
/// let service = terse_gateway::mcp_gateway(
///     tower_terse::TerseLayer::new(),
///     "/mcp",
///     tower_terse::mcp::McpLayer::new().default_format(tower_terse::Format::Toon),
///     terse_gateway::Upstream::new("http://127.0.0.1:8000")?,
/// );
/// # drop(service);
/// # Ok::<(), terse_gateway::UpstreamError>(())
/// ```
pub fn mcp_gateway(
    layer: TerseLayer,
    mcp_path: &str,
    mcp: McpLayer,
    upstream: Upstream,
) -> Gateway {
    mcp_gateway_with_access(layer, mcp_path, mcp, McpAccess::loopback(), upstream)
}

/// [`mcp_gateway`] with the MCP endpoint open to the hosts and origins of
/// `access` (DNS-rebinding protection, see [`McpAccess`]).
///
/// ```
/// use terse_gateway::{McpAccess, Upstream, mcp_gateway_with_access};
///
/// let service = mcp_gateway_with_access(
///     tower_terse::TerseLayer::new(),
///     "/mcp",
///     tower_terse::mcp::McpLayer::new(),
///     McpAccess::any().allowed_hosts(["mcp.example.com"]),
///     Upstream::new("http://127.0.0.1:8000")?,
/// );
/// # drop(service);
/// # Ok::<(), terse_gateway::UpstreamError>(())
/// ```
pub fn mcp_gateway_with_access(
    layer: TerseLayer,
    mcp_path: &str,
    mcp: McpLayer,
    access: McpAccess,
    upstream: Upstream,
) -> Gateway {
    build(layer, Some((mcp_path, mcp)), access, upstream, true)
}

/// The gateway; `request_log` off leaves out the request lines
/// ([`RequestLog::logging`]).
pub(crate) fn build(
    layer: TerseLayer,
    mcp: Option<(&str, McpLayer)>,
    access: McpAccess,
    upstream: Upstream,
    request_log: bool,
) -> Gateway {
    let upstream = ResourceMetadataLayer.layer(upstream);
    // `Upstream` asks for identity itself.
    let mut inner = Inflate::new(upstream, layer.limit().clone()).asking_identity();
    if let Some(budget) = layer.budget() {
        inner = inner.memory_budget(budget.clone());
    }
    let http = ServiceBuilder::new().layer(layer).service(inner.clone());
    let mcp = mcp.map(|(path, mcp)| (path, ServiceBuilder::new().layer(mcp).service(inner)));
    ServiceBuilder::new()
        // tower-http's compression, left out of the requests that accept
        // no coding, its large body boxed where it is made (see `Compress`).
        .layer_fn(Compress::new)
        .layer_fn(|service| RequestLogLayer.layer(service).logging(request_log))
        .service(McpSplit::new(http, mcp).access(access))
}
