//! Laying [`Settings`] over the layer's configuration: for the whole layer
//! ([`TerseLayer::settings`](super::TerseLayer::settings)) and per route
//! ([`TerseLayer::route`](super::TerseLayer::route)).

use std::sync::Arc;

use http::HeaderValue;

use super::LayerConfig;
use super::headers::VaryNames;
use super::memoized::{MemoSlot, RewriteMemo};
use crate::compact::{RoutePattern, RouteTable};
use crate::settings::Settings;

impl LayerConfig {
    /// This configuration with `settings` laid over it. The destructuring
    /// names every field, so a new setting does not compile until it
    /// applies here.
    pub(crate) fn apply(&mut self, settings: &Settings) {
        let Settings {
            enabled,
            default_format,
            max_body_bytes,
            max_output_bytes,
            offload_threshold,
            max_concurrent_rewrites,
            max_rewrite_wait,
            count_plain_responses,
            smart_fallback,
            exact_token_count,
            fields_enabled,
            max_fields,
            max_field_depth,
            max_fields_length,
            list_keys,
            id_key,
            format_param,
            fields_param,
            prefer_header,
            toon,
            decode_toon_requests,
            rewrite_memo_bytes,
            request_body_timeout,
            request_body_min_rate,
        } = settings;
        set(&mut self.enabled, enabled);
        set(&mut self.default_format, default_format);
        set(&mut self.max_body_bytes, max_body_bytes);
        if max_output_bytes.is_some() {
            self.max_output_bytes = *max_output_bytes;
        }
        set(&mut self.offload_threshold, offload_threshold);
        // `max_concurrent_rewrites` makes a limit of its own: its slots are
        // not shared with the layer's (or with other layers given the same).
        let _ = (max_concurrent_rewrites, max_rewrite_wait);
        self.limit = self.limit.clone().with_settings(settings);
        set(&mut self.count_plain, count_plain_responses);
        set(&mut self.rewrite_memo_bytes, rewrite_memo_bytes);
        // The settings that shape output are the render settings' to read.
        let _ = (smart_fallback, exact_token_count, toon);
        self.render.apply(settings);
        set(&mut self.fields_enabled, fields_enabled);
        set(&mut self.decode_toon_requests, decode_toon_requests);
        set(&mut self.request_body_timeout, request_body_timeout);
        set(&mut self.request_body_min_rate, request_body_min_rate);
        set(&mut self.fields_limits.max_paths, max_fields);
        set(&mut self.fields_limits.max_depth, max_field_depth);
        set(&mut self.fields_limits.max_length, max_fields_length);
        set(&mut self.list_keys, list_keys);
        set(&mut self.id_key, id_key);
        set(&mut self.format_param, format_param);
        set(&mut self.fields_param, fields_param);
        if let Some(name) = prefer_header {
            self.vary = VaryNames::new(HeaderValue::from(name.clone()));
            self.prefer_header = name.clone();
        }
    }

    /// Settles what follows other settings: the output bound follows
    /// `max_body_bytes` unless set.
    fn settle(&mut self) {
        self.render.max_output_bytes = self.max_output_bytes.unwrap_or(self.max_body_bytes);
    }
}

fn set<T: Clone>(field: &mut T, value: &Option<T>) {
    if let Some(value) = value {
        *field = value.clone();
    }
}

/// The layer's settings per route, resolved once when the layer wraps a
/// service: each registered pattern maps to a whole [`LayerConfig`], so a request
/// looks its settings up once and reads them as it reads the layer's.
#[derive(Debug, Clone, Default)]
pub(crate) struct RouteConfigs {
    /// As registered, in order; validated on registration.
    registered: Vec<(String, Settings)>,
    /// Filled by [`resolve`](LayerConfig::resolve); empty on the builder's copy.
    resolved: RouteTable<Arc<LayerConfig>>,
}

impl RouteConfigs {
    pub(crate) fn register(
        &mut self,
        pattern: &str,
        settings: Settings,
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
    pub(crate) fn lookup(&self, matched: Option<&str>, path: &str) -> Option<&Arc<LayerConfig>> {
        self.resolved
            .lookup_route(matched, path)
            .map(|(_, config)| config)
    }
}

impl LayerConfig {
    /// This configuration with each route's settings resolved against it,
    /// and a rewrite memo of its own, shared by the routes whose
    /// `rewrite_memo_bytes` is the layer's (each route's entries kept
    /// apart by a scope of its own).
    pub(crate) fn resolve(&self) -> LayerConfig {
        let mut base = self.clone();
        base.settle();
        base.routes = RouteConfigs::default();
        base.memo = MemoSlot {
            table: RewriteMemo::new(base.rewrite_memo_bytes, base.budget.clone()),
            scope: 0,
        };
        let mut resolved = RouteTable::new();
        for (scope, (pattern, settings)) in (1..).zip(&self.routes.registered) {
            let mut config = base.clone();
            config.apply(settings);
            config.settle();
            config.memo = if config.rewrite_memo_bytes == base.rewrite_memo_bytes {
                MemoSlot {
                    table: base.memo.table.clone(),
                    scope,
                }
            } else {
                MemoSlot {
                    table: RewriteMemo::new(config.rewrite_memo_bytes, config.budget.clone()),
                    scope: 0,
                }
            };
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
