//! What each filter does to a value.

use std::borrow::Cow;

use terse_template::FilterKind;

use super::line::LineContext;
use super::text::{escape_from, push_escaped};
use super::value::Val;
use crate::rfc3339::{self, DateTime, Leniency};

/// Applies one filter. Values a filter does not apply to pass through.
pub(super) fn apply<'t>(kind: &'t FilterKind, value: Val<'t>, cx: &LineContext<'_>) -> Val<'t> {
    match kind {
        FilterKind::Default(text) => {
            if value.is_empty() {
                Val::Text(Cow::Borrowed(text))
            } else {
                value
            }
        }
        FilterKind::Flag(text) => {
            if value.is_truthy() {
                Val::Text(Cow::Borrowed(text))
            } else {
                Val::Null
            }
        }
        FilterKind::Join(sep) => {
            if value.is_list() {
                let mut out = String::new();
                value.push_text(sep, &mut out);
                Val::Text(Cow::Owned(out))
            } else {
                value
            }
        }
        _ => match value {
            Val::Node(node) if node.is_array() => Val::List(
                node.items()
                    .map(|item| scalar_value(kind, Val::Node(item), cx))
                    .collect(),
            ),
            Val::List(items) => Val::List(
                items
                    .into_iter()
                    .map(|item| scalar_value(kind, item, cx))
                    .collect(),
            ),
            other => scalar_value(kind, other, cx),
        },
    }
}

/// Applies the last filter of a placeholder and writes the result to `out`
/// as line text; returns whether the result was empty or false (which drops
/// an enclosing group). Gives what [`apply`] then
/// [`push_text`](Val::push_text) give, but writes straight into `out`,
/// without an intermediate value.
pub(super) fn apply_into(
    kind: &FilterKind,
    value: &Val<'_>,
    cx: &LineContext<'_>,
    out: &mut String,
) -> bool {
    match kind {
        FilterKind::Flag(text) => {
            if !value.is_truthy() {
                return true;
            }
            push_escaped(text, out);
            text.is_empty()
        }
        FilterKind::Default(text) => {
            if !value.is_empty() {
                return value.push_text(", ", out);
            }
            push_escaped(text, out);
            text.is_empty()
        }
        FilterKind::Join(sep) => {
            if !value.is_list() {
                return value.push_text(", ", out);
            }
            // The joined text is what is empty or not.
            let mark = out.len();
            value.push_text(sep, out);
            out.len() == mark
        }
        _ if value.is_list() => apply(kind, value.clone(), cx).push_text(", ", out),
        _ => {
            let mark = out.len();
            if !scalar(kind, value, cx, out) {
                return value.push_text(", ", out);
            }
            // `time` and `date` write digits and punctuation only.
            if !matches!(kind, FilterKind::Time | FilterKind::Date) {
                escape_from(mark, out);
            }
            out.len() == mark
        }
    }
}

/// [`scalar`] as a value: the filter's text, or `value` unchanged.
fn scalar_value<'t>(kind: &FilterKind, value: Val<'t>, cx: &LineContext<'_>) -> Val<'t> {
    let mut text = String::new();
    if scalar(kind, &value, cx, &mut text) {
        Val::Text(Cow::Owned(text))
    } else {
        value
    }
}

/// A filter that works item by item: writes its text to `out` and returns
/// true, or returns false when it does not apply (the value stays as it is).
fn scalar(kind: &FilterKind, value: &Val<'_>, cx: &LineContext<'_>, out: &mut String) -> bool {
    let text = match kind {
        FilterKind::Time => {
            let Some((h, m, _)) = as_timestamp(value, cx).and_then(|ts| ts.clock) else {
                return false;
            };
            push_two_digits(out, h);
            out.push(':');
            push_two_digits(out, m);
            return true;
        }
        FilterKind::Date => {
            let Some(ts) = as_timestamp(value, cx) else {
                return false;
            };
            if (0..10_000).contains(&ts.year) {
                // Two digits at a time: `core::fmt` padding costs more than
                // the rest of the filter.
                push_two_digits(out, (ts.year / 100) as u32);
                push_two_digits(out, (ts.year % 100) as u32);
            } else {
                out.push_str(&format!("{:04}", ts.year));
            }
            out.push('-');
            push_two_digits(out, ts.month);
            out.push('-');
            push_two_digits(out, ts.day);
            return true;
        }
        FilterKind::Ago => as_timestamp(value, cx)
            .map(|ts| ago(cx.cx.now_unix().saturating_sub(ts.unix_seconds()))),
        FilterKind::Bytes => byte_count(value).map(bytes),
        FilterKind::Short => as_text(value).map(|text| take_chars(&text, 8, "")),
        FilterKind::Trunc(n) => as_text(value).map(|text| take_chars(&text, *n, "…")),
        FilterKind::Upper => value.as_str().map(str::to_uppercase),
        FilterKind::Lower => value.as_str().map(str::to_lowercase),
        FilterKind::Join(_) | FilterKind::Default(_) | FilterKind::Flag(_) => None,
    };
    match text {
        Some(text) => {
            out.push_str(&text);
            true
        }
        None => false,
    }
}

/// The number of a value that is a JSON number.
fn as_number<'t>(value: &Val<'t>) -> Option<terse_toon::document::Number<'t>> {
    match value {
        Val::Node(node) => node.as_number(),
        _ => None,
    }
}

/// An RFC 3339 string or integer Unix seconds.
fn as_timestamp(value: &Val<'_>, cx: &LineContext<'_>) -> Option<DateTime> {
    match value {
        // The record's own strings live as long as the line: remembered.
        Val::Node(node) => match node.as_str() {
            Some(text) => cx.record_timestamp(text),
            None => node.as_number()?.as_i64().map(DateTime::from_unix),
        },
        _ => rfc3339::parse(value.as_str()?, Leniency::LENIENT).ok(),
    }
}

/// Text of a string or number, the values `short` and `trunc` cut.
fn as_text<'v>(value: &'v Val<'_>) -> Option<Cow<'v, str>> {
    match value.as_str() {
        Some(text) => Some(Cow::Borrowed(text)),
        None => Some(Cow::Owned(as_number(value)?.to_string())),
    }
}

/// `n` (below 100) as two digits.
fn push_two_digits(out: &mut String, n: u32) {
    out.push(char::from(b'0' + (n / 10 % 10) as u8));
    out.push(char::from(b'0' + (n % 10) as u8));
}

fn take_chars(text: &str, n: usize, ellipsis: &str) -> String {
    match text.char_indices().nth(n) {
        Some((cut, _)) => format!("{}{ellipsis}", &text[..cut]),
        None => text.to_owned(),
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

fn byte_count(value: &Val<'_>) -> Option<f64> {
    let n = match value.as_str() {
        Some(text) => text.trim().parse::<f64>().ok()?,
        None => as_number(value)?.as_f64(),
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
