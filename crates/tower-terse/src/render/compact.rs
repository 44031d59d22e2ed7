//! Compact lines: the envelope for HTTP, the same lines as text for an MCP
//! text block; JSON (or TOON's rule) where they do not apply.

use std::time::Instant;

use serde::Deserialize;
use serde_json::Value;

use super::{Fallback, LineStyle, RecordLines, Rendering, Source, json_as, toon};
use crate::compact::envelope::Envelope;
use crate::compact::{CompactResource, NotCompact, RenderContext};
use crate::format::Format;
use terse_toon::document::{Document, Node};

/// Compact lines for a body with lines and a list; the plan's `otherwise`
/// format elsewhere, as an asked-for format never fails (TOON's rule may
/// leave a near tie for [`settle`](super::settle)).
pub(super) fn compact(source: &Source<'_>) -> Rendering {
    let Some(lines) = source.plan.lines else {
        return otherwise(source, Fallback::NoResource);
    };
    // One pass over the text; records are rendered from the borrowed
    // document and the envelope borrows its ids and meta from it.
    let Some(Ok(document)) = crate::scan::utf8(source.body).map(Document::parse) else {
        return source.not_json().into();
    };
    // `render_within` left this check to the parser: a number past what a
    // `serde_json` value holds keeps the body as it came.
    if source.plan.fields.is_none() && document.has_inexact_number() {
        return source.unchanged(Some(Fallback::Precision)).into();
    }
    let limit = source.settings.max_output_bytes;
    let cx = RenderContext::now().with_max_output_bytes(limit);
    let envelope = match change_set(source.plan.since, document.root(), lines.resource, &cx) {
        Some(change_set) => change_set,
        None => Envelope::build(document.root(), lines.list_keys, lines.resource, &cx),
    };
    let envelope = match envelope {
        Ok(envelope) => envelope,
        Err(err) => {
            warn(source, &lines, &err);
            let reason = match err {
                NotCompact::TooLarge { .. } => Fallback::OutputLimit,
                _ => Fallback::NotCompact,
            };
            return otherwise(source, reason);
        }
    };
    // The lines stayed within the bound; the ids and meta, copied from the
    // body, may still take the envelope just past it.
    let text = match lines.style {
        LineStyle::Envelope => Some(envelope.into_json()),
        LineStyle::Text => as_text(envelope.into_json().as_bytes(), limit),
    };
    match text {
        Some(text) if text.len() <= limit => {
            source.rewritten(text, Format::Compact, None, None).into()
        }
        _ => otherwise(source, Fallback::OutputLimit),
    }
}

/// The plan's format for bodies without lines: compact was asked for
/// fewer tokens, so JSON goes out minified when that drops anything.
fn otherwise(source: &Source<'_>, reason: Fallback) -> Rendering {
    match source.plan.otherwise {
        Format::Toon => toon(source, Some(reason)),
        _ => json_as(source, Some(reason), true).into(),
    }
}

/// Logs why a body's records did not render, at most once a minute per
/// route when the settings hold a gate.
fn warn(source: &Source<'_>, lines: &RecordLines<'_>, err: &NotCompact) {
    if !err.should_log() {
        return;
    }
    let suppressed = match &source.settings.log_gate {
        Some(gate) => match gate.admit(lines.label, Instant::now()) {
            Some(suppressed) => suppressed,
            None => return,
        },
        None => 0,
    };
    let message = "compact lines not served: the JSON goes out instead (logged at most once a minute per route)";
    match lines.path {
        Some(path) => tracing::warn!(
            route = %lines.label,
            path = %cut(path, 256),
            reason = %err,
            suppressed,
            "{message}"
        ),
        None => tracing::warn!(route = %lines.label, reason = %err, suppressed, "{message}"),
    }
}

/// The envelope of a `?since=` answer, read as a change set; `None` for any
/// other request (or without the `changes` feature).
fn change_set<'t>(
    since: bool,
    body: Node<'t>,
    resource: &CompactResource,
    cx: &RenderContext,
) -> Option<Result<Envelope<'t>, NotCompact>> {
    #[cfg(feature = "changes")]
    if since {
        return crate::compact::change_set::compact_change_set(body, resource, cx);
    }
    #[cfg(not(feature = "changes"))]
    let _ = (since, body, resource, cx);
    None
}

/// The compact envelope's fields, read back from its JSON text.
#[derive(Deserialize)]
struct Compact {
    summary: String,
    lines: Vec<String>,
    ids: Vec<Value>,
    #[serde(default)]
    meta: Option<Value>,
}

/// An envelope as text: the summary, `id: line` per record, then `meta`.
fn as_text(envelope: &[u8], limit: usize) -> Option<String> {
    let compact: Compact = serde_json::from_slice(envelope).ok()?;
    let mut out = String::with_capacity(limit.min(envelope.len()));
    out.push_str(&compact.summary);
    for (id, line) in compact.ids.iter().zip(&compact.lines) {
        out.push('\n');
        match id {
            Value::String(id) if is_word(id) => out.push_str(id),
            id => out.push_str(&id.to_string()),
        }
        out.push_str(": ");
        out.push_str(line);
    }
    if let Some(meta) = compact.meta {
        out.push_str("\nmeta: ");
        out.push_str(&meta.to_string());
    }
    Some(out)
}

/// Whether an id reads unambiguously without quotes before `: `.
fn is_word(id: &str) -> bool {
    !id.is_empty()
        && !id
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, ':' | '"' | '\\'))
}

/// `text` cut to at most `max` bytes on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
