//! [`RouteSettings`]: what one route does differently from the layer.

use std::sync::Arc;

use terse_toon::EncodeOptions;

use super::Config;
use crate::compact::{RoutePattern, RouteTable};
use crate::format::Format;

/// Settings for the routes matching one pattern, registered with
/// [`TerseLayer::route`](super::TerseLayer::route). Each setting left unset
/// follows the layer's own, whatever order the builder calls come in.
///
/// ```
/// use tower_terse::{Format, RouteSettings, TerseLayer};
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouteSettings {
    enabled: Option<bool>,
    default_format: Option<Format>,
    fields_enabled: Option<bool>,
    max_body_bytes: Option<usize>,
    max_output_bytes: Option<usize>,
    count_plain: Option<bool>,
    smart_fallback: Option<bool>,
    toon_options: Option<EncodeOptions>,
}

impl RouteSettings {
    /// No setting of its own: everything follows the layer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the layer handles these routes at all. Off, requests and
    /// responses pass as if there were no layer: no rewrite, no count, no
    /// `Vary`, no `fields`. Default: on.
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = Some(enabled);
        self
    }

    /// The format served when a request asks for none
    /// ([`TerseLayer::default_format`](super::TerseLayer::default_format)).
    pub fn default_format(mut self, format: Format) -> Self {
        self.default_format = Some(format);
        self
    }

    /// Whether `?fields=` is read here
    /// ([`TerseLayer::fields_enabled`](super::TerseLayer::fields_enabled)).
    pub fn fields_enabled(mut self, enabled: bool) -> Self {
        self.fields_enabled = Some(enabled);
        self
    }

    /// The largest body read to rewrite
    /// ([`TerseLayer::max_body_bytes`](super::TerseLayer::max_body_bytes)).
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.max_body_bytes = Some(limit);
        self
    }

    /// The largest body written by a rewrite
    /// ([`TerseLayer::max_output_bytes`](super::TerseLayer::max_output_bytes)).
    pub fn max_output_bytes(mut self, limit: usize) -> Self {
        self.max_output_bytes = Some(limit);
        self
    }

    /// Whether plain JSON is read and counted
    /// ([`TerseLayer::count_plain_responses`](super::TerseLayer::count_plain_responses)).
    pub fn count_plain_responses(mut self, enabled: bool) -> Self {
        self.count_plain = Some(enabled);
        self
    }

    /// Whether JSON is served when TOON would not be cheaper
    /// ([`TerseLayer::smart_fallback`](super::TerseLayer::smart_fallback)).
    pub fn smart_fallback(mut self, enabled: bool) -> Self {
        self.smart_fallback = Some(enabled);
        self
    }

    /// How TOON is written here
    /// ([`TerseLayer::toon_options`](super::TerseLayer::toon_options)).
    pub fn toon_options(mut self, options: EncodeOptions) -> Self {
        self.toon_options = Some(options);
        self
    }

    /// `config` with these settings laid over it.
    fn apply(&self, config: &mut Config) {
        let RouteSettings {
            enabled,
            default_format,
            fields_enabled,
            max_body_bytes,
            max_output_bytes,
            count_plain,
            smart_fallback,
            toon_options,
        } = self;
        set(&mut config.enabled, enabled);
        set(&mut config.default_format, default_format);
        set(&mut config.fields_enabled, fields_enabled);
        set(&mut config.max_body_bytes, max_body_bytes);
        if max_output_bytes.is_some() {
            config.max_output_bytes = *max_output_bytes;
        }
        set(&mut config.count_plain, count_plain);
        set(&mut config.smart_fallback, smart_fallback);
        set(&mut config.toon_options, toon_options);
    }
}

fn set<T: Clone>(field: &mut T, value: &Option<T>) {
    if let Some(value) = value {
        *field = value.clone();
    }
}

/// The layer's settings per route, resolved once when the layer wraps a
/// service: each registered pattern maps to a whole [`Config`], so a request
/// looks its settings up once and reads them as it reads the layer's.
#[derive(Debug, Clone, Default)]
pub(crate) struct RouteConfigs {
    /// As registered, in order; validated on registration.
    registered: Vec<(String, RouteSettings)>,
    /// Filled by [`resolve`](Config::resolve); empty on the builder's copy.
    resolved: RouteTable<Arc<Config>>,
}

impl RouteConfigs {
    pub(crate) fn register(
        &mut self,
        pattern: &str,
        settings: RouteSettings,
    ) -> Result<(), crate::compact::RouteError> {
        // Validates the pattern now, so that resolving cannot fail.
        RoutePattern::parse(pattern)?;
        self.registered.push((pattern.to_owned(), settings));
        Ok(())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.registered.is_empty()
    }

    /// The settings for a request: those of the most specific registered
    /// pattern it matches, if any.
    pub(crate) fn lookup(&self, matched: Option<&str>, path: &str) -> Option<&Arc<Config>> {
        self.resolved
            .lookup_route(matched, path)
            .map(|(_, config)| config)
    }
}

impl Config {
    /// This configuration with each route's settings resolved against it.
    pub(crate) fn resolve(&self) -> Config {
        let mut base = self.clone();
        base.routes = RouteConfigs::default();
        let mut resolved = RouteTable::new();
        for (pattern, settings) in &self.routes.registered {
            let mut config = base.clone();
            settings.apply(&mut config);
            // Validated on registration.
            let _ = resolved.insert(pattern, Arc::new(config));
        }
        base.routes = RouteConfigs {
            registered: self.routes.registered.clone(),
            resolved,
        };
        base
    }
}
