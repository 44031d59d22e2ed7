//! The gateway's TOML configuration: the upstream and listener, every
//! setting of the layer, and the compact resources with their templates.
//!
//! A config file is hostile input: it is parsed with unknown keys refused,
//! every value checked (templates parsed, routes validated, sizes bounded),
//! and any mistake is one [`ConfigError`] that names the file, the line and
//! the problem, such as
//! ``terse.toml:4: line template, column 8: unknown filter `nosuchfilter`; known filters: ...``.

mod bounds;
mod build;
mod checks;
mod schema;
#[cfg(test)]
mod tests;

use std::fmt;
use std::ops::Range;
use std::path::Path;

use tower_terse::TerseLayer;
use tower_terse::mcp::McpLayer;
use tower_terse::settings::{BlockingLimit, MemoryBudget};

use std::net::SocketAddr;

// The bounds live in a leaf of their own: the schema checks values
// against them, and this module builds from the schema.
pub use bounds::{
    DEFAULT_BUFFERED_BYTES, MAX_BODY_BYTES, MAX_BUFFERED_BYTES, MAX_CONFIG_BYTES, MAX_RESOURCES,
    MIN_BUFFERED_BYTES,
};
use build::set;
use schema::File;
use tower_terse::defaults;

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
/// The sections and keys (all optional; `examples/gateway/terse.toml` is a
/// commented example of every one):
///
/// - `[gateway]`: `upstream`, `listen`, `metrics_listen`, `connect_timeout`,
///   `response_timeout`, `idle_timeout`, `shutdown_timeout` (durations as
///   `"250ms"`, `"5s"`, `"2m"`), `max_request_headers`, `max_header_bytes`;
///   against hostile clients `header_read_timeout`, `keep_alive_timeout`,
///   `send_timeout`, `max_connections`, `max_concurrent_streams` (see
///   [`ServerOptions`]), `max_buffered_bytes` ([`memory_budget`](Self::memory_budget))
///   and `trusted_proxies` (a list of CIDR blocks, [`TrustedProxies`]);
///   `untrusted_headers` (more header names only a trusted proxy may send,
///   besides [`UNTRUSTED_HEADERS`](crate::UNTRUSTED_HEADERS));
///   `preserve_host` (see [`Upstream::preserve_host`]); `public_origin`
///   (see [`Upstream::public_origin`]); `request_log` (`false` writes no
///   line per request, see [`request_log`](Self::request_log)). The upstream never
///   sees the layer's `format_param`, `fields_param` and `prefer_header`
///   (see [`Consumed`]): a service that owns `?format=` keeps it by giving
///   the layer another name (`format_param = "terse_format"`).
///   Every byte limit is checked against a range (at most
///   [`MAX_BODY_BYTES`] per body).
/// - `[layer]`: every [`Settings`](tower_terse::Settings) key, each named as the [`TerseLayer`]
///   builder method it sets: `enabled`, `default_format`, `max_body_bytes`,
///   `max_output_bytes`, `offload_threshold`, `max_concurrent_rewrites`,
///   `max_rewrite_wait`,
///   `smart_fallback`, `exact_token_count`, `count_plain_responses`,
///   `fields_enabled`, `max_fields`, `max_field_depth`, `max_fields_length`,
///   `list_keys`, `id_key`, `format_param`, `fields_param`, `prefer_header`,
///   `rewrite_memo_bytes` (the rewrite memo's bound, 0 for none; taken from
///   the gateway's memory budget only while spare), `request_body_timeout`
///   and `request_body_min_rate` (bytes a second) for TOON request bodies
///   (see [`TerseLayer::request_body_timeout`]),
///   and `[layer.toon]` with `delimiter` (`"comma"`, `"tab"`, `"pipe"`) and
///   `indent`. `smart_fallback`, `exact_token_count`, `format_param`,
///   `prefer_header` and `[layer.toon]` apply to `[mcp]` too.
/// - `[[route]]`: `path` (axum syntax) and any `[layer]` key, which replaces
///   the layer's for the requests that path matches.
/// - `[[resource]]`: `route` (axum syntax), `noun`, `plural`, `line` (a
///   [`Template`](tower_terse::compact::Template)), `id`, `list` (the one key its list sits under, instead
///   of `list_keys`), `total_key` (where its total is, a dotted path such
///   as `meta.hits`, instead of the common places).
/// - `[mcp]`, an MCP endpoint on the upstream ([`McpLayer`]): `path`
///   (from `/`; required by the gateway, not by `terse mcp` on stdio),
///   `default_format`, `max_request_bytes`, `max_message_bytes`,
///   `max_output_bytes`, `format_argument`, `hint` (`"off"`,
///   `"instructions"`, `"descriptions"`), `meta_counts`, `verbatim_tools`
///   (tool name patterns whose results are a file's content, never
///   rewritten; default [`MCP_VERBATIM_TOOLS`](tower_terse::defaults::MCP_VERBATIM_TOOLS)),
///   and who may call it (DNS-rebinding protection, [`McpAccess`]):
///   `allowed_hosts` and `allowed_origins` (by default loopback hosts only
///   when the gateway listens on loopback, see [`mcp_access`](Self::mcp_access));
///   `default_format` is `"toon"` unless set (TOON where cheaper); it shares
///   `format_param`, `prefer_header` and `[layer.toon]` with the layer.
/// - `[[mcp.tool]]`: one tool's `name`, and its `format` (`"json"` leaves
///   it alone) and/or compact lines for its results ([`McpTool`](tower_terse::mcp::McpTool)): `list`
///   (the key the records sit under), `noun`, `plural`, `line`, `id`.
///
/// ```
/// let config = terse_gateway::Config::parse(
///     "terse.toml",
///     r#"
/// [mcp]
/// path = "/mcp"
///
/// [[mcp.tool]]
/// name = "list_events"
/// list = "events"
/// noun = "event"
/// line = "{start|time} {title}"
/// "#,
/// )?;
/// assert_eq!(config.mcp().map(|(path, _)| path), Some("/mcp"));
/// # Ok::<(), terse_gateway::ConfigError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Config {
    file: File,
    /// Built once, as the file is read.
    layer: TerseLayer,
    /// An [`McpLayer`] with the `[layer]` settings, the budget and the
    /// limit: what `terse mcp` takes without `[mcp]`.
    base_mcp: McpLayer,
    /// The `[mcp]` section's layer, built over `base_mcp`.
    mcp: Option<McpLayer>,
    budget: MemoryBudget,
    /// The slots of the blocking work of every layer: `[layer]`
    /// `max_concurrent_rewrites` and `max_rewrite_wait`.
    limit: BlockingLimit,
}

/// Why a config was refused: the file, the line when known, and the problem.
///
/// Its `Display` is one line, `file:line: problem`.
///
/// ```
/// let err = terse_gateway::Config::parse("terse.toml", "[layer]\nmax_body_bytes = \"big\"\n")
///     .unwrap_err();
/// assert_eq!(err.line(), Some(2));
/// assert!(err.to_string().starts_with("terse.toml:2: "), "{err}");
/// ```
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
        ConfigError {
            file: file.to_owned(),
            line: span.clone().map(|span| line_of(source, span.start)),
            column: span.map(|span| column_of(source, span.start)),
            message: message.into(),
        }
    }

    /// The file named when the config was loaded.
    ///
    /// ```
    /// let err = terse_gateway::Config::parse("gw.toml", "nope = 1").unwrap_err();
    /// assert_eq!((err.file(), err.line()), ("gw.toml", Some(1)));
    /// assert!(err.message().starts_with("unknown field `nope`"));
    /// ```
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

/// The 1-based column, in characters, of byte `offset` of `source`.
fn column_of(source: &str, offset: usize) -> usize {
    let mut end = offset.min(source.len());
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let start = source[..end].rfind('\n').map_or(0, |newline| newline + 1);
    1 + source[start..end].chars().count()
}

/// The 1-based line holding byte `offset` of `source`.
fn line_of(source: &str, offset: usize) -> usize {
    let end = offset.min(source.len());
    1 + source.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

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
            let message = format!("larger than {MAX_CONFIG_BYTES} bytes");
            return Err(ConfigError::at(file, source, None, message));
        }
        let parsed: File = toml::from_str(source)
            .map_err(|err| ConfigError::at(file, source, err.span(), one_line(err.message())))?;
        checks::check(&parsed, source)
            .map_err(|(span, message)| ConfigError::at(file, source, span, message))?;
        let budget = MemoryBudget::new(
            parsed
                .gateway
                .max_buffered_bytes
                .unwrap_or(DEFAULT_BUFFERED_BYTES),
        );
        let limit = BlockingLimit::per_core().with_settings(&parsed.layer);
        let layer = build::layer(&parsed, &budget, &limit)
            .map_err(|(span, message)| ConfigError::at(file, source, Some(span), message))?;
        let base_mcp = build::base_mcp_layer(&parsed, &budget, &limit);
        let mcp = parsed
            .mcp
            .as_ref()
            .map(|m| build::mcp_layer(m, base_mcp.clone()));
        Ok(Config {
            file: parsed,
            layer,
            base_mcp,
            mcp,
            budget,
            limit,
        })
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
        let refuse = |message: String| ConfigError::at(&name, "", None, message);
        let bytes = read_bounded(path).map_err(|err| refuse(format!("cannot read: {err}")))?;
        let text = String::from_utf8(bytes).map_err(|_| refuse("not UTF-8".to_owned()))?;
        Config::parse(&name, &text)
    }

    /// `[gateway] upstream`, when the file gives it.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nupstream = \"http://[::1]:8000\"")?;
    /// assert_eq!(config.upstream_url(), Some("http://[::1]:8000"));
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn upstream_url(&self) -> Option<&str> {
        self.file.gateway.upstream.as_deref()
    }

    /// `[gateway] listen`, when the file gives it.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nlisten = \"0.0.0.0:8080\"")?;
    /// assert_eq!(config.listen().map(|a| a.port()), Some(8080));
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn listen(&self) -> Option<SocketAddr> {
        self.file.gateway.listen
    }

    /// `[gateway] metrics_listen`, when the file gives it: where `terse
    /// gateway` serves its token counters in the Prometheus text format.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nmetrics_listen = \"127.0.0.1:9464\"")?;
    /// assert_eq!(config.metrics_listen().map(|a| a.port()), Some(9464));
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn metrics_listen(&self) -> Option<SocketAddr> {
        self.file.gateway.metrics_listen
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
        let path = self.file.mcp.as_ref()?.path.as_deref()?;
        Some((path, self.mcp_layer()?))
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
        self.mcp.clone()
    }

    /// What `terse mcp` rewrites a stdio server's messages with: the
    /// [`mcp_layer`](Self::mcp_layer) of the `[mcp]` section, or, without
    /// one, an [`McpLayer`] with the `[layer]` settings and the memory
    /// budget, so that both apply to a stdio server as to the gateway.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[layer]\nsmart_fallback = false")?;
    /// assert!(config.mcp_layer().is_none());
    /// let layer = config.stdio_mcp_layer();
    /// # drop(layer);
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn stdio_mcp_layer(&self) -> McpLayer {
        self.mcp.clone().unwrap_or_else(|| self.base_mcp.clone())
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
        self.file.gateway.request_log.unwrap_or(true)
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
        if let Some(m) = &self.file.mcp {
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
        let g = &self.file.gateway;
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
            // At most 1000, as read.
            max_concurrent_streams: g
                .max_concurrent_streams
                .map_or(defaults.max_concurrent_streams, |n| n as u32),
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
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\ntrusted_proxies = [\"10.0.0.0/8\"]")?;
    /// assert!(config.trusted_proxies().contains([10, 9, 8, 7].into()));
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn trusted_proxies(&self) -> TrustedProxies {
        self.file
            .gateway
            .trusted_proxies
            .clone()
            .unwrap_or_default()
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
        let g = &self.file.gateway;
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
            .consume(self.consumed()))
    }

    /// What the layer reads and the upstream must not see: the layer's
    /// `format_param`, its `fields_param` (unless `fields_enabled = false`
    /// leaves it to the service) and its `prefer_header`.
    fn consumed(&self) -> Consumed {
        let l = &self.file.layer;
        let format = l.format_param.as_deref().unwrap_or(defaults::FORMAT_PARAM);
        let mut params = vec![format.to_owned()];
        if l.fields_enabled != Some(false) {
            params.push(
                l.fields_param
                    .as_deref()
                    .unwrap_or(defaults::FIELDS_PARAM)
                    .to_owned(),
            );
        }
        let header = l
            .prefer_header
            .clone()
            .unwrap_or_else(|| http::HeaderName::from_static("x-prefer-format"));
        Consumed::new(params, Some(header))
    }
}

impl Default for Config {
    /// No file: the layer's defaults, no resources.
    fn default() -> Self {
        let file = File::default();
        let budget = MemoryBudget::new(DEFAULT_BUFFERED_BYTES);
        let limit = BlockingLimit::per_core();
        let base_mcp = build::base_mcp_layer(&file, &budget, &limit);
        Config {
            layer: TerseLayer::new()
                .memory_budget(budget.clone())
                .blocking_limit(limit.clone()),
            file,
            base_mcp,
            mcp: None,
            budget,
            limit,
        }
    }
}

/// toml's messages may span lines; an error is one line.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads at most [`MAX_CONFIG_BYTES`] + 1 bytes, so a huge file (or
/// `/dev/zero`) is refused without reading it whole.
fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_CONFIG_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}
