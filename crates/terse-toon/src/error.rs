//! Error types.

use std::fmt;

/// A TOON document could not be decoded.
///
/// Carries the 1-based line and column where the problem was found and a
/// message a person can act on.
///
/// ```
/// let err = terse_toon::decode("items[2]: a", &Default::default()).unwrap_err();
/// assert_eq!(err.line(), 1);
/// assert!(err.to_string().starts_with("line 1, column "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    line: usize,
    column: usize,
    message: String,
}

impl DecodeError {
    /// A new error at `line` and `column` (both 1-based).
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        DecodeError {
            line,
            column,
            message: message.into(),
        }
    }

    /// The 1-based line of the problem.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The 1-based column (in characters) of the problem.
    pub fn column(&self) -> usize {
        self.column
    }

    /// What went wrong, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for DecodeError {}

/// An error from the serde-facing functions, [`encode_json`](crate::encode_json)
/// and the bounded encoders.
///
/// ```
/// let value = serde_json::json!({"items": [1, 2, 3]});
/// let err = terse_toon::encode_limited(&value, &Default::default(), 5).unwrap_err();
/// assert!(matches!(err, terse_toon::Error::OutputLimit { limit: 5 }));
/// assert_eq!(err.to_string(), "the TOON text would be longer than the limit of 5 bytes");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The input JSON was not valid, or a value could not be represented as
    /// JSON.
    Json(serde_json::Error),
    /// The TOON text could not be decoded.
    Decode(DecodeError),
    /// A bounded encoder ([`encode_limited`](crate::encode_limited),
    /// [`encode_json_limited`](crate::encode_json_limited)) stopped because
    /// its output would have passed `limit` bytes; the input itself was fine.
    OutputLimit {
        /// The bound the encoder was given, in bytes.
        limit: usize,
    },
}

impl Error {
    /// Whether a bounded encoder stopped because its output would have passed
    /// the byte limit it was given: `matches!(err, Error::OutputLimit { .. })`.
    ///
    /// ```
    /// let value = serde_json::json!({"items": [1, 2, 3]});
    /// assert!(terse_toon::encode_limited(&value, &Default::default(), 5).unwrap_err().is_output_limit());
    /// assert!(!terse_toon::encode_json("{oops", &Default::default()).unwrap_err().is_output_limit());
    /// ```
    pub fn is_output_limit(&self) -> bool {
        matches!(self, Error::OutputLimit { .. })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Json(err) => write!(f, "invalid JSON: {err}"),
            Error::Decode(err) => err.fmt(f),
            Error::OutputLimit { limit } => write!(
                f,
                "the TOON text would be longer than the limit of {limit} bytes"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Json(err) => Some(err),
            Error::Decode(err) => Some(err),
            Error::OutputLimit { .. } => None,
        }
    }
}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Self {
        Error::Json(err)
    }
}

impl From<DecodeError> for Error {
    fn from(err: DecodeError) -> Self {
        Error::Decode(err)
    }
}
