//! Options for [`encode`](crate::encode) and [`decode`](crate::decode).

/// The delimiter that separates values in inline arrays and tabular rows (spec §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Delimiter {
    /// `,` — the default; not written in array headers.
    #[default]
    Comma,
    /// A horizontal tab; written in headers as `[N\t]`.
    Tab,
    /// `|`; written in headers as `[N|]`.
    Pipe,
}

impl Delimiter {
    /// The delimiter as the character it is written as.
    ///
    /// ```
    /// assert_eq!(terse_toon::Delimiter::Pipe.as_char(), '|');
    /// ```
    pub const fn as_char(self) -> char {
        match self {
            Delimiter::Comma => ',',
            Delimiter::Tab => '\t',
            Delimiter::Pipe => '|',
        }
    }

    /// The delimiter as the byte it is written as.
    pub const fn as_byte(self) -> u8 {
        self.as_char() as u8
    }
}

/// How [`encode`](crate::encode) writes TOON.
///
/// ```
/// use terse_toon::{Delimiter, EncodeOptions};
///
/// let options = EncodeOptions { delimiter: Delimiter::Tab, ..EncodeOptions::default() };
/// assert_eq!(options.indent_size, 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Delimiter for inline arrays and tabular rows. Default: comma.
    pub delimiter: Delimiter,
    /// Spaces per indentation level. Default: 2.
    pub indent_size: usize,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            delimiter: Delimiter::Comma,
            indent_size: 2,
        }
    }
}

/// How [`decode`](crate::decode) reads TOON.
///
/// ```
/// use terse_toon::DecodeOptions;
///
/// let lenient = DecodeOptions { strict: false, ..DecodeOptions::default() };
/// assert_eq!(lenient.indent_size, 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Spaces per indentation level. Default: 2.
    pub indent_size: usize,
    /// Strict mode (spec §14): counts, widths and indentation are checked and a
    /// mismatch is an error. Default: `true`.
    pub strict: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            indent_size: 2,
            strict: true,
        }
    }
}
