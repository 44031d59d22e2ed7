//! [`Session`]: what one MCP connection's rewrite remembers between
//! messages, whatever carries them (stdio lines, HTTP bodies, events).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::format_argument::{self, Offer};
use super::hint::{self, McpHint};
use super::message::{Calls, Rewrite, messages, value_id_key};
use super::{Config, McpLayer, meta};
use crate::format::Format;

/// The most requests a session waits on at once; past it, a new request
/// passes untouched and its answer is not rewritten.
pub const MAX_PENDING: usize = 4096;

/// The most tool names remembered as offered the `format` argument.
const MAX_OFFERED: usize = 4096;

/// What a request waits for.
#[derive(Debug)]
enum Pending {
    /// The `initialize` answer, to add the hint to.
    Initialize,
    /// A `tools/list` page, to offer the `format` argument in.
    ToolsList,
    /// A tool's result, to rewrite.
    Call {
        tool: String,
        format: Format,
        asked: bool,
    },
}

/// One MCP connection's rewrite, transport-agnostic: feed it every message
/// the client sends ([`client_message`](Self::client_message)) and every
/// message the server sends ([`server_message`](Self::server_message)),
/// and send on what it gives back. `McpLayer` and `terse mcp` (stdio) both
/// rewrite through it.
///
/// It learns which JSON-RPC ids are `tools/call` (and `tools/list`,
/// `initialize`) from the client's requests, and rewrites only the answers
/// to those: each JSON text block of a tool result becomes TOON where TOON
/// costs fewer tokens, or compact lines for a tool with a template; with
/// the layer's [`format_argument`](McpLayer::format_argument), tool lists
/// offer a `format` argument and calls lose it before the server sees them.
/// Everything else — notifications, server-to-client requests and their
/// answers, errors, `structuredContent`, `isError` results — passes as it
/// came (`None`).
///
/// ```
/// use tower_terse::Format;
/// use tower_terse::mcp::{McpLayer, Session};
///
/// let mut session = Session::new(&McpLayer::new().default_format(Format::Toon));
/// let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"users","arguments":{}}}"#;
/// assert_eq!(session.client_message(call), None); // forwarded as it is
/// let rows = r#"[{\"id\":1,\"name\":\"Ada\"},{\"id\":2,\"name\":\"Linus\"},{\"id\":3,\"name\":\"Grace\"}]"#;
/// let answer = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{rows}"}}]}}}}"#);
/// let rewritten = session.server_message(&answer).expect("a TOON result");
/// assert!(rewritten.contains(r#""text":"[3]{id,name}:\n  1,Ada\n  2,Linus\n  3,Grace""#), "{rewritten}");
/// ```
#[derive(Debug)]
pub struct Session {
    config: Arc<Config>,
    format: Format,
    asked: bool,
    pending: HashMap<String, Pending>,
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
}

impl Session {
    /// A session with `layer`'s settings, serving its
    /// [`default_format`](McpLayer::default_format) to calls that name none.
    pub fn new(layer: &McpLayer) -> Session {
        let format = layer.config.default_format;
        Session::with_format(layer.config.clone(), format, false)
    }

    /// A session serving `format` to calls that name none; `asked` when the
    /// client named it (for reports).
    pub(crate) fn with_format(config: Arc<Config>, format: Format, asked: bool) -> Session {
        Session {
            config,
            format,
            asked,
            pending: HashMap::new(),
        }
    }

    /// The longest message the session reads
    /// ([`max_message_bytes`](McpLayer::max_message_bytes)): a transport
    /// passes longer ones through unchanged.
    pub fn max_message_bytes(&self) -> usize {
        self.config.max_message_bytes
    }

    /// How many requests wait for an answer the session may rewrite.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Reads a message (or batch) from the client: remembers the requests
    /// whose answers it may rewrite, and gives the message to forward when
    /// it changed (the `format` argument removed), else `None`. A message
    /// past [`max_request_bytes`](McpLayer::max_request_bytes) is not read.
    pub fn client_message(&mut self, text: &str) -> Option<String> {
        if text.len() > self.config.max_request_bytes
            || !matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'['))
        {
            return None;
        }
        let mut value: Value = serde_json::from_str(text).ok()?;
        let changed = match &mut value {
            Value::Array(batch) => batch
                .iter_mut()
                .fold(false, |changed, message| self.request(message) | changed),
            message => self.request(message),
        };
        changed.then(|| value.to_string())
    }

    /// Reads one request; `true` when it changed.
    fn request(&mut self, message: &mut Value) -> bool {
        let Some(message) = message.as_object_mut() else {
            return false;
        };
        let Some(id) = message.get("id").and_then(value_id_key) else {
            return false;
        };
        let config = &self.config;
        let pending = match message.get("method").and_then(Value::as_str) {
            Some("initialize") if config.hint == McpHint::Instructions => Pending::Initialize,
            Some("tools/list")
                if config.format_argument || config.hint == McpHint::Descriptions =>
            {
                Pending::ToolsList
            }
            Some("tools/call") => {
                let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else {
                    return false;
                };
                let Some(tool) = params.get("name").and_then(Value::as_str) else {
                    return false;
                };
                let tool = tool.to_owned();
                let (format, asked, changed) = self.call_format(&tool, params);
                if format != Format::Json {
                    self.track(
                        id,
                        Pending::Call {
                            tool,
                            format,
                            asked,
                        },
                    );
                } else {
                    // A reused id must not keep an older call's rewrite.
                    self.pending.remove(&id);
                }
                return changed;
            }
            _ => return false,
        };
        self.track(id, pending);
        false
    }

    /// The format a call is served in, whether the client named it, and
    /// whether its `format` argument was removed.
    fn call_format(&self, tool: &str, params: &mut Map<String, Value>) -> (Format, bool, bool) {
        let config = &self.config;
        let own = config.tool_formats.get(tool).copied();
        if own == Some(Format::Json) {
            return (Format::Json, false, false);
        }
        let format = own.unwrap_or(self.format);
        // Only a tool offered the argument loses it: another's `format`
        // (its own, or one no agent learnt from us) reaches the server.
        if !config.format_argument || !lock(&config.offered).contains(tool) {
            return (format, self.asked, false);
        }
        match format_argument::take(params) {
            Some(Some(named)) => (named, true, true),
            // Not a format name: removed all the same, the default served.
            Some(None) => (format, self.asked, true),
            None => (format, self.asked, false),
        }
    }

    fn track(&mut self, id: String, pending: Pending) {
        if self.pending.len() < MAX_PENDING || self.pending.contains_key(&id) {
            self.pending.insert(id, pending);
        }
    }

    /// Reads a message (or batch) from the server: gives the message to
    /// send to the client when it rewrote something, else `None`.
    pub fn server_message(&mut self, text: &str) -> Option<String> {
        if self.pending.is_empty() || text.len() > self.config.max_message_bytes {
            return None;
        }
        let mut calls = Vec::new();
        let mut edits = Vec::new();
        for message in messages(text)? {
            let Ok(head) = serde_json::from_str::<Head<'_>>(message.get()) else {
                continue;
            };
            let (Some(id), None) = (head.id, head.method) else {
                continue;
            };
            let Some(id) = serde_json::from_str(id.get())
                .ok()
                .as_ref()
                .and_then(value_id_key)
            else {
                continue;
            };
            let Some(pending) = self.pending.remove(&id) else {
                continue;
            };
            if head.result.is_none() {
                continue;
            }
            match pending {
                Pending::Call {
                    tool,
                    format,
                    asked,
                } => calls.push((id, tool, format, asked)),
                edit => edits.push((id, edit)),
            }
        }
        let mut text = Cow::Borrowed(text);
        if !edits.is_empty() {
            if let Some(edited) = self.edit(&text, &edits) {
                text = Cow::Owned(edited);
            }
        }
        for (id, tool, format, asked) in calls {
            let one = Calls::one(id.clone(), tool);
            let rewrite = Rewrite {
                config: &self.config,
                format,
                asked,
                calls: &one,
            };
            if let Some((mut new, counts)) = rewrite.message(&text) {
                if let (true, Some(counts)) = (self.config.meta_counts, counts) {
                    new = meta::add(&new, &id, format, counts).unwrap_or(new);
                }
                text = Cow::Owned(new);
            }
        }
        match text {
            Cow::Owned(text) => Some(text),
            Cow::Borrowed(_) => None,
        }
    }

    /// The message with the hint and the `format` argument added to the
    /// answers `edits` name.
    fn edit(&mut self, text: &str, edits: &[(String, Pending)]) -> Option<String> {
        let mut value: Value = serde_json::from_str(text).ok()?;
        let mut changed = false;
        let messages: Vec<&mut Value> = match &mut value {
            Value::Array(batch) => batch.iter_mut().collect(),
            message => vec![message],
        };
        for message in messages {
            let Some(id) = message.get("id").and_then(value_id_key) else {
                continue;
            };
            let Some((_, edit)) = edits.iter().find(|(pending, _)| *pending == id) else {
                continue;
            };
            let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) else {
                continue;
            };
            changed |= match edit {
                Pending::Initialize => {
                    let instructions = result.get("instructions").and_then(Value::as_str);
                    let text = hint::append(instructions);
                    result.insert("instructions".to_owned(), Value::String(text));
                    true
                }
                _ => self.tools(result),
            };
        }
        changed.then(|| value.to_string())
    }

    /// Offers the `format` argument (and the hint) to the tools of a
    /// `tools/list` result; `true` when one changed.
    fn tools(&mut self, result: &mut Map<String, Value>) -> bool {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return false;
        };
        let mut changed = false;
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            let Some(name) = tool.get("name").and_then(Value::as_str).map(str::to_owned) else {
                continue;
            };
            let own = self.config.tool_formats.get(&name).copied();
            if own == Some(Format::Json) {
                continue;
            }
            let mut offered = false;
            if self.config.format_argument {
                let compact = self.config.tools.contains_key(&name);
                match format_argument::offer(tool, compact) {
                    Offer::Added => {
                        offered = true;
                        let mut known = lock(&self.config.offered);
                        if known.len() < MAX_OFFERED {
                            known.insert(name);
                        }
                    }
                    Offer::Own => {
                        lock(&self.config.offered).remove(&name);
                    }
                    Offer::NoSchema => {}
                }
            }
            let rewritten = offered || own.unwrap_or(self.format) != Format::Json;
            if self.config.hint == McpHint::Descriptions && rewritten {
                let description = tool.get("description").and_then(Value::as_str);
                let text = hint::append(description);
                tool.insert("description".to_owned(), Value::String(text));
            }
            changed |= offered || (self.config.hint == McpHint::Descriptions && rewritten);
        }
        changed
    }
}

fn lock(offered: &Mutex<HashSet<String>>) -> MutexGuard<'_, HashSet<String>> {
    // A panic elsewhere while holding it leaves plain data behind.
    offered
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
