//! [`TerseLayer`] and its builder methods.

use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use tower_layer::Layer;

use super::headers::VaryNames;
use super::{Config, Terse};
use crate::format::Format;
use crate::toon::EncodeOptions;

/// A tower layer that serves JSON responses as TOON (and later compact lines)
/// when a client asks for it, with an `X-Token-Count` header.
///
/// ```
/// use axum::{Json, Router, routing::get};
/// use terse::{Format, TerseLayer};
///
/// let app: Router = Router::new()
///     .route("/users", get(|| async { Json(serde_json::json!([{"id": 1}])) }))
///     .layer(TerseLayer::new().default_format(Format::Json).max_body_bytes(1 << 20));
/// ```
///
/// Cloning is cheap: the configuration sits behind an `Arc`.
#[derive(Debug, Clone, Default)]
pub struct TerseLayer {
    config: Arc<Config>,
}

impl TerseLayer {
    /// A layer with the defaults: JSON unless asked, 8 MiB limit, TOON with
    /// commas and two-space indent, smart fallback on, list keys `data`,
    /// `items`, `results`, id key `id`, `?format=`, `?fields=`, `X-Prefer-Format`.
    pub fn new() -> Self {
        Self::default()
    }

    fn config(&mut self) -> &mut Config {
        Arc::make_mut(&mut self.config)
    }

    /// The format served when a request asks for none.
    pub fn default_format(mut self, format: Format) -> Self {
        self.config().default_format = format;
        self
    }

    /// The largest body the layer reads to rewrite; larger bodies stream
    /// through unchanged. Default: 8 MiB.
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.config().max_body_bytes = limit;
        self
    }

    /// How TOON is written (delimiter, indent).
    ///
    /// ```
    /// use terse::{TerseLayer, toon::{Delimiter, EncodeOptions}};
    ///
    /// let layer = TerseLayer::new()
    ///     .toon_options(EncodeOptions { delimiter: Delimiter::Tab, ..Default::default() });
    /// ```
    pub fn toon_options(mut self, options: EncodeOptions) -> Self {
        self.config().toon_options = options;
        self
    }

    /// Serve the original JSON when TOON would not take fewer tokens. Default: on.
    pub fn smart_fallback(mut self, enabled: bool) -> Self {
        self.config().smart_fallback = enabled;
        self
    }

    /// The keys under which an object body holds its list of records, tried
    /// in order. Default: `data`, `items`, `results`.
    pub fn list_keys<I, K>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = K>,
        K: Into<String>,
    {
        self.config().list_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// The key that identifies a record; `?fields=` always keeps it. Default: `id`.
    pub fn id_key(mut self, key: impl Into<String>) -> Self {
        self.config().id_key = key.into();
        self
    }

    /// The query parameter that names a format. Default: `format`.
    pub fn format_param(mut self, name: impl Into<String>) -> Self {
        self.config().format_param = name.into();
        self
    }

    /// The query parameter that lists fields to keep. Default: `fields`.
    pub fn fields_param(mut self, name: impl Into<String>) -> Self {
        self.config().fields_param = name.into();
        self
    }

    /// The request header that names a format. Default: `X-Prefer-Format`.
    ///
    /// ```
    /// use http::HeaderName;
    /// use terse::TerseLayer;
    ///
    /// let layer = TerseLayer::new().prefer_header(HeaderName::from_static("x-agent-format"));
    /// ```
    pub fn prefer_header(mut self, name: HeaderName) -> Self {
        let config = self.config();
        config.vary = VaryNames::new(HeaderValue::from(name.clone()));
        config.prefer_header = name;
        self
    }
}

impl<S> Layer<S> for TerseLayer {
    type Service = Terse<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Terse::from_parts(inner, self.config.clone())
    }
}
