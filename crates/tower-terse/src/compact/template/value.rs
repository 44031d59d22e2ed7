//! The value of a placeholder while its filters run, and how it is written
//! as line text.

use std::borrow::Cow;

use terse_toon::document::{Kind, Node, Number};

use super::text::{is_ascii_below_del, push_escaped};
use crate::compact::lines::find_json_special;

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

/// Writes a number as `serde_json` writes it ([`Number::push_json_text`]),
/// straight from its text when that is already it: integers always, and
/// the common floats, short plain decimals, told by one word test rather
/// than a loop over their bytes.
#[inline]
fn push_number(n: Number<'_>, out: &mut String) {
    let text = n.canonical();
    if !n.is_f64() || is_short_decimal(text) {
        out.push_str(text);
    } else {
        n.push_json_text(out);
    }
}

/// Whether `text` is an optional `-`, then four to eight bytes of digits
/// and points with a point among them, not starting `0.0000`: a decimal
/// that `serde_json` writes as it reads (at most 15 significant digits,
/// at least 1e-4), so [`Number::push_json_text`] would copy it. False
/// only means the text is left to that function.
///
/// The bytes are read as two halves of four that overlap in text shorter
/// than eight; a byte is a digit when it is `0` to `9` XOR `0` below
/// 0x0A, which adding 0x76 to its low seven bits carries into bit 7 from
/// 0x0A on, no carry crossing into the next byte.
#[inline]
pub(super) fn is_short_decimal(text: &str) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let digits = text.strip_prefix('-').unwrap_or(text).as_bytes();
    let n = digits.len();
    if !(4..=8).contains(&n) || digits.starts_with(b"0.0000") {
        return false;
    }
    let half = |at: usize| {
        digits
            .get(at..at + 4)
            .and_then(|w| w.first_chunk::<4>())
            .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
    };
    let word = half(0) | half(n - 4) << 32;
    // High bit set in each byte that is not zero, exactly.
    let nonzero = |v: u64| ((v & LOW7).wrapping_add(LOW7) | v) & HIGH;
    let digit_x = word ^ 0x3030_3030_3030_3030;
    let not_digit = ((digit_x & LOW7).wrapping_add(0x7676_7676_7676_7676) | digit_x) & HIGH;
    let point = !nonzero(word ^ 0x2e2e_2e2e_2e2e_2e2e) & HIGH;
    not_digit & !point == 0 && point != 0
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
            push_number(n, out);
            return (false, true);
        }
        Kind::String(_) | Kind::Array(_) | Kind::Object(_) => {}
    }
    let mark = out.len();
    let empty = push_node_text(node, ", ", out);
    (empty, find_json_special(&out.as_bytes()[mark..]).is_none())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use terse_toon::document::Document;

    use super::*;

    /// The number a document reads from `text`, written both ways.
    fn both(text: &str) -> Option<(String, String)> {
        let document = Document::parse(text).ok()?;
        let n = document.root().as_number()?;
        let mut fast = String::new();
        push_number(n, &mut fast);
        let mut generic = String::new();
        n.push_json_text(&mut generic);
        Some((fast, generic))
    }

    #[test]
    fn short_decimals_are_told_by_their_bytes() {
        for yes in ["84.49", "1.87", "-260.05", "0.001", "12345.6", "1234567."] {
            assert!(is_short_decimal(yes), "{yes}");
        }
        for no in [
            "1.5",
            "100",
            "12345678",
            "0.00001",
            "1e-7",
            "1.5e3",
            "123456789.5",
            "-1.2",
            "ab.c",
            "1/2.",
            "1:2.",
        ] {
            assert!(!is_short_decimal(no), "{no}");
        }
    }

    proptest! {
        /// Whatever the number, what the word test lets through is what
        /// the generic writing writes.
        #[test]
        fn numbers_are_written_as_serde_json_writes_them(
            text in prop_oneof![
                "-?[0-9]{1,9}(\\.[0-9]{0,9})?([eE][-+]?[0-9]{1,3})?",
                "-?0\\.0{0,6}[1-9][0-9]{0,3}",
                any::<f64>().prop_map(|f| f.to_string()),
                any::<i64>().prop_map(|i| i.to_string()),
            ]
        ) {
            if let Some((fast, generic)) = both(&text) {
                prop_assert_eq!(fast, generic);
            }
        }

        /// The word test agrees with a byte-by-byte reading of the rule
        /// on any short text.
        #[test]
        fn the_word_test_is_the_bytewise_rule(text in "-?[0-9.:/a-]{0,10}") {
            let digits = text.strip_prefix('-').unwrap_or(&text).as_bytes();
            let rule = (4..=8).contains(&digits.len())
                && !digits.starts_with(b"0.0000")
                && digits.iter().all(|b| b.is_ascii_digit() || *b == b'.')
                && digits.contains(&b'.');
            prop_assert_eq!(is_short_decimal(&text), rule);
        }
    }
}
