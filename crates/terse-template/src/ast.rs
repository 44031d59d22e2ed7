//! The parsed form of a template.

use std::ops::Range;

/// A parsed template: a sequence of segments rendered left to right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ast {
    /// The top-level segments.
    pub segments: Vec<Segment>,
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text, with `{{`/`}}` already turned into single braces.
    Text(String),
    /// A `{field|filter...}` placeholder.
    Value(Placeholder),
    /// A `{? ... }` group, dropped whole when any value directly inside it is
    /// null, missing, empty or false.
    Optional(Vec<Segment>),
}

/// A `{a.b|filter(arg)}` placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    /// The dotted path, one entry per segment (`a.b` is `["a", "b"]`).
    pub path: Vec<String>,
    /// Byte range of the path in the template source.
    pub span: Range<usize>,
    /// Filters, applied left to right.
    pub filters: Vec<Filter>,
}

/// One filter of a placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// What the filter does, with its checked argument.
    pub kind: FilterKind,
    /// Byte range of the filter (name and argument) in the template source.
    pub span: Range<usize>,
}

/// A known filter with its argument, already checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterKind {
    /// `time`: `HH:MM` of an RFC 3339 timestamp.
    Time,
    /// `date`: `YYYY-MM-DD` of an RFC 3339 timestamp.
    Date,
    /// `ago`: the time from the render instant, as `5m ago` or `in 2d`.
    Ago,
    /// `bytes`: a byte count as `512B`, `1.0KB`, `2.3MB`.
    Bytes,
    /// `short`: the first 8 characters.
    Short,
    /// `upper`: upper case.
    Upper,
    /// `lower`: lower case.
    Lower,
    /// `trunc(n)`: the first `n` characters, then `…` when cut.
    Trunc(usize),
    /// `join(sep)`: array items joined with `sep`.
    Join(String),
    /// `default(text)`: `text` when the value is null, missing or empty.
    Default(String),
    /// `flag(text)`: `text` when the value is truthy, else null.
    Flag(String),
}

impl FilterKind {
    /// The filter's name as written in templates.
    pub fn name(&self) -> &'static str {
        match self {
            FilterKind::Time => "time",
            FilterKind::Date => "date",
            FilterKind::Ago => "ago",
            FilterKind::Bytes => "bytes",
            FilterKind::Short => "short",
            FilterKind::Upper => "upper",
            FilterKind::Lower => "lower",
            FilterKind::Trunc(_) => "trunc",
            FilterKind::Join(_) => "join",
            FilterKind::Default(_) => "default",
            FilterKind::Flag(_) => "flag",
        }
    }
}

/// The placeholders under `$segments` in source order, walking them with
/// `$iter` (`iter` or `iter_mut`): one walk for the shared and the mutable
/// borrow. Open groups wait in a vector, not on the call stack.
macro_rules! walk_placeholders {
    ($segments:expr, $iter:ident) => {{
        let mut out = Vec::new();
        let mut open = vec![$segments.$iter()];
        while let Some(segments) = open.last_mut() {
            match segments.next() {
                None => {
                    open.pop();
                }
                Some(Segment::Text(_)) => {}
                Some(Segment::Value(p)) => out.push(p),
                Some(Segment::Optional(inner)) => open.push(inner.$iter()),
            }
        }
        out
    }};
}

impl Ast {
    /// Every placeholder in the template, groups included, in source order.
    ///
    /// The walk keeps its open groups in a vector, not on the call stack.
    pub fn placeholders(&self) -> Vec<&Placeholder> {
        walk_placeholders!(self.segments, iter)
    }

    /// Every placeholder, as [`placeholders`](Ast::placeholders), to change
    /// in place (the derive rewrites field names to their JSON names).
    ///
    /// ```
    /// let mut ast = terse_template::parse("{a}{? {b}}").unwrap();
    /// for placeholder in ast.placeholders_mut() {
    ///     placeholder.path[0].make_ascii_uppercase();
    /// }
    /// assert_eq!(ast, terse_template::parse("{A}{? {B}}").unwrap());
    /// ```
    pub fn placeholders_mut(&mut self) -> Vec<&mut Placeholder> {
        walk_placeholders!(self.segments, iter_mut)
    }
}
