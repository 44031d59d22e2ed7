//! The HTTP layer's call into the rendering core: the route's settings and
//! the request's plan, translated.

use http::HeaderValue;

use super::LayerConfig;
use super::plan::Plan;
use crate::format::Format;
use crate::render::{self, LineStyle, RecordLines, RenderSettings, Rendered, Rendering, Tie};

impl Format {
    /// The content type of a body rewritten to this format; `None` keeps
    /// the handler's (JSON projected by `fields` is still its JSON).
    pub(crate) fn rewritten_content_type(self) -> Option<HeaderValue> {
        match self {
            Format::Json => None,
            Format::Toon => Some(HeaderValue::from_static("text/toon; charset=utf-8")),
            Format::Compact => Some(HeaderValue::from_static("application/json")),
        }
    }
}

impl LayerConfig {
    /// The settings the rendering core reads, borrowed.
    pub(crate) fn render_settings(&self) -> RenderSettings<'_> {
        RenderSettings {
            toon_options: &self.toon_options,
            smart_fallback: self.smart_fallback,
            #[cfg(feature = "exact-tokens")]
            exact_tokens: self.exact_tokens,
            #[cfg(not(feature = "exact-tokens"))]
            exact_tokens: false,
            max_output_bytes: self.max_output_bytes(),
            list_keys: &self.list_keys,
            id_key: &self.id_key,
            log_gate: Some(&self.log_gate),
            count_json: false,
        }
    }
}

/// Renders `body` in the plan's format. Its content type is not asked
/// again: the layer reads only bodies its headers say are JSON
/// (`rewritable`).
pub(crate) fn rewrite(config: &LayerConfig, plan: &Plan, body: &[u8]) -> Rendered {
    with_core(config, plan, |core_plan, settings| {
        render::render(body, None, core_plan, settings)
    })
}

/// [`rewrite`], leaving a near tie whose exact counts take more than
/// `count_here` work ([`render::render_within`]) for [`settle`].
pub(crate) fn rewrite_within(
    config: &LayerConfig,
    plan: &Plan,
    body: &[u8],
    count_here: usize,
) -> Rendering {
    with_core(config, plan, |core_plan, settings| {
        render::render_within(body, None, core_plan, settings, count_here)
    })
}

/// Settles a near tie [`rewrite_within`] left ([`render::settle`]).
pub(crate) fn settle(config: &LayerConfig, plan: &Plan, body: &[u8], tie: Tie) -> Rendered {
    with_core(config, plan, |core_plan, settings| {
        render::settle(body, core_plan, settings, tie)
    })
}

/// Calls `f` with the core's plan and settings for this request's route.
fn with_core<T>(
    config: &LayerConfig,
    plan: &Plan,
    f: impl FnOnce(&render::RenderPlan<'_>, &RenderSettings<'_>) -> T,
) -> T {
    let route = &plan.route;
    // The route's resource, for compact lines and for what a `fields`
    // projection keeps: each resource's own id and list key.
    let resource = match (plan.format, &plan.fields) {
        (Format::Compact, _) | (_, Some(_)) => {
            config.resources.lookup_route(route.matched(), route.path())
        }
        _ => None,
    };
    let lines = match plan.format {
        Format::Compact => resource.map(|(pattern, resource)| RecordLines {
            resource,
            list_keys: &config.list_keys,
            label: pattern.as_str(),
            path: Some(route.path()),
            style: LineStyle::Envelope,
        }),
        _ => None,
    };
    let core_plan = render::RenderPlan {
        fields: plan.fields.as_ref(),
        #[cfg(feature = "changes")]
        since: plan.since,
        lines,
        ..render::RenderPlan::new(plan.format, plan.asked)
    };
    let mut settings = config.render_settings();
    let own_list_key: [String; 1];
    if let Some((_, resource)) = resource {
        settings.id_key = resource.id_key();
        if let Some(key) = resource.list_key() {
            own_list_key = [key.to_owned()];
            settings.list_keys = &own_list_key;
        }
    }
    f(&core_plan, &settings)
}
