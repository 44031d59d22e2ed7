//! Line templates: parse once, render one line per record.
//!
//! # Language
//!
//! - Literal text is copied as is; `{{` and `}}` are literal braces.
//! - `{field}` inserts a value; `{a.b}` walks into objects (and arrays, by
//!   index: `{tags.0}`). Strings are inserted unquoted, numbers and booleans as
//!   their JSON text, arrays joined with `, `, objects as compact JSON, and
//!   null or missing values as nothing.
//! - `{field|filter|filter(arg)}` applies filters left to right. An argument
//!   is raw text up to `)`, or a quoted string (`default("a (b)")`, with `\"`
//!   and `\\` escapes) when it holds `)` or braces.
//! - `{? ... }` is an optional group: dropped whole when any value directly
//!   inside it is null, missing, empty (`""`, `[]`, `{}`) or `false`, after
//!   its filters ran. Groups nest, at most 32 deep; an inner group that
//!   drops does not drop the outer one.
//! - A template is at most 4 KiB (4096 bytes) long.
//! - A value holding a newline, tab or other control character (or U+2028,
//!   U+2029) is written escaped (`\n`, `\r`, `\t`, `\u{1b}`), so one record is
//!   always one line. Templates themselves may not hold control characters.
//!
//! # Filters
//!
//! | filter | does |
//! | --- | --- |
//! | `time` | `HH:MM` of a timestamp, in the timestamp's own offset |
//! | `date` | `YYYY-MM-DD` of a timestamp, in the timestamp's own offset |
//! | `ago` | time from the request to the value: `42s ago`, `5m ago`, `3h ago`, `2d ago`, `2w ago`, `4mo ago`, `1y ago`, `in 2d`, `now` |
//! | `bytes` | a byte count in decimal units (1 KB = 1000 B): `512B`, `1.0KB`, `2.3MB`, up to `EB` |
//! | `short` | the first 8 characters (an id's prefix) |
//! | `trunc(n)` | the first `n` characters, then `…` when anything was cut |
//! | `upper`, `lower` | change case |
//! | `join(sep)` | array items joined with `sep` |
//! | `default(text)` | `text` when the value is null, missing or empty |
//! | `flag(text)` | `text` when the value is truthy (`true`, a non-zero number, a non-empty string, array or object), else null, which drops an optional group |
//!
//! Timestamps are RFC 3339 date-times (`2025-03-01T09:30:00Z`,
//! `2025-03-01T09:30:00.5+01:00`); also read are a missing seconds part, a
//! missing offset (read as UTC), a date alone, and integer Unix seconds (UTC).
//! `ago` units: under a minute seconds, under an hour minutes, under a day
//! hours, under a week days, under 30 days weeks, under 365 days months (of 30
//! days), then years; each rounded down. Applied to an array, every filter but
//! `join`, `default` and `flag` works on each item. A filter given a value it
//! does not apply to (`time` on a number that is not a time, `bytes` on text)
//! leaves the value unchanged: templates never fail at render time.

mod filters;
mod hints;
mod line;
mod missing;
mod plain;
mod render;
mod text;
mod value;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde_json::Value;
use terse_template::Ast;
use terse_toon::document::{Document, Node};

use super::{Record, RenderContext};
pub(crate) use text::escape_from;

/// Why a template did not parse: [`offset`](TemplateError::offset) (bytes),
/// [`column`](TemplateError::column) (characters, 1-based) and
/// [`message`](TemplateError::message).
pub use terse_template::ParseError as TemplateError;

/// A parsed line template.
///
/// ```
/// use serde_json::json;
/// use tower_terse::compact::{RenderContext, Template};
///
/// let template = Template::parse("{start|time} {title|trunc(12)}{? @{room}}")?;
/// let cx = RenderContext::at_unix(0);
/// let line = template.render(
///     &json!({"start": "2025-03-01T09:30:00Z", "title": "Quarterly planning", "room": null}),
///     &cx,
/// );
/// assert_eq!(line, "09:30 Quarterly pl…");
///
/// let err = Template::parse("{title|uper}").unwrap_err();
/// assert_eq!(err.column(), 8);
/// assert_eq!(
///     err.to_string(),
///     "template error at column 8 (byte 7): unknown filter `uper`; did you mean `upper`?"
/// );
/// # Ok::<(), tower_terse::compact::TemplateError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    ast: Ast,
    traits: render::Traits,
    /// The template compiled, when it has no group and no filter.
    plain: Option<plain::Plain>,
    hints: hints::Hints,
    /// The paths already reported missing (shared by clones: one template,
    /// one resource, one warning per path).
    missing: Reported,
}

/// [`missing::Missing`] behind an `Arc`; never part of a template's
/// equality.
#[derive(Debug, Clone)]
struct Reported(Arc<missing::Missing>);

impl PartialEq for Reported {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Reported {}

impl Template {
    /// Parses a template.
    ///
    /// # Errors
    ///
    /// A [`TemplateError`] saying where (byte offset and column) and why,
    /// also for a template longer than 4 KiB or with optional groups nested
    /// more than 32 deep
    /// ([`MAX_TEMPLATE_BYTES`](terse_template::MAX_TEMPLATE_BYTES),
    /// [`MAX_NESTING`](terse_template::MAX_NESTING)). Parsing never
    /// recurses, so hostile input costs time and memory in proportion to
    /// its length, never the call stack.
    pub fn parse(source: &str) -> Result<Self, TemplateError> {
        Ok(Self::new(source, terse_template::parse(source)?, false))
    }

    /// `checked` when the derive checked the first segment of every path.
    fn new(source: &str, ast: Ast, checked: bool) -> Self {
        let traits = render::Traits::of(&ast);
        Template {
            source: source.to_owned(),
            missing: Reported(Arc::new(missing::Missing::new(checked))),
            hints: hints::Hints::new(
                ast.placeholders()
                    .into_iter()
                    .map(|placeholder| placeholder.path.len())
                    .sum(),
            ),
            traits,
            plain: plain::Plain::of(&ast, traits.json_text),
            ast,
        }
    }

    /// Renders the line for one JSON record. Never fails: missing values
    /// render empty (or drop their optional group).
    ///
    /// This copies `record` into the layer's parsed form first; the layer
    /// renders without the copy through
    /// [`render_record`](Template::render_record).
    pub fn render(&self, record: &Value, cx: &RenderContext) -> String {
        self.render_record(Record::new(Document::from_value(record).root()), cx)
    }

    /// Renders the line for one record of a response, as the layer does.
    pub fn render_record(&self, record: Record<'_>, cx: &RenderContext) -> String {
        // Lines are about as long as their template, so twice its length is
        // rarely outgrown.
        let mut line = String::with_capacity(2 * self.source.len());
        self.write_record(record, cx, &mut line);
        line
    }

    /// Renders the line for one record onto the end of `out`: what the
    /// derive's [`CompactLine::write_line`](super::CompactLine::write_line)
    /// does once the record's shape is checked.
    pub fn write_record(&self, record: Record<'_>, cx: &RenderContext, out: &mut String) {
        self.write_node(record.node(), cx, out);
    }

    /// Renders the line for `record` onto the end of `out`; returns whether
    /// what it wrote is JSON string text as it stands, to be copied into
    /// the envelope without escaping.
    #[inline(always)]
    pub(crate) fn write_node(
        &self,
        record: Node<'_>,
        cx: &RenderContext,
        out: &mut String,
    ) -> bool {
        let line = line::Line {
            hints: &self.hints,
            source: &self.source,
            missing: &self.missing.0,
        };
        match &self.plain {
            Some(plain) => plain.render(line, record, out),
            None => render::render(&self.ast, self.traits, line, record, cx, out),
        }
    }

    /// The template text as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The first segment of every field path the template names, in order.
    pub fn field_names(&self) -> impl Iterator<Item = &str> {
        self.ast
            .placeholders()
            .into_iter()
            .filter_map(|p| p.path.first().map(String::as_str))
    }

    /// A template checked at compile time by `#[derive(CompactLine)]`.
    #[doc(hidden)]
    pub fn __from_checked(source: &str, ast: Ast) -> Self {
        Self::new(source, ast, true)
    }
}

impl FromStr for Template {
    type Err = TemplateError;

    fn from_str(source: &str) -> Result<Self, Self::Err> {
        Template::parse(source)
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[cfg(test)]
mod tests;
