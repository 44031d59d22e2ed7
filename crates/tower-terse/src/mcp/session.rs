//! [`Session`]: what one MCP connection's rewrite remembers between
//! messages, whatever carries them (stdio lines, HTTP bodies, events).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};

use super::format_argument::{self, Offer};
use super::hint::{self, McpHint};
use super::message::{Block, Rewrite, value_id_key};
use super::read::{self, Answer, Call, Measured, Read};
use super::{McpConfig, McpLayer, meta, verbatim};
use crate::format::Format;

/// The most requests a session waits on at once; past it, the oldest
/// waiting request is forgotten (with a warning): its answer, if it ever
/// comes, passes untouched. Rewriting goes on for every newer request.
pub const MAX_PENDING: usize = 4096;

/// The most tool names remembered as having a `format` of their own.
const MAX_OWN: usize = 4096;

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
    /// A call whose `format` argument was refused: it went to the server
    /// as a `ping` (so the tool never ran and the ids stay in order), and
    /// the answer is replaced by this JSON-RPC error message.
    Refused(String),
}

/// The requests waiting for an answer, oldest first.
#[derive(Debug, Default)]
struct Table {
    entries: HashMap<String, (u64, Pending)>,
    order: BTreeMap<u64, String>,
    next: u64,
    /// Requests forgotten past [`MAX_PENDING`], for the warning.
    dropped: u64,
}

impl Table {
    fn insert(&mut self, id: String, pending: Pending) {
        self.remove(&id);
        while self.entries.len() >= MAX_PENDING {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.entries.remove(&oldest);
            self.dropped += 1;
            // The first, then one in 1024: a flood logs a few lines.
            if self.dropped % 1024 == 1 {
                tracing::warn!(
                    target: "terse",
                    dropped = self.dropped,
                    limit = MAX_PENDING,
                    "MCP: more requests wait for an answer than the limit; the oldest is forgotten and its answer will pass unchanged"
                );
            }
        }
        let seq = self.next;
        self.next += 1;
        self.order.insert(seq, id.clone());
        self.entries.insert(id, (seq, pending));
    }

    fn remove(&mut self, id: &str) -> Option<Pending> {
        let (seq, pending) = self.entries.remove(id)?;
        self.order.remove(&seq);
        Some(pending)
    }
}

/// One connection's rewrite, transport-agnostic: feed it every message
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
/// came (`None`). A `notifications/cancelled` (from either side) forgets
/// the request it names.
///
/// Clones are the same session: both directions of one connection can
/// each hold one and run at once. The table of waiting requests is locked
/// only to note or take an entry, never while a message is read or
/// rewritten, so a large rewrite in one direction never holds up the other.
/// The work of [`server_message`](Self::server_message) is linear in the
/// message, whatever the size of a batch.
///
/// ```
/// use tower_terse::Format;
/// use tower_terse::mcp::{McpLayer, Session};
///
/// let session = Session::new(&McpLayer::new().default_format(Format::Toon));
/// let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"users","arguments":{}}}"#;
/// assert_eq!(session.client_message(call), None); // forwarded as it is
/// let rows = r#"[{\"id\":1,\"name\":\"Ada\"},{\"id\":2,\"name\":\"Linus\"},{\"id\":3,\"name\":\"Grace\"}]"#;
/// let answer = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{rows}"}}]}}}}"#);
/// let rewritten = session.server_message(&answer).expect("a TOON result");
/// assert!(rewritten.contains(r#""text":"[3]{id,name}:\n  1,Ada\n  2,Linus\n  3,Grace""#), "{rewritten}");
/// ```
#[derive(Debug, Clone)]
pub struct Session {
    config: Arc<McpConfig>,
    format: Format,
    asked: bool,
    table: Arc<Mutex<Table>>,
}

/// What reading the client's messages asks of the table, applied under
/// one short lock once every message is read.
enum Note {
    Track(String, Pending),
    Forget(String),
}

/// The method of a cancellation, from either side.
const CANCELLED: &str = "notifications/cancelled";

impl Session {
    /// A session with `layer`'s settings, serving its
    /// [`default_format`](McpLayer::default_format) to calls that name none.
    pub fn new(layer: &McpLayer) -> Session {
        let format = layer.config.default_format;
        Session::with_format(layer.config.clone(), format, false)
    }

    /// A session serving `format` to calls that name none; `asked` when the
    /// client named it (for reports).
    pub(crate) fn with_format(config: Arc<McpConfig>, format: Format, asked: bool) -> Session {
        Session {
            config,
            format,
            asked,
            table: Arc::default(),
        }
    }

    /// The longest message the session reads
    /// ([`max_message_bytes`](McpLayer::max_message_bytes)): a transport
    /// passes longer ones through unchanged.
    pub fn max_message_bytes(&self) -> usize {
        self.config.max_message_bytes
    }

    /// The layer's [`BlockingLimit`](crate::settings::BlockingLimit), which the
    /// session's offloaded reads take a slot of (with a runtime only).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn limit(&self) -> &crate::blocking::BlockingLimit {
        &self.config.limit
    }

    /// How many requests wait for an answer the session may rewrite.
    pub fn pending(&self) -> usize {
        self.table().entries.len()
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        lock(&self.table)
    }

    /// Reads a message (or batch) from the client: remembers the requests
    /// whose answers it may rewrite, forgets cancelled ones, and gives the
    /// message to forward when it changed (a `format` argument removed, a
    /// refused call turned into a `ping`), else `None`. A message past
    /// [`max_request_bytes`](McpLayer::max_request_bytes) is not read.
    pub fn client_message(&self, text: &str) -> Option<String> {
        if text.len() > self.config.max_request_bytes
            || !matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'['))
        {
            return None;
        }
        let mut value: Value = serde_json::from_str(text).ok()?;
        let mut notes = Vec::new();
        let changed = match &mut value {
            Value::Array(batch) => batch.iter_mut().fold(false, |changed, message| {
                self.request(message, &mut notes) | changed
            }),
            message => self.request(message, &mut notes),
        };
        if !notes.is_empty() {
            let mut table = self.table();
            for note in notes {
                match note {
                    Note::Track(id, pending) => table.insert(id, pending),
                    Note::Forget(id) => {
                        table.remove(&id);
                    }
                }
            }
        }
        changed.then(|| value.to_string())
    }

    /// Reads one request; `true` when it changed.
    fn request(&self, message: &mut Value, notes: &mut Vec<Note>) -> bool {
        let Some(message) = message.as_object_mut() else {
            return false;
        };
        let method = message.get("method").and_then(Value::as_str);
        if method == Some(CANCELLED) {
            let cancelled = message
                .get("params")
                .and_then(|params| params.get("requestId"))
                .and_then(value_id_key);
            notes.extend(cancelled.map(Note::Forget));
            return false;
        }
        let Some(id) = message.get("id").and_then(value_id_key) else {
            return false;
        };
        let config = &self.config;
        let pending = match method {
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
                let (format, asked, changed) = match self.call_format(&tool, params) {
                    Ok(call) => call,
                    Err(refusal) => {
                        // The server answers a ping; the client gets the refusal.
                        message.insert("method".to_owned(), Value::from("ping"));
                        message.remove("params");
                        notes.push(Note::Track(id, Pending::Refused(refusal)));
                        return true;
                    }
                };
                notes.push(if format == Format::Json {
                    // A reused id must not keep an older call's rewrite.
                    Note::Forget(id)
                } else {
                    Note::Track(
                        id,
                        Pending::Call {
                            tool,
                            format,
                            asked,
                        },
                    )
                });
                return changed;
            }
            _ => return false,
        };
        notes.push(Note::Track(id, pending));
        false
    }

    /// The format a tool is served in when its call names none: its own
    /// (`[[mcp.tool]] format`), JSON for a tool whose results are a file's
    /// content, else the session's.
    fn tool_format(&self, tool: &str) -> Format {
        match self.config.tool_formats.get(tool) {
            Some(format) => *format,
            None if self.left_alone(tool) => Format::Json,
            None => self.format,
        }
    }

    /// Whether a tool's results are never rewritten unless a call asks:
    /// its own format is `json`, or its name is one of the
    /// [`verbatim_tools`](McpLayer::verbatim_tools) and it has no format
    /// of its own.
    fn left_alone(&self, tool: &str) -> bool {
        match self.config.tool_formats.get(tool) {
            Some(format) => *format == Format::Json,
            None => verbatim::matches_any(&self.config.verbatim, tool),
        }
    }

    /// The format a call is served in, whether the client named it, and
    /// whether its `format` argument was removed; `Err` with the message
    /// of the refusal for a `format` outside the allowed names.
    fn call_format(
        &self,
        tool: &str,
        params: &mut Map<String, Value>,
    ) -> Result<(Format, bool, bool), String> {
        let config = &self.config;
        let format = self.tool_format(tool);
        // Every call loses the argument, listed or not, except a tool
        // that declared a `format` of its own.
        if !config.format_argument || lock(&config.own).contains(tool) {
            return Ok((format, self.asked, false));
        }
        let allowed = format_argument::allowed(config.tools.contains_key(tool));
        match format_argument::take(params, allowed) {
            Some(Ok(named)) => Ok((named, true, true)),
            Some(Err(refusal)) => Err(refusal),
            None => Ok((format, self.asked, false)),
        }
    }

    /// Reads a message (or batch) from the server: gives the message to
    /// send to the client when it rewrote something, else `None`.
    ///
    /// The batch is read once; each answer the session waits for is taken
    /// from the table (one short lock for all of them), then rewritten on
    /// its own bytes and spliced back, so the work is linear in `text`.
    pub fn server_message(&self, text: &str) -> Option<String> {
        if text.len() > self.config.max_message_bytes || self.pending() == 0 {
            return None;
        }
        self.rewrite(text, read::read(text)?)
    }

    /// [`server_message`](Self::server_message) of a message
    /// [`measure`](Self::measure) read: the rewrite goes on from that
    /// reading (the text blocks it unescaped) rather than reading `text`
    /// again.
    pub(crate) fn server_message_measured(&self, text: &str, measured: Measured) -> Option<String> {
        match measured.read {
            Some(read) if read.len == text.len() => {
                if text.len() > self.config.max_message_bytes || self.pending() == 0 {
                    return None;
                }
                self.rewrite(text, read)
            }
            _ => self.server_message(text),
        }
    }

    /// The answers of `read`, read from `text`, rewritten.
    fn rewrite(&self, text: &str, read: Read) -> Option<String> {
        let Read {
            answers, cancelled, ..
        } = read;
        let claimed: Vec<(Answer, Pending)> = {
            let mut table = self.table();
            for id in &cancelled {
                table.remove(id);
            }
            answers
                .into_iter()
                .filter_map(|answer| table.remove(&answer.id).map(|pending| (answer, pending)))
                .collect()
        };
        let mut splices = Vec::new();
        for (mut answer, pending) in claimed {
            let message = text.get(answer.message.clone())?;
            let new = match pending {
                Pending::Refused(refusal) => Some(format_argument::error_answer(
                    text.get(answer.raw_id.clone())?,
                    &refusal,
                )),
                _ if answer.result.is_none() => None,
                // An answer with an `error` as well is no tool result.
                Pending::Call { .. } if answer.error => None,
                Pending::Call {
                    tool,
                    format,
                    asked,
                } => {
                    let blocks = answer.take_blocks(text);
                    self.call(message, blocks, &tool, format, asked)
                }
                edit => self.edit(message, &edit),
            };
            splices.extend(new.map(|new| (answer.message, new)));
        }
        splice(text, splices)
    }

    /// Reads a message (or batch) from the server and measures the work
    /// [`server_message`](Self::server_message) will do on it, in bytes
    /// parsed or written, or at least `enough` once it is known to reach
    /// it (a message of `enough` bytes is not read here). Each answer to a
    /// call the session waits for counts what rendering its blocks will
    /// cost ([`Rewrite::work`]), the same bound the HTTP layer takes of a
    /// response body; every other message counts its length. A message the
    /// session will not read is no work. The reading goes to
    /// [`server_message_measured`](Self::server_message_measured), so the
    /// text blocks are unescaped once.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn measure(&self, text: &str, enough: usize) -> Measured {
        let unread = |work| Measured { work, read: None };
        if text.len() > self.config.max_message_bytes || self.pending() == 0 {
            return unread(0);
        }
        if text.len() >= enough {
            return unread(text.len());
        }
        let Some(mut read) = read::read(text) else {
            return unread(text.len());
        };
        // What each answer waits for, copied out: the table is not held
        // while blocks are measured. `None`: an answer waited for that is
        // not a call's (or has no result), edited rather than rewritten.
        let waiting: Vec<(usize, Option<Call>)> = {
            let table = self.table();
            read.answers
                .iter()
                .enumerate()
                .filter_map(|(at, answer)| match table.entries.get(&answer.id)? {
                    (
                        _,
                        Pending::Call {
                            tool,
                            format,
                            asked,
                        },
                    ) if answer.result.is_some() => {
                        Some((at, Some((tool.clone(), *format, *asked))))
                    }
                    _ => Some((at, None)),
                })
                .collect()
        };
        let mut work = text.len();
        for (at, call) in waiting {
            let answer = &mut read.answers[at];
            let len = answer.message.len();
            let more = match call {
                Some((tool, format, asked)) => {
                    let mut blocks = answer.read_blocks(text);
                    let rewrite = Rewrite {
                        config: &self.config,
                        format,
                        asked,
                        tool: &tool,
                    };
                    let more = rewrite.work(len, &mut blocks);
                    answer.blocks = Some(blocks);
                    answer.call = Some((tool, format, asked));
                    more
                }
                // Any other answer waited for is edited: read as a tree
                // and written again.
                None => len,
            };
            work = work.saturating_add(more);
        }
        Measured {
            work,
            read: Some(read),
        }
    }

    /// Renders the blocks of the answers `measured` read ahead of their
    /// rewrite, on a thread that may do at most `count_here` more work for
    /// the smart fallback's near ties ([`Rewrite::prepare`]): what is left
    /// of it is handed back through `count_here`. `true` when a tie was
    /// kept whose exact counts need more: the rewrite that settles it is
    /// work for the blocking pool. The rewrite
    /// ([`server_message_measured`](Self::server_message_measured)) goes
    /// on from these renderings.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn prepare(&self, measured: &mut Measured, count_here: &mut usize) -> bool {
        let Some(read) = &mut measured.read else {
            return false;
        };
        let mut kept = false;
        for answer in &mut read.answers {
            let (Some(blocks), Some((tool, format, asked))) = (&mut answer.blocks, &answer.call)
            else {
                continue;
            };
            let rewrite = Rewrite {
                config: &self.config,
                format: *format,
                asked: *asked,
                tool,
            };
            kept |= rewrite.prepare(blocks, count_here);
        }
        kept
    }

    /// One answer to a `tools/call`, its JSON text `blocks` rewritten (and
    /// the counts added to its `_meta` when asked).
    fn call(
        &self,
        message: &str,
        blocks: Vec<Block>,
        tool: &str,
        format: Format,
        asked: bool,
    ) -> Option<String> {
        let rewrite = Rewrite {
            config: &self.config,
            format,
            asked,
            tool,
        };
        let (new, counts) = rewrite.message(message, blocks)?;
        match (self.config.render.count_json, counts) {
            (true, Some(counts)) => Some(meta::add(&new, format, counts).unwrap_or(new)),
            _ => Some(new),
        }
    }

    /// One answer with the hint or the `format` argument added.
    fn edit(&self, message: &str, edit: &Pending) -> Option<String> {
        let mut value: Value = serde_json::from_str(message).ok()?;
        let result = value.get_mut("result")?.as_object_mut()?;
        let changed = match edit {
            Pending::Initialize => {
                let instructions = result.get("instructions").and_then(Value::as_str);
                let text = hint::append(instructions);
                result.insert("instructions".to_owned(), Value::String(text));
                true
            }
            _ => self.tools(result),
        };
        changed.then(|| value.to_string())
    }

    /// Offers the `format` argument (and the hint) to the tools of a
    /// `tools/list` result; `true` when one changed.
    fn tools(&self, result: &mut Map<String, Value>) -> bool {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return false;
        };
        let mut changed = false;
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            let Some(name) = tool.get("name").and_then(Value::as_str).map(str::to_owned) else {
                continue;
            };
            // A tool left alone (its own `json`, or a file's content) is
            // offered nothing: its text must stay as the server wrote it.
            if self.left_alone(&name) {
                continue;
            }
            let rewritten = self.tool_format(&name) != Format::Json;
            let mut offered = false;
            if self.config.format_argument {
                let compact = self.config.tools.contains_key(&name);
                match format_argument::offer(tool, compact) {
                    Offer::Added => {
                        offered = true;
                        lock(&self.config.own).remove(&name);
                    }
                    Offer::Own => {
                        let mut own = lock(&self.config.own);
                        if own.len() < MAX_OWN {
                            own.insert(name);
                        }
                    }
                    Offer::NoSchema => {}
                }
            }
            if self.config.hint == McpHint::Descriptions && (offered || rewritten) {
                let description = tool.get("description").and_then(Value::as_str);
                let text = hint::append(description);
                tool.insert("description".to_owned(), Value::String(text));
                changed = true;
            }
            changed |= offered;
        }
        changed
    }
}

/// `text` with each message replaced by its new text; `None` when none
/// changed. Every message is a range of `text`, in order.
fn splice(text: &str, splices: Vec<(std::ops::Range<usize>, String)>) -> Option<String> {
    if splices.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (message, new) in splices {
        out.push_str(text.get(at..message.start)?);
        out.push_str(&new);
        at = message.end;
    }
    out.push_str(text.get(at..)?);
    Some(out)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding it leaves plain data behind.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
