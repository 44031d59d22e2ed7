//! Walks a parsed template over one JSON record.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;
use terse_template::{Ast, Placeholder, Segment};

use super::filters;
use crate::compact::RenderContext;

pub(super) fn render(ast: &Ast, record: &Value, cx: &RenderContext) -> String {
    let mut out = String::new();
    render_segments(&ast.segments, record, cx, &mut out);
    out
}

/// Renders `segments` into `out`; returns false when a value directly inside
/// was null, missing, empty or false (which drops an enclosing group).
fn render_segments(
    segments: &[Segment],
    record: &Value,
    cx: &RenderContext,
    out: &mut String,
) -> bool {
    let mut complete = true;
    for segment in segments {
        match segment {
            Segment::Text(text) => out.push_str(text),
            Segment::Value(placeholder) => {
                let value = evaluate(placeholder, record, cx);
                if is_empty(&value) || value.as_bool() == Some(false) {
                    complete = false;
                }
                push_text(&value, out);
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

fn evaluate<'a>(
    placeholder: &Placeholder,
    record: &'a Value,
    cx: &RenderContext,
) -> Cow<'a, Value> {
    let mut value =
        lookup(record, &placeholder.path).map_or(Cow::Owned(Value::Null), Cow::Borrowed);
    for filter in &placeholder.filters {
        value = filters::apply(&filter.kind, value, cx);
    }
    value
}

fn lookup<'a>(record: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(record, |value, key| match value {
        Value::Object(map) => map.get(key),
        Value::Array(items) => items.get(key.parse::<usize>().ok()?),
        _ => None,
    })
}

/// Null, `""`, `[]` and `{}`: what `default` replaces and what drops a group.
pub(super) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Writes a value as line text, escaping what would break the line.
pub(super) fn push_text(value: &Value, out: &mut String) {
    match value {
        Value::Null => {}
        Value::String(s) => push_escaped(s, out),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            // Writing in place spares an allocation per number.
            let _ = write!(out, "{n}");
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_text(item, out);
            }
        }
        // serde_json escapes control characters inside strings itself.
        Value::Object(_) => out.push_str(&value.to_string()),
    }
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
    text.bytes()
        .any(|b| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2)
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
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
}
