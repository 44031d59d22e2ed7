//! The output formats a client can ask for, and the rendering functions for
//! code outside a layer: [`render`], [`render_json`] and
//! [`render_json_with`] give a body the bytes and the format choice the
//! layer would.

use std::fmt;
use std::str::FromStr;

/// An output format a client can ask for.
///
/// Names compare case-insensitively:
///
/// ```
/// use tower_terse::Format;
///
/// assert_eq!("TOON".parse::<Format>().unwrap(), Format::Toon);
/// assert_eq!(Format::Compact.to_string(), "compact");
/// assert!("csv".parse::<Format>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Format {
    /// The handler's JSON, unchanged.
    #[default]
    Json,
    /// The whole document as TOON, unless TOON would not be cheaper.
    Toon,
    /// One line per record plus ids, for routes with a registered resource;
    /// JSON everywhere else.
    Compact,
}

impl Format {
    /// The lowercase name used in `?format=` and `X-Prefer-Format`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Toon => "toon",
            Format::Compact => "compact",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name that is not `json`, `toon` or `compact`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat(String);

impl UnknownFormat {
    /// The name as it was given.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown format `{}` (expected json, toon or compact)",
            self.0
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        [Format::Json, Format::Toon, Format::Compact]
            .into_iter()
            .find(|format| format.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// A format reads from its name, as `?format=` does (any case), so
/// configuration files can name one.
impl<'de> serde::Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(de)?;
        name.parse().map_err(|_| {
            serde::de::Error::custom(format!(
                "unknown format {name:?}; expected \"json\", \"toon\" or \"compact\""
            ))
        })
    }
}

pub use crate::render::public::{minify_json, render, render_json, render_json_with};
