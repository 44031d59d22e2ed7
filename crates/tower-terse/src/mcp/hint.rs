//! The one-line hint that tells an agent how to read TOON results.

use std::str::FromStr;

/// The hint's text: what TOON is, in one line an agent reads once.
///
/// ```
/// assert!(!tower_terse::mcp::HINT.contains('\n'));
/// ```
pub const HINT: &str = "Tool results may be TOON instead of JSON: `key: value` lines, \
nesting by indentation, and `name[N]{a,b}:` heading N rows of comma-separated a,b values.";

/// Where [`HINT`] goes, if anywhere; see
/// [`McpLayer::hint`](super::McpLayer::hint).
///
/// ```
/// use tower_terse::mcp::McpHint;
///
/// assert_eq!("instructions".parse(), Ok(McpHint::Instructions));
/// assert!("everywhere".parse::<McpHint>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum McpHint {
    /// No hint.
    #[default]
    Off,
    /// Appended to the `instructions` of the `initialize` answer: paid
    /// once per session.
    Instructions,
    /// Appended to the description of each tool that may be rewritten:
    /// paid once per such tool in every `tools/list` the agent reads.
    Descriptions,
}

impl McpHint {
    /// The name used in configuration files.
    pub const fn as_str(self) -> &'static str {
        match self {
            McpHint::Off => "off",
            McpHint::Instructions => "instructions",
            McpHint::Descriptions => "descriptions",
        }
    }
}

impl FromStr for McpHint {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        [McpHint::Off, McpHint::Instructions, McpHint::Descriptions]
            .into_iter()
            .find(|hint| hint.as_str() == s)
            .ok_or_else(|| {
                format!("unknown hint `{s}` (expected off, instructions or descriptions)")
            })
    }
}

/// `text` with the hint after it, on a line of its own.
pub(crate) fn append(text: Option<&str>) -> String {
    match text {
        Some(text) if !text.trim().is_empty() => format!("{}\n{HINT}", text.trim_end()),
        _ => HINT.to_owned(),
    }
}
