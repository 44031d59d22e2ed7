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

use http::HeaderName;
use serde::Deserialize;
use toml::Spanned;
use tower_terse::compact::{CompactResource, Template};
use tower_terse::mcp::{McpLayer, McpTool};
use tower_terse::toon::{Delimiter, EncodeOptions};
use tower_terse::{Format, TerseLayer};

use crate::Gateway;
use crate::consume::Consumed;
use crate::server::ServerOptions;
use crate::upstream::{Upstream, UpstreamError};

/// The largest config file read: a config of every key with hundreds of
/// resources fits many times over.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

/// Most resources a config may declare, and most `[[mcp.tool]]` entries.
pub const MAX_RESOURCES: usize = 1024;

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
///   `"250ms"`, `"5s"`, `"2m"`), `max_request_headers`, `max_header_bytes`,
///   `preserve_host` (see [`Upstream::preserve_host`]). The upstream never
///   sees the layer's `format_param`, `fields_param` and `prefer_header`
///   (see [`Consumed`]): a service that owns `?format=` keeps it by giving
///   the layer another name (`format_param = "terse_format"`).
/// - `[layer]`: `default_format`, `max_body_bytes`, `max_output_bytes`,
///   `offload_threshold`, `max_concurrent_rewrites`, `smart_fallback`,
///   `count_plain_responses`, `fields_enabled`, `max_fields`,
///   `max_field_depth`, `max_fields_length`, `list_keys`, `id_key`,
///   `format_param`, `fields_param`, `prefer_header`, and `[layer.toon]`
///   with `delimiter` (`"comma"`, `"tab"`, `"pipe"`) and `indent`.
/// - `[[resource]]`: `route` (axum syntax), `noun`, `plural`, `line` (a
///   [`Template`]), `id`, `list` (the one key its list sits under, instead
///   of `list_keys`), `total_key` (where its total is, a dotted path such
///   as `meta.hits`, instead of the common places).
/// - `[mcp]`, an MCP endpoint on the upstream ([`McpLayer`]): `path`
///   (required, from `/`), `default_format`, `max_request_bytes`,
///   `max_message_bytes`, `max_output_bytes`; it shares `format_param`,
///   `prefer_header` and `[layer.toon]` with the layer.
/// - `[[mcp.tool]]`: compact lines for one tool's results ([`McpTool`]):
///   `name`, `list` (the key the records sit under), `noun`, `plural`,
///   `line`, `id`.
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
    mcp_tools: Vec<(String, McpTool)>,
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
            line: span.map(|span| line_of(source, span.start)),
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
    layer: LayerSection,
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
    // What reaches the upstream: its own `Host` or the client's.
    preserve_host: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LayerSection {
    default_format: Option<Spanned<String>>,
    max_body_bytes: Option<usize>,
    max_output_bytes: Option<usize>,
    offload_threshold: Option<usize>,
    max_concurrent_rewrites: Option<Spanned<usize>>,
    smart_fallback: Option<bool>,
    count_plain_responses: Option<bool>,
    fields_enabled: Option<bool>,
    max_fields: Option<usize>,
    max_field_depth: Option<usize>,
    max_fields_length: Option<usize>,
    list_keys: Option<Spanned<Vec<String>>>,
    id_key: Option<Spanned<String>>,
    format_param: Option<Spanned<String>>,
    fields_param: Option<Spanned<String>>,
    prefer_header: Option<Spanned<String>>,
    #[serde(default)]
    toon: ToonSection,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToonSection {
    delimiter: Option<Spanned<String>>,
    indent: Option<Spanned<usize>>,
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
    path: Spanned<String>,
    default_format: Option<Spanned<String>>,
    max_request_bytes: Option<usize>,
    max_message_bytes: Option<usize>,
    max_output_bytes: Option<usize>,
    #[serde(default, rename = "tool")]
    tools: Vec<McpToolSection>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct McpToolSection {
    name: Spanned<String>,
    list: Spanned<String>,
    noun: Spanned<String>,
    plural: Option<Spanned<String>>,
    line: Spanned<String>,
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
        Ok(())
    }

    fn format(&self, value: &Option<Spanned<String>>) -> Result<(), ConfigError> {
        match value {
            Some(format) if format.get_ref().parse::<Format>().is_err() => self.error(
                format.span(),
                format!(
                    "unknown format {:?} in `default_format`; expected \"json\", \"toon\" or \"compact\"",
                    format.get_ref()
                ),
            ),
            _ => Ok(()),
        }
    }

    fn layer(&self, l: &LayerSection) -> Result<(), ConfigError> {
        self.format(&l.default_format)?;
        self.range(
            &l.max_concurrent_rewrites,
            "max_concurrent_rewrites",
            1..=4096,
        )?;
        if let Some(keys) = &l.list_keys {
            if keys.get_ref().len() > 64
                || keys.get_ref().iter().any(|k| k.is_empty() || k.len() > 256)
            {
                return self.error(
                    keys.span(),
                    "`list_keys` takes at most 64 keys, each 1 to 256 bytes long",
                );
            }
        }
        self.name(&l.id_key, "id_key")?;
        self.name(&l.format_param, "format_param")?;
        self.name(&l.fields_param, "fields_param")?;
        if let Some(header) = &l.prefer_header {
            if HeaderName::from_bytes(header.get_ref().as_bytes()).is_err() {
                return self.error(
                    header.span(),
                    format!(
                        "`prefer_header` {:?} is not a valid header name",
                        header.get_ref()
                    ),
                );
            }
        }
        if let Some(delimiter) = &l.toon.delimiter {
            if parse_delimiter(delimiter.get_ref()).is_none() {
                return self.error(
                    delimiter.span(),
                    format!(
                        "unknown TOON delimiter {:?}; expected \"comma\", \"tab\" or \"pipe\"",
                        delimiter.get_ref()
                    ),
                );
            }
        }
        self.range(&l.toon.indent, "indent", 1..=16)
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

    fn mcp(&self, m: &McpSection) -> Result<Vec<(String, McpTool)>, ConfigError> {
        let path = m.path.get_ref();
        if !path.starts_with('/') || path.len() > 1024 {
            return self.error(
                m.path.span(),
                format!("`path` must start with `/` (and be at most 1024 bytes), not {path:?}"),
            );
        }
        self.format(&m.default_format)?;
        if m.tools.len() > MAX_RESOURCES {
            return self.error(m.path.span(), format!("more than {MAX_RESOURCES} tools"));
        }
        let mut tools: Vec<(String, McpTool)> = Vec::with_capacity(m.tools.len());
        for (i, t) in m.tools.iter().enumerate() {
            self.name(&Some(t.name.clone()), "name")?;
            self.name(&Some(t.list.clone()), "list")?;
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
            let resource = self.compact(&t.noun, &t.plural, &t.line, &t.id)?;
            tools.push((
                t.name.get_ref().clone(),
                McpTool::new(t.list.get_ref().clone(), resource),
            ));
        }
        Ok(tools)
    }
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
        checker.layer(&parsed.layer)?;
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
        Ok(Config {
            file: parsed,
            resources,
            mcp_tools,
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
        let l = &self.file.layer;
        let layer = TerseLayer::new();
        let layer = set(
            layer,
            format_of(&l.default_format),
            TerseLayer::default_format,
        );
        let layer = set(layer, l.max_body_bytes, TerseLayer::max_body_bytes);
        let layer = set(layer, l.max_output_bytes, TerseLayer::max_output_bytes);
        let layer = set(layer, l.offload_threshold, TerseLayer::offload_threshold);
        let layer = set(
            layer,
            l.max_concurrent_rewrites.as_ref().map(|n| *n.get_ref()),
            TerseLayer::max_concurrent_rewrites,
        );
        let layer = set(layer, l.smart_fallback, TerseLayer::smart_fallback);
        let layer = set(
            layer,
            l.count_plain_responses,
            TerseLayer::count_plain_responses,
        );
        let layer = set(layer, l.fields_enabled, TerseLayer::fields_enabled);
        let layer = set(layer, l.max_fields, TerseLayer::max_fields);
        let layer = set(layer, l.max_field_depth, TerseLayer::max_field_depth);
        let layer = set(layer, l.max_fields_length, TerseLayer::max_fields_length);
        let layer = set(
            layer,
            l.list_keys.as_ref().map(|k| k.get_ref().clone()),
            TerseLayer::list_keys,
        );
        let layer = set(layer, string_of(&l.id_key), TerseLayer::id_key);
        let layer = set(layer, string_of(&l.format_param), TerseLayer::format_param);
        let layer = set(layer, string_of(&l.fields_param), TerseLayer::fields_param);
        let layer = set(layer, self.prefer_header(), TerseLayer::prefer_header);
        let mut layer = layer.toon_options(self.toon_options());
        for (route, resource) in &self.resources {
            // Every route was checked by `parse`; a failure here cannot
            // happen, and would only leave the route out.
            if let Ok(next) = layer.clone().try_compact_resource(route, resource.clone()) {
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
        let m = self.file.mcp.as_ref()?;
        let l = &self.file.layer;
        let layer = McpLayer::new().toon_options(self.toon_options());
        let layer = set(
            layer,
            format_of(&m.default_format),
            McpLayer::default_format,
        );
        let layer = set(layer, m.max_request_bytes, McpLayer::max_request_bytes);
        let layer = set(layer, m.max_message_bytes, McpLayer::max_message_bytes);
        let layer = set(layer, m.max_output_bytes, McpLayer::max_output_bytes);
        let layer = set(layer, string_of(&l.format_param), McpLayer::format_param);
        let mut layer = set(layer, self.prefer_header(), McpLayer::prefer_header);
        for (name, tool) in &self.mcp_tools {
            layer = layer.tool(name.clone(), tool.clone());
        }
        Some((m.path.get_ref().as_str(), layer))
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
        match self.mcp() {
            Some((path, mcp)) => crate::mcp_gateway(self.layer(), path, mcp, upstream),
            None => crate::gateway(self.layer(), upstream),
        }
    }

    fn prefer_header(&self) -> Option<HeaderName> {
        self.file
            .layer
            .prefer_header
            .as_ref()
            .and_then(|h| HeaderName::from_bytes(h.get_ref().as_bytes()).ok())
    }

    /// `[layer.toon]`, for both layers.
    fn toon_options(&self) -> EncodeOptions {
        let toon = &self.file.layer.toon;
        let delimiter = toon
            .delimiter
            .as_ref()
            .and_then(|d| parse_delimiter(d.get_ref()));
        let options = set(
            EncodeOptions::new(),
            delimiter,
            EncodeOptions::with_delimiter,
        );
        set(
            options,
            toon.indent.as_ref().map(|n| *n.get_ref()),
            EncodeOptions::with_indent_size,
        )
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
        options
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
        Ok(upstream.consume(self.consumed()))
    }

    /// What the layer reads and the upstream must not see: the layer's
    /// `format_param`, its `fields_param` (unless `fields_enabled = false`
    /// leaves it to the service) and its `prefer_header`.
    fn consumed(&self) -> Consumed {
        let l = &self.file.layer;
        let format = string_of(&l.format_param).unwrap_or_else(|| "format".to_owned());
        let fields = string_of(&l.fields_param).unwrap_or_else(|| "fields".to_owned());
        let mut params = vec![format];
        if l.fields_enabled != Some(false) {
            params.push(fields);
        }
        let header = self
            .prefer_header()
            .unwrap_or_else(|| HeaderName::from_static("x-prefer-format"));
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
        }
    }
}

/// `builder` with `value` set by `setter`, or unchanged when there is none.
fn set<B, T>(builder: B, value: Option<T>, setter: impl FnOnce(B, T) -> B) -> B {
    match value {
        Some(value) => setter(builder, value),
        None => builder,
    }
}

fn string_of(value: &Option<Spanned<String>>) -> Option<String> {
    value.as_ref().map(|v| v.get_ref().clone())
}

/// A `default_format`, checked by `parse`.
fn format_of(value: &Option<Spanned<String>>) -> Option<Format> {
    value.as_ref().and_then(|f| f.get_ref().parse().ok())
}

fn duration_of(value: &Option<Spanned<String>>) -> Option<Duration> {
    value
        .as_ref()
        .and_then(|v| parse_duration(v.get_ref()).ok())
}

/// Parses `"250ms"`, `"5s"`, `"2m"`: a whole number from 1 and a unit, at
/// most one hour.
///
/// ```
/// use std::time::Duration;
/// use terse_gateway::config::parse_duration;
///
/// assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
/// assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
/// assert!(parse_duration("5").is_err());
/// ```
///
/// # Errors
///
/// A message saying what a duration looks like.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
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

fn parse_delimiter(name: &str) -> Option<Delimiter> {
    match name {
        "comma" | "," => Some(Delimiter::Comma),
        "tab" | "\t" => Some(Delimiter::Tab),
        "pipe" | "|" => Some(Delimiter::Pipe),
        _ => None,
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
    fn every_kind_of_mistake_names_its_line() {
        assert_eq!(
            error("[layer]\nsmart_fallback = true\nnope = 1\n"),
            "t.toml:3: unknown field `nope`, expected one of `default_format`, `max_body_bytes`, `max_output_bytes`, `offload_threshold`, `max_concurrent_rewrites`, `smart_fallback`, `count_plain_responses`, `fields_enabled`, `max_fields`, `max_field_depth`, `max_fields_length`, `list_keys`, `id_key`, `format_param`, `fields_param`, `prefer_header`, `toon`"
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
    fn mcp_mistakes_name_their_line() {
        let tool = "[[mcp.tool]]\nname = \"list_events\"\nlist = \"events\"\nnoun = \"event\"\n";
        assert!(
            error("[mcp]\npath = \"mcp\"\n").starts_with("t.toml:2: `path` must start with `/`")
        );
        assert!(
            error("[mcp]\ndefault_format = \"toon\"\n")
                .starts_with("t.toml:1: missing field `path`")
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
        for bad in [
            "",
            "0s",
            "s",
            "-1s",
            "1h",
            "61m",
            "99999999999999999999ms",
            "1.5s",
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
