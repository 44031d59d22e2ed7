//! `terse stats`: bytes and tokens of a JSON document as JSON (minified, as
//! read, pretty) and as TOON.

use crate::error::CliError;
use crate::input;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;
use terse_toon::{Delimiter, EncodeOptions};

/// Arguments of `terse stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// JSON file to read; standard input when absent or `-`.
    pub file: Option<PathBuf>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Size of one rendering of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Size {
    bytes: usize,
    tokens_estimated: usize,
    tokens_exact: usize,
}

impl Size {
    fn of(text: &str) -> Self {
        Size {
            bytes: text.len(),
            tokens_estimated: tower_terse::tokens::estimate(text.as_bytes()),
            tokens_exact: tower_terse::tokens::exact(text),
        }
    }
}

/// The renderings compared, in output order: the `--json` key, the table label
/// and the text. The JSON minified comes first (the text as read without the
/// whitespace between its tokens, as the layer serves it when that is the
/// cheapest form): it is what the savings are relative to. Then the text as
/// read, which a plain request gets.
fn renderings(
    value: &Value,
    text: &str,
) -> Result<Vec<(&'static str, &'static str, String)>, CliError> {
    let toon =
        |delimiter| terse_toon::encode(value, &EncodeOptions::new().with_delimiter(delimiter));
    Ok(vec![
        (
            "json",
            "JSON (minified)",
            tower_terse::format::minify_json(text).into_owned(),
        ),
        ("json_as_read", "JSON (as read)", text.to_owned()),
        (
            "json_pretty",
            "JSON (pretty)",
            serde_json::to_string_pretty(value)?,
        ),
        ("toon", "TOON (comma)", toon(Delimiter::Comma)),
        ("toon_tab", "TOON (tab)", toon(Delimiter::Tab)),
        ("toon_pipe", "TOON (pipe)", toon(Delimiter::Pipe)),
    ])
}

/// Reads the JSON input and returns its statistics as a table or as JSON.
pub fn run(args: &Args) -> Result<String, CliError> {
    let text = input::read_json_text(args.file.as_ref())?;
    let value: Value = serde_json::from_str(&text)?;
    let rows: Vec<(&str, &str, Size)> = renderings(&value, &text)?
        .into_iter()
        .map(|(key, label, text)| (key, label, Size::of(&text)))
        .collect();
    if args.json {
        Ok(to_json(&rows).to_string())
    } else {
        Ok(to_table(&rows))
    }
}

fn to_json(rows: &[(&str, &str, Size)]) -> Value {
    let mut object = serde_json::Map::new();
    for (key, _, size) in rows {
        object.insert(
            (*key).to_owned(),
            json!({
                "bytes": size.bytes,
                "tokens_estimated": size.tokens_estimated,
                "tokens_exact": size.tokens_exact,
            }),
        );
    }
    Value::Object(object)
}

fn to_table(rows: &[(&str, &str, Size)]) -> String {
    let base = rows[0].2;
    let mut table = format!(
        "{:<15} {:>10} {:>8} {:>12} {:>12} {:>8}\n",
        "format", "bytes", "saved", "tokens est.", "tokens", "saved"
    );
    for (index, (_, label, size)) in rows.iter().enumerate() {
        let (bytes_saved, tokens_saved) = if index == 0 {
            ("-".to_owned(), "-".to_owned())
        } else {
            (
                savings(base.bytes, size.bytes),
                savings(base.tokens_exact, size.tokens_exact),
            )
        };
        // Writing to a String cannot fail.
        let _ = writeln!(
            table,
            "{label:<15} {:>10} {bytes_saved:>8} {:>12} {:>12} {tokens_saved:>8}",
            size.bytes, size.tokens_estimated, size.tokens_exact
        );
    }
    table.push_str("saved: relative to minified JSON; tokens: o200k_base, est.: fast estimate\n");
    table
}

/// How much smaller `size` is than `base`, as a signed percentage.
fn savings(base: usize, size: usize) -> String {
    if base == 0 {
        return "-".to_owned();
    }
    let percent = (base as f64 - size as f64) / base as f64 * 100.0;
    format!("{percent:.1}%")
}

#[cfg(test)]
mod tests {
    use super::savings;

    #[test]
    fn savings_are_relative_to_the_base() {
        assert_eq!(savings(200, 150), "25.0%");
        assert_eq!(savings(200, 300), "-50.0%");
        assert_eq!(savings(3, 3), "0.0%");
        assert_eq!(savings(0, 3), "-");
    }
}
