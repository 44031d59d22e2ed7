//! The rendering core for callers outside a layer: [`render`],
//! [`render_json`] and [`render_json_with`] give a body the bytes and the
//! TOON-or-JSON choice the layer would.

use serde_json::Value;

use super::Outcome;
use super::settings::RenderSettings;
use crate::format::Format;
use crate::settings::Settings;
use crate::toon;

/// Renders a JSON value in `format`, the way the layer renders a response.
///
/// For agent frameworks that format tool results themselves: JSON stays
/// compact JSON; TOON is used only when it takes fewer tokens than the JSON,
/// the rule of the layer's smart fallback ([`TerseLayer::smart_fallback`]).
/// This function knows no layer: it always encodes with the default
/// [`EncodeOptions`](crate::toon::EncodeOptions) and decides with [`tokens::choose`](crate::tokens::choose)
/// (on the estimate, near ties on exact counts), whatever a layer is configured with
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
/// use tower_terse::format::{Format, render};
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
    match render_json_with(&json, format, &Settings::new()) {
        Ok((text, _)) => text,
        // Cannot happen: a value's text is JSON.
        Err(_) => json,
    }
}

/// Renders JSON text in `format`, the way the layer renders a response body.
///
/// JSON comes back as it was given (after checking that it is JSON). TOON
/// is used only when it takes fewer tokens than the same JSON minified;
/// otherwise that JSON comes back, minified when it had whitespace between
/// its tokens (see [`minify_json`]), since that is then the cheapest.
/// Text that is not JSON is an error.
/// `Compact` returns the JSON, as [`render`] does. Like [`render`], it uses
/// the default TOON options and the token estimate, not a layer's
/// configuration.
///
/// ```
/// use tower_terse::format::{Format, render_json};
///
/// let json = r#"[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"},{"id":3,"name":"Grace"}]"#;
/// let text = render_json(json, Format::Toon).unwrap();
/// assert_eq!(text, "[3]{id,name}:\n  1,Ada\n  2,Linus\n  3,Grace");
/// assert_eq!(render_json(r#"{ "a": 1 }"#, Format::Json).unwrap(), r#"{ "a": 1 }"#);
/// // Nested records cost more as TOON than as JSON minified.
/// let pretty = "{\n  \"a\": {\n    \"b\": [1.0, {\"c\": 2}]\n  }\n}";
/// assert_eq!(render_json(pretty, Format::Toon).unwrap(), r#"{"a":{"b":[1.0,{"c":2}]}}"#);
/// assert!(render_json("{oops", Format::Toon).is_err());
/// ```
pub fn render_json(json: &str, format: Format) -> Result<String, toon::Error> {
    render_json_with(json, format, &Settings::new()).map(|(text, _)| text)
}

/// Renders JSON text in `format` with a layer's [`Settings`], as
/// [`TerseLayer`](crate::TerseLayer) with those settings renders a
/// response body, and says what it decided.
///
/// [`render_json`] is this with the default settings. The `terse encode`
/// command calls it with the smart fallback off, so it always writes TOON.
/// A JSON answer (the smart fallback, or a limit) comes back as the text
/// given, or that text minified when that takes fewer tokens
/// ([`Outcome::minified`] says which).
///
/// ```
/// use tower_terse::Settings;
/// use tower_terse::format::{Format, render_json_with};
/// use tower_terse::toon::{Delimiter, EncodeOptions};
///
/// let settings = Settings::new()
///     .smart_fallback(false)
///     .toon_options(EncodeOptions::new().with_delimiter(Delimiter::Pipe));
/// let (text, outcome) = render_json_with(r#"{"tags":["a","b"]}"#, Format::Toon, &settings)?;
/// assert_eq!(text, "tags[2|]: a|b");
/// assert_eq!(outcome.served, Some(Format::Toon));
/// assert!(outcome.tokens.is_some());
/// # Ok::<(), tower_terse::toon::Error>(())
/// ```
///
/// # Errors
///
/// The parser's error when `json` is not JSON.
pub fn render_json_with(
    json: &str,
    format: Format,
    settings: &Settings,
) -> Result<(String, Outcome), toon::Error> {
    let mut core = RenderSettings::default();
    core.apply(settings);
    if let Some(limit) = settings.max_output_bytes {
        core.max_output_bytes = limit;
    }
    let plan = super::RenderPlan {
        list_keys: settings.list_keys.as_deref().unwrap_or(&[]),
        id_key: settings
            .id_key
            .as_deref()
            .unwrap_or(crate::defaults::ID_KEY),
        ..super::RenderPlan::new(format, true)
    };
    let rendered = super::render(json.as_bytes(), None, &plan, &core);
    if rendered.outcome.served.is_none() {
        // The core says only that it is not JSON; the parser says where.
        serde_json::from_str::<serde::de::IgnoredAny>(json)?;
    }
    let text = rendered.body.unwrap_or_else(|| json.to_owned());
    Ok((text, rendered.outcome))
}

/// `json` minified as the layer minifies a body it serves to save tokens:
/// the whitespace RFC 8259 §2 allows between tokens dropped, every other
/// byte kept (keys, key order, string escapes, and numbers digit for digit:
/// no value is parsed and written again). Borrowed when there is nothing
/// to drop.
///
/// The text is read as JSON, not checked: text that is not JSON still
/// only loses blanks outside what reads as its strings.
///
/// ```
/// use tower_terse::format::minify_json;
///
/// let pretty = "{\n  \"price\": 1.0,\n  \"big\": 12345678901234567890,\n  \"name\": \"a  b\"\n}\n";
/// assert_eq!(
///     minify_json(pretty),
///     r#"{"price":1.0,"big":12345678901234567890,"name":"a  b"}"#
/// );
/// assert!(matches!(minify_json("[1,2]"), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn minify_json(json: &str) -> std::borrow::Cow<'_, str> {
    match super::minify::minify(json) {
        Some(minified) => std::borrow::Cow::Owned(minified),
        None => std::borrow::Cow::Borrowed(json),
    }
}
