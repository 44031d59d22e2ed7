//! Walks a parsed template over one JSON record.

use std::fmt::Write as _;

use terse_template::{Ast, Placeholder, Segment};
use terse_toon::document::{Kind, Node};

use super::filters;
use crate::compact::RenderContext;

pub(super) fn render(ast: &Ast, record: Node<'_>, cx: &RenderContext) -> String {
    let mut out = String::new();
    render_segments(&ast.segments, record, cx, &mut out);
    out
}

/// A value while a placeholder's filters run: a node of the record, or what
/// a filter made of one.
#[derive(Debug, Clone)]
pub(super) enum Val<'t> {
    Node(Node<'t>),
    /// Text a filter wrote.
    Text(String),
    /// What `flag` gives for a falsy value, and a missing field.
    Null,
    /// An array after a filter that works item by item.
    List(Vec<Val<'t>>),
}

impl<'t> Val<'t> {
    /// The text of a string.
    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Val::Node(node) => node.as_str(),
            Val::Text(text) => Some(text),
            Val::Null | Val::List(_) => None,
        }
    }

    /// Null, `""`, `[]` and `{}`: what `default` replaces and what drops a
    /// group.
    pub(super) fn is_empty(&self) -> bool {
        match self {
            Val::Node(node) => match node.kind() {
                Kind::Null => true,
                Kind::String(s) => s.is_empty(),
                Kind::Array(len) | Kind::Object(len) => len == 0,
                Kind::Bool(_) | Kind::Number(_) => false,
            },
            Val::Text(text) => text.is_empty(),
            Val::Null => true,
            Val::List(items) => items.is_empty(),
        }
    }

    /// `true`, a non-zero number, a non-empty string, array or object.
    pub(super) fn is_truthy(&self) -> bool {
        match self {
            Val::Node(node) => match node.kind() {
                Kind::Null => false,
                Kind::Bool(b) => b,
                Kind::Number(n) => n.as_f64() != 0.0,
                Kind::String(s) => !s.is_empty(),
                Kind::Array(len) | Kind::Object(len) => len > 0,
            },
            other => !other.is_empty(),
        }
    }

    fn is_false(&self) -> bool {
        matches!(self, Val::Node(node) if node.as_bool() == Some(false))
    }

    /// Writes the value as line text, escaping what would break the line:
    /// strings unquoted, numbers and booleans as their JSON text, arrays
    /// joined with `sep`, objects as compact JSON, null as nothing.
    pub(super) fn push_text(&self, sep: &str, out: &mut String) {
        match self {
            Val::Node(node) => match node.kind() {
                Kind::Null => {}
                Kind::String(s) => push_escaped(s, out),
                Kind::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                // An integer's canonical text is its JSON text.
                Kind::Number(n) if !n.is_f64() => out.push_str(n.canonical()),
                Kind::Number(n) => {
                    // Writing in place spares an allocation per number.
                    let _ = write!(out, "{n}");
                }
                Kind::Array(_) => {
                    for (i, item) in node.items().enumerate() {
                        if i > 0 {
                            out.push_str(sep);
                        }
                        Val::Node(item).push_text(", ", out);
                    }
                }
                // serde_json escapes control characters inside strings itself.
                Kind::Object(_) => {
                    if let Ok(json) = serde_json::to_string(node) {
                        out.push_str(&json);
                    }
                }
            },
            Val::Text(text) => push_escaped(text, out),
            Val::Null => {}
            Val::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(sep);
                    }
                    item.push_text(", ", out);
                }
            }
        }
    }
}

/// Renders `segments` into `out`; returns false when a value directly inside
/// was null, missing, empty or false (which drops an enclosing group).
fn render_segments(
    segments: &[Segment],
    record: Node<'_>,
    cx: &RenderContext,
    out: &mut String,
) -> bool {
    let mut complete = true;
    for segment in segments {
        match segment {
            Segment::Text(text) => out.push_str(text),
            Segment::Value(placeholder) => {
                let value = evaluate(placeholder, record, cx);
                if value.is_empty() || value.is_false() {
                    complete = false;
                }
                value.push_text(", ", out);
            }
            Segment::Optional(inner) => {
                let mark = out.len();
                if !render_segments(inner, record, cx, out) {
                    out.truncate(mark);
                }
            }
        }
    }
    complete
}

fn evaluate<'t>(placeholder: &Placeholder, record: Node<'t>, cx: &RenderContext) -> Val<'t> {
    let mut value = lookup(record, &placeholder.path).map_or(Val::Null, Val::Node);
    for filter in &placeholder.filters {
        value = filters::apply(&filter.kind, value, cx);
    }
    value
}

fn lookup<'t>(record: Node<'t>, path: &[String]) -> Option<Node<'t>> {
    path.iter().try_fold(record, |node, key| match node.kind() {
        Kind::Object(_) => node.get(key),
        Kind::Array(_) => node.item(key.parse::<usize>().ok()?),
        _ => None,
    })
}

/// `line` with anything that would break it escaped; used on lines a
/// hand-written [`CompactLine`](crate::compact::CompactLine) returns.
pub(crate) fn one_line(line: String) -> String {
    if !may_break_line(&line) || !line.chars().any(breaks_line) {
        return line;
    }
    let mut out = String::with_capacity(line.len() + 8);
    push_escaped(&line, &mut out);
    out
}

fn breaks_line(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// A byte-level over-approximation of [`breaks_line`], cheap enough to run
/// on every value: an ASCII control byte, or the first byte of the C1
/// controls (U+0080 to U+009F start with 0xC2) or of U+2028 and U+2029
/// (0xE2). Most text has none of these and is copied whole.
fn may_break_line(text: &str) -> bool {
    // Eight bytes at a time (this runs on every value and line): a byte
    // below 0x20 has none of the bits 0xE0; 0x7F, 0xC2 and 0xE2 are found
    // by the zero-byte test on the word xor'ed with each.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero_byte = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS != 0;
    let bytes = text.as_bytes();
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        if has_zero_byte(word & (ONES * 0xe0))
            || has_zero_byte(word ^ (ONES * 0x7f))
            || has_zero_byte(word ^ (ONES * 0xc2))
            || has_zero_byte(word ^ (ONES * 0xe2))
        {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2)
}

fn push_escaped(text: &str, out: &mut String) {
    if !may_break_line(text) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if breaks_line(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::may_break_line;

    proptest! {
        #[test]
        fn word_scan_finds_the_bytes_a_plain_scan_finds(text in "(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\u{2028}\\u{2029}]){0,40}") {
            let plain = text.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2);
            prop_assert_eq!(may_break_line(&text), plain);
        }
    }
}
