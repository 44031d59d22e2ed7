//! Template parse errors.

use std::fmt;
use std::ops::Range;

/// Why a template did not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    span: Range<usize>,
    column: usize,
    message: String,
}

impl ParseError {
    pub(crate) fn new(src: &str, span: Range<usize>, message: impl Into<String>) -> Self {
        // Columns count characters, not bytes, so they match what an editor shows.
        let column = src[..span.start].chars().count() + 1;
        ParseError {
            span,
            column,
            message: message.into(),
        }
    }

    /// Byte offset in the template where the problem starts.
    pub fn offset(&self) -> usize {
        self.span.start
    }

    /// Byte range of the offending text (may be empty at the end of input).
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// 1-based column, counted in characters.
    pub fn column(&self) -> usize {
        self.column
    }

    /// What is wrong, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "template error at column {} (byte {}): {}",
            self.column, self.span.start, self.message
        )
    }
}

impl std::error::Error for ParseError {}
