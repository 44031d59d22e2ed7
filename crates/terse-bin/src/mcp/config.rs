//! What `terse mcp` reads of a gateway config file: `[mcp]` with its
//! `[[mcp.tool]]` templates, `[layer]` and `[gateway] max_buffered_bytes`,
//! each deserialized into tower-terse's types, checked as it is read. The
//! gateway's other sections and keys are its own and are left to it.

use std::path::Path;

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use tower_terse::Settings;
use tower_terse::mcp::{McpLayer, McpSettings};
use tower_terse::settings::{BlockingLimit, MemoryBudget};

/// The largest config file read, as the gateway's.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The memory budget of all rewrites in flight unless the file sets one:
/// 256 MiB, as the gateway's.
const DEFAULT_BUFFERED_BYTES: usize = 256 << 20;

/// The sections read; unknown ones are the gateway's.
#[derive(Debug, Default, Deserialize)]
struct File {
    #[serde(default)]
    layer: Settings,
    mcp: Option<McpSettings>,
    #[serde(default)]
    gateway: Gateway,
}

/// `[gateway]`, of which only the memory budget applies to stdio.
#[derive(Debug, Default, Deserialize)]
struct Gateway {
    #[serde(default, deserialize_with = "buffered_bytes")]
    max_buffered_bytes: Option<usize>,
}

/// 1 MiB to 64 GiB, as the gateway reads it.
fn buffered_bytes<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    let n = usize::deserialize(de)?;
    let max = if usize::BITS >= 64 {
        1 << (usize::BITS - 28)
    } else {
        usize::MAX
    };
    if (1 << 20..=max).contains(&n) {
        return Ok(Some(n));
    }
    Err(D::Error::custom(format!(
        "`max_buffered_bytes` must be between {} and {max}, not {n}",
        1 << 20
    )))
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
    let text = read(path).map_err(|err| format!("{name}: {err}"))?;
    parse(&text).map_err(|(at, message)| match at {
        // As the gateway reports the same file: `file:line: problem`.
        Some((line, _)) => format!("{name}:{line}: {message}"),
        None => format!("{name}: {message}"),
    })
}

fn read(path: &Path) -> Result<String, String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|err| format!("cannot read: {err}"))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!("larger than {MAX_CONFIG_BYTES} bytes"));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())
}

/// A problem, at its 1-based line and column when it is at one place.
type Problem = (Option<(usize, usize)>, String);

/// The layer of a file's text.
fn parse(text: &str) -> Result<McpLayer, Problem> {
    let file: File = toml::from_str(text).map_err(|err| {
        let at = err.span().map(|span| {
            // toml's spans fall on character boundaries.
            let before = text.get(..span.start).unwrap_or(text);
            let line = 1 + before.matches('\n').count();
            let column = 1 + before.rsplit('\n').next().map_or(0, |l| l.chars().count());
            (line, column)
        });
        (at, err.message().trim().to_owned())
    })?;
    Ok(layer_of(file))
}

/// The `[mcp]` settings over the `[layer]` ones, with the budget and the
/// one blocking limit of the process.
fn layer_of(mut file: File) -> McpLayer {
    let budget = file.gateway.max_buffered_bytes;
    let budget = MemoryBudget::new(budget.unwrap_or(DEFAULT_BUFFERED_BYTES));
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
            debug.contains(&format!("limit: {DEFAULT_BUFFERED_BYTES}")),
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
}
