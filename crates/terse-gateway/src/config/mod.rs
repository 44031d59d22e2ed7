//! The gateway's TOML configuration: the upstream and listener, every
//! setting of the layer, and the compact resources with their templates.
//!
//! A config file is hostile input: it is parsed with unknown keys refused,
//! every value checked (templates parsed, routes validated, sizes bounded),
//! and any mistake is one [`ConfigError`] that names the file, the line and
//! the problem, such as
//! ``terse.toml:4: line template, column 8: unknown filter `nosuchfilter`; known filters: ...``.

mod bounds;
pub mod file;
mod schema;
#[cfg(test)]
mod tests;

use std::fmt;
use std::ops::Range;
use std::path::Path;

use std::net::SocketAddr;

use tower_terse::TerseLayer;
use tower_terse::defaults;
use tower_terse::mcp::{McpLayer, McpSettings};
use tower_terse::settings::{BlockingLimit, MemoryBudget, Settings};

pub use bounds::{
    DEFAULT_BUFFERED_BYTES, MAX_BODY_BYTES, MAX_BUFFERED_BYTES, MAX_CONFIG_BYTES, MAX_RESOURCES,
    MIN_BUFFERED_BYTES,
};
use file::{position, read_capped, too_large};
use schema::{File, GatewaySection};

use crate::Gateway;
use crate::consume::Consumed;
use crate::forwarded::TrustedProxies;
use crate::mcp_access::McpAccess;
use crate::server::ServerOptions;
use crate::upstream::{Upstream, UpstreamError};

/// A parsed and checked gateway configuration.
///
/// ```
/// use terse_gateway::Config;
///
/// let config = Config::parse(
///     "terse.toml",
///     r#"
/// [gateway]
/// upstream = "http://127.0.0.1:8000"
///
/// [layer]
/// default_format = "toon"
///
/// [[resource]]
/// route = "/api/tasks"
/// noun = "task"
/// line = "{title}{? [{project}]} due {due|date}"
/// "#,
/// )?;
/// assert_eq!(config.upstream_url(), Some("http://127.0.0.1:8000"));
/// let layer = config.layer();
/// # drop(layer);
/// # Ok::<(), terse_gateway::ConfigError>(())
/// ```
///
/// The sections (all optional; `docs/gateway.md` describes every key and
/// `examples/gateway/terse.toml` is a commented example of each): `[gateway]`,
/// the server and the upstream (durations as `"250ms"`, `"5s"`, `"2m"`; see
/// [`ServerOptions`], [`Upstream`], [`TrustedProxies`], [`McpAccess`],
/// [`memory_budget`](Self::memory_budget)); `[layer]`, a
/// [`Settings`]; `[[route]]`, a
/// [`Route`](tower_terse::settings::Route); `[[resource]]`, a
/// [`ResourceSettings`](tower_terse::compact::ResourceSettings); `[mcp]`
/// with its `[[mcp.tool]]` tables, an [`McpSettings`] (`path` is required
/// by the gateway, not by `terse mcp`), which takes `format_param`,
/// `prefer_header`, `smart_fallback`, `exact_token_count` and
/// `[layer.toon]` from `[layer]`. The upstream never sees the layer's
/// `format_param`, `fields_param` and `prefer_header` (see [`Consumed`]).
#[derive(Debug, Clone)]
pub struct Config {
    gateway: GatewaySection,
    /// The layers, built once as the file is read.
    layer: TerseLayer,
    /// The `[mcp]` section and its layer.
    mcp: Option<(McpSettings, McpLayer)>,
    /// What the upstream must not see, from `[layer]`.
    consumed: Consumed,
    budget: MemoryBudget,
    /// The slots of the blocking work of every layer: `[layer]`
    /// `max_concurrent_rewrites` and `max_rewrite_wait`.
    limit: BlockingLimit,
}

/// Why a config was refused: the file, the line when known, and the problem.
///
/// Its `Display` is one line, `file:line: problem`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    message: String,
}

impl ConfigError {
    fn at(
        file: &str,
        source: &str,
        span: Option<Range<usize>>,
        message: impl Into<String>,
    ) -> Self {
        let at = span.map(|span| position(source, span.start));
        ConfigError {
            file: file.to_owned(),
            line: at.map(|(line, _)| line),
            column: at.map(|(_, column)| column),
            message: message.into(),
        }
    }

    /// The file named when the config was loaded.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The 1-based line of the problem, when it has one.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The 1-based column (in characters) where the problem starts on its
    /// line, when it has one.
    ///
    /// ```
    /// let err = terse_gateway::Config::parse("gw.toml", "[layer]\nmax_fields = \"many\"\n").unwrap_err();
    /// assert_eq!((err.line(), err.column()), (Some(2), Some(14)));
    /// ```
    pub fn column(&self) -> Option<usize> {
        self.column
    }

    /// What is wrong, without the file and line.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Parses and checks the text of a config file; `file` names it in
    /// errors. Each value is parsed once, into its type, as it is read;
    /// the layers are built here, once.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] for the first problem: TOML syntax, an unknown key,
    /// a value of the wrong type or out of range, a route or template that
    /// does not parse.
    pub fn parse(file: &str, source: &str) -> Result<Config, ConfigError> {
        if source.len() > MAX_CONFIG_BYTES {
            return Err(ConfigError::at(file, source, None, too_large()));
        }
        let parsed: File = toml::from_str(source)
            .map_err(|err| ConfigError::at(file, source, err.span(), one_line(err.message())))?;
        Ok(Config::build(parsed))
    }

    /// The layers of a read file, each built once, sharing one budget and
    /// one blocking limit.
    fn build(mut file: File) -> Config {
        let budget = MemoryBudget::from(file.gateway.max_buffered_bytes.unwrap_or_default());
        // The one limit of every layer is built here from its keys, taken
        // out so that no layer builds one of its own from them.
        let slots = file.layer.max_concurrent_rewrites.take();
        let limit = slots.map_or_else(BlockingLimit::per_core, BlockingLimit::new);
        let limit = set(
            limit,
            file.layer.max_rewrite_wait.take(),
            BlockingLimit::with_wait,
        );
        let mut layer = TerseLayer::new()
            .settings(&file.layer)
            .memory_budget(budget.clone())
            .blocking_limit(limit.clone());
        // Every pattern was parsed as the file was read (`Route`,
        // `ResourceSettings`), by the parser these calls use: none panics.
        for resource in &file.resources {
            layer = layer.compact_resource(&resource.route, resource.resource());
        }
        for route in file.routes {
            layer = layer.route(&route.path, route.settings);
        }
        let mcp = file.mcp.map(|settings| {
            let mcp = McpLayer::new()
                .settings(&file.layer)
                .memory_budget(budget.clone())
                .blocking_limit(limit.clone())
                .mcp_settings(&settings);
            (settings, mcp)
        });
        Config {
            gateway: file.gateway,
            layer,
            mcp,
            consumed: consumed(&file.layer),
            budget,
            limit,
        }
    }

    /// Reads and parses a config file.
    ///
    /// ```
    /// let config = terse_gateway::Config::load("../../examples/gateway/terse.toml".as_ref())?;
    /// assert_eq!(config.listen(), Some(([127, 0, 0, 1], 3000).into()));
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the file when it cannot be read, is larger
    /// than [`MAX_CONFIG_BYTES`] or is not UTF-8, or as [`parse`](Self::parse).
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let name = path.display().to_string();
        let text =
            read_capped(path).map_err(|message| ConfigError::at(&name, "", None, message))?;
        Config::parse(&name, &text)
    }

    /// `[gateway] upstream`, when the file gives it.
    pub fn upstream_url(&self) -> Option<&str> {
        self.gateway.upstream.as_deref()
    }

    /// `[gateway] listen`, when the file gives it.
    pub fn listen(&self) -> Option<SocketAddr> {
        self.gateway.listen
    }

    /// `[gateway] metrics_listen`, when the file gives it: where `terse
    /// gateway` serves its token counters in the Prometheus text format.
    pub fn metrics_listen(&self) -> Option<SocketAddr> {
        self.gateway.metrics_listen
    }

    /// The layer the `[layer]` section, the resources and the routes
    /// describe; every setting left out keeps [`TerseLayer::new`]'s default.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[layer.toon]\ndelimiter = \"tab\"")?;
    /// let layer: tower_terse::TerseLayer = config.layer();
    /// # drop(layer);
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn layer(&self) -> TerseLayer {
        self.layer.clone()
    }

    /// The MCP endpoint of the `[mcp]` section: its path and the
    /// [`McpLayer`] of its settings and tools, with `format_param`,
    /// `prefer_header` and `[layer.toon]` from `[layer]`. `None` without
    /// `[mcp]` or without its `path`.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[mcp]\npath = \"/mcp\"\ndefault_format = \"toon\"")?;
    /// let (path, layer) = config.mcp().expect("an [mcp] section");
    /// assert_eq!(path, "/mcp");
    /// # drop(layer);
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn mcp(&self) -> Option<(&str, McpLayer)> {
        let (settings, layer) = self.mcp.as_ref()?;
        Some((settings.path.as_deref()?, layer.clone()))
    }

    /// The [`McpLayer`] of the `[mcp]` section, with or without a `path`:
    /// what `terse mcp` rewrites a stdio server's messages with. `None`
    /// without `[mcp]`.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[mcp]\nformat_argument = true\nhint = \"instructions\"")?;
    /// assert!(config.mcp_layer().is_some());
    /// assert!(config.mcp().is_none(), "no path: no endpoint for the gateway");
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn mcp_layer(&self) -> Option<McpLayer> {
        self.mcp.as_ref().map(|(_, layer)| layer.clone())
    }

    /// The whole gateway in front of `upstream`: [`layer`](Self::layer),
    /// and the MCP endpoint of [`mcp`](Self::mcp) when there is one.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[mcp]\npath = \"/mcp\"")?;
    /// let service = config.gateway(config.upstream("http://127.0.0.1:8000")?);
    /// # drop(service);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gateway(&self, upstream: Upstream) -> Gateway {
        let listen = self
            .listen()
            .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 3000)));
        self.gateway_on(upstream, listen)
    }

    /// [`gateway`](Self::gateway) for a gateway listening on `listen`
    /// (`terse gateway --listen`), which sets who may call the MCP
    /// endpoint by default (see [`mcp_access`](Self::mcp_access)).
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[mcp]\npath = \"/mcp\"")?;
    /// let service = config.gateway_on(config.upstream("http://127.0.0.1:8000")?, "0.0.0.0:3000".parse()?);
    /// # drop(service);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gateway_on(&self, upstream: Upstream, listen: SocketAddr) -> Gateway {
        let (mcp, access) = match self.mcp() {
            Some(endpoint) => (Some(endpoint), self.mcp_access(listen)),
            None => (None, McpAccess::loopback()),
        };
        crate::build(self.layer(), mcp, access, upstream, self.request_log())
    }

    /// `[gateway] request_log`: whether the gateway writes a line per
    /// request (`true` unless the file says `false`).
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nrequest_log = false")?;
    /// assert!(!config.request_log());
    /// assert!(terse_gateway::Config::default().request_log());
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn request_log(&self) -> bool {
        self.gateway.request_log.unwrap_or(true)
    }

    /// Who may call the MCP endpoint of a gateway listening on `listen`:
    /// `[mcp] allowed_hosts` and `allowed_origins`, or by default
    /// [`McpAccess::for_listener`] (loopback hosts only on a loopback
    /// address, as the MCP SDKs do).
    ///
    /// ```
    /// use terse_gateway::{Config, McpAccess};
    /// let config = Config::parse("t.toml", "[mcp]\npath = \"/mcp\"\nallowed_hosts = [\"mcp.example.com\"]")?;
    /// let any = "0.0.0.0:3000".parse()?;
    /// assert_eq!(config.mcp_access(any), McpAccess::any().allowed_hosts(["mcp.example.com"]));
    /// assert_eq!(Config::default().mcp_access("127.0.0.1:3000".parse()?), McpAccess::loopback());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mcp_access(&self, listen: SocketAddr) -> McpAccess {
        let mut access = McpAccess::for_listener(listen);
        if let Some((m, _)) = &self.mcp {
            if let Some(hosts) = &m.allowed_hosts {
                access = access.allowed_hosts(hosts);
            }
            if let Some(origins) = &m.allowed_origins {
                access = access.allowed_origins(origins);
            }
        }
        access
    }

    /// The server settings of the `[gateway]` section.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nmax_request_headers = 50")?;
    /// assert_eq!(config.server_options().max_request_headers, 50);
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn server_options(&self) -> ServerOptions {
        let g = &self.gateway;
        let defaults = ServerOptions::default();
        ServerOptions {
            shutdown_timeout: g.shutdown_timeout.unwrap_or(defaults.shutdown_timeout),
            max_request_headers: g
                .max_request_headers
                .unwrap_or(defaults.max_request_headers),
            max_header_bytes: g.max_header_bytes.unwrap_or(defaults.max_header_bytes),
            header_read_timeout: g
                .header_read_timeout
                .unwrap_or(defaults.header_read_timeout),
            idle_timeout: g.keep_alive_timeout.unwrap_or(defaults.idle_timeout),
            send_timeout: g.send_timeout.unwrap_or(defaults.send_timeout),
            max_connections: g.max_connections.or(defaults.max_connections),
            max_concurrent_streams: g
                .max_concurrent_streams
                .unwrap_or(defaults.max_concurrent_streams),
            ..defaults
        }
    }

    /// The memory budget of `[gateway] max_buffered_bytes` (default
    /// [`DEFAULT_BUFFERED_BYTES`]), shared by the layer, the MCP endpoint and
    /// every clone of this config.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nmax_buffered_bytes = 16777216")?;
    /// assert_eq!(config.memory_budget().limit(), 16 << 20);
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn memory_budget(&self) -> &MemoryBudget {
        &self.budget
    }

    /// The [`BlockingLimit`] of `[layer]` `max_concurrent_rewrites` (default:
    /// one slot per core) and `max_rewrite_wait`, shared by the layer,
    /// the MCP endpoint and every clone of this config: together they run
    /// at most that many rewrites off the async workers.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[layer]\nmax_concurrent_rewrites = 3")?;
    /// assert_eq!(config.blocking_limit().slots(), 3);
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn blocking_limit(&self) -> &BlockingLimit {
        &self.limit
    }

    /// `[gateway] trusted_proxies`: empty when the file gives none.
    pub fn trusted_proxies(&self) -> TrustedProxies {
        self.gateway.trusted_proxies.clone().unwrap_or_default()
    }

    /// The upstream at `url` with the timeouts of the `[gateway]` section.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nresponse_timeout = \"2m\"")?;
    /// let upstream = config.upstream("http://127.0.0.1:8000")?;
    /// # drop(upstream);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An [`UpstreamError`] when `url` is not an `http://` URL.
    pub fn upstream(&self, url: &str) -> Result<Upstream, UpstreamError> {
        let g = &self.gateway;
        let upstream = Upstream::new(url)?;
        let upstream = set(upstream, g.connect_timeout, Upstream::connect_timeout);
        let upstream = set(upstream, g.response_timeout, Upstream::response_timeout);
        let upstream = set(upstream, g.idle_timeout, Upstream::idle_timeout);
        let upstream = set(upstream, g.preserve_host, Upstream::preserve_host);
        let upstream = set(upstream, g.public_origin.clone(), Upstream::public_origin);
        let untrusted = g.untrusted_headers.clone().unwrap_or_default();
        Ok(upstream
            .untrusted_headers(untrusted)
            .trusted_proxies(self.trusted_proxies())
            .consume(self.consumed.clone()))
    }
}

/// What the layer reads and the upstream must not see: the layer's
/// `format_param`, its `fields_param` (unless `fields_enabled = false`
/// leaves it to the service) and its `prefer_header`.
fn consumed(l: &Settings) -> Consumed {
    let format = l.format_param.as_deref().unwrap_or(defaults::FORMAT_PARAM);
    let mut params = vec![format.to_owned()];
    if l.fields_enabled != Some(false) {
        let fields = l.fields_param.as_deref().unwrap_or(defaults::FIELDS_PARAM);
        params.push(fields.to_owned());
    }
    let header = l
        .prefer_header
        .clone()
        .unwrap_or(defaults::PREFER_HEADER_NAME);
    Consumed::new(params, Some(header))
}

impl Default for Config {
    /// No file: the layer's defaults, no resources.
    fn default() -> Self {
        Config::build(File::default())
    }
}

/// `builder` with `value` set by `setter`, or unchanged when there is none.
fn set<B, T>(builder: B, value: Option<T>, setter: fn(B, T) -> B) -> B {
    match value {
        Some(value) => setter(builder, value),
        None => builder,
    }
}

/// toml's messages may span lines; an error is one line.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}
