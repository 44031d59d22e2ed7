//! [`McpLayer`]: the builder of the MCP layer's configuration, and the
//! tower layer that wraps an endpoint in [`Mcp`].

use std::sync::Arc;

use http::HeaderName;
use tower_layer::Layer;

use super::{Mcp, McpConfig, McpHint, McpTool};
use crate::format::Format;
use crate::toon::EncodeOptions;

/// A tower layer for an MCP Streamable HTTP endpoint: `tools/call` results
/// as TOON or compact lines when the client asks; see the
/// [module docs](super).
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
    // Read by `Session::new` (a stdio session takes the layer's settings)
    // and the module's tests.
    pub(super) config: Arc<McpConfig>,
}

impl McpLayer {
    /// A layer with the defaults: TOON where it costs fewer tokens (JSON
    /// otherwise, and always for the [`defaults::MCP_VERBATIM_TOOLS`](crate::defaults::MCP_VERBATIM_TOOLS)),
    /// `X-Prefer-Format` and `?format=`, no compact tools, 1 MiB of request
    /// and 8 MiB per message or event.
    pub fn new() -> Self {
        Self::default()
    }

    fn config(&mut self) -> &mut McpConfig {
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
        config.render.apply(settings);
        if let Some(name) = &settings.format_param {
            config.format_param = name.clone();
        }
        if let Some(name) = &settings.prefer_header {
            config.prefer_header = name.clone();
        }
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
        let config = self.config();
        config.max_message_bytes = limit;
        config.settle();
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
        let config = self.config();
        config.max_output_bytes = Some(limit);
        config.settle();
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
        self.config().render.toon_options = options;
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
        self.config().render.smart_fallback = enabled;
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
        self.config().render.exact_tokens = enabled;
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

    /// Where to tell the agent how to read TOON ([`HINT`](super::HINT)): in the
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
        self.config().render.count_json = on;
        self
    }
}

impl<S> Layer<S> for McpLayer {
    type Service = Mcp<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Mcp::from_parts(inner, self.config.clone())
    }
}
