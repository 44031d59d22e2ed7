//! MCP tool results as TOON or compact lines (feature `mcp`).
//!
//! [`McpLayer`] wraps an MCP server's Streamable HTTP endpoint (JSON-RPC
//! over POST, answered as `application/json` or as a `text/event-stream` of
//! JSON-RPC messages). By default (TOON, the layer's
//! [`default_format`](McpLayer::default_format)), or in the format the
//! client asks for with the header `X-Prefer-Format` (MCP SDKs overwrite
//! `Accept`, so the header is the way) or `?format=` on the endpoint's URL,
//! each `tools/call` result is rewritten:
//!
//! - each `content[]` text block that holds a JSON object or array becomes
//!   TOON, block by block, where the TOON costs fewer tokens than the JSON
//!   (the layer's smart fallback, per block);
//! - with `compact` and a [`McpTool`] registered for the tool, a block that
//!   holds a list (a root array, or an object with the records under the
//!   tool's list key) becomes a summary, then one `id: line` per record
//!   (see [`McpTool`]); any other block gets the TOON rule;
//! - the results of tools whose text is a file's content (see
//!   [`verbatim_tools`](McpLayer::verbatim_tools)) are never rewritten
//!   unless a call asks: the model may quote them back verbatim;
//! - `structuredContent`, `isError: true` results, JSON-RPC errors,
//!   notifications, requests and every other method pass through untouched,
//!   and so does every byte of a rewritten message outside its text blocks
//!   (`id`, `jsonrpc`, `_meta`, key order, whitespace);
//! - server-sent events are rewritten one event at a time as they stream,
//!   never buffered whole; `id:`, `event:` and `retry:` fields are kept, an
//!   event past [`max_message_bytes`](McpLayer::max_message_bytes) passes
//!   unchanged;
//! - GET streams, DELETE, session headers (`Mcp-Session-Id`,
//!   `MCP-Protocol-Version`) and everything without a format request pass
//!   through byte for byte.
//!
//! Each JSON text block the layer was asked to rewrite is reported as the
//! HTTP layer reports a response: one `tracing` event (target `terse`) and,
//! with the `metrics` feature, the `terse_responses_total`,
//! `terse_tokens_total` and `terse_json_tokens_total` counters. Their
//! `route` label is `mcp:` and the tool's name for a tool registered with
//! [`tool`](McpLayer::tool), `mcp:other` for the rest: tool names come from
//! requests, so only registered ones become labels.
//!
//! Every transport rewrites through one [`Session`]: the layer makes one per
//! POST, and `terse mcp` (MCP's stdio transport, framed by [`Lines`]) one
//! per server. Three switches apply to both:
//! [`format_argument`](McpLayer::format_argument) (agents choose the format
//! per call through an optional `format` argument, removed before the
//! server sees it), [`hint`](McpLayer::hint) (one line telling the agent
//! how to read TOON) and [`meta_counts`](McpLayer::meta_counts) (tokens
//! before and after in the result's `_meta`); and
//! [`tool_format`](McpLayer::tool_format) sets one tool's format, or leaves
//! it alone.
//!
//! Which JSON-RPC ids are `tools/call`, and for which tool, the layer learns
//! from the POST body as the server reads it: the first
//! [`max_request_bytes`](McpLayer::max_request_bytes) are copied aside (a
//! larger request is served but not rewritten). Replays of a POST stream on
//! a GET with `Last-Event-ID` belong to no request the layer saw, so they
//! pass through as the server sends them.
//!
//! ```
//! use axum::{Router, routing::post};
//! use tower_terse::mcp::{McpLayer, McpTool};
//!
//! # async fn mcp_endpoint() -> &'static str { "" }
//! let layer = McpLayer::new()
//!     .tool("list_events", McpTool::from_template("events", "event", "{start|time} {title}")?);
//! let app: Router = Router::new().route("/mcp", post(mcp_endpoint)).layer(layer);
//! # Ok::<(), tower_terse::compact::TemplateError>(())
//! ```

mod body;
mod exchange;
mod format_argument;
mod hint;
mod lines;
mod message;
mod meta;
mod mode;
mod offload;
mod read;
mod service;
mod session;
mod sse;
mod verbatim;

pub use body::{McpBody, McpRequestBody};
pub use hint::{HINT, McpHint};
pub use lines::{Lines, Piece};
pub use service::{Mcp, ResponseFuture};
pub use session::{MAX_PENDING, Session};

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use http::HeaderName;
use tower_layer::Layer;

use crate::compact::{CompactLine, CompactResource, Template, TemplateError};
use crate::format::Format;
use crate::toon::EncodeOptions;

/// Rewrites whose work reaches this many bytes (an answer, the events an
/// event stream's chunk completes, a stdio line) run on tokio's blocking
/// pool, never on an async worker: the layer with the `tokio` feature
/// inside a runtime, and `terse mcp` always. The work is what the rewrite
/// costs, counted before it starts as the HTTP layer counts a response
/// body's: the bytes read, the TOON written (the indentation of deep
/// nesting included) and the bytes counted exactly when every count is
/// exact; a small answer nested deep can cost as much as a large one. A
/// near tie of the smart fallback is counted exactly in place when that
/// fits in what is left below this, else on the blocking pool.
pub const OFFLOAD_BYTES: usize = 64 * 1024;

/// How one tool's list results read as compact lines: where the records
/// are, and the [`CompactResource`] that renders them.
///
/// With `compact` asked, a text block of the tool that holds a root array,
/// or an object with an array under the list key, becomes:
///
/// ```text
/// 2 events
/// 7: 09:00-09:30 Standup
/// 9: 14:00-15:00 Review [Room 2]
/// meta: {"date":"2025-06-02"}
/// ```
///
/// the summary, then each record's id, `: ` and its line, then the body's
/// other keys (the envelope's `meta`, see
/// [`compact_envelope`](crate::compact::compact_envelope)) when there are
/// any. An id that is not a plain word is written as a JSON string.
///
/// ```
/// use tower_terse::compact::{CompactResource, Template};
/// use tower_terse::mcp::McpTool;
///
/// let events = CompactResource::new("event", Template::parse("{start|time} {title}")?);
/// let tool = McpTool::new("events", events);
/// assert_eq!(tool.list_key(), "events");
/// // The same from plain data, as a configuration file holds it:
/// let tool = McpTool::from_template("events", "event", "{start|time} {title}")?;
/// assert_eq!(tool.resource().noun().plural(), "events");
/// # Ok::<(), tower_terse::compact::TemplateError>(())
/// ```
#[derive(Debug, Clone)]
pub struct McpTool {
    list_keys: [String; 1],
    resource: CompactResource,
}

impl McpTool {
    /// Records under `list_key` (or a root array), rendered by `resource`.
    pub fn new(list_key: impl Into<String>, resource: CompactResource) -> Self {
        McpTool {
            list_keys: [list_key.into()],
            resource,
        }
    }

    /// Records of the [`CompactLine`] type `T` under `list_key`.
    ///
    /// ```
    /// use tower_terse::CompactLine;
    /// use tower_terse::mcp::McpTool;
    ///
    /// #[derive(serde::Serialize, serde::Deserialize, CompactLine)]
    /// #[compact(noun = "slot", line = "{start|time}-{end|time}")]
    /// struct Slot { id: u32, start: String, end: String }
    ///
    /// let tool = McpTool::of::<Slot>("slots");
    /// assert_eq!(tool.resource().noun().plural(), "slots");
    /// ```
    pub fn of<T: CompactLine>(list_key: impl Into<String>) -> Self {
        Self::new(list_key, CompactResource::of::<T>())
    }

    /// A tool from plain data: the list key, the noun (regular plural) and
    /// the line template, with the id under `id`. Set another id key or an
    /// irregular plural on [`CompactResource`] and use [`McpTool::new`].
    ///
    /// # Errors
    ///
    /// A [`TemplateError`] when `line` does not parse.
    pub fn from_template(
        list_key: impl Into<String>,
        noun: impl Into<Cow<'static, str>>,
        line: &str,
    ) -> Result<Self, TemplateError> {
        Ok(Self::new(
            list_key,
            CompactResource::new(noun, Template::parse(line)?),
        ))
    }

    /// The key the records are read from in an object result.
    pub fn list_key(&self) -> &str {
        &self.list_keys[0]
    }

    /// How each record renders.
    pub fn resource(&self) -> &CompactResource {
        &self.resource
    }
}

/// Everything the builder sets, shared by every clone of the service.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) default_format: Format,
    pub(crate) format_param: String,
    pub(crate) prefer_header: HeaderName,
    pub(crate) max_request_bytes: usize,
    pub(crate) max_message_bytes: usize,
    pub(crate) max_output_bytes: Option<usize>,
    pub(crate) toon_options: EncodeOptions,
    pub(crate) smart_fallback: bool,
    pub(crate) exact_tokens: bool,
    pub(crate) tools: HashMap<String, McpTool>,
    /// Holds back repeated warnings about results that do not fit a tool.
    pub(crate) log_gate: crate::render::log_gate::LogGate,
    /// Per-tool formats: `Json` leaves a tool alone.
    pub(crate) tool_formats: HashMap<String, Format>,
    pub(crate) format_argument: bool,
    pub(crate) hint: McpHint,
    pub(crate) meta_counts: bool,
    /// The tools a `tools/list` answer showed with a `format` property of
    /// their own: only their calls keep the argument. Shared by every
    /// session of the layer (one server), so HTTP requests see what an
    /// earlier one listed.
    pub(crate) own: Arc<Mutex<HashSet<String>>>,
    /// Name patterns of the tools whose results are a file's content.
    pub(crate) verbatim: Vec<String>,
    /// The bound on the bytes every answer held for a rewrite takes, if any.
    pub(crate) budget: Option<crate::budget::MemoryBudget>,
    /// The slots large rewrites take on the blocking pool.
    pub(crate) limit: crate::blocking::BlockingLimit,
}

impl Config {
    pub(crate) fn max_output_bytes(&self) -> usize {
        self.max_output_bytes.unwrap_or(self.max_message_bytes)
    }

    /// The settings the rendering core reads, borrowed: the same rules as
    /// the HTTP layer's, so a block renders as a response body would.
    pub(crate) fn render_settings(&self) -> crate::render::Settings<'_> {
        crate::render::Settings {
            toon_options: &self.toon_options,
            smart_fallback: self.smart_fallback,
            // `_meta` counts are exact with the `exact-tokens` feature: the
            // same counts then decide the format.
            exact_tokens: self.exact_tokens || self.meta_counts,
            max_output_bytes: self.max_output_bytes(),
            // Tool results take no `?fields=` projection.
            list_keys: &[],
            id_key: crate::defaults::ID_KEY,
            log_gate: Some(&self.log_gate),
            count_json: self.meta_counts,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            default_format: Format::Toon,
            format_param: "format".to_owned(),
            prefer_header: HeaderName::from_static("x-prefer-format"),
            max_request_bytes: crate::defaults::MCP_MAX_REQUEST_BYTES,
            max_message_bytes: crate::defaults::MCP_MAX_MESSAGE_BYTES,
            max_output_bytes: None,
            toon_options: EncodeOptions::default(),
            smart_fallback: true,
            exact_tokens: false,
            tools: HashMap::new(),
            log_gate: crate::render::log_gate::LogGate::default(),
            tool_formats: HashMap::new(),
            format_argument: false,
            hint: McpHint::Off,
            meta_counts: false,
            own: Arc::default(),
            verbatim: crate::defaults::MCP_VERBATIM_TOOLS
                .iter()
                .map(|name| (*name).to_owned())
                .collect(),
            budget: None,
            limit: crate::blocking::BlockingLimit::per_core(),
        }
    }
}

/// A tower layer for an MCP Streamable HTTP endpoint: `tools/call` results
/// as TOON or compact lines when the client asks; see the
/// [module docs](self).
///
/// ```
/// use tower_terse::Format;
/// use tower_terse::mcp::{McpLayer, McpTool};
///
/// // Every field is plain data, so a configuration file can build it.
/// let layer = McpLayer::new()
///     .default_format(Format::Toon)
///     .tool("list_events", McpTool::from_template("events", "event", "{title}")?)
///     .max_request_bytes(256 * 1024);
/// # Ok::<(), tower_terse::compact::TemplateError>(())
/// ```
///
/// Cloning is cheap: the configuration sits behind an `Arc`.
#[derive(Debug, Clone, Default)]
pub struct McpLayer {
    config: Arc<Config>,
}

impl McpLayer {
    /// A layer with the defaults: TOON where it costs fewer tokens (JSON
    /// otherwise, and always for the [`defaults::MCP_VERBATIM_TOOLS`](crate::defaults::MCP_VERBATIM_TOOLS)),
    /// `X-Prefer-Format` and `?format=`, no compact tools, 1 MiB of request
    /// and 8 MiB per message or event.
    pub fn new() -> Self {
        Self::default()
    }

    fn config(&mut self) -> &mut Config {
        Arc::make_mut(&mut self.config)
    }

    /// Lays the layer-wide [`Settings`](crate::Settings) that apply to tool
    /// results over this layer's: `smart_fallback`, `exact_token_count`,
    /// `toon`, `format_param`, `prefer_header`, `max_concurrent_rewrites` and
    /// `max_rewrite_wait`, so a block renders as
    /// [`TerseLayer`](crate::TerseLayer) with the same settings renders a
    /// response. The HTTP-only ones (`fields`, body limits, offload, routes)
    /// have no meaning here and are left alone.
    ///
    /// ```
    /// use tower_terse::{Settings, mcp::McpLayer};
    ///
    /// let settings = Settings::new().smart_fallback(false);
    /// let layer = McpLayer::new().settings(&settings);
    /// # drop(layer);
    /// ```
    pub fn settings(mut self, settings: &crate::Settings) -> Self {
        let config = self.config();
        if let Some(enabled) = settings.smart_fallback {
            config.smart_fallback = enabled;
        }
        if let Some(enabled) = settings.exact_token_count {
            config.exact_tokens = enabled;
        }
        if let Some(name) = &settings.format_param {
            config.format_param = name.clone();
        }
        if let Some(name) = &settings.prefer_header {
            config.prefer_header = name.clone();
        }
        config.toon_options = settings.toon.over(config.toon_options.clone());
        config.limit = config.limit.clone().with_settings(settings);
        self
    }

    /// The [`BlockingLimit`](crate::settings::BlockingLimit) large rewrites take
    /// their slots from: give a [`TerseLayer`](crate::TerseLayer) the same
    /// one to bound both together. Past its wait, an answer goes out as the
    /// server wrote it. Default: a limit of its own, one slot per core.
    ///
    /// ```
    /// use tower_terse::settings::BlockingLimit;
    /// use tower_terse::{TerseLayer, mcp::McpLayer};
    ///
    /// let limit = BlockingLimit::per_core();
    /// let http = TerseLayer::new().blocking_limit(limit.clone());
    /// let mcp = McpLayer::new().blocking_limit(limit);
    /// # drop((http, mcp));
    /// ```
    pub fn blocking_limit(mut self, limit: crate::blocking::BlockingLimit) -> Self {
        self.config().limit = limit;
        self
    }

    /// The format served when a request asks for none. Default: TOON,
    /// with the smart fallback (a block stays JSON where TOON is not
    /// cheaper); `Format::Json` leaves every result as the server wrote
    /// it unless a request asks.
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().default_format(tower_terse::Format::Json);
    /// ```
    pub fn default_format(mut self, format: Format) -> Self {
        self.config().default_format = format;
        self
    }

    /// Registers compact lines for the results of the tool `name`
    /// (replacing an earlier registration of that name).
    ///
    /// ```
    /// use tower_terse::mcp::{McpLayer, McpTool};
    ///
    /// let layer = McpLayer::new()
    ///     .tool("list_events", McpTool::from_template("events", "event", "{title}")?);
    /// # Ok::<(), tower_terse::compact::TemplateError>(())
    /// ```
    pub fn tool(mut self, name: impl Into<String>, tool: McpTool) -> Self {
        self.config().tools.insert(name.into(), tool);
        self
    }

    /// The most bytes of a POST body the layer copies aside to learn its
    /// `tools/call` ids; a larger request is served untouched and its
    /// answer is not rewritten. Default: 1 MiB.
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().max_request_bytes(64 * 1024);
    /// ```
    pub fn max_request_bytes(mut self, limit: usize) -> Self {
        self.config().max_request_bytes = limit;
        self
    }

    /// The largest JSON answer, or server-sent event, the layer holds to
    /// rewrite; a larger one goes out unchanged (and an event stream goes
    /// on streaming). Default: 8 MiB.
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().max_message_bytes(1 << 20);
    /// ```
    pub fn max_message_bytes(mut self, limit: usize) -> Self {
        self.config().max_message_bytes = limit;
        self
    }

    /// The bound on the bytes all answers held for a rewrite take
    /// together. An answer that would pass it is not held: what was held
    /// goes out as it came, and the rest streams through unchanged. Share
    /// the budget of a [`TerseLayer`](crate::TerseLayer) to bound both
    /// together, as the gateway does. Default: none.
    ///
    /// ```
    /// use tower_terse::settings::MemoryBudget;
    /// use tower_terse::mcp::McpLayer;
    ///
    /// let budget = MemoryBudget::new(256 << 20);
    /// let layer = McpLayer::new().memory_budget(budget.clone());
    /// assert_eq!(budget.in_use(), 0);
    /// ```
    pub fn memory_budget(mut self, budget: crate::budget::MemoryBudget) -> Self {
        self.config().budget = Some(budget);
        self
    }

    /// The largest TOON text or compact text the layer writes for one
    /// block; past it the block keeps its JSON. Default: the same as
    /// [`max_message_bytes`](Self::max_message_bytes).
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().max_output_bytes(1 << 20);
    /// ```
    pub fn max_output_bytes(mut self, limit: usize) -> Self {
        self.config().max_output_bytes = Some(limit);
        self
    }

    /// The TOON encoder's options. Default: comma delimiter, two-space
    /// indent.
    ///
    /// ```
    /// use tower_terse::toon::{Delimiter, EncodeOptions};
    ///
    /// let layer = tower_terse::mcp::McpLayer::new()
    ///     .toon_options(EncodeOptions::new().with_delimiter(Delimiter::Tab));
    /// ```
    pub fn toon_options(mut self, options: EncodeOptions) -> Self {
        self.config().toon_options = options;
        self
    }

    /// Whether a block becomes TOON only when TOON takes fewer tokens than
    /// its JSON, as [`TerseLayer::smart_fallback`](crate::TerseLayer::smart_fallback)
    /// decides for a response. Default: on.
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().smart_fallback(false);
    /// ```
    pub fn smart_fallback(mut self, enabled: bool) -> Self {
        self.config().smart_fallback = enabled;
        self
    }

    /// Count tokens (for the smart fallback and the reports) with the
    /// o200k_base tokenizer instead of the estimate, as
    /// `TerseLayer::exact_token_count` does. Without the `exact-tokens`
    /// feature the estimate is used whatever this says.
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().exact_token_count(true);
    /// ```
    pub fn exact_token_count(mut self, enabled: bool) -> Self {
        self.config().exact_tokens = enabled;
        self
    }

    /// The query parameter that names a format on the endpoint's URL.
    /// Default: `format`.
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().format_param("output");
    /// ```
    pub fn format_param(mut self, name: impl Into<String>) -> Self {
        self.config().format_param = name.into();
        self
    }

    /// The header that names a format. Default: `X-Prefer-Format`.
    ///
    /// ```
    /// use http::HeaderName;
    ///
    /// let layer = tower_terse::mcp::McpLayer::new().prefer_header(HeaderName::from_static("x-format"));
    /// ```
    pub fn prefer_header(mut self, name: HeaderName) -> Self {
        self.config().prefer_header = name;
        self
    }
}

impl McpLayer {
    /// The format the tool `name` is served in when a call names none:
    /// `Format::Json` leaves the tool alone (its results are never
    /// rewritten, and [`format_argument`](Self::format_argument) offers it
    /// no `format`); `Toon` or `Compact` replace the layer's
    /// [`default_format`](Self::default_format) for it.
    ///
    /// ```
    /// use tower_terse::Format;
    ///
    /// let layer = tower_terse::mcp::McpLayer::new()
    ///     .default_format(Format::Toon)
    ///     .tool_format("read_file", Format::Json);
    /// ```
    pub fn tool_format(mut self, name: impl Into<String>, format: Format) -> Self {
        self.config().tool_formats.insert(name.into(), format);
        self
    }

    /// The tools whose results are a file's content (or a fetched page, a
    /// diff): patterns of tool names, `*` matching any run of characters,
    /// replacing [`defaults::MCP_VERBATIM_TOOLS`](crate::defaults::MCP_VERBATIM_TOOLS). Their results are never
    /// rewritten, whatever the default format, because the model may quote
    /// that text back verbatim (the old text of an edit, a patch) and a
    /// reformatted copy would not match the file. A
    /// [`tool_format`](Self::tool_format) of the tool's own name wins over
    /// a pattern, and so does a `format` a call names. Embedded resources
    /// (`"type": "resource"` blocks) are never rewritten either: only
    /// `text` blocks are.
    ///
    /// ```
    /// use tower_terse::{defaults::MCP_VERBATIM_TOOLS, mcp::McpLayer};
    ///
    /// let mut names: Vec<String> = MCP_VERBATIM_TOOLS.iter().map(|s| s.to_string()).collect();
    /// names.push("cat_*".to_owned());
    /// let layer = McpLayer::new().verbatim_tools(names);
    /// ```
    pub fn verbatim_tools<I, N>(mut self, patterns: I) -> Self
    where
        I: IntoIterator<Item = N>,
        N: Into<String>,
    {
        self.config().verbatim = patterns.into_iter().map(Into::into).collect();
        self
    }

    /// Lets agents choose the format per call: every tool in a `tools/list`
    /// answer gains an optional `format` property (`json`, `toon`, and
    /// `compact` where the tool has a template) in its `inputSchema`, and a
    /// `tools/call` that sets it is served in that format. The argument is
    /// removed from every call before the server sees it, whether or not
    /// the client listed the tools first, except for a tool whose schema
    /// showed a `format` property of its own (kept as the tool's). A value
    /// outside those names (or `compact` for a tool without a template) is
    /// answered with a JSON-RPC error -32602 naming the allowed values, and
    /// the tool does not run. Tools left alone (a `json` format of their
    /// own, or [`verbatim_tools`](Self::verbatim_tools)) are not offered
    /// it. Default: off.
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().format_argument(true);
    /// ```
    pub fn format_argument(mut self, on: bool) -> Self {
        self.config().format_argument = on;
        self
    }

    /// Where to tell the agent how to read TOON ([`HINT`]): in the
    /// `initialize` answer's `instructions`, or in the description of each
    /// tool that may be rewritten. Default: [`McpHint::Off`].
    ///
    /// ```
    /// use tower_terse::mcp::{McpHint, McpLayer};
    ///
    /// let layer = McpLayer::new().hint(McpHint::Instructions);
    /// ```
    pub fn hint(mut self, hint: McpHint) -> Self {
        self.config().hint = hint;
        self
    }

    /// Adds `_meta["terse/tokens"]` to each rewritten tool result: the
    /// format served and the tokens of its rewritten text blocks before and
    /// after, counted exactly with the `exact-tokens` feature (else
    /// estimated, and labelled so). They are the counts the smart fallback
    /// decides on, counted once. Default: off.
    ///
    /// ```
    /// let layer = tower_terse::mcp::McpLayer::new().meta_counts(true);
    /// ```
    pub fn meta_counts(mut self, on: bool) -> Self {
        self.config().meta_counts = on;
        self
    }
}

impl<S> Layer<S> for McpLayer {
    type Service = Mcp<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Mcp::from_parts(inner, self.config.clone())
    }
}

#[cfg(test)]
mod tests;
