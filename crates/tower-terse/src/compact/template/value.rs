//! The value of a placeholder while its filters run, and how it is written
//! as line text.

use std::borrow::Cow;

use terse_toon::document::{Kind, Node};

use super::text::{is_ascii_below_del, push_escaped};
use crate::compact::lines::{find_json_special, push_short_plain};

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
            Val::Node(node) => push_node_text(*node, sep, out),
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

/// [`Val::push_text`] of a node of the record: what most placeholders
/// write, called without a `Val` to build and drop.
pub(super) fn push_node_text(node: Node<'_>, sep: &str, out: &mut String) -> bool {
    match node.kind() {
        Kind::Null => true,
        Kind::String(s) => {
            push_escaped(s, out);
            s.is_empty()
        }
        Kind::Bool(b) => {
            out.push_str(if b { "true" } else { "false" });
            !b
        }
        Kind::Number(n) => {
            // Writing in place spares an allocation per number.
            n.push_json_text(out);
            false
        }
        Kind::Array(len) => {
            for (i, item) in node.items().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                push_node_text(item, ", ", out);
            }
            len == 0
        }
        // serde_json escapes the C0 controls inside strings, but
        // leaves DEL, the C1 controls and U+2028/U+2029 as they are.
        Kind::Object(len) => {
            if let Ok(json) = serde_json::to_string(&node) {
                push_escaped(&json, out);
            }
            len == 0
        }
    }
}

/// [`push_node_text`] for a placeholder without filters, the most common
/// kind, also telling whether what it wrote is JSON string text as it
/// stands (no `"`, `\` or control byte), which the envelope then copies
/// without escaping. Returns (empty, verbatim).
///
/// A string that needed no escape in the body is JSON text already, and
/// holds no control byte; ASCII below DEL, it holds nothing that breaks a
/// line either, so one word-at-a-time test decides both. Numbers and
/// booleans are JSON text whatever they are. Anything else is written as
/// usual and what it wrote is looked at.
#[inline]
pub(super) fn push_node_verbatim(node: Node<'_>, out: &mut String) -> (bool, bool) {
    // Strings are most values, and this reads one without the checks that
    // resolving it as a `Kind` makes first.
    if let Some(s) = node.as_unescaped_str() {
        if is_ascii_below_del(s) {
            out.push_str(s);
            return (s.is_empty(), true);
        }
    }
    match node.kind() {
        Kind::Null => return (true, true),
        Kind::Bool(b) => {
            out.push_str(if b { "true" } else { "false" });
            return (!b, true);
        }
        Kind::Number(n) => {
            n.push_json_text(out);
            return (false, true);
        }
        Kind::String(_) | Kind::Array(_) | Kind::Object(_) => {}
    }
    let mark = out.len();
    let empty = push_node_text(node, ", ", out);
    (empty, find_json_special(&out.as_bytes()[mark..]).is_none())
}

/// [`push_node_verbatim`] for a plain template, which has no group to
/// drop and so no use for whether the value was empty: returns whether
/// what it wrote is JSON string text as it stands. A string is looked at
/// once: one that is not plain goes straight to the general writer.
#[inline]
pub(super) fn push_plain(node: Node<'_>, out: &mut String) -> bool {
    match node.as_unescaped_str() {
        // Most strings are short, and tested as they are copied.
        Some(s) if push_short_plain(out, s) => true,
        Some(s) if is_ascii_below_del(s) => {
            out.push_str(s);
            true
        }
        Some(_) => push_other(node, out),
        None => match node.kind() {
            // Numbers and booleans are JSON text whatever they are.
            Kind::Number(n) => {
                n.push_json_text(out);
                true
            }
            Kind::Bool(b) => {
                out.push_str(if b { "true" } else { "false" });
                true
            }
            Kind::Null => true,
            Kind::String(_) | Kind::Array(_) | Kind::Object(_) => push_other(node, out),
        },
    }
}

/// [`push_plain`] of what is rarer: a string with an escape or a byte at
/// or above DEL, an array, an object.
#[inline(never)]
fn push_other(node: Node<'_>, out: &mut String) -> bool {
    let mark = out.len();
    push_node_text(node, ", ", out);
    find_json_special(&out.as_bytes()[mark..]).is_none()
}
