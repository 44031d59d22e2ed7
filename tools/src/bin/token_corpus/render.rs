//! Pretty JSON, ASCII-escaped JSON and line-per-record text.

use std::fmt::Write as _;

use serde_json::Value;

use crate::records::Shape;
use crate::rng::Rng;
use crate::text::clock;

/// JSON text with every non-ASCII character written as `\uXXXX` escapes;
/// valid because such characters only occur inside strings.
pub fn ascii_escaped(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

pub fn pretty(value: &Value, four_spaces: bool) -> String {
    use serde::Serialize;
    let indent: &[u8] = if four_spaces { b"    " } else { b"  " };
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    match value.serialize(&mut ser) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

pub fn lines(rng: &mut Rng, shape: Shape, records: &[Value]) -> String {
    let mut out = String::new();
    let style = rng.below(4);
    if style == 3 {
        // Delimited rows with a header, as a spreadsheet export would.
        let delimiter = rng.pick(&[",", "\t", " | "]);
        if let Some(Value::Object(first)) = records.first() {
            let keys: Vec<&str> = first.keys().map(String::as_str).collect();
            out.push_str(&keys.join(delimiter));
            out.push('\n');
        }
        for r in records {
            if let Value::Object(m) = r {
                let cells: Vec<String> = m.values().map(plain).collect();
                out.push_str(&cells.join(delimiter));
                out.push('\n');
            }
        }
        return out;
    }
    let _ = writeln!(out, "{} {}", records.len(), shape.noun());
    for r in records {
        let Value::Object(m) = r else { continue };
        let get = |k: &str| m.get(k).map(plain).unwrap_or_default();
        match style {
            0 => {
                // Template-style lines, one human-readable line per record.
                let line = match shape {
                    Shape::Event => format!(
                        "{}-{} {} [{}]{}",
                        clock(rng),
                        clock(rng),
                        get("title"),
                        get("location"),
                        if get("recurring") == "true" {
                            " 🔁"
                        } else {
                            ""
                        }
                    ),
                    Shape::Order => format!(
                        "#{} {} {} {} ({} items)",
                        get("id"),
                        get("customer"),
                        get("total"),
                        get("currency"),
                        get("items")
                    ),
                    Shape::User => format!("{} <{}> {}", get("name"), get("email"), get("city")),
                    Shape::Log => format!(
                        "{} {} {}: {}",
                        get("ts"),
                        get("level"),
                        get("service"),
                        get("message")
                    ),
                    Shape::Message => format!("{} — {}", get("author"), get("body")),
                    Shape::Commit => format!("{} {}", &get("sha")[..7], get("summary")),
                    Shape::File => format!(
                        "{} ({} bytes) {}",
                        get("filename"),
                        get("size"),
                        get("content")
                    ),
                    Shape::Metric => format!(
                        "{}={} [{}..{}]",
                        get("name"),
                        get("value"),
                        get("min"),
                        get("max")
                    ),
                    Shape::Product => {
                        format!("{} — {} ({} left)", get("name"), get("price"), get("stock"))
                    }
                };
                let _ = writeln!(out, "- {line} (id: {})", get("id"));
            }
            1 => {
                // key=value log lines.
                let fields: Vec<String> = m
                    .iter()
                    .map(|(k, v)| {
                        let s = plain(v);
                        if s.contains(' ') {
                            format!("{k}={s:?}")
                        } else {
                            format!("{k}={s}")
                        }
                    })
                    .collect();
                let _ = writeln!(out, "{}", fields.join(" "));
            }
            _ => {
                // Numbered summaries.
                let values: Vec<String> = m.values().skip(1).map(plain).collect();
                let _ = writeln!(
                    out,
                    "{}. {} — {}",
                    get("id"),
                    values.join(", "),
                    rng.pick(&["ok", "see above", "✓", "n/a"])
                );
            }
        }
    }
    out
}

/// A value as it reads in plain text: strings unquoted, nested values as
/// compact JSON.
pub fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
