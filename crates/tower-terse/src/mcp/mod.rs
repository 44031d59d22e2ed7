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
mod layer;
mod lines;
mod message;
mod meta;
mod mode;
mod offload;
mod read;
mod service;
mod session;
mod settings;
mod sse;
mod verbatim;

pub use body::{McpBody, McpRequestBody};
pub use hint::{HINT, McpHint};
pub use layer::McpLayer;
pub use lines::{Lines, Piece};
pub use service::{Mcp, ResponseFuture};
pub use session::{MAX_PENDING, Session};
pub use settings::{MAX_MCP_ENTRIES, McpSettings, McpToolSettings};

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use http::HeaderName;

use crate::compact::{CompactLine, CompactResource, Template, TemplateError};
use crate::format::Format;
use crate::render::log_gate::LogGate;
use crate::render::settings::RenderSettings;

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
pub(crate) struct McpConfig {
    pub(crate) default_format: Format,
    pub(crate) format_param: String,
    pub(crate) prefer_header: HeaderName,
    pub(crate) max_request_bytes: usize,
    pub(crate) max_message_bytes: usize,
    /// The largest text a block renders to; `None` follows
    /// `max_message_bytes` (the render settings hold it resolved).
    pub(crate) max_output_bytes: Option<usize>,
    /// How a block renders: the same type, and the same rules, as the HTTP
    /// layer's, so a block renders as a response body would. Its
    /// `count_json` is [`meta_counts`](McpLayer::meta_counts): `_meta`
    /// counts are exact with the `exact-tokens` feature, the counts that
    /// then decide the format. Tool results take no `?fields=` projection.
    pub(crate) render: RenderSettings,
    pub(crate) tools: HashMap<String, McpTool>,
    /// Per-tool formats: `Json` leaves a tool alone.
    pub(crate) tool_formats: HashMap<String, Format>,
    pub(crate) format_argument: bool,
    pub(crate) hint: McpHint,
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

impl McpConfig {
    /// Settles what follows other settings: the output bound follows
    /// `max_message_bytes` unless set.
    pub(crate) fn settle(&mut self) {
        self.render.max_output_bytes = self.max_output_bytes.unwrap_or(self.max_message_bytes);
    }
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            default_format: Format::Toon,
            format_param: crate::defaults::FORMAT_PARAM.to_owned(),
            prefer_header: crate::defaults::PREFER_HEADER_NAME,
            max_request_bytes: crate::defaults::MCP_MAX_REQUEST_BYTES,
            max_message_bytes: crate::defaults::MCP_MAX_MESSAGE_BYTES,
            max_output_bytes: None,
            render: RenderSettings {
                max_output_bytes: crate::defaults::MCP_MAX_MESSAGE_BYTES,
                log_gate: Some(LogGate::default()),
                ..RenderSettings::default()
            },
            tools: HashMap::new(),
            tool_formats: HashMap::new(),
            format_argument: false,
            hint: McpHint::Off,
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

#[cfg(test)]
mod tests;
