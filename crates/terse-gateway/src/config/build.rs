//! The layers a checked file describes, built once when it is read.

use std::ops::Range;

use tower_terse::TerseLayer;
use tower_terse::compact::{CompactResource, Template};
use tower_terse::mcp::{McpLayer, McpTool};
use tower_terse::settings::{BlockingLimit, MemoryBudget};

use super::schema::{File, McpSection};

/// The layer of `[layer]`, `[[resource]]` and `[[route]]`, sharing
/// `budget` and `limit`; a route pattern the layer refuses is an error at
/// its span.
pub(super) fn layer(
    file: &File,
    budget: &MemoryBudget,
    limit: &BlockingLimit,
) -> Result<TerseLayer, (Range<usize>, String)> {
    let mut layer = TerseLayer::new()
        .settings(&file.layer)
        .memory_budget(budget.clone())
        .blocking_limit(limit.clone());
    for r in &file.resources {
        let mut resource = resource(&r.noun, &r.plural, &r.line, &r.id);
        if let Some(list) = &r.list {
            resource = resource.with_list_key(list.clone());
        }
        if let Some(total) = &r.total_key {
            resource = resource.with_total_key(total.clone());
        }
        layer
            .try_compact_resource(r.route.get_ref(), resource)
            .map_err(|err| (r.route.span(), err.to_string()))?;
    }
    for route in &file.routes {
        let (span, route) = (route.span(), route.get_ref());
        layer
            .try_route(&route.path, route.settings.clone())
            .map_err(|err| (span, err.to_string()))?;
    }
    Ok(layer)
}

/// An [`McpLayer`] with what every MCP rewrite takes from the file,
/// `[mcp]` or not: the `[layer]` settings, the budget and the limit.
pub(super) fn base_mcp_layer(
    file: &File,
    budget: &MemoryBudget,
    limit: &BlockingLimit,
) -> McpLayer {
    McpLayer::new()
        .settings(&file.layer)
        .memory_budget(budget.clone())
        .blocking_limit(limit.clone())
}

/// The [`McpLayer`] of an `[mcp]` section over `base`.
pub(super) fn mcp_layer(m: &McpSection, base: McpLayer) -> McpLayer {
    let layer = set(base, m.default_format, McpLayer::default_format);
    let layer = set(layer, m.max_request_bytes, McpLayer::max_request_bytes);
    let layer = set(layer, m.max_message_bytes, McpLayer::max_message_bytes);
    let layer = set(layer, m.max_output_bytes, McpLayer::max_output_bytes);
    let layer = set(layer, m.format_argument, McpLayer::format_argument);
    let layer = set(layer, m.hint, McpLayer::hint);
    let layer = set(layer, m.meta_counts, McpLayer::meta_counts);
    let mut layer = set(layer, m.verbatim_tools.clone(), McpLayer::verbatim_tools);
    for tool in &m.tools {
        let name = tool.name.get_ref();
        // Checked: `list`, `noun` and `line` come together or not at all.
        if let (Some(list), Some(noun), Some(line)) = (&tool.list, &tool.noun, &tool.line) {
            let resource = resource(noun, &tool.plural, line, &tool.id);
            layer = layer.tool(name.clone(), McpTool::new(list.clone(), resource));
        }
        if let Some(format) = tool.format {
            layer = layer.tool_format(name.clone(), format);
        }
    }
    layer
}

/// The compact resource of a `[[resource]]` or an `[[mcp.tool]]`.
fn resource(
    noun: &str,
    plural: &Option<String>,
    line: &Template,
    id: &Option<String>,
) -> CompactResource {
    let resource = CompactResource::new(noun.to_owned(), line.clone());
    let resource = set(resource, plural.clone(), |r, plural: String| {
        r.with_plural(plural)
    });
    set(resource, id.clone(), |r, id: String| r.with_id_key(id))
}

/// `builder` with `value` set by `setter`, or unchanged when there is none.
pub(super) fn set<B, T>(builder: B, value: Option<T>, setter: impl FnOnce(B, T) -> B) -> B {
    match value {
        Some(value) => setter(builder, value),
        None => builder,
    }
}
