//! The HTTP layer's call into the rendering core: the request's plan as
//! the core reads it, with the route's render settings borrowed as they
//! stand.

use http::HeaderValue;

use super::plan::Plan;
use crate::format::Format;
use crate::render::settings::RenderSettings;
use crate::render::{self, LineStyle, RecordLines, Rendered, Rendering, Tie};

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

/// Renders `body` in the plan's format. Its content type is not asked
/// again: the layer reads only bodies its headers say are JSON
/// (`rewritable`).
pub(crate) fn rewrite(plan: &Plan, body: &[u8]) -> Rendered {
    with_core(plan, |core_plan, settings| {
        render::render(body, None, core_plan, settings)
    })
}

/// [`rewrite`], leaving a near tie whose exact counts take more than
/// `count_here` work ([`render::render_within`]) for [`settle`].
pub(crate) fn rewrite_within(plan: &Plan, body: &[u8], count_here: usize) -> Rendering {
    with_core(plan, |core_plan, settings| {
        render::render_within(body, None, core_plan, settings, count_here)
    })
}

/// Settles a near tie [`rewrite_within`] left ([`render::settle`]).
pub(crate) fn settle(plan: &Plan, body: &[u8], tie: Tie) -> Rendered {
    with_core(plan, |core_plan, settings| {
        render::settle(body, core_plan, settings, tie)
    })
}

/// Calls `f` with the core's view of `plan` and the route's render
/// settings.
fn with_core<T>(plan: &Plan, f: impl FnOnce(&render::RenderPlan<'_>, &RenderSettings) -> T) -> T {
    let config = &*plan.config;
    // The route's resource, for compact lines and for what a `fields`
    // projection keeps: each resource's own id and list key.
    let resource = match (plan.format, &plan.fields) {
        (Format::Compact, _) | (_, Some(_)) => plan.resource.as_deref(),
        _ => None,
    };
    let lines = match plan.format {
        Format::Compact => resource.map(|route| RecordLines {
            resource: &route.resource,
            list_keys: &config.list_keys,
            label: &route.pattern,
            path: Some(plan.route.path()),
            style: LineStyle::Envelope,
        }),
        _ => None,
    };
    let own_list_key: [String; 1];
    let mut list_keys: &[String] = &config.list_keys;
    let mut id_key: &str = &config.id_key;
    if let Some(route) = resource {
        id_key = route.resource.id_key();
        if let Some(key) = route.resource.list_key() {
            own_list_key = [key.to_owned()];
            list_keys = &own_list_key;
        }
    }
    let core_plan = render::RenderPlan {
        fields: plan.fields.as_ref(),
        list_keys,
        id_key,
        #[cfg(feature = "changes")]
        since: plan.since,
        lines,
        ..render::RenderPlan::new(plan.format, plan.asked)
    };
    f(&core_plan, &config.render)
}
