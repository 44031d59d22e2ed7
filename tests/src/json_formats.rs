//! The JSON formattings real services emit, for the token tests: the same
//! document minified, with Python's and Django's default separators (with
//! and without their ASCII escapes), pretty-printed with 2 or 4 spaces or
//! tabs, and with CRLF line ends.

use std::io;

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{Formatter, PrettyFormatter};

/// Writes a JSON value in one formatting.
pub type Writer = fn(&Value) -> String;

/// The JSON formattings services send: name and writer.
pub const FORMATTINGS: [(&str, Writer); 7] = [
    ("minified", |v| v.to_string()),
    ("spaced", |v| write(v, Spaced { ascii: false })),
    ("python", |v| write(v, Spaced { ascii: true })),
    ("pretty2", |v| write(v, PrettyFormatter::with_indent(b"  "))),
    ("pretty4", |v| {
        write(v, PrettyFormatter::with_indent(b"    "))
    }),
    ("tabs", |v| write(v, PrettyFormatter::with_indent(b"\t"))),
    ("crlf", |v| {
        // Every line break of pretty JSON is outside strings (inside them
        // it is escaped), so this changes the line ends only.
        write(v, PrettyFormatter::with_indent(b"  ")).replace('\n', "\r\n")
    }),
];

/// `value` written with `formatter`.
pub fn write(value: &Value, formatter: impl Formatter) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut serializer).expect("serialize");
    String::from_utf8(out).expect("UTF-8")
}

/// Python's `json.dumps` and Django's `JsonResponse` defaults: `", "` and
/// `": "`, and with `ascii` every non-ASCII character escaped
/// (`ensure_ascii`).
pub struct Spaced {
    /// Escape every non-ASCII character as `\uXXXX`.
    pub ascii: bool,
}

impl Formatter for Spaced {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !self.ascii {
            return w.write_all(fragment.as_bytes());
        }
        for c in fragment.chars() {
            if c.is_ascii() {
                w.write_all(&[c as u8])?;
            } else {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    write!(w, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
}

/// `json` with the whitespace between its tokens dropped (RFC 8259 §2) and
/// every other character kept: the minified form the layer weighs TOON
/// against, written here a character at a time as the rules say it.
pub fn minify(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}
