//! The output formats, and rendering a JSON value the way the layer would.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::tokens;
use crate::toon::{self, EncodeOptions};

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

/// Renders a JSON value in `format`, the way the layer renders a response.
///
/// For agent frameworks that format tool results themselves: JSON stays
/// compact JSON; TOON is used only when it takes fewer tokens than the JSON,
/// the rule of the layer's smart fallback ([`TerseLayer::smart_fallback`]).
/// This function knows no layer: it always encodes with the default
/// [`EncodeOptions`] and decides with [`tokens::choose`] on the estimate
/// (near ties settled on exact counts), whatever a layer is configured with
/// ([`TerseLayer::toon_options`], `TerseLayer::exact_token_count` with
/// the `exact-tokens` feature);
/// a layer left at its defaults makes the same choice.
/// `Compact` needs a resource (a route's registered type), so here it renders
/// JSON; build the envelope with
/// [`compact_envelope`](crate::compact::compact_envelope) instead.
///
/// [`TerseLayer::smart_fallback`]: crate::TerseLayer::smart_fallback
/// [`TerseLayer::toon_options`]: crate::TerseLayer::toon_options
///
/// ```
/// use serde_json::json;
/// use tower_terse::{Format, render};
///
/// let users = json!({"users": [
///     {"id": 1, "name": "Ada", "role": "admin"},
///     {"id": 2, "name": "Linus", "role": "member"},
///     {"id": 3, "name": "Grace", "role": "member"},
/// ]});
/// assert_eq!(
///     render(&users, Format::Toon),
///     "users[3]{id,name,role}:\n  1,Ada,admin\n  2,Linus,member\n  3,Grace,member"
/// );
/// assert_eq!(render(&json!({"a": 1}), Format::Json), r#"{"a":1}"#);
/// ```
pub fn render(value: &Value, format: Format) -> String {
    let json = value.to_string();
    match format {
        Format::Json | Format::Compact => json,
        Format::Toon => estimated_cheaper(toon::encode(value, &EncodeOptions::default()), json),
    }
}

/// Renders JSON text in `format`, the way the layer renders a response body.
///
/// JSON comes back as it was given (after checking that it is JSON); TOON is
/// used only when it takes fewer tokens. Text that is not JSON is an error.
/// `Compact` returns the JSON, as [`render`] does. Like [`render`], it uses
/// the default TOON options and the token estimate, not a layer's
/// configuration.
///
/// ```
/// use tower_terse::{Format, render_json};
///
/// let json = r#"[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"},{"id":3,"name":"Grace"}]"#;
/// let text = render_json(json, Format::Toon).unwrap();
/// assert_eq!(text, "[3]{id,name}:\n  1,Ada\n  2,Linus\n  3,Grace");
/// assert_eq!(render_json(r#"{ "a": 1 }"#, Format::Json).unwrap(), r#"{ "a": 1 }"#);
/// assert!(render_json("{oops", Format::Toon).is_err());
/// ```
pub fn render_json(json: &str, format: Format) -> Result<String, toon::Error> {
    match format {
        Format::Json | Format::Compact => {
            serde_json::from_str::<serde::de::IgnoredAny>(json)?;
            Ok(json.to_owned())
        }
        Format::Toon => {
            let text = toon::encode_json(json, &EncodeOptions::default())?;
            Ok(estimated_cheaper(text, json.to_owned()))
        }
    }
}

/// The smart fallback's choice for [`render`]: the TOON text, or the JSON
/// ([`tokens::choose`], on the estimate as a default layer counts).
fn estimated_cheaper(toon: String, json: String) -> String {
    match tokens::choose(&json, &toon, tokens::Counting::Estimate).served {
        tokens::Served::Toon => toon,
        tokens::Served::Json => json,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_case_insensitively() {
        for format in [Format::Json, Format::Toon, Format::Compact] {
            let upper = format.as_str().to_uppercase();
            assert_eq!(upper.parse::<Format>().unwrap(), format);
            assert_eq!(format.to_string().parse::<Format>().unwrap(), format);
        }
        assert_eq!(" Toon ".parse::<Format>().unwrap(), Format::Toon);
        let err = "yaml".parse::<Format>().unwrap_err();
        assert_eq!(err.name(), "yaml");
    }

    #[test]
    fn compact_without_a_resource_renders_json() {
        let value = serde_json::json!([{"id": 1}]);
        assert_eq!(render(&value, Format::Compact), r#"[{"id":1}]"#);
        assert_eq!(
            render_json(r#"[{"id":1}]"#, Format::Compact).unwrap(),
            r#"[{"id":1}]"#
        );
    }

    #[test]
    fn invalid_json_is_an_error_in_every_format() {
        for format in [Format::Json, Format::Toon, Format::Compact] {
            assert!(render_json("[1,", format).is_err());
        }
    }
}
