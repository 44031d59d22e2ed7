//! The gateway's TOML configuration: the upstream and listener, every
//! setting of the layer, and the compact resources with their templates.
//!
//! A config file is hostile input: it is parsed with unknown keys refused,
//! every value checked (templates parsed, routes validated, sizes bounded),
//! and any mistake is one [`ConfigError`] that names the file, the line and
//! the problem, such as
//! ``terse.toml:4: line template, column 8: unknown filter `nosuchfilter`; known filters: ...``.

use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;
use tower_terse::compact::{CompactResource, Template};
use tower_terse::mcp::{McpHint, McpLayer, McpTool};
use tower_terse::settings::Route;
use tower_terse::{BlockingLimit, Format, MemoryBudget, Settings, TerseLayer};

use crate::Gateway;
use crate::consume::Consumed;
use crate::forwarded::TrustedProxies;
use crate::mcp_access::McpAccess;
use crate::server::ServerOptions;
use crate::upstream::{Upstream, UpstreamError};
use crate::urls::PublicOrigin;

/// The largest config file read: a config of every key with hundreds of
/// resources fits many times over.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

/// Most resources a config may declare, and most `[[mcp.tool]]` entries.
pub const MAX_RESOURCES: usize = 1024;

/// The largest byte limit a config may set for one body (`[layer]`,
/// `[[route]]` and `[mcp]` alike).
pub const MAX_BODY_BYTES: usize = tower_terse::settings::MAX_BODY_BYTES;

/// The default of `[gateway] max_buffered_bytes`, the memory budget of all
/// rewrites in flight: 256 MiB.
pub const DEFAULT_BUFFERED_BYTES: usize = 256 << 20;

/// The range of `[gateway] max_buffered_bytes`: 1 MiB to 64 GiB (on 64-bit).
pub const MIN_BUFFERED_BYTES: usize = 1 << 20;
/// See [`MIN_BUFFERED_BYTES`].
pub const MAX_BUFFERED_BYTES: usize = if usize::BITS >= 64 {
    1 << (usize::BITS - 28)
} else {
    usize::MAX
};

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
///   [`ServerOptions`]), `request_body_timeout` and `request_body_min_rate`
///   (bytes a second) for TOON request bodies (see
///   [`TerseLayer::request_body_timeout`]), `max_buffered_bytes` ([`memory_budget`](Self::memory_budget))
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
/// - `[layer]`: every [`Settings`] key, each named as the [`TerseLayer`]
///   builder method it sets: `enabled`, `default_format`, `max_body_bytes`,
///   `max_output_bytes`, `offload_threshold`, `max_concurrent_rewrites`,
///   `max_rewrite_wait_ms`,
///   `smart_fallback`, `exact_token_count`, `count_plain_responses`,
///   `fields_enabled`, `max_fields`, `max_field_depth`, `max_fields_length`,
///   `list_keys`, `id_key`, `format_param`, `fields_param`, `prefer_header`,
///   `rewrite_memo_bytes` (the rewrite memo's bound, 0 for none; taken from
///   the gateway's memory budget only while spare),
///   and `[layer.toon]` with `delimiter` (`"comma"`, `"tab"`, `"pipe"`) and
///   `indent`. `smart_fallback`, `exact_token_count`, `format_param`,
///   `prefer_header` and `[layer.toon]` apply to `[mcp]` too.
/// - `[[route]]`: `path` (axum syntax) and any `[layer]` key, which replaces
///   the layer's for the requests that path matches.
/// - `[[resource]]`: `route` (axum syntax), `noun`, `plural`, `line` (a
///   [`Template`]), `id`, `list` (the one key its list sits under, instead
///   of `list_keys`), `total_key` (where its total is, a dotted path such
///   as `meta.hits`, instead of the common places).
/// - `[mcp]`, an MCP endpoint on the upstream ([`McpLayer`]): `path`
///   (from `/`; required by the gateway, not by `terse mcp` on stdio),
///   `default_format`, `max_request_bytes`, `max_message_bytes`,
///   `max_output_bytes`, `format_argument`, `hint` (`"off"`,
///   `"instructions"`, `"descriptions"`), `meta_counts`, `verbatim_tools`
///   (tool name patterns whose results are a file's content, never
///   rewritten; default [`DEFAULT_VERBATIM_TOOLS`](tower_terse::mcp::DEFAULT_VERBATIM_TOOLS)),
///   and who may call it (DNS-rebinding protection, [`McpAccess`]):
///   `allowed_hosts` and `allowed_origins` (by default loopback hosts only
///   when the gateway listens on loopback, see [`mcp_access`](Self::mcp_access));
///   `default_format` is `"toon"` unless set (TOON where cheaper); it shares
///   `format_param`, `prefer_header` and `[layer.toon]` with the layer.
/// - `[[mcp.tool]]`: one tool's `name`, and its `format` (`"json"` leaves
///   it alone) and/or compact lines for its results ([`McpTool`]): `list`
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
    resources: Vec<(String, CompactResource)>,
    mcp_tools: Vec<McpToolEntry>,
    budget: MemoryBudget,
    /// The slots of the blocking work of every layer: `[layer]`
    /// `max_concurrent_rewrites` and `max_rewrite_wait_ms`.
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

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    gateway: GatewaySection,
    #[serde(default)]
    layer: Settings,
    #[serde(default, rename = "route")]
    routes: Vec<Spanned<Route>>,
    #[serde(default, rename = "resource")]
    resources: Vec<ResourceSection>,
    mcp: Option<McpSection>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GatewaySection {
    upstream: Option<Spanned<String>>,
    listen: Option<Spanned<String>>,
    metrics_listen: Option<Spanned<String>>,
    connect_timeout: Option<Spanned<String>>,
    response_timeout: Option<Spanned<String>>,
    idle_timeout: Option<Spanned<String>>,
    shutdown_timeout: Option<Spanned<String>>,
    max_request_headers: Option<Spanned<usize>>,
    max_header_bytes: Option<Spanned<usize>>,
    // Hostile clients: connection deadlines and cap, the memory budget of
    // all rewrites, and the proxies trusted with forwarding headers.
    header_read_timeout: Option<Spanned<String>>,
    keep_alive_timeout: Option<Spanned<String>>,
    send_timeout: Option<Spanned<String>>,
    // How slowly a TOON request body the layer decodes may arrive.
    request_body_timeout: Option<Spanned<String>>,
    request_body_min_rate: Option<Spanned<u64>>,
    max_connections: Option<Spanned<usize>>,
    max_concurrent_streams: Option<Spanned<usize>>,
    max_buffered_bytes: Option<Spanned<usize>>,
    trusted_proxies: Option<Spanned<Vec<String>>>,
    // Dropped from untrusted clients besides `UNTRUSTED_HEADERS`.
    untrusted_headers: Option<Spanned<Vec<String>>>,
    // What reaches the upstream: its own `Host` or the client's.
    preserve_host: Option<bool>,
    // The origin of rewritten URLs instead of the client's `Host`.
    public_origin: Option<Spanned<String>>,
    // `false`: no line per request (nginx's `access_log off`).
    request_log: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResourceSection {
    route: Spanned<String>,
    noun: Spanned<String>,
    plural: Option<Spanned<String>>,
    line: Spanned<String>,
    id: Option<Spanned<String>>,
    list: Option<Spanned<String>>,
    total_key: Option<Spanned<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct McpSection {
    /// Required by the gateway; `terse mcp` (stdio) has no path.
    path: Option<Spanned<String>>,
    default_format: Option<Format>,
    max_request_bytes: Option<Spanned<usize>>,
    max_message_bytes: Option<Spanned<usize>>,
    max_output_bytes: Option<Spanned<usize>>,
    // What the agent sees: the per-call `format` argument, the TOON hint,
    // the token counts in `_meta`.
    format_argument: Option<bool>,
    hint: Option<Spanned<String>>,
    meta_counts: Option<bool>,
    verbatim_tools: Option<Vec<String>>,
    // DNS-rebinding protection of the endpoint (see `McpAccess`).
    allowed_hosts: Option<Spanned<Vec<String>>>,
    allowed_origins: Option<Spanned<Vec<String>>>,
    #[serde(default, rename = "tool")]
    tools: Vec<McpToolSection>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct McpToolSection {
    name: Spanned<String>,
    /// `"json"` leaves the tool alone; `"toon"`/`"compact"` is its default.
    format: Option<Format>,
    list: Option<Spanned<String>>,
    noun: Option<Spanned<String>>,
    plural: Option<Spanned<String>>,
    line: Option<Spanned<String>>,
    id: Option<Spanned<String>>,
}

/// Checks one file: everything a layer or server would refuse later is
/// refused here, with its line.
struct Checker<'a> {
    file: &'a str,
    source: &'a str,
}

impl Checker<'_> {
    fn error<T>(&self, span: Range<usize>, message: impl Into<String>) -> Result<T, ConfigError> {
        Err(ConfigError::at(self.file, self.source, Some(span), message))
    }

    fn duration(&self, value: &Option<Spanned<String>>, key: &str) -> Result<(), ConfigError> {
        match value {
            Some(text) => parse_duration(text.get_ref())
                .map(drop)
                .or_else(|why| self.error(text.span(), format!("`{key}`: {why}"))),
            None => Ok(()),
        }
    }

    fn name(&self, value: &Option<Spanned<String>>, key: &str) -> Result<(), ConfigError> {
        match value {
            Some(text) if text.get_ref().is_empty() || text.get_ref().len() > 256 => {
                self.error(text.span(), format!("`{key}` must be 1 to 256 bytes long"))
            }
            _ => Ok(()),
        }
    }

    fn range(
        &self,
        value: &Option<Spanned<usize>>,
        key: &str,
        range: std::ops::RangeInclusive<usize>,
    ) -> Result<(), ConfigError> {
        match value {
            Some(n) if !range.contains(n.get_ref()) => self.error(
                n.span(),
                format!(
                    "`{key}` must be between {} and {}, not {}",
                    range.start(),
                    range.end(),
                    n.get_ref()
                ),
            ),
            _ => Ok(()),
        }
    }

    fn gateway(&self, g: &GatewaySection) -> Result<(), ConfigError> {
        if let Some(url) = &g.upstream {
            if let Err(err) = Upstream::check(url.get_ref()) {
                return self.error(url.span(), format!("`upstream`: {err}"));
            }
        }
        for (key, listen, example) in [
            ("listen", &g.listen, "127.0.0.1:3000"),
            ("metrics_listen", &g.metrics_listen, "127.0.0.1:9464"),
        ] {
            if let Some(listen) = listen {
                if listen.get_ref().parse::<std::net::SocketAddr>().is_err() {
                    return self.error(
                        listen.span(),
                        format!(
                            "`{key}` must be an IP address and port such as \"{example}\", not {:?}",
                            listen.get_ref()
                        ),
                    );
                }
            }
        }
        self.duration(&g.connect_timeout, "connect_timeout")?;
        self.duration(&g.response_timeout, "response_timeout")?;
        self.duration(&g.idle_timeout, "idle_timeout")?;
        self.duration(&g.shutdown_timeout, "shutdown_timeout")?;
        self.range(&g.max_request_headers, "max_request_headers", 1..=1000)?;
        self.range(&g.max_header_bytes, "max_header_bytes", 8192..=1 << 20)?;
        self.duration(&g.header_read_timeout, "header_read_timeout")?;
        self.duration(&g.keep_alive_timeout, "keep_alive_timeout")?;
        self.duration(&g.send_timeout, "send_timeout")?;
        self.duration(&g.request_body_timeout, "request_body_timeout")?;
        self.range(&g.max_connections, "max_connections", 1..=1 << 20)?;
        self.range(
            &g.max_concurrent_streams,
            "max_concurrent_streams",
            1..=1000,
        )?;
        self.range(
            &g.max_buffered_bytes,
            "max_buffered_bytes",
            MIN_BUFFERED_BYTES..=MAX_BUFFERED_BYTES,
        )?;
        if let Some(list) = &g.trusted_proxies {
            if let Err(err) = TrustedProxies::new(list.get_ref().iter().map(String::as_str)) {
                return self.error(list.span(), format!("`trusted_proxies`: {err}"));
            }
        }
        if let Some(names) = &g.untrusted_headers {
            if let Some(bad) = names
                .get_ref()
                .iter()
                .find(|name| http::HeaderName::from_bytes(name.as_bytes()).is_err())
            {
                return self.error(
                    names.span(),
                    format!("`untrusted_headers`: {bad:?} is not a header name"),
                );
            }
        }
        if let Some(origin) = &g.public_origin {
            if let Err(err) = origin.get_ref().parse::<PublicOrigin>() {
                return self.error(origin.span(), format!("`public_origin`: {err}"));
            }
        }
        Ok(())
    }

    /// `[layer]` keys the build cannot honour are refused, not ignored.
    fn settings(&self, settings: &Settings, span: Option<Range<usize>>) -> Result<(), ConfigError> {
        if settings.exact_token_count == Some(true) && !tower_terse::tokens::EXACT_AVAILABLE {
            return Err(ConfigError::at(
                self.file,
                self.source,
                span,
                "`exact_token_count = true` needs the `exact-tokens` feature of tower-terse, which this build lacks",
            ));
        }
        Ok(())
    }

    /// The compact resource of a `[[resource]]` or an `[[mcp.tool]]`.
    fn compact(
        &self,
        noun: &Spanned<String>,
        plural: &Option<Spanned<String>>,
        line: &Spanned<String>,
        id: &Option<Spanned<String>>,
    ) -> Result<CompactResource, ConfigError> {
        if noun.get_ref().trim().is_empty() || noun.get_ref().len() > 256 {
            return self.error(noun.span(), "`noun` must be 1 to 256 bytes long");
        }
        let template = match Template::parse(line.get_ref()) {
            Ok(template) => template,
            Err(err) => {
                return self.error(
                    line.span(),
                    format!("line template, column {}: {}", err.column(), err.message()),
                );
            }
        };
        let mut resource = CompactResource::new(noun.get_ref().clone(), template);
        if let Some(plural) = plural {
            if plural.get_ref().trim().is_empty() || plural.get_ref().len() > 256 {
                return self.error(plural.span(), "`plural` must be 1 to 256 bytes long");
            }
            resource = resource.with_plural(plural.get_ref().clone());
        }
        self.name(id, "id")?;
        if let Some(id) = id {
            resource = resource.with_id_key(id.get_ref().clone());
        }
        Ok(resource)
    }

    fn resource(&self, r: &ResourceSection) -> Result<(String, CompactResource), ConfigError> {
        let mut resource = self.compact(&r.noun, &r.plural, &r.line, &r.id)?;
        self.name(&r.list, "list")?;
        self.name(&r.total_key, "total_key")?;
        if let Some(list) = &r.list {
            resource = resource.with_list_key(list.get_ref().clone());
        }
        if let Some(total) = &r.total_key {
            resource = resource.with_total_key(total.get_ref().clone());
        }
        // The route is checked by the layer's own route table.
        if let Err(err) =
            TerseLayer::new().try_compact_resource(r.route.get_ref(), resource.clone())
        {
            return self.error(r.route.span(), err.to_string());
        }
        Ok((r.route.get_ref().clone(), resource))
    }

    fn mcp(&self, m: &McpSection) -> Result<Vec<McpToolEntry>, ConfigError> {
        if let Some(path) = &m.path {
            if !path.get_ref().starts_with('/') || path.get_ref().len() > 1024 {
                return self.error(
                    path.span(),
                    format!(
                        "`path` must start with `/` (and be at most 1024 bytes), not {:?}",
                        path.get_ref()
                    ),
                );
            }
        }
        self.mcp_agent_keys(m)?;
        for (key, list) in [
            ("allowed_hosts", &m.allowed_hosts),
            ("allowed_origins", &m.allowed_origins),
        ] {
            if let Some(list) = list {
                let entries = list.get_ref();
                if entries.len() > MAX_RESOURCES
                    || entries.iter().any(|e| e.is_empty() || e.len() > 1024)
                {
                    return self.error(
                        list.span(),
                        format!("`{key}`: at most {MAX_RESOURCES} entries, none empty"),
                    );
                }
            }
        }
        self.range(
            &m.max_request_bytes,
            "max_request_bytes",
            1..=MAX_BODY_BYTES,
        )?;
        self.range(
            &m.max_message_bytes,
            "max_message_bytes",
            1..=MAX_BODY_BYTES,
        )?;
        self.range(&m.max_output_bytes, "max_output_bytes", 1..=MAX_BODY_BYTES)?;
        if m.tools.len() > MAX_RESOURCES {
            return Err(ConfigError::at(
                self.file,
                self.source,
                None,
                format!("more than {MAX_RESOURCES} tools"),
            ));
        }
        let mut tools: Vec<McpToolEntry> = Vec::with_capacity(m.tools.len());
        for (i, t) in m.tools.iter().enumerate() {
            self.name(&Some(t.name.clone()), "name")?;
            if let Some(first) = m.tools[..i]
                .iter()
                .find(|u| u.name.get_ref() == t.name.get_ref())
            {
                return self.error(
                    t.name.span(),
                    format!(
                        "tool `{}` is declared twice (first on line {})",
                        t.name.get_ref(),
                        line_of(self.source, first.name.span().start)
                    ),
                );
            }
            tools.push(self.mcp_tool(t)?);
        }
        Ok(tools)
    }

    /// `hint` names a place.
    fn mcp_agent_keys(&self, keys: &McpSection) -> Result<(), ConfigError> {
        match &keys.hint {
            Some(hint) if hint.get_ref().parse::<McpHint>().is_err() => self.error(
                hint.span(),
                format!(
                    "unknown hint {:?}; expected \"off\", \"instructions\" or \"descriptions\"",
                    hint.get_ref()
                ),
            ),
            _ => Ok(()),
        }
    }

    /// One `[[mcp.tool]]`: a format of its own, a template (`list`, `noun`,
    /// `line` together), or both.
    fn mcp_tool(&self, t: &McpToolSection) -> Result<McpToolEntry, ConfigError> {
        let format = t.format;
        let template = match (&t.list, &t.noun, &t.line) {
            (Some(list), Some(noun), Some(line)) => {
                self.name(&Some(list.clone()), "list")?;
                let resource = self.compact(noun, &t.plural, line, &t.id)?;
                Some(McpTool::new(list.get_ref().clone(), resource))
            }
            (None, None, None) if format.is_some() => None,
            _ => {
                return self.error(
                    t.name.span(),
                    "a tool needs `list`, `noun` and `line` together, or a `format`",
                );
            }
        };
        Ok(McpToolEntry {
            name: t.name.get_ref().clone(),
            format,
            template,
        })
    }
}

/// One checked `[[mcp.tool]]`.
#[derive(Debug, Clone)]
struct McpToolEntry {
    name: String,
    format: Option<Format>,
    template: Option<McpTool>,
}

impl Config {
    /// Parses and checks the text of a config file; `file` names it in
    /// errors.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] for the first problem: TOML syntax, an unknown key,
    /// a value of the wrong type or out of range, a route or template that
    /// does not parse.
    pub fn parse(file: &str, source: &str) -> Result<Config, ConfigError> {
        if source.len() > MAX_CONFIG_BYTES {
            return Err(ConfigError::at(
                file,
                source,
                None,
                format!("larger than {MAX_CONFIG_BYTES} bytes"),
            ));
        }
        let parsed: File = toml::from_str(source)
            .map_err(|err| ConfigError::at(file, source, err.span(), one_line(err.message())))?;
        let checker = Checker { file, source };
        checker.gateway(&parsed.gateway)?;
        checker.settings(&parsed.layer, None)?;
        if parsed.routes.len() > MAX_RESOURCES {
            return Err(ConfigError::at(
                file,
                source,
                None,
                format!("more than {MAX_RESOURCES} routes"),
            ));
        }
        for route in &parsed.routes {
            checker.settings(&route.get_ref().settings, Some(route.span()))?;
        }
        if parsed.resources.len() > MAX_RESOURCES {
            return Err(ConfigError::at(
                file,
                source,
                None,
                format!("more than {MAX_RESOURCES} resources"),
            ));
        }
        let resources = parsed
            .resources
            .iter()
            .map(|r| checker.resource(r))
            .collect::<Result<_, _>>()?;
        let mcp_tools = match &parsed.mcp {
            Some(mcp) => checker.mcp(mcp)?,
            None => Vec::new(),
        };
        let budget = MemoryBudget::new(
            number(&parsed.gateway.max_buffered_bytes).unwrap_or(DEFAULT_BUFFERED_BYTES),
        );
        let limit = BlockingLimit::per_core().with_settings(&parsed.layer);
        Ok(Config {
            file: parsed,
            resources,
            mcp_tools,
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
        let refuse = |message: String| ConfigError {
            file: name.clone(),
            line: None,
            column: None,
            message,
        };
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
        self.file
            .gateway
            .upstream
            .as_ref()
            .map(|u| u.get_ref().as_str())
    }

    /// `[gateway] listen`, when the file gives it.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nlisten = \"0.0.0.0:8080\"")?;
    /// assert_eq!(config.listen().map(|a| a.port()), Some(8080));
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn listen(&self) -> Option<std::net::SocketAddr> {
        address(self.file.gateway.listen.as_ref())
    }

    /// `[gateway] metrics_listen`, when the file gives it: where `terse
    /// gateway` serves its token counters in the Prometheus text format.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[gateway]\nmetrics_listen = \"127.0.0.1:9464\"")?;
    /// assert_eq!(config.metrics_listen().map(|a| a.port()), Some(9464));
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn metrics_listen(&self) -> Option<std::net::SocketAddr> {
        address(self.file.gateway.metrics_listen.as_ref())
    }

    /// The layer the `[layer]` section and the resources describe; every
    /// setting left out keeps [`TerseLayer::new`]'s default.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[layer.toon]\ndelimiter = \"tab\"")?;
    /// let layer: tower_terse::TerseLayer = config.layer();
    /// # drop(layer);
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn layer(&self) -> TerseLayer {
        let mut layer = TerseLayer::new()
            .settings(&self.file.layer)
            .memory_budget(self.budget.clone())
            .blocking_limit(self.limit.clone());
        let g = &self.file.gateway;
        if let Some(timeout) = duration_of(&g.request_body_timeout) {
            layer = layer.request_body_timeout(timeout);
        }
        if let Some(rate) = &g.request_body_min_rate {
            layer = layer.request_body_min_rate(*rate.get_ref());
        }
        for (route, resource) in &self.resources {
            // Every route was checked by `parse`; a failure here cannot
            // happen, and would only leave the route out.
            if let Ok(next) = layer.clone().try_compact_resource(route, resource.clone()) {
                layer = next;
            }
        }
        for route in &self.file.routes {
            // Each path was checked as it was read; a failure here cannot
            // happen, and would only leave the route out.
            let route = route.get_ref();
            if let Ok(next) = layer.clone().try_route(&route.path, route.settings.clone()) {
                layer = next;
            }
        }
        layer
    }

    /// The MCP endpoint of the `[mcp]` section: its path and the
    /// [`McpLayer`] of its settings and tools, with `format_param`,
    /// `prefer_header` and `[layer.toon]` from `[layer]`. `None` without
    /// `[mcp]`.
    ///
    /// ```
    /// let config = terse_gateway::Config::parse("t.toml", "[mcp]\npath = \"/mcp\"\ndefault_format = \"toon\"")?;
    /// let (path, layer) = config.mcp().expect("an [mcp] section");
    /// assert_eq!(path, "/mcp");
    /// # drop(layer);
    /// # Ok::<(), terse_gateway::ConfigError>(())
    /// ```
    pub fn mcp(&self) -> Option<(&str, McpLayer)> {
        let path = self.file.mcp.as_ref()?.path.as_ref()?;
        Some((path.get_ref().as_str(), self.mcp_layer()?))
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
        let m = self.file.mcp.as_ref()?;
        let layer = self.layer_for_mcp();
        let layer = set(layer, m.default_format, McpLayer::default_format);
        let layer = set(
            layer,
            number(&m.max_request_bytes),
            McpLayer::max_request_bytes,
        );
        let layer = set(
            layer,
            number(&m.max_message_bytes),
            McpLayer::max_message_bytes,
        );
        let mut layer = set(
            layer,
            number(&m.max_output_bytes),
            McpLayer::max_output_bytes,
        );
        layer = mcp_agent_layer(layer, m);
        for tool in &self.mcp_tools {
            if let Some(template) = &tool.template {
                layer = layer.tool(tool.name.clone(), template.clone());
            }
            if let Some(format) = tool.format {
                layer = layer.tool_format(tool.name.clone(), format);
            }
        }
        Some(layer)
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
        self.mcp_layer().unwrap_or_else(|| self.layer_for_mcp())
    }

    /// An [`McpLayer`] with what every MCP rewrite takes from the config,
    /// `[mcp]` or not: the `[layer]` settings and the memory budget.
    fn layer_for_mcp(&self) -> McpLayer {
        McpLayer::new()
            .settings(&self.file.layer)
            .memory_budget(self.budget.clone())
            .blocking_limit(self.limit.clone())
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
            .unwrap_or(std::net::SocketAddr::from(([127, 0, 0, 1], 3000)));
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
    pub fn gateway_on(&self, upstream: Upstream, listen: std::net::SocketAddr) -> Gateway {
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
    pub fn mcp_access(&self, listen: std::net::SocketAddr) -> McpAccess {
        let mut access = McpAccess::for_listener(listen);
        if let Some(m) = &self.file.mcp {
            if let Some(hosts) = &m.allowed_hosts {
                access = access.allowed_hosts(hosts.get_ref());
            }
            if let Some(origins) = &m.allowed_origins {
                access = access.allowed_origins(origins.get_ref());
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
        let mut options = ServerOptions::default();
        if let Some(d) = duration_of(&g.shutdown_timeout) {
            options.shutdown_timeout = d;
        }
        if let Some(n) = &g.max_request_headers {
            options.max_request_headers = *n.get_ref();
        }
        if let Some(n) = &g.max_header_bytes {
            options.max_header_bytes = *n.get_ref();
        }
        if let Some(d) = duration_of(&g.header_read_timeout) {
            options.header_read_timeout = d;
        }
        if let Some(d) = duration_of(&g.keep_alive_timeout) {
            options.idle_timeout = d;
        }
        if let Some(d) = duration_of(&g.send_timeout) {
            options.send_timeout = d;
        }
        if let Some(n) = number(&g.max_connections) {
            options.max_connections = Some(n);
        }
        if let Some(n) = number(&g.max_concurrent_streams) {
            options.max_concurrent_streams = u32::try_from(n).unwrap_or(u32::MAX);
        }
        options
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
    /// one slot per core) and `max_rewrite_wait_ms`, shared by the layer,
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
            .as_ref()
            .and_then(|list| TrustedProxies::new(list.get_ref().iter().map(String::as_str)).ok())
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
        let upstream = set(
            upstream,
            duration_of(&g.connect_timeout),
            Upstream::connect_timeout,
        );
        let upstream = set(
            upstream,
            duration_of(&g.response_timeout),
            Upstream::response_timeout,
        );
        let upstream = set(
            upstream,
            duration_of(&g.idle_timeout),
            Upstream::idle_timeout,
        );
        let upstream = set(upstream, g.preserve_host, Upstream::preserve_host);
        let origin = g
            .public_origin
            .as_ref()
            .and_then(|origin| origin.get_ref().parse().ok());
        let upstream = set(upstream, origin, Upstream::public_origin);
        let untrusted = g.untrusted_headers.iter().flat_map(|names| {
            names
                .get_ref()
                .iter()
                .filter_map(|name| http::HeaderName::from_bytes(name.as_bytes()).ok())
        });
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
        let format = l
            .format_param
            .clone()
            .unwrap_or_else(|| "format".to_owned());
        let fields = l
            .fields_param
            .clone()
            .unwrap_or_else(|| "fields".to_owned());
        let mut params = vec![format];
        if l.fields_enabled != Some(false) {
            params.push(fields);
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
        Config {
            file: File::default(),
            resources: Vec::new(),
            mcp_tools: Vec::new(),
            budget: MemoryBudget::new(DEFAULT_BUFFERED_BYTES),
            limit: BlockingLimit::per_core(),
        }
    }
}

/// The number of a key, when the file gives it.
fn number(value: &Option<Spanned<usize>>) -> Option<usize> {
    value.as_ref().map(|n| *n.get_ref())
}

/// `builder` with `value` set by `setter`, or unchanged when there is none.
fn set<B, T>(builder: B, value: Option<T>, setter: impl FnOnce(B, T) -> B) -> B {
    match value {
        Some(value) => setter(builder, value),
        None => builder,
    }
}

/// The `[mcp]` keys of what the agent sees, checked by `parse`.
fn mcp_agent_layer(layer: McpLayer, keys: &McpSection) -> McpLayer {
    let layer = set(layer, keys.format_argument, McpLayer::format_argument);
    let hint = keys.hint.as_ref().and_then(|h| h.get_ref().parse().ok());
    let layer = set(layer, hint, McpLayer::hint);
    let layer = set(layer, keys.meta_counts, McpLayer::meta_counts);
    set(layer, keys.verbatim_tools.clone(), McpLayer::verbatim_tools)
}

fn duration_of(value: &Option<Spanned<String>>) -> Option<Duration> {
    value
        .as_ref()
        .and_then(|v| parse_duration(v.get_ref()).ok())
}

/// Parses `"250ms"`, `"5s"`, `"2m"`: a whole number from 1 and a unit, at
/// most one hour.
/// A message saying what a duration looks like when `text` is not one.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let scale = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        _ => 0,
    };
    let millis = number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&ms| (1..=3_600_000).contains(&ms));
    millis.map(Duration::from_millis).ok_or_else(|| {
        format!("{text:?} is not a duration from 1ms to 1h such as \"250ms\", \"5s\" or \"2m\"")
    })
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

/// A listening address the file gives (checked when it was loaded).
fn address(value: Option<&Spanned<String>>) -> Option<std::net::SocketAddr> {
    value.and_then(|v| v.get_ref().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(source: &str) -> String {
        Config::parse("t.toml", source).unwrap_err().to_string()
    }

    #[test]
    fn byte_limits_are_checked_against_their_range() {
        assert_eq!(
            error("[layer]\nmax_body_bytes = 34359738368\n"),
            "t.toml:2: `max_body_bytes` must be between 1 and 1073741824, not 34359738368"
        );
        assert!(
            error("[layer]\n\nmax_output_bytes = 0\n").starts_with("t.toml:3: `max_output_bytes`")
        );
        assert!(
            error("[mcp]\npath = \"/mcp\"\nmax_message_bytes = 2147483648\n")
                .starts_with("t.toml:3: `max_message_bytes`")
        );
        assert!(
            error("[gateway]\nmax_buffered_bytes = 1000\n")
                .starts_with("t.toml:2: `max_buffered_bytes`")
        );
        assert!(
            error("[gateway]\nmax_connections = 0\n").starts_with("t.toml:2: `max_connections`")
        );
        assert!(
            error("[gateway]\nsend_timeout = \"0s\"\n").starts_with("t.toml:2: `send_timeout`")
        );
        assert!(
            error("[gateway]\ntrusted_proxies = [\"10.0.0.0/8\", \"10.0.0.0/40\"]\n")
                .starts_with("t.toml:2: `trusted_proxies`: \"10.0.0.0/40\"")
        );
        assert!(
            error("[gateway]\npublic_origin = \"https://a\\\"b\"\n")
                .starts_with("t.toml:2: `public_origin`: \"https://a\\\"b\"")
        );
    }

    #[test]
    fn the_request_log_is_on_unless_switched_off() {
        assert!(Config::default().request_log());
        let on = Config::parse("t.toml", "[gateway]\nrequest_log = true").unwrap();
        assert!(on.request_log());
        let off = Config::parse("t.toml", "[gateway]\nrequest_log = false").unwrap();
        assert!(!off.request_log());
        let wrong = error("[gateway]\nrequest_log = \"off\"\n");
        assert!(wrong.starts_with("t.toml:2"), "{wrong}");
    }

    #[test]
    fn the_hostile_client_keys_reach_the_server_and_the_upstream() {
        let config = Config::parse(
            "t.toml",
            "[gateway]\nheader_read_timeout = \"2s\"\nkeep_alive_timeout = \"3s\"\nsend_timeout = \"4s\"\nmax_connections = 10\nmax_concurrent_streams = 5\nmax_buffered_bytes = 2097152\ntrusted_proxies = [\"127.0.0.1\"]\n",
        )
        .unwrap();
        let options = config.server_options();
        assert_eq!(options.header_read_timeout, Duration::from_secs(2));
        assert_eq!(options.idle_timeout, Duration::from_secs(3));
        assert_eq!(options.send_timeout, Duration::from_secs(4));
        assert_eq!(options.max_connections, Some(10));
        assert_eq!(options.max_concurrent_streams, 5);
        assert_eq!(config.memory_budget().limit(), 2 << 20);
        assert!(config.trusted_proxies().contains([127, 0, 0, 1].into()));
        let copy = config.clone();
        let held = copy.memory_budget().try_reserve(100).unwrap();
        assert_eq!(
            config.memory_budget().in_use(),
            100,
            "clones share one budget"
        );
        drop(held);
        assert_eq!(
            Config::default().memory_budget().limit(),
            DEFAULT_BUFFERED_BYTES
        );
    }

    #[test]
    fn every_kind_of_mistake_names_its_line() {
        assert_eq!(
            error("[layer]\nsmart_fallback = true\nnope = 1\n"),
            "t.toml:3: unknown field `nope`, expected one of `enabled`, `default_format`, `max_body_bytes`, `max_output_bytes`, `offload_threshold`, `max_concurrent_rewrites`, `max_rewrite_wait_ms`, `count_plain_responses`, `smart_fallback`, `exact_token_count`, `fields_enabled`, `max_fields`, `max_field_depth`, `max_fields_length`, `list_keys`, `id_key`, `format_param`, `fields_param`, `prefer_header`, `toon`, `decode_toon_requests`, `rewrite_memo_bytes`"
        );
        assert!(error("[layer]\n\nmax_body_bytes = -1\n").starts_with("t.toml:3: "));
        assert_eq!(
            error(
                "[[resource]]\nroute = \"/t\"\nnoun = \"task\"\nline = \"{title|nosuchfilter}\"\n"
            ),
            "t.toml:4: line template, column 8: unknown filter `nosuchfilter`; known filters: time, date, ago, bytes, short, trunc, upper, lower, join, default, flag"
        );
        assert!(
            error("[[resource]]\nroute = \"t/{\"\nnoun = \"t\"\nline = \"{a}\"\n")
                .starts_with("t.toml:2: invalid route pattern")
        );
        assert!(
            error("[gateway]\nconnect_timeout = \"5 s\"\n")
                .starts_with("t.toml:2: `connect_timeout`")
        );
        assert!(
            error("[layer.toon]\ndelimiter = \";\"\n")
                .starts_with("t.toml:2: unknown TOON delimiter")
        );
        assert!(
            error("[layer]\ndefault_format = \"xml\"\n").starts_with("t.toml:2: unknown format")
        );
        assert!(error("[gateway]\nupstream = \"https://x\"\n").starts_with("t.toml:2: `upstream`"));
        assert!(error("[layer\n").starts_with("t.toml:1: "));
        assert!(
            error("[[resource]]\nroute = \"/t\"\nline = \"{a}\"\n")
                .starts_with("t.toml:1: missing field `noun`")
        );
    }

    #[test]
    fn layer_values_are_checked_where_they_are_read() {
        for (toml, line, message) in [
            (
                "[layer]\nid_key = \"\"\n",
                2,
                "`id_key` must be 1 to 256 bytes long",
            ),
            (
                "[layer]\nprefer_header = \"a b\"\n",
                2,
                "`prefer_header` \"a b\" is not a valid header name",
            ),
            (
                "[layer]\nmax_concurrent_rewrites = 0\n",
                2,
                "`max_concurrent_rewrites` must be between 1 and 4096, not 0",
            ),
            ("[layer]\nlist_keys = []\n\nlist_keys = [\"\"]\n", 4, ""),
            (
                "\n[layer]\nlist_keys = [\"\"]\n",
                3,
                "`list_keys` takes at most 64 keys",
            ),
        ] {
            let err = Config::parse("t.toml", toml).unwrap_err();
            assert_eq!(err.line(), Some(line), "{err}");
            assert!(err.message().contains(message), "{err}");
            assert!(err.column().is_some(), "{err}");
        }
    }

    #[test]
    fn route_mistakes_name_their_line() {
        assert!(
            error("[[route]]\npath = \"t/{\"\n").starts_with("t.toml:2: invalid route pattern"),
            "{}",
            error("[[route]]\npath = \"t/{\"\n")
        );
        assert!(error("[[route]]\nsmart_fallback = true\n").contains("missing field `path`"));
        let unknown = error("[[route]]\npath = \"/a\"\n\nnope = 1\n");
        assert!(unknown.contains("unknown field `nope`"), "{unknown}");
        let wrong = error("[[route]]\npath = \"/a\"\nmax_fields = \"many\"\n");
        assert!(wrong.starts_with("t.toml:"), "{wrong}");
        let range = error("[[route]]\npath = \"/a\"\n[route.toon]\nindent = 99\n");
        assert!(
            range.contains("`indent` must be between 1 and 16"),
            "{range}"
        );
    }

    #[test]
    fn mcp_mistakes_name_their_line() {
        let tool = "[[mcp.tool]]\nname = \"list_events\"\nlist = \"events\"\nnoun = \"event\"\n";
        assert!(
            error("[mcp]\npath = \"mcp\"\n").starts_with("t.toml:2: `path` must start with `/`")
        );
        assert!(
            error("[[mcp.tool]]\nname = \"a\"\nlist = \"items\"\n")
                .starts_with("t.toml:2: a tool needs `list`, `noun` and `line` together")
        );
        assert!(
            error("[mcp]\npath = \"/mcp\"\ncolour = 1\n")
                .starts_with("t.toml:3: unknown field `colour`")
        );
        assert!(
            error("[mcp]\npath = \"/mcp\"\ndefault_format = \"xml\"\n")
                .starts_with("t.toml:3: unknown format")
        );
        assert_eq!(
            error(&format!(
                "[mcp]\npath = \"/mcp\"\n{tool}line = \"{{title|nosuchfilter}}\"\n"
            )),
            "t.toml:7: line template, column 8: unknown filter `nosuchfilter`; known filters: time, date, ago, bytes, short, trunc, upper, lower, join, default, flag"
        );
        assert_eq!(
            error(&format!(
                "[mcp]\npath = \"/mcp\"\n{tool}line = \"{{title}}\"\n{tool}line = \"{{title}}\"\n"
            )),
            "t.toml:9: tool `list_events` is declared twice (first on line 4)"
        );
        assert!(
            error(&format!(
                "[mcp]\npath = \"/mcp\"\n{tool}line = \"{{a}}\"\nwhat = 1\n"
            ))
            .starts_with("t.toml:8: unknown field `what`")
        );
    }

    #[test]
    fn the_mcp_agent_keys_and_tool_formats_are_checked() {
        let config = Config::parse(
            "t.toml",
            "[mcp]\nformat_argument = true\nhint = \"descriptions\"\nmeta_counts = true\n[[mcp.tool]]\nname = \"read_file\"\nformat = \"json\"\n",
        )
        .unwrap();
        assert!(config.mcp().is_none(), "no path: nothing for the gateway");
        assert!(config.mcp_layer().is_some(), "but a layer for stdio");
        assert!(
            error("[mcp]\nhint = \"everywhere\"\n")
                .starts_with("t.toml:2: unknown hint \"everywhere\"")
        );
        assert!(error("[mcp]\nformat_argument = \"yes\"\n").starts_with("t.toml:2: "));
        assert!(
            error("[[mcp.tool]]\nname = \"a\"\nformat = \"xml\"\n")
                .starts_with("t.toml:3: unknown format")
        );
        assert!(error("[[mcp.tool]]\nname = \"a\"\n").starts_with(
            "t.toml:2: a tool needs `list`, `noun` and `line` together, or a `format`"
        ));
    }

    #[test]
    fn a_stdio_layer_without_an_mcp_section_keeps_the_layer_settings_and_budget() {
        let config = Config::parse(
            "t.toml",
            "[gateway]\nmax_buffered_bytes = 2097152\n[layer]\nsmart_fallback = false\n",
        )
        .unwrap();
        assert!(config.mcp_layer().is_none());
        let debug = format!("{:?}", config.stdio_mcp_layer());
        for part in ["smart_fallback: false", "limit: 2097152"] {
            assert!(debug.contains(part), "{part}: {debug}");
        }
        let debug = format!("{:?}", Config::default().stdio_mcp_layer());
        assert!(
            debug.contains(&format!("limit: {DEFAULT_BUFFERED_BYTES}")),
            "{debug}"
        );
    }

    #[test]
    fn a_resource_names_its_list_and_total() {
        let config = Config::parse(
            "t.toml",
            "[[resource]]\nroute = \"/t\"\nnoun = \"task\"\nline = \"{a}\"\nlist = \"tasks\"\ntotal_key = \"meta.hits\"\n",
        )
        .unwrap();
        let debug = format!("{:?}", config.layer());
        for part in ["list_key: \"tasks\"", "total_key: \"meta.hits\""] {
            assert!(debug.contains(part), "{part}: {debug}");
        }
        assert!(
            error("[[resource]]\nroute = \"/t\"\nnoun = \"t\"\nline = \"{a}\"\nlist = \"\"\n")
                .starts_with("t.toml:5: `list` must be 1 to 256 bytes long")
        );
    }

    #[test]
    fn the_mcp_section_builds_its_layer() {
        let config = Config::parse(
            "t.toml",
            "[layer]\nprefer_header = \"x-format\"\n[mcp]\npath = \"/mcp\"\nmax_message_bytes = 1024\n[[mcp.tool]]\nname = \"a\"\nlist = \"items\"\nnoun = \"item\"\nline = \"{title}\"\nid = \"key\"\n",
        )
        .unwrap();
        let (path, layer) = config.mcp().unwrap();
        assert_eq!(path, "/mcp");
        let debug = format!("{layer:?}");
        for part in [
            "x-format",
            "max_message_bytes: 1024",
            "\"items\"",
            "\"key\"",
        ] {
            assert!(debug.contains(part), "{part}: {debug}");
        }
        assert!(Config::default().mcp().is_none());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1ms"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        for bad in [
            "",
            "0s",
            "s",
            "-1s",
            "1h",
            "61m",
            "99999999999999999999ms",
            "1.5s",
            "5",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_empty_file_is_the_defaults() {
        let config = Config::parse("t.toml", "").unwrap();
        assert_eq!(config.upstream_url(), None);
        assert_eq!(config.server_options(), ServerOptions::default());
    }
}
