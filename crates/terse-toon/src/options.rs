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
/// let options = EncodeOptions::new().with_delimiter(Delimiter::Tab);
/// assert_eq!(options.indent_size, 2);
/// ```
///
/// More options may come in later versions: build it with [`new`](Self::new)
/// and the `with_` methods.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// Delimiter for inline arrays and tabular rows. Default: comma.
    pub delimiter: Delimiter,
    /// Spaces per indentation level. Default: 2.
    pub indent_size: usize,
}

impl EncodeOptions {
    /// The defaults: comma delimiter, two-space indent.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the delimiter of inline arrays and tabular rows.
    ///
    /// ```
    /// use terse_toon::{Delimiter, EncodeOptions};
    ///
    /// let value = serde_json::json!({"tags": ["a", "b"]});
    /// let options = EncodeOptions::new().with_delimiter(Delimiter::Pipe);
    /// assert_eq!(terse_toon::encode(&value, &options), "tags[2|]: a|b");
    /// ```
    pub fn with_delimiter(mut self, delimiter: Delimiter) -> Self {
        self.delimiter = delimiter;
        self
    }

    /// Sets the spaces per indentation level.
    ///
    /// ```
    /// let options = terse_toon::EncodeOptions::new().with_indent_size(4);
    /// let value = serde_json::json!({"a": {"b": 1}});
    /// assert_eq!(terse_toon::encode(&value, &options), "a:\n    b: 1");
    /// ```
    pub fn with_indent_size(mut self, spaces: usize) -> Self {
        self.indent_size = spaces;
        self
    }
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
/// let lenient = DecodeOptions::new().with_strict(false);
/// assert_eq!(lenient.indent_size, 2);
/// ```
///
/// More options may come in later versions: build it with [`new`](Self::new)
/// and the `with_` methods.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// Spaces per indentation level. Default: 2.
    pub indent_size: usize,
    /// Strict mode (spec §14): counts, widths and indentation are checked and a
    /// mismatch is an error. Default: `true`.
    pub strict: bool,
}

impl DecodeOptions {
    /// The defaults: two-space indent, strict.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the spaces per indentation level the input is read with.
    pub fn with_indent_size(mut self, spaces: usize) -> Self {
        self.indent_size = spaces;
        self
    }

    /// Sets strict mode (spec §14).
    ///
    /// ```
    /// use terse_toon::DecodeOptions;
    ///
    /// assert!(terse_toon::decode("items[2]: a", &DecodeOptions::new()).is_err());
    /// assert!(terse_toon::decode("items[2]: a", &DecodeOptions::new().with_strict(false)).is_ok());
    /// ```
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            indent_size: 2,
            strict: true,
        }
    }
}
