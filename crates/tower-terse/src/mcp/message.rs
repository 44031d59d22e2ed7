//! JSON-RPC messages: the rewrite of a response's text blocks, spliced into
//! the server's own bytes.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{McpConfig, McpTool};
use crate::budget::Reservation;
use crate::format::Format;
use crate::render::settings::RenderSettings;
use crate::render::{self, Cost, LineStyle, Outcome, RecordLines, RenderPlan, Rendered, Rendering};
use crate::report;

/// The messages of a body: its elements when it is a batch.
pub(crate) fn messages(text: &str) -> Option<Vec<&RawValue>> {
    if text.trim_start().starts_with('[') {
        serde_json::from_str(text).ok()
    } else {
        serde_json::from_str(text).ok().map(|message| vec![message])
    }
}

/// An id as canonical JSON text, so `"a"` written with an escape matches;
/// only strings and numbers are ids.
pub(crate) fn id_key(id: &RawValue) -> Option<String> {
    value_id_key(&serde_json::from_str::<Value>(id.get()).ok()?)
}

/// [`id_key`] of a parsed id: the one rule both the session (which
/// records calls) and the rewrite (which looks them up) key calls by.
pub(crate) fn value_id_key(id: &Value) -> Option<String> {
    matches!(id, Value::String(_) | Value::Number(_)).then(|| id.to_string())
}

#[derive(Deserialize)]
struct ToolResult<'a> {
    #[serde(borrow)]
    content: Option<Vec<&'a RawValue>>,
    #[serde(rename = "isError", borrow)]
    is_error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ContentBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
}

/// The tokens of the text blocks a rewrite changed, as the rendering core
/// counted them: before (the JSON) and after (what is served).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) json: usize,
    pub(crate) served: usize,
    /// Whether every count came from the o200k_base tokenizer.
    pub(crate) exact: bool,
}

impl Counts {
    /// The counts with those of one more changed block added; `None` when
    /// the block's JSON was not counted (nobody asked the core to).
    fn add(self, outcome: &Outcome) -> Option<Counts> {
        Some(Counts {
            json: self.json + outcome.json_tokens?,
            served: self.served + outcome.tokens?,
            exact: self.exact && outcome.exact,
        })
    }
}

/// What the answer to one `tools/call` is rewritten with.
pub(crate) struct Rewrite<'c> {
    pub(crate) config: &'c McpConfig,
    pub(crate) format: Format,
    /// Whether the client named `format`, for reports.
    pub(crate) asked: bool,
    /// The tool the call named.
    pub(crate) tool: &'c str,
}

impl Rewrite<'_> {
    /// `message`, one response message, with its JSON text `blocks` (read
    /// from it by [`blocks`]) rewritten, and the tokens of the blocks that
    /// changed when they were all counted; `None` when nothing changed.
    /// The caller matched its id to the call: the work is proportional to
    /// this message alone.
    pub(crate) fn message(
        &self,
        message: &str,
        blocks: Vec<Block>,
    ) -> Option<(String, Option<Counts>)> {
        let tool = self.config.tools.get_key_value(self.tool);
        let mut splices = Vec::new();
        for block in blocks {
            if let Some((new, outcome)) = self.block(&block.text, block.cost, block.prepared, tool)
            {
                splices.push((block.raw, Value::String(new).to_string(), outcome));
            }
        }
        if splices.is_empty() {
            return None;
        }
        let start = Counts {
            exact: true,
            ..Counts::default()
        };
        let counts = splices
            .iter()
            .try_fold(start, |counts, (_, _, outcome)| counts.add(outcome));
        let mut out = String::with_capacity(message.len());
        let mut at = 0;
        for (range, replacement, _) in splices {
            out.push_str(message.get(at..range.start)?);
            out.push_str(&replacement);
            at = range.end;
        }
        out.push_str(message.get(at..)?);
        Some((out, counts))
    }

    /// The work rewriting one response message of `len` bytes whose JSON
    /// text blocks are `blocks` will do, in bytes parsed or written as
    /// [`render::cost`] counts them for a response body: the message read,
    /// and each block rendered (its output, the indentation of its nesting,
    /// and the bytes counted exactly when every count is exact). A near
    /// tie of the smart fallback is not costed here: its exact counts are
    /// weighed once it is met, with both its texts known ([`Self::prepare`]).
    /// Known from one pass over each block,
    /// before any of it is rendered, so that a small message that renders
    /// large leaves the async workers as a large one does. Each block
    /// keeps its cost, which the rewrite then reserves memory by.
    pub(crate) fn work(&self, len: usize, blocks: &mut [Block]) -> usize {
        blocks.iter_mut().fold(len, |work, block| {
            let cost = self.cost(&block.text);
            block.cost = Some((self.format, cost));
            work.saturating_add(cost.work)
        })
    }

    /// What rendering a block that holds `json` will cost: the one bound
    /// the HTTP layer takes of a response body ([`render::cost`]), with
    /// the settings a block renders with.
    fn cost(&self, json: &str) -> Cost {
        let settings = &self.config.render;
        // Exact counts when every count is exact (asked for, or `_meta`
        // counts). A near tie of the smart fallback is costed once it is
        // met ([`Self::prepare`]): most blocks never count exactly.
        render::cost(
            json.as_bytes(),
            self.format,
            false,
            &settings.toon_options,
            settings.max_output_bytes,
            settings.exact(),
        )
    }

    /// Renders the `blocks` of one message ahead of their rewrite, on a
    /// thread that may do at most `count_here` more work for near ties:
    /// a tie whose exact counts fit is settled here (and its work taken
    /// from `count_here`), a larger one is kept for its rewrite to settle
    /// where that work may run. `true` when a tie was kept. Each block
    /// holds its rendering, and the memory the budget lent it, until the
    /// rewrite splices it; a block the budget cannot cover is left to its
    /// rewrite, which keeps it as it is.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn prepare(&self, blocks: &mut [Block], count_here: &mut usize) -> bool {
        let tool = self.config.tools.get_key_value(self.tool);
        let mut kept = false;
        for block in blocks {
            let json = block.text.as_bytes();
            let prepared = self.with_core(tool, |plan, settings, _| {
                let working = self.reserve(json, block.cost, plan, settings)?;
                let rendering = match render::render_within(json, None, plan, settings, 0) {
                    Rendering::Tie(tie) if tie.count_work(json) <= *count_here => {
                        *count_here -= tie.count_work(json);
                        Rendering::Done(render::settle(json, plan, settings, tie))
                    }
                    rendering => rendering,
                };
                Some(Prepared {
                    format: self.format,
                    rendering,
                    working,
                })
            });
            kept |= matches!(
                prepared,
                Some(Prepared {
                    rendering: Rendering::Tie(_),
                    ..
                })
            );
            block.prepared = prepared;
        }
        kept
    }

    /// The new text of a block holding `json` and how it was rendered, or
    /// `None` to keep it; every block (each holds JSON) is reported either
    /// way. A block [`prepare`](Self::prepare)d for this format goes on
    /// from its rendering: a near tie kept there is settled now.
    fn block(
        &self,
        json: &str,
        cost: Option<(Format, Cost)>,
        prepared: Option<Prepared>,
        tool: Option<(&String, &McpTool)>,
    ) -> Option<(String, Outcome)> {
        let json = json.as_bytes();
        self.with_core(tool, |plan, settings, label| {
            let (rendering, _working) = match prepared {
                Some(prepared) if prepared.format == self.format => {
                    (prepared.rendering, prepared.working)
                }
                _ => {
                    let working = self.reserve(json, cost, plan, settings)?;
                    let rendered = render::render(json, None, plan, settings);
                    (Rendering::Done(rendered), working)
                }
            };
            let Rendered { body, outcome } = match rendering {
                Rendering::Done(rendered) => rendered,
                Rendering::Tie(tie) => render::settle(json, plan, settings, tie),
            };
            if report::wanted() {
                if let Some(report) = outcome.report(label) {
                    report.emit();
                }
            }
            Some((body?, outcome))
        })
    }

    /// What rendering a block may take, held against the budget while it
    /// runs: `None` when the budget cannot cover it (the block is kept as
    /// it is), `Some(None)` without a budget. The memory of the same bound
    /// as the block's work ([`Self::cost`]), taken from its measurement
    /// when there was one for this format.
    fn reserve(
        &self,
        json: &[u8],
        cost: Option<(Format, Cost)>,
        plan: &RenderPlan<'_>,
        settings: &RenderSettings,
    ) -> Option<Option<Reservation>> {
        let working = match cost {
            Some((format, cost)) if format == self.format => cost.memory,
            _ => render::working_bytes(
                json,
                plan.format,
                false,
                &settings.toon_options,
                settings.max_output_bytes,
            ),
        };
        match &self.config.budget {
            Some(budget) => Some(Some(budget.try_reserve(working)?)),
            None => Some(None),
        }
    }

    /// Calls `f` with the core's plan and settings for a block of this
    /// call's `tool`, and the label its reports carry.
    fn with_core<T>(
        &self,
        tool: Option<(&String, &McpTool)>,
        f: impl FnOnce(&RenderPlan<'_>, &RenderSettings, &str) -> T,
    ) -> T {
        let label = tool.map_or(Cow::Borrowed("mcp:other"), |(name, _)| {
            Cow::Owned(format!("mcp:{name}"))
        });
        let lines = tool.map(|(_, tool)| RecordLines {
            resource: &tool.resource,
            list_keys: &tool.list_keys,
            label: &label,
            path: None,
            style: LineStyle::Text,
        });
        let plan = RenderPlan {
            lines: lines.filter(|_| self.format == Format::Compact),
            // Where no lines apply, a block gets TOON's rule.
            otherwise: Format::Toon,
            ..RenderPlan::new(self.format, self.asked)
        };
        f(&plan, &self.config.render, &label)
    }
}

/// A block rendered ahead of its rewrite ([`Rewrite::prepare`]), with the
/// memory the budget lent its rendering.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The format it was rendered for.
    format: Format,
    rendering: Rendering,
    /// Held until the block is spliced.
    working: Option<Reservation>,
}

/// Whether a block's text may hold a JSON object or array: the only text
/// a block is rewritten from.
fn holds_json(text: &str) -> bool {
    matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'['))
}

/// A text block of a tool result that holds JSON, read once from its
/// message: measuring the answer and rewriting it both use this reading,
/// so the JSON inside the message's JSON is unescaped once.
#[derive(Debug)]
pub(crate) struct Block {
    /// Where the block's JSON string sits in its message.
    raw: std::ops::Range<usize>,
    /// The string's text, unescaped.
    text: String,
    /// What rendering it costs, and the format that cost is for, once
    /// measured.
    cost: Option<(Format, Cost)>,
    /// Its rendering, once [`Rewrite::prepare`] did it.
    prepared: Option<Prepared>,
}

/// The text blocks that hold JSON in `result`, the raw `result` of the
/// answer `message` (borrowed from it), unless it is an `isError` result:
/// the only blocks a rewrite changes. Owned, so that the reading moves to
/// the blocking pool with its message.
pub(crate) fn blocks(message: &str, result: &str) -> Vec<Block> {
    let Ok(result) = serde_json::from_str::<ToolResult<'_>>(result) else {
        return Vec::new();
    };
    if result.is_error.is_some_and(|flag| flag.get() != "false") {
        return Vec::new();
    }
    let mut blocks = Vec::new();
    for block in result.content.into_iter().flatten() {
        let Ok(block) = serde_json::from_str::<ContentBlock<'_>>(block.get()) else {
            continue;
        };
        let (Some("text"), Some(raw)) = (block.kind.as_deref(), block.text) else {
            continue;
        };
        let Ok(text) = serde_json::from_str::<Cow<'_, str>>(raw.get()) else {
            continue;
        };
        if !holds_json(&text) {
            continue;
        }
        let Some(raw) = span(message, raw) else {
            continue;
        };
        blocks.push(Block {
            raw,
            text: text.into_owned(),
            cost: None,
            prepared: None,
        });
    }
    blocks
}

/// Where `raw`, borrowed from `text`, sits in it.
pub(crate) fn span(text: &str, raw: &RawValue) -> Option<std::ops::Range<usize>> {
    let start = (raw.get().as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(raw.get().len())?;
    (end <= text.len()).then_some(start..end)
}
