//! A small TOON encoder for the corpus: objects, tabular arrays of uniform
//! flat objects, inline primitive arrays and list items, with the quoting
//! rules of the spec. Kept here rather than calling the codec so the corpus
//! does not change when the codec does.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// `value` as TOON with `delimiter` between array values.
pub fn toon(value: &Value, delimiter: char) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) => toon_object(&mut out, m, 0, delimiter),
        Value::Array(items) => toon_array(&mut out, None, items, 0, delimiter),
        other => out.push_str(&toon_primitive(other, delimiter)),
    }
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

pub fn toon_object(out: &mut String, m: &Map<String, Value>, depth: usize, delimiter: char) {
    for (k, v) in m {
        toon_field(out, k, v, depth, delimiter);
    }
}

pub fn toon_field(out: &mut String, key: &str, value: &Value, depth: usize, delimiter: char) {
    match value {
        Value::Object(child) => {
            indent(out, depth);
            let _ = writeln!(out, "{}:", toon_key(key));
            toon_object(out, child, depth + 1, delimiter);
        }
        Value::Array(items) => toon_array(out, Some(key), items, depth, delimiter),
        other => {
            indent(out, depth);
            let _ = writeln!(
                out,
                "{}: {}",
                toon_key(key),
                toon_primitive(other, delimiter)
            );
        }
    }
}

pub fn toon_array(
    out: &mut String,
    key: Option<&str>,
    items: &[Value],
    depth: usize,
    delimiter: char,
) {
    indent(out, depth);
    if let Some(key) = key {
        out.push_str(&toon_key(key));
    }
    let marker = match delimiter {
        ',' => String::new(),
        d => d.to_string(),
    };
    let _ = write!(out, "[{}{marker}]", items.len());
    let primitive = |v: &Value| !matches!(v, Value::Object(_) | Value::Array(_));
    if items.iter().all(primitive) {
        out.push(':');
        for (i, item) in items.iter().enumerate() {
            out.push(if i == 0 { ' ' } else { delimiter });
            out.push_str(&toon_primitive(item, delimiter));
        }
        out.push('\n');
        return;
    }
    if let Some(fields) = tabular_fields(items) {
        let header: Vec<String> = fields.iter().map(|f| toon_key(f)).collect();
        let _ = writeln!(out, "{{{}}}:", header.join(&delimiter.to_string()));
        for item in items {
            if let Value::Object(m) = item {
                indent(out, depth + 1);
                let cells: Vec<String> = m.values().map(|v| toon_primitive(v, delimiter)).collect();
                out.push_str(&cells.join(&delimiter.to_string()));
                out.push('\n');
            }
        }
        return;
    }
    out.push_str(":\n");
    for item in items {
        indent(out, depth + 1);
        out.push_str("- ");
        match item {
            Value::Object(m) => {
                let mut first = true;
                for (k, v) in m {
                    if first {
                        // The first field shares the hyphen's line.
                        let mut line = String::new();
                        toon_field(&mut line, k, v, depth + 2, delimiter);
                        out.push_str(line.trim_start());
                        first = false;
                    } else {
                        toon_field(out, k, v, depth + 2, delimiter);
                    }
                }
                if first {
                    out.push('\n');
                }
            }
            other => {
                out.push_str(&toon_primitive(other, delimiter));
                out.push('\n');
            }
        }
    }
}

/// The shared keys when every item is an object with the same keys in the
/// same order and only primitive values.
pub fn tabular_fields(items: &[Value]) -> Option<Vec<String>> {
    let Some(Value::Object(first)) = items.first() else {
        return None;
    };
    let keys: Vec<String> = first.keys().cloned().collect();
    for item in items {
        let Value::Object(m) = item else { return None };
        if m.len() != keys.len() || !m.keys().zip(&keys).all(|(a, b)| a == b) {
            return None;
        }
        if m.values()
            .any(|v| matches!(v, Value::Object(_) | Value::Array(_)))
        {
            return None;
        }
    }
    Some(keys)
}

pub fn toon_key(key: &str) -> String {
    let bare = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if bare { key.to_owned() } else { quoted(key) }
}

pub fn toon_primitive(value: &Value, delimiter: char) -> String {
    match value {
        Value::String(s) => {
            let needs_quotes = s.is_empty()
                || s.starts_with(' ')
                || s.ends_with(' ')
                || s.starts_with('-')
                || matches!(s.as_str(), "true" | "false" | "null")
                || s.parse::<f64>().is_ok()
                || s.contains(|c: char| {
                    matches!(
                        c,
                        ':' | '"' | '\\' | '[' | ']' | '{' | '}' | '\n' | '\r' | '\t'
                    ) || c == delimiter
                });
            if needs_quotes { quoted(s) } else { s.clone() }
        }
        other => other.to_string(),
    }
}

pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}
