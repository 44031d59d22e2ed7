//! What no one value shows: counts, a tool named twice or half-declared,
//! and keys this build cannot honour. Each value was checked as it was
//! read ([`schema`](super::schema)); these look at several together.

use std::ops::Range;

use tower_terse::Settings;

use super::bounds::MAX_RESOURCES;
use super::schema::File;

/// A problem and where it is, when it is at one place.
pub(super) type Problem = (Option<Range<usize>>, String);

pub(super) fn check(file: &File, source: &str) -> Result<(), Problem> {
    for (count, what) in [
        (file.routes.len(), "routes"),
        (file.resources.len(), "resources"),
        (file.mcp.as_ref().map_or(0, |m| m.tools.len()), "tools"),
    ] {
        if count > MAX_RESOURCES {
            return Err((None, format!("more than {MAX_RESOURCES} {what}")));
        }
    }
    buildable(&file.layer, None)?;
    for route in &file.routes {
        buildable(&route.get_ref().settings, Some(route.span()))?;
    }
    let Some(mcp) = &file.mcp else {
        return Ok(());
    };
    for (i, tool) in mcp.tools.iter().enumerate() {
        let name = &tool.name;
        if name.get_ref().is_empty() || name.get_ref().len() > 256 {
            return Err((
                Some(name.span()),
                "`name` must be 1 to 256 bytes long".into(),
            ));
        }
        if let Some(first) = mcp.tools[..i]
            .iter()
            .find(|t| t.name.get_ref() == name.get_ref())
        {
            let line = super::line_of(source, first.name.span().start);
            return Err((
                Some(name.span()),
                format!(
                    "tool `{}` is declared twice (first on line {line})",
                    name.get_ref()
                ),
            ));
        }
        let template = [
            tool.list.is_some(),
            tool.noun.is_some(),
            tool.line.is_some(),
        ];
        if !(template == [true; 3] || template == [false; 3] && tool.format.is_some()) {
            return Err((
                Some(name.span()),
                "a tool needs `list`, `noun` and `line` together, or a `format`".into(),
            ));
        }
    }
    Ok(())
}

/// `[layer]` (or `[[route]]`) keys the build cannot honour are refused,
/// not ignored.
fn buildable(settings: &Settings, span: Option<Range<usize>>) -> Result<(), Problem> {
    if settings.exact_token_count == Some(true) && !tower_terse::tokens::EXACT_AVAILABLE {
        return Err((
            span,
            "`exact_token_count = true` needs the `exact-tokens` feature of tower-terse, which this build lacks".into(),
        ));
    }
    Ok(())
}
