//! [`Settings`]: every setting of the layers as plain data, the one model
//! behind the builders, per-route overrides and configuration files.
//!
//! Each field is a builder setting of [`TerseLayer`](crate::TerseLayer) of
//! the same name, and `None` follows whatever the layer (or the default)
//! says. The struct deserializes with serde (unknown keys refused, each
//! value checked where it is read), so a configuration file's `[layer]`
//! table or `[[route]]` table is one of these:
//!
//! ```
//! use tower_terse::{Format, Settings, TerseLayer};
//!
//! let settings: Settings = serde_json::from_str(r#"{
//!     "default_format": "toon",
//!     "exact_token_count": true,
//!     "toon": {"delimiter": "tab"}
//! }"#).unwrap();
//! assert_eq!(settings.default_format, Some(Format::Toon));
//! let layer = TerseLayer::new().settings(&settings);
//! # drop(layer);
//! assert!(serde_json::from_str::<Settings>(r#"{"max_fields": "many"}"#).is_err());
//! assert!(serde_json::from_str::<Settings>(r#"{"nope": 1}"#).is_err());
//! ```
//!
//! Adding a setting is adding one field here (and the line that lays it
//! over the layer's configuration in `middleware/route_settings.rs`).

use std::fmt;
use std::time::Duration;

use http::HeaderName;
use serde::{Deserialize, Deserializer, de::Error as _};

pub use crate::blocking::BlockingLimit;
pub use crate::budget::{BudgetSize, MemoryBudget};
pub use crate::duration::parse_duration;

use crate::format::Format;
use crate::toon::{Delimiter, EncodeOptions};

/// Declares [`Settings`] and, from the same field list, the private
/// `RouteFields` a `[[route]]` table deserializes into: one list of keys, so
/// a setting added to [`Settings`] is a route key too.
macro_rules! settings {
    (
        $(#[$struct_meta:meta])*
        pub struct Settings {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$struct_meta])*
        pub struct Settings {
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        /// A route table as written: `path`, then any setting.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct RouteFields {
            #[serde(deserialize_with = "route_pattern")]
            path: String,
            $($(#[$field_meta])* $field: $ty,)*
        }

        impl From<RouteFields> for Route {
            fn from(fields: RouteFields) -> Route {
                Route {
                    path: fields.path,
                    settings: Settings { $($field: fields.$field,)* },
                }
            }
        }
    };
}

settings! {
/// Settings of the layer, or of the routes matching one pattern: each one
/// set here replaces the layer's, each `None` follows it. Registered for a
/// route with [`TerseLayer::route`](crate::TerseLayer::route), for the whole
/// layer with [`TerseLayer::settings`](crate::TerseLayer::settings).
///
/// ```
/// use tower_terse::settings::RouteSettings;
/// use tower_terse::{Format, TerseLayer};
///
/// let layer = TerseLayer::new()
///     // `fields` only where it is wanted:
///     .fields_enabled(false)
///     .route("/api/v1/events", RouteSettings::new().fields_enabled(true))
///     // A route that answers TOON unless asked otherwise, with a smaller bound:
///     .route("/api/v1/metrics", RouteSettings::new().default_format(Format::Toon).max_body_bytes(1 << 20))
///     // A route the layer leaves alone (downloads, a proxied stream):
///     .route("/files/{*path}", RouteSettings::new().enabled(false));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Settings {
    /// Whether the layer handles these requests at all. Off, requests and
    /// responses pass as if there were no layer: no rewrite, no count, no
    /// `Vary`, no `fields`. Default: on.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// [`TerseLayer::default_format`](crate::TerseLayer::default_format).
    #[serde(default)]
    pub default_format: Option<Format>,
    /// [`TerseLayer::max_body_bytes`](crate::TerseLayer::max_body_bytes),
    /// 1 to [`MAX_BODY_BYTES`].
    #[serde(default, deserialize_with = "body_bytes")]
    pub max_body_bytes: Option<usize>,
    /// [`TerseLayer::max_output_bytes`](crate::TerseLayer::max_output_bytes),
    /// 1 to [`MAX_BODY_BYTES`].
    #[serde(default, deserialize_with = "output_bytes")]
    pub max_output_bytes: Option<usize>,
    /// [`TerseLayer::offload_threshold`](crate::TerseLayer::offload_threshold),
    /// 0 to [`MAX_BODY_BYTES`].
    #[serde(default, deserialize_with = "offload_bytes")]
    pub offload_threshold: Option<usize>,
    /// [`TerseLayer::max_concurrent_rewrites`](crate::TerseLayer::max_concurrent_rewrites),
    /// 1 to 4096.
    #[serde(default, deserialize_with = "rewrites")]
    pub max_concurrent_rewrites: Option<usize>,
    /// [`TerseLayer::max_rewrite_wait`](crate::TerseLayer::max_rewrite_wait),
    /// `"0ms"` to `"60s"`, written as [`parse_duration`] reads it. The
    /// key of earlier releases, `max_rewrite_wait_ms` with a number of
    /// milliseconds, is still read, with a deprecation warning.
    #[serde(default, alias = "max_rewrite_wait_ms", deserialize_with = "rewrite_wait")]
    pub max_rewrite_wait: Option<Duration>,
    /// [`TerseLayer::count_plain_responses`](crate::TerseLayer::count_plain_responses).
    #[serde(default)]
    pub count_plain_responses: Option<bool>,
    /// [`TerseLayer::smart_fallback`](crate::TerseLayer::smart_fallback);
    /// the MCP layer follows it too.
    #[serde(default)]
    pub smart_fallback: Option<bool>,
    /// `TerseLayer::exact_token_count` (with the `exact-tokens` feature;
    /// without it the estimate is used whatever this says); the MCP layer
    /// follows it too.
    #[serde(default)]
    pub exact_token_count: Option<bool>,
    /// [`TerseLayer::fields_enabled`](crate::TerseLayer::fields_enabled).
    #[serde(default)]
    pub fields_enabled: Option<bool>,
    /// [`TerseLayer::max_fields`](crate::TerseLayer::max_fields).
    #[serde(default)]
    pub max_fields: Option<usize>,
    /// [`TerseLayer::max_field_depth`](crate::TerseLayer::max_field_depth).
    #[serde(default)]
    pub max_field_depth: Option<usize>,
    /// [`TerseLayer::max_fields_length`](crate::TerseLayer::max_fields_length).
    #[serde(default)]
    pub max_fields_length: Option<usize>,
    /// [`TerseLayer::list_keys`](crate::TerseLayer::list_keys): at most 64
    /// keys of 1 to 256 bytes.
    #[serde(default, deserialize_with = "list_keys")]
    pub list_keys: Option<Vec<String>>,
    /// [`TerseLayer::id_key`](crate::TerseLayer::id_key), 1 to 256 bytes.
    #[serde(default, deserialize_with = "id_key")]
    pub id_key: Option<String>,
    /// [`TerseLayer::format_param`](crate::TerseLayer::format_param), 1 to
    /// 256 bytes; the MCP layer follows it too.
    #[serde(default, deserialize_with = "format_param")]
    pub format_param: Option<String>,
    /// [`TerseLayer::fields_param`](crate::TerseLayer::fields_param), 1 to
    /// 256 bytes.
    #[serde(default, deserialize_with = "fields_param")]
    pub fields_param: Option<String>,
    /// [`TerseLayer::prefer_header`](crate::TerseLayer::prefer_header); the
    /// MCP layer follows it too.
    #[serde(default, deserialize_with = "header")]
    pub prefer_header: Option<HeaderName>,
    /// How TOON is written ([`TerseLayer::toon_options`](crate::TerseLayer::toon_options));
    /// the MCP layer follows it too.
    #[serde(default)]
    pub toon: ToonSettings,
    /// [`TerseLayer::decode_toon_requests`](crate::TerseLayer::decode_toon_requests).
    #[serde(default)]
    pub decode_toon_requests: Option<bool>,
    /// [`TerseLayer::rewrite_memo_bytes`](crate::TerseLayer::rewrite_memo_bytes),
    /// 0 (off) to [`MAX_BODY_BYTES`].
    #[serde(default, deserialize_with = "memo_bytes")]
    pub rewrite_memo_bytes: Option<usize>,
    /// [`TerseLayer::request_body_timeout`](crate::TerseLayer::request_body_timeout),
    /// `"0s"` (no deadline) to `"1h"`, written as [`parse_duration`] reads it.
    #[serde(default, deserialize_with = "body_timeout")]
    pub request_body_timeout: Option<Duration>,
    /// [`TerseLayer::request_body_min_rate`](crate::TerseLayer::request_body_min_rate),
    /// bytes a second; 0 for no minimum.
    #[serde(default)]
    pub request_body_min_rate: Option<u64>,
}
}

/// The settings of the routes matching one pattern, as a configuration
/// file's `[[route]]` table holds them: an axum-syntax `path` (checked
/// when read) and any [`Settings`] key.
///
/// ```
/// use tower_terse::{Format, TerseLayer, settings::Route};
///
/// let route: Route = serde_json::from_str(r#"{"path": "/api/logs", "default_format": "toon"}"#).unwrap();
/// assert_eq!(route.settings.default_format, Some(Format::Toon));
/// let layer = TerseLayer::new().route(&route.path, route.settings);
/// # drop(layer);
/// assert!(serde_json::from_str::<Route>(r#"{"path": "/a", "nope": 1}"#).is_err());
/// assert!(serde_json::from_str::<Route>(r#"{"path": "/a/{"}"#).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "RouteFields")]
#[non_exhaustive]
pub struct Route {
    /// The route pattern, in axum's syntax.
    pub path: String,
    /// What the matching requests do differently.
    pub settings: Settings,
}

fn route_pattern<'de, D: Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    let path = String::deserialize(de)?;
    crate::compact::RoutePattern::parse(&path).map_err(D::Error::custom)?;
    Ok(path)
}

/// The name [`TerseLayer::route`](crate::TerseLayer::route) takes them by.
pub type RouteSettings = Settings;

/// The TOON encoder's options as settings: each `None` follows the layer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ToonSettings {
    /// `"comma"`, `"tab"` or `"pipe"`.
    #[serde(default, deserialize_with = "delimiter")]
    pub delimiter: Option<Delimiter>,
    /// Spaces per indentation level, 1 to 16.
    #[serde(default, deserialize_with = "indent")]
    pub indent: Option<usize>,
}

impl ToonSettings {
    /// `options` with these settings laid over them.
    pub fn over(&self, mut options: EncodeOptions) -> EncodeOptions {
        if let Some(delimiter) = self.delimiter {
            options = options.with_delimiter(delimiter);
        }
        if let Some(indent) = self.indent {
            options = options.with_indent_size(indent);
        }
        options
    }
}

impl Settings {
    /// No setting of its own: everything follows the layer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`enabled`](Self::enabled).
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = Some(enabled);
        self
    }

    /// Sets [`default_format`](Self::default_format).
    pub fn default_format(mut self, format: Format) -> Self {
        self.default_format = Some(format);
        self
    }

    /// Sets [`fields_enabled`](Self::fields_enabled).
    pub fn fields_enabled(mut self, enabled: bool) -> Self {
        self.fields_enabled = Some(enabled);
        self
    }

    /// Sets [`max_body_bytes`](Self::max_body_bytes).
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.max_body_bytes = Some(limit);
        self
    }

    /// Sets [`max_output_bytes`](Self::max_output_bytes).
    pub fn max_output_bytes(mut self, limit: usize) -> Self {
        self.max_output_bytes = Some(limit);
        self
    }

    /// Sets [`count_plain_responses`](Self::count_plain_responses).
    pub fn count_plain_responses(mut self, enabled: bool) -> Self {
        self.count_plain_responses = Some(enabled);
        self
    }

    /// Sets [`decode_toon_requests`](Self::decode_toon_requests).
    pub fn decode_toon_requests(mut self, enabled: bool) -> Self {
        self.decode_toon_requests = Some(enabled);
        self
    }

    /// Sets [`rewrite_memo_bytes`](Self::rewrite_memo_bytes).
    pub fn rewrite_memo_bytes(mut self, bytes: usize) -> Self {
        self.rewrite_memo_bytes = Some(bytes);
        self
    }

    /// Sets [`smart_fallback`](Self::smart_fallback).
    pub fn smart_fallback(mut self, enabled: bool) -> Self {
        self.smart_fallback = Some(enabled);
        self
    }

    /// Sets [`exact_token_count`](Self::exact_token_count).
    pub fn exact_token_count(mut self, enabled: bool) -> Self {
        self.exact_token_count = Some(enabled);
        self
    }

    /// Sets both [`toon`](Self::toon) options from `options`.
    pub fn toon_options(mut self, options: EncodeOptions) -> Self {
        self.toon = ToonSettings {
            delimiter: Some(options.delimiter),
            indent: Some(options.indent_size),
        };
        self
    }
}

/// A `usize` of `key` read by serde, refused with the range it must be
/// in when it is outside it.
pub(crate) fn in_range<'de, D: Deserializer<'de>>(
    de: D,
    key: &str,
    range: std::ops::RangeInclusive<usize>,
) -> Result<usize, D::Error> {
    let n = usize::deserialize(de)?;
    if range.contains(&n) {
        return Ok(n);
    }
    Err(D::Error::custom(format!(
        "`{key}` must be between {} and {}, not {n}",
        range.start(),
        range.end()
    )))
}

/// The largest byte limit a configuration may set for one body: a
/// configured limit is what a layer may hold per response, so a typo of
/// a few digits must not let one client pin the machine's memory.
pub const MAX_BODY_BYTES: usize = 1 << 30;

fn body_bytes<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    in_range(de, "max_body_bytes", 1..=MAX_BODY_BYTES).map(Some)
}

fn output_bytes<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    in_range(de, "max_output_bytes", 1..=MAX_BODY_BYTES).map(Some)
}

fn offload_bytes<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    in_range(de, "offload_threshold", 0..=MAX_BODY_BYTES).map(Some)
}

fn memo_bytes<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    in_range(de, "rewrite_memo_bytes", 0..=MAX_BODY_BYTES).map(Some)
}

fn rewrites<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    in_range(de, "max_concurrent_rewrites", 1..=4096).map(Some)
}

/// The longest [`Settings::max_rewrite_wait`]: a rewrite waiting longer
/// holds its client longer than rewriting it would ever save.
const MAX_REWRITE_WAIT: Duration = Duration::from_secs(60);

fn body_timeout<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(de)?;
    let timeout = parse_duration(&text).map_err(D::Error::custom)?;
    if timeout > Duration::from_secs(3600) {
        return Err(D::Error::custom(format!(
            "`request_body_timeout` must be at most \"1h\", not {text:?}"
        )));
    }
    Ok(Some(timeout))
}

fn rewrite_wait<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Duration>, D::Error> {
    let wait = de.deserialize_any(DurationVisitor("max_rewrite_wait"))?;
    if wait > MAX_REWRITE_WAIT {
        return Err(D::Error::custom(format!(
            "`max_rewrite_wait` must be at most \"60s\", not \"{}\"",
            crate::duration::display(wait)
        )));
    }
    Ok(Some(wait))
}

/// A duration as a string (`"500ms"`), or, as earlier releases wrote it,
/// a number of milliseconds (read with a deprecation warning).
struct DurationVisitor(&'static str);

impl<'de> serde::de::Visitor<'de> for DurationVisitor {
    type Value = Duration;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a duration such as \"500ms\" or \"5s\"")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Duration, E> {
        parse_duration(text).map_err(E::custom)
    }

    fn visit_u64<E: serde::de::Error>(self, ms: u64) -> Result<Duration, E> {
        tracing::warn!(
            key = self.0,
            "a duration as a number of milliseconds is deprecated: write \"{ms}ms\""
        );
        Ok(Duration::from_millis(ms))
    }

    fn visit_i64<E: serde::de::Error>(self, ms: i64) -> Result<Duration, E> {
        let ms = u64::try_from(ms).map_err(|_| E::custom("a duration cannot be negative"))?;
        self.visit_u64(ms)
    }
}

fn indent<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    in_range(de, "indent", 1..=16).map(Some)
}

fn name<'de, D: Deserializer<'de>>(de: D, key: &str) -> Result<Option<String>, D::Error> {
    let name = String::deserialize(de)?;
    if name.is_empty() || name.len() > 256 {
        return Err(D::Error::custom(format!(
            "`{key}` must be 1 to 256 bytes long"
        )));
    }
    Ok(Some(name))
}

fn id_key<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    name(de, "id_key")
}

fn format_param<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    name(de, "format_param")
}

fn fields_param<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    name(de, "fields_param")
}

fn list_keys<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Vec<String>>, D::Error> {
    let keys = Vec::<String>::deserialize(de)?;
    if keys.len() > 64 || keys.iter().any(|k| k.is_empty() || k.len() > 256) {
        return Err(D::Error::custom(
            "`list_keys` takes at most 64 keys, each 1 to 256 bytes long",
        ));
    }
    Ok(Some(keys))
}

fn header<'de, D: Deserializer<'de>>(de: D) -> Result<Option<HeaderName>, D::Error> {
    let name = String::deserialize(de)?;
    HeaderName::from_bytes(name.as_bytes())
        .map(Some)
        .map_err(|_| {
            D::Error::custom(format!(
                "`prefer_header` {name:?} is not a valid header name"
            ))
        })
}

fn delimiter<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Delimiter>, D::Error> {
    let name = String::deserialize(de)?;
    match name.as_str() {
        "comma" | "," => Ok(Some(Delimiter::Comma)),
        "tab" | "\t" => Ok(Some(Delimiter::Tab)),
        "pipe" | "|" => Ok(Some(Delimiter::Pipe)),
        _ => Err(D::Error::custom(format!(
            "unknown TOON delimiter {name:?}; expected \"comma\", \"tab\" or \"pipe\""
        ))),
    }
}

#[cfg(test)]
mod duration_tests {
    use super::*;

    #[test]
    fn the_rewrite_wait_is_a_duration_and_the_old_key_still_reads() {
        let read = |text: &str| serde_json::from_str::<Settings>(text).map(|s| s.max_rewrite_wait);
        assert_eq!(
            read(r#"{"max_rewrite_wait": "250ms"}"#).unwrap(),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            read(r#"{"max_rewrite_wait": "1m"}"#).unwrap(),
            Some(Duration::from_secs(60))
        );
        // Earlier releases' key, in milliseconds.
        assert_eq!(
            read(r#"{"max_rewrite_wait_ms": 40}"#).unwrap(),
            Some(Duration::from_millis(40))
        );
        let too_long = read(r#"{"max_rewrite_wait": "61s"}"#)
            .unwrap_err()
            .to_string();
        assert!(too_long.contains("at most \"60s\""), "{too_long}");
        assert!(read(r#"{"max_rewrite_wait": "soon"}"#).is_err());
        assert!(read(r#"{"max_rewrite_wait_ms": -1}"#).is_err());
    }
}
