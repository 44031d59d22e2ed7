//! What each filter does to a value.

use std::borrow::Cow;

use serde_json::Value;
use terse_template::FilterKind;

use super::render::{is_empty, push_text};
use super::timestamp::Timestamp;
use crate::compact::RenderContext;

/// Applies one filter. Values a filter does not apply to pass through.
pub(super) fn apply<'a>(
    kind: &FilterKind,
    value: Cow<'a, Value>,
    cx: &RenderContext,
) -> Cow<'a, Value> {
    match kind {
        FilterKind::Default(text) => {
            if is_empty(&value) {
                Cow::Owned(Value::String(text.clone()))
            } else {
                value
            }
        }
        FilterKind::Flag(text) => Cow::Owned(if is_truthy(&value) {
            Value::String(text.clone())
        } else {
            Value::Null
        }),
        FilterKind::Join(sep) => match &*value {
            Value::Array(items) => {
                let mut out = String::new();
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(sep);
                    }
                    push_text(item, &mut out);
                }
                Cow::Owned(Value::String(out))
            }
            _ => value,
        },
        _ => match &*value {
            Value::Array(items) => Cow::Owned(Value::Array(
                items
                    .iter()
                    .map(|item| scalar(kind, item, cx).unwrap_or_else(|| item.clone()))
                    .collect(),
            )),
            other => match scalar(kind, other, cx) {
                Some(changed) => Cow::Owned(changed),
                None => value,
            },
        },
    }
}

/// A filter that works item by item; `None` means "unchanged".
fn scalar(kind: &FilterKind, value: &Value, cx: &RenderContext) -> Option<Value> {
    let text = match kind {
        FilterKind::Time => {
            let ts = Timestamp::from_value(value)?;
            let (h, m, _) = ts.clock?;
            format!("{h:02}:{m:02}")
        }
        FilterKind::Date => {
            let ts = Timestamp::from_value(value)?;
            format!("{:04}-{:02}-{:02}", ts.year, ts.month, ts.day)
        }
        FilterKind::Ago => ago(cx
            .now_unix()
            .saturating_sub(Timestamp::from_value(value)?.unix())),
        FilterKind::Bytes => bytes(byte_count(value)?),
        FilterKind::Short => take_chars(&as_text(value)?, 8, ""),
        FilterKind::Trunc(n) => take_chars(&as_text(value)?, *n, "…"),
        FilterKind::Upper => value.as_str()?.to_uppercase(),
        FilterKind::Lower => value.as_str()?.to_lowercase(),
        FilterKind::Join(_) | FilterKind::Default(_) | FilterKind::Flag(_) => return None,
    };
    Some(Value::String(text))
}

/// Text of a string or number, the values `short` and `trunc` cut.
fn as_text(value: &Value) -> Option<Cow<'_, str>> {
    match value {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        _ => None,
    }
}

fn take_chars(text: &str, n: usize, ellipsis: &str) -> String {
    match text.char_indices().nth(n) {
        Some((cut, _)) => format!("{}{ellipsis}", &text[..cut]),
        None => text.to_owned(),
    }
}

pub(super) fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `seconds` is how long ago (negative: how far ahead) the value is.
fn ago(seconds: i64) -> String {
    const MINUTE: u64 = 60;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    let span = seconds.unsigned_abs();
    if span == 0 {
        return "now".to_owned();
    }
    let (n, unit) = if span < MINUTE {
        (span, "s")
    } else if span < HOUR {
        (span / MINUTE, "m")
    } else if span < DAY {
        (span / HOUR, "h")
    } else if span < 7 * DAY {
        (span / DAY, "d")
    } else if span < 30 * DAY {
        (span / (7 * DAY), "w")
    } else if span < 365 * DAY {
        (span / (30 * DAY), "mo")
    } else {
        (span / (365 * DAY), "y")
    };
    if seconds > 0 {
        format!("{n}{unit} ago")
    } else {
        format!("in {n}{unit}")
    }
}

fn byte_count(value: &Value) -> Option<f64> {
    let n = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    (n.is_finite() && n >= 0.0).then_some(n)
}

/// Decimal units, as storage vendors and the SI use them (1 KB = 1000 B).
fn bytes(n: f64) -> String {
    const UNITS: [&str; 6] = ["KB", "MB", "GB", "TB", "PB", "EB"];
    if n < 1000.0 {
        return format!("{}B", n.round());
    }
    let mut value = n / 1000.0;
    let mut unit = 0;
    // Compare after rounding, so 999 999 B is `1.0MB`, not `1000.0KB`.
    while (value * 10.0).round() / 10.0 >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1}{}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ago_units_and_thresholds() {
        let cases = [
            (0, "now"),
            (1, "1s ago"),
            (59, "59s ago"),
            (60, "1m ago"),
            (5 * 60 + 59, "5m ago"),
            (3599, "59m ago"),
            (3600, "1h ago"),
            (3 * 3600, "3h ago"),
            (86_399, "23h ago"),
            (86_400, "1d ago"),
            (6 * 86_400, "6d ago"),
            (7 * 86_400, "1w ago"),
            (14 * 86_400, "2w ago"),
            (29 * 86_400, "4w ago"),
            (30 * 86_400, "1mo ago"),
            (364 * 86_400, "12mo ago"),
            (365 * 86_400, "1y ago"),
            (800 * 86_400, "2y ago"),
            (-2 * 86_400, "in 2d"),
            (-30, "in 30s"),
        ];
        for (seconds, text) in cases {
            assert_eq!(ago(seconds), text, "{seconds}");
        }
        assert_eq!(ago(i64::MIN), "in 292471208677y");
    }

    #[test]
    fn byte_sizes() {
        let cases = [
            (0.0, "0B"),
            (512.0, "512B"),
            (999.0, "999B"),
            (1000.0, "1.0KB"),
            (1536.0, "1.5KB"),
            (2_300_000.0, "2.3MB"),
            (999_949.0, "999.9KB"),
            (999_999.0, "1.0MB"),
            (5e12, "5.0TB"),
            (3e21, "3000.0EB"),
        ];
        for (n, text) in cases {
            assert_eq!(bytes(n), text, "{n}");
        }
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(take_chars("héllo wörld", 5, "…"), "héllo…");
        assert_eq!(take_chars("héllo", 5, "…"), "héllo");
        assert_eq!(take_chars("abc", 0, "…"), "…");
    }
}
