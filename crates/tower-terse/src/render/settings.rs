//! [`RenderSettings`]: how a body renders, whoever asks. The HTTP layer's
//! (and each route's) resolved configuration and the MCP layer's each own
//! one, and the rendering core borrows it as it stands: no copy per request.
//!
//! A leaf: the core, the deciding rule and both layers read it, and it
//! reads none of them.

use super::log_gate::LogGate;
use crate::settings::Settings;
use crate::toon::EncodeOptions;

/// The settings that shape output.
#[derive(Debug, Clone)]
pub(crate) struct RenderSettings {
    pub(crate) toon_options: EncodeOptions,
    /// Serve TOON only when it takes fewer tokens than the JSON.
    pub(crate) smart_fallback: bool,
    /// Count with the o200k_base tokenizer instead of the estimate
    /// (with the `exact-tokens` feature; ignored without it).
    pub(crate) exact_tokens: bool,
    /// The largest body written; past it the JSON goes out unchanged.
    pub(crate) max_output_bytes: usize,
    /// Holds back repeated warnings about records that do not fit.
    pub(crate) log_gate: Option<LogGate>,
    /// Count the handler's JSON of a rewritten body even when no report
    /// listens (`Outcome::json_tokens`), and count every body exactly (with
    /// the `exact-tokens` feature): MCP's `_meta` counts read them, and
    /// they are the counts the format was chosen on.
    pub(crate) count_json: bool,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            toon_options: EncodeOptions::default(),
            smart_fallback: true,
            exact_tokens: false,
            max_output_bytes: usize::MAX,
            log_gate: None,
            count_json: false,
        }
    }
}

impl RenderSettings {
    /// Lays the public [`Settings`] that shape output over these:
    /// `smart_fallback`, `exact_token_count` and `toon`. The one place the
    /// HTTP layer (and each route), the MCP layer and
    /// [`render_json_with`](crate::format::render_json_with) read them.
    pub(crate) fn apply(&mut self, settings: &Settings) {
        if let Some(enabled) = settings.smart_fallback {
            self.smart_fallback = enabled;
        }
        if let Some(enabled) = settings.exact_token_count {
            self.exact_tokens = enabled;
        }
        self.toon_options = settings.toon.over(self.toon_options.clone());
    }

    /// Whether every count is exact: asked for, or `count_json`, with the
    /// `exact-tokens` feature.
    pub(crate) fn exact(&self) -> bool {
        cfg!(feature = "exact-tokens") && (self.exact_tokens || self.count_json)
    }

    /// The tokens of `body` as `X-Token-Count` counts them.
    pub(crate) fn count_tokens(&self, body: &[u8]) -> usize {
        #[cfg(feature = "exact-tokens")]
        if self.exact() {
            // Every body counted here was checked as UTF-8 JSON or written
            // as text; estimating is only the fallback for a surprise.
            if let Some(text) = crate::scan::utf8(body) {
                return crate::tokens::exact(text);
            }
        }
        crate::tokens::estimate(body)
    }
}

/// RenderSettings with every default and `options`, for unit tests.
#[cfg(test)]
pub(crate) fn test_settings(options: &EncodeOptions) -> RenderSettings {
    RenderSettings {
        toon_options: options.clone(),
        ..RenderSettings::default()
    }
}
