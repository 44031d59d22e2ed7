//! The tower middleware: [`TerseLayer`] wraps a service in [`Terse`].
//!
//! The request side negotiates, and decodes a body sent as TOON into JSON
//! (every other request passes on untouched); the response side decides from the headers whether the body may be rewritten,
//! reads it only when a rewrite or a token count was asked for, and streams
//! everything else through untouched.

pub(crate) mod body;
mod complete;
mod future;
mod headers;
mod layer;
mod memo;
mod memoized;
mod not_modified;
mod offload;
mod plan;
mod request_body;
mod rewrite;
mod route_resource;
mod route_settings;
mod service;
#[cfg(test)]
mod tests;
mod toon_request;
mod toon_shape;

pub use body::TerseBody;
pub use future::ResponseFuture;
pub use layer::TerseLayer;
pub use request_body::TerseRequestBody;
pub use service::Terse;
pub use toon_request::RequestTokens;

use std::sync::Arc;

use http::{HeaderName, HeaderValue};

use crate::compact::RouteTable;
use crate::fields::FieldsLimits;
use crate::format::Format;
use crate::render::log_gate::LogGate;
use crate::render::settings::RenderSettings;
use headers::VaryNames;
use route_resource::RouteResource;

/// Everything the builder sets, shared by every clone of the service.
#[derive(Debug, Clone)]
pub(crate) struct LayerConfig {
    /// Off for routes registered with `RouteSettings::enabled(false)`.
    pub(crate) enabled: bool,
    /// Settings of chosen routes.
    pub(crate) routes: route_settings::RouteConfigs,
    pub(crate) default_format: Format,
    pub(crate) max_body_bytes: usize,
    /// The largest TOON text or compact envelope the layer writes; `None`
    /// follows `max_body_bytes`.
    pub(crate) max_output_bytes: Option<usize>,
    /// Rewrites whose work is at least this many bytes run on the
    /// blocking pool.
    pub(crate) offload_threshold: usize,
    /// How many of those rewrites may run at once, and how long one waits.
    pub(crate) limit: crate::blocking::BlockingLimit,
    /// The bound on the bytes all rewrites in flight hold, if any.
    pub(crate) budget: Option<crate::budget::MemoryBudget>,
    /// The bound on the bytes the rewrite memo holds; 0 for none.
    pub(crate) rewrite_memo_bytes: usize,
    /// The table of finished rewrites, made when the layer wraps a service.
    pub(crate) memo: memoized::MemoSlot,
    /// Read and count plain JSON responses nobody asked to rewrite.
    pub(crate) count_plain: bool,
    /// Decode request bodies sent as TOON into JSON for the service.
    pub(crate) decode_toon_requests: bool,
    /// The longest wait between two reads of a TOON request body (and its
    /// grace before `request_body_min_rate` applies); zero for none.
    pub(crate) request_body_timeout: std::time::Duration,
    /// The slowest a TOON request body may arrive, in bytes a second, after
    /// its first `request_body_timeout`; 0 for no minimum.
    pub(crate) request_body_min_rate: u64,
    /// Whether the layer reads `?fields=` at all.
    pub(crate) fields_enabled: bool,
    /// How large a `?fields=` list may be.
    pub(crate) fields_limits: FieldsLimits,
    /// How bodies render: what the rendering core borrows as it stands.
    /// Its `max_output_bytes` is the field of that name resolved
    /// ([`resolve`](Self::resolve)).
    pub(crate) render: RenderSettings,
    pub(crate) list_keys: Vec<String>,
    pub(crate) id_key: String,
    pub(crate) format_param: String,
    pub(crate) fields_param: String,
    pub(crate) prefer_header: HeaderName,
    /// The header names responses vary on, ready to merge into `Vary`.
    pub(crate) vary: VaryNames,
    /// The routes that answer `format=compact` with lines.
    pub(crate) resources: RouteTable<Arc<RouteResource>>,
}

impl LayerConfig {
    /// The settings for `req`: those of the route it matches, if it has any
    /// of its own.
    pub(crate) fn for_request<'a, B>(self: &'a Arc<Self>, req: &http::Request<B>) -> &'a Arc<Self> {
        if self.routes.is_empty() {
            return self;
        }
        self.routes
            .lookup(plan::matched_path(req), req.uri().path())
            .unwrap_or(self)
    }
}

impl Default for LayerConfig {
    fn default() -> Self {
        LayerConfig {
            enabled: true,
            routes: route_settings::RouteConfigs::default(),
            default_format: Format::Json,
            max_body_bytes: crate::defaults::MAX_BODY_BYTES,
            max_output_bytes: None,
            offload_threshold: crate::defaults::OFFLOAD_THRESHOLD,
            limit: crate::blocking::BlockingLimit::per_core(),
            budget: None,
            rewrite_memo_bytes: crate::defaults::REWRITE_MEMO_BYTES,
            memo: memoized::MemoSlot::default(),
            fields_limits: FieldsLimits::default(),
            fields_enabled: true,
            decode_toon_requests: true,
            request_body_timeout: crate::defaults::REQUEST_BODY_TIMEOUT,
            request_body_min_rate: crate::defaults::REQUEST_BODY_MIN_RATE,
            count_plain: true,
            render: RenderSettings {
                max_output_bytes: crate::defaults::MAX_BODY_BYTES,
                log_gate: Some(LogGate::default()),
                ..RenderSettings::default()
            },
            list_keys: crate::defaults::LIST_KEYS
                .iter()
                .map(|&key| key.to_owned())
                .collect(),
            id_key: crate::defaults::ID_KEY.to_owned(),
            format_param: crate::defaults::FORMAT_PARAM.to_owned(),
            fields_param: crate::defaults::FIELDS_PARAM.to_owned(),
            prefer_header: crate::defaults::PREFER_HEADER_NAME,
            vary: VaryNames::new(HeaderValue::from_static(crate::defaults::PREFER_HEADER)),
            resources: RouteTable::new(),
        }
    }
}
