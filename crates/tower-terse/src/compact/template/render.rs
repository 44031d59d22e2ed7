//! Walks a parsed template over one JSON record.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt::Write as _;

use terse_template::{Ast, Placeholder, Segment};
use terse_toon::document::{Kind, Node};

use super::filters;
use super::hints::Hints;
use crate::compact::RenderContext;
use crate::rfc3339::{self, DateTime, Leniency};
use crate::scan;

/// Renders one line onto the end of `out`.
pub(super) fn render(
    ast: &Ast,
    hints: &Hints,
    record: Node<'_>,
    cx: &RenderContext,
    out: &mut String,
) {
    let line = LineContext {
        cx,
        hints,
        placeholder: Cell::new(0),
        last_timestamp: Cell::new(None),
    };
    render_segments(&ast.segments, record, &line, out);
}

/// What rendering one line needs besides the record: the request's clock,
/// where the template's fields stood in the last record, and the last
/// timestamp read from the record, since templates often format one field
/// twice (`{start|date} {start|time}`).
pub(super) struct LineContext<'c> {
    pub(super) cx: &'c RenderContext,
    hints: &'c Hints,
    /// The number of the next placeholder, in the order they render (every
    /// placeholder renders, optional groups included, so the numbers hold
    /// from line to line).
    placeholder: Cell<usize>,
    /// The address and length of a string of the record, and what it read
    /// as. The record outlives the line, so its strings keep their address.
    last_timestamp: Cell<Option<(usize, usize, Option<DateTime>)>>,
}

impl LineContext<'_> {
    /// The value at the next placeholder's `path` in `record`.
    fn lookup<'t>(&self, record: Node<'t>, path: &[String]) -> Option<Node<'t>> {
        let index = self.placeholder.get();
        self.placeholder.set(index + 1);
        let (first, rest) = path.split_first()?;
        let field = if record.is_object() {
            self.hints.get(index, record, first)?
        } else {
            step(record, first)?
        };
        rest.iter().try_fold(field, |node, key| step(node, key))
    }

    /// `text`, a string of the record, read as a timestamp.
    pub(super) fn record_timestamp(&self, text: &str) -> Option<DateTime> {
        let (at, len) = (text.as_ptr() as usize, text.len());
        if let Some((last_at, last_len, timestamp)) = self.last_timestamp.get() {
            if (last_at, last_len) == (at, len) {
                return timestamp;
            }
        }
        let timestamp = rfc3339::parse(text, Leniency::LENIENT).ok();
        self.last_timestamp.set(Some((at, len, timestamp)));
        timestamp
    }
}

/// A value while a placeholder's filters run: a node of the record, or what
/// a filter made of one.
#[derive(Debug, Clone)]
pub(super) enum Val<'t> {
    Node(Node<'t>),
    /// Text a filter wrote, or borrowed from the template (`flag`,
    /// `default`).
    Text(Cow<'t, str>),
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

    /// An array, as read or as a filter left it.
    pub(super) fn is_list(&self) -> bool {
        match self {
            Val::Node(node) => node.is_array(),
            Val::List(_) => true,
            Val::Text(_) | Val::Null => false,
        }
    }

    /// Writes the value as line text, escaping what would break the line:
    /// strings unquoted, numbers and booleans as their JSON text, arrays
    /// joined with `sep`, objects as compact JSON, null as nothing. Returns
    /// whether the value was null, empty or `false` (what drops an enclosing
    /// group).
    pub(super) fn push_text(&self, sep: &str, out: &mut String) -> bool {
        match self {
            Val::Node(node) => match node.kind() {
                Kind::Null => true,
                Kind::String(s) => {
                    push_escaped(s, out);
                    s.is_empty()
                }
                Kind::Bool(b) => {
                    out.push_str(if b { "true" } else { "false" });
                    !b
                }
                // An integer's canonical text is its JSON text.
                Kind::Number(n) if !n.is_f64() => {
                    out.push_str(n.canonical());
                    false
                }
                Kind::Number(n) => {
                    // Writing in place spares an allocation per number.
                    let _ = write!(out, "{n}");
                    false
                }
                Kind::Array(len) => {
                    for (i, item) in node.items().enumerate() {
                        if i > 0 {
                            out.push_str(sep);
                        }
                        Val::Node(item).push_text(", ", out);
                    }
                    len == 0
                }
                // serde_json escapes control characters inside strings itself.
                Kind::Object(len) => {
                    if let Ok(json) = serde_json::to_string(node) {
                        out.push_str(&json);
                    }
                    len == 0
                }
            },
            Val::Text(text) => {
                push_escaped(text, out);
                text.is_empty()
            }
            Val::Null => true,
            Val::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(sep);
                    }
                    item.push_text(", ", out);
                }
                items.is_empty()
            }
        }
    }
}

/// Renders `segments` into `out`; returns false when a value directly inside
/// was null, missing, empty or false (which drops an enclosing group).
fn render_segments<'t>(
    segments: &'t [Segment],
    record: Node<'t>,
    cx: &LineContext<'_>,
    out: &mut String,
) -> bool {
    let mut complete = true;
    for segment in segments {
        match segment {
            Segment::Text(text) => out.push_str(text),
            Segment::Value(placeholder) => {
                if !evaluate_into(placeholder, record, cx, out) {
                    complete = false;
                }
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

/// Writes one placeholder's value to `out`; returns false when the value was
/// null, missing, empty or false.
fn evaluate_into<'t>(
    placeholder: &'t Placeholder,
    record: Node<'t>,
    cx: &LineContext<'_>,
    out: &mut String,
) -> bool {
    let found = cx.lookup(record, &placeholder.path);
    let Some((last, filters)) = placeholder.filters.split_last() else {
        return match found {
            Some(node) => !Val::Node(node).push_text(", ", out),
            None => false,
        };
    };
    if filters.is_empty() {
        // The common case: the value is the record's own, and nothing is
        // allocated or dropped on the way (each arm's value is of a variant
        // known to own nothing).
        return !match found {
            Some(node) => filters::apply_into(&last.kind, &Val::Node(node), cx, out),
            None => filters::apply_into(&last.kind, &Val::Null, cx, out),
        };
    }
    let mut value = found.map_or(Val::Null, Val::Node);
    for filter in filters {
        value = filters::apply(&filter.kind, value, cx);
    }
    !filters::apply_into(&last.kind, &value, cx, out)
}

/// One step of a path: a key of an object, an index of an array.
fn step<'t>(node: Node<'t>, key: &str) -> Option<Node<'t>> {
    if node.is_object() {
        node.get(key)
    } else {
        node.item(key.parse::<usize>().ok()?)
    }
}

fn breaks_line(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// The byte offset of the first character of `text` that would break a
/// line (a control character, U+2028 or U+2029), if any.
///
/// This runs on every value and line, and almost always finds nothing, so
/// it skips eight bytes at a time past bytes that cannot start such a
/// character: only an ASCII control byte, 0x7F, 0xC2 (which starts the C1
/// controls U+0080 to U+009F) and 0xE2 (which starts U+2028 and U+2029) can.
/// Each of them starts a character (none is a continuation byte), so the
/// character there is the one to check.
fn find_break(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = scan::find(
        &bytes[at..],
        |word| {
            scan::controls(word)
                | scan::bytes_equal(word, 0x7f)
                | scan::bytes_equal(word, 0xc2)
                | scan::bytes_equal(word, 0xe2)
        },
        |b| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2,
    ) {
        let i = at + found;
        if text[i..].chars().next().is_some_and(breaks_line) {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

/// Escapes what `out` holds from `mark` on, in place, when it would break
/// the line.
pub(crate) fn escape_from(mark: usize, out: &mut String) {
    if find_break(&out[mark..]).is_some() {
        let raw = out.split_off(mark);
        push_escaped(&raw, out);
    }
}

pub(super) fn push_escaped(text: &str, out: &mut String) {
    let Some(first) = find_break(text) else {
        out.push_str(text);
        return;
    };
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
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

    use super::{breaks_line, find_break};

    proptest! {
        #[test]
        fn word_scan_finds_what_a_plain_scan_finds(text in "(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\u{2028}\\u{2029}]){0,40}") {
            let plain = text.char_indices().find(|&(_, c)| breaks_line(c)).map(|(i, _)| i);
            prop_assert_eq!(find_break(&text), plain);
        }
    }
}
