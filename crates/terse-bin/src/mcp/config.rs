//! What `terse mcp` reads of a gateway config file: `[mcp]` with its
//! `[[mcp.tool]]` templates, `[layer]` and `[gateway] max_buffered_bytes`,
//! each deserialized into tower-terse's types, checked as it is read. The
//! gateway's other sections and keys are its own and are left to it.

use std::path::Path;

use serde::Deserialize;
use terse_gateway::config::file::{position, read_capped};
use tower_terse::Settings;
use tower_terse::mcp::{McpLayer, McpSettings};
use tower_terse::settings::{BlockingLimit, BudgetSize, MemoryBudget};

/// The sections read; unknown ones are the gateway's.
#[derive(Debug, Default, Deserialize)]
struct File {
    #[serde(default)]
    layer: Settings,
    mcp: Option<McpSettings>,
    #[serde(default)]
    gateway: Gateway,
}

/// `[gateway]`, of which only the memory budget applies to stdio: read,
/// checked and defaulted as the gateway reads it (tower-terse's
/// [`BudgetSize`]).
#[derive(Debug, Default, Deserialize)]
struct Gateway {
    #[serde(default)]
    max_buffered_bytes: BudgetSize,
}

/// The layer of the file at `path`, or of no file.
///
/// # Errors
///
/// `file:line: problem` when the file cannot be read, is too large, is
/// not UTF-8 or does not parse.
pub fn layer(path: Option<&Path>) -> Result<McpLayer, String> {
    let Some(path) = path else {
        return Ok(layer_of(File::default()));
    };
    let name = path.display();
    let text = read_capped(path).map_err(|err| format!("{name}: {err}"))?;
    parse(&text).map_err(|(at, message)| match at {
        // As the gateway reports the same file: `file:line: problem`.
        Some((line, _)) => format!("{name}:{line}: {message}"),
        None => format!("{name}: {message}"),
    })
}

/// A problem, at its 1-based line and column when it is at one place.
type Problem = (Option<(usize, usize)>, String);

/// The layer of a file's text.
fn parse(text: &str) -> Result<McpLayer, Problem> {
    let file: File = toml::from_str(text).map_err(|err| {
        let at = err.span().map(|span| position(text, span.start));
        (at, err.message().trim().to_owned())
    })?;
    Ok(layer_of(file))
}

/// The `[mcp]` settings over the `[layer]` ones, with the budget and the
/// one blocking limit of the process.
fn layer_of(mut file: File) -> McpLayer {
    let budget = MemoryBudget::from(file.gateway.max_buffered_bytes);
    // The limit's keys are taken out as it is built from them, so that
    // the layer does not build one of its own from them first.
    let slots = file.layer.max_concurrent_rewrites.take();
    let mut limit = slots.map_or_else(BlockingLimit::per_core, BlockingLimit::new);
    if let Some(wait) = file.layer.max_rewrite_wait.take() {
        limit = limit.with_wait(wait);
    }
    let layer = McpLayer::new()
        .settings(&file.layer)
        .memory_budget(budget)
        .blocking_limit(limit);
    match &file.mcp {
        Some(mcp) => layer.mcp_settings(mcp),
        None => layer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layer_settings_and_the_budget_apply_without_an_mcp_section() {
        let text = "[gateway]\nmax_buffered_bytes = 2097152\nlisten = \"ignored\"\n[layer]\nsmart_fallback = false\nmax_concurrent_rewrites = 3\nmax_rewrite_wait = \"40ms\"\n[[resource]]\nroute = 1\n";
        let debug = format!("{:?}", parse(text).unwrap());
        for part in [
            "smart_fallback: false",
            "limit: 2097152",
            "slots: 3",
            "wait: 40ms",
        ] {
            assert!(debug.contains(part), "{part}: {debug}");
        }
        let debug = format!("{:?}", layer(None).unwrap());
        assert!(
            debug.contains(&format!(
                "limit: {}",
                tower_terse::defaults::MEMORY_BUDGET_BYTES
            )),
            "{debug}"
        );
    }

    #[test]
    fn the_mcp_section_and_its_tools_apply() {
        let text = "[layer]\nprefer_header = \"x-format\"\n[mcp]\nmax_message_bytes = 1024\n[[mcp.tool]]\nname = \"a\"\nlist = \"items\"\nnoun = \"item\"\nline = \"{title}\"\nid = \"key\"\n";
        let debug = format!("{:?}", parse(text).unwrap());
        for part in [
            "x-format",
            "max_message_bytes: 1024",
            "\"items\"",
            "\"key\"",
        ] {
            assert!(debug.contains(part), "{part}: {debug}");
        }
    }

    #[test]
    fn mistakes_name_their_line_and_column() {
        for (text, at, message) in [
            ("[mcp]\nhint = \"everywhere\"\n", (2, 8), "unknown hint"),
            (
                "[mcp]\n\n[[mcp.tool]]\nname = \"a\"\n",
                (3, 1),
                "a tool needs",
            ),
            ("[layer]\nmax_fields = \"many\"\n", (2, 14), "invalid type"),
            (
                "[gateway]\nmax_buffered_bytes = 1\n",
                (2, 22),
                "`max_buffered_bytes`",
            ),
            ("[mcp]\ncolour = 1\n", (2, 1), "unknown field `colour`"),
        ] {
            let (found, err) = parse(text).unwrap_err();
            assert_eq!(found, Some(at), "{err}");
            assert!(err.starts_with(message), "{message}: {err}");
        }
    }

    #[test]
    fn the_budget_takes_its_range_edges_and_places_a_value_past_them() {
        let (min, max) = (BudgetSize::MIN.get(), BudgetSize::MAX.get());
        for bytes in [min, max] {
            let text = format!("[gateway]\nmax_buffered_bytes = {bytes}\n");
            let debug = format!("{:?}", parse(&text).unwrap());
            assert!(debug.contains(&format!("limit: {bytes}")), "{debug}");
        }
        for bytes in [min as u64 - 1, max as u64 + 1] {
            let text = format!("[gateway]\nmax_buffered_bytes = {bytes}\n");
            let (at, err) = parse(&text).unwrap_err();
            assert_eq!(at, Some((2, 22)), "{err}");
            assert_eq!(
                err,
                format!("`max_buffered_bytes` must be between {min} and {max}, not {bytes}")
            );
        }
    }

    #[test]
    fn a_file_too_large_is_refused_by_name_as_the_gateway_refuses_it() {
        let path =
            std::env::temp_dir().join(format!("terse-mcp-{}-large.toml", std::process::id()));
        std::fs::write(&path, vec![b'#'; (1 << 20) + 1]).unwrap();
        let err = layer(Some(&path)).unwrap_err();
        let gateway = terse_gateway::Config::load(&path).unwrap_err().to_string();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            err,
            format!("{}: larger than 1048576 bytes", path.display())
        );
        assert_eq!(err, gateway);
    }
}
