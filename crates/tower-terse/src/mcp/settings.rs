//! [`McpSettings`] and [`McpToolSettings`]: the MCP layer as a
//! configuration file's `[mcp]` and `[[mcp.tool]]` tables declare it, each
//! value checked where it is read, so that a file's error names the value;
//! [`McpLayer::mcp_settings`] applies them.

use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::McpTool;
use super::hint::McpHint;
use super::layer::McpLayer;
use crate::compact::Template;
use crate::compact::resource_settings::{
    Read, compact_resource, id, key, line, list, noun, plural,
};
use crate::format::Format;
use crate::settings::MAX_BODY_BYTES;

/// The most `[[mcp.tool]]` entries, and the most entries of each list
/// (`verbatim_tools`, `allowed_hosts`, `allowed_origins`).
pub const MAX_MCP_ENTRIES: usize = 1024;

/// An `[mcp]` table: each [`McpLayer`] builder setting of the same name,
/// the tools, and what an HTTP endpoint serving the layer needs (`path`,
/// `allowed_hosts`, `allowed_origins`; the layer itself reads none of
/// them). `None` keeps the layer's default. Unknown keys are refused.
///
/// ```
/// use tower_terse::mcp::{McpLayer, McpSettings};
///
/// let settings: McpSettings = serde_json::from_str(r#"{
///     "path": "/mcp",
///     "hint": "instructions",
///     "tool": [{"name": "list_events", "list": "events", "noun": "event", "line": "{start|time} {title}"}]
/// }"#).unwrap();
/// let layer = McpLayer::new().mcp_settings(&settings);
/// # drop(layer);
/// assert!(serde_json::from_str::<McpSettings>(r#"{"path": "mcp"}"#).is_err());
/// assert!(serde_json::from_str::<McpSettings>(r#"{"colour": 1}"#).is_err());
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct McpSettings {
    /// The endpoint's path, from `/`, at most 1024 bytes (an HTTP
    /// endpoint's; stdio has none).
    #[serde(default, deserialize_with = "path")]
    pub path: Option<String>,
    /// [`McpLayer::default_format`].
    #[serde(default)]
    pub default_format: Option<Format>,
    /// [`McpLayer::max_request_bytes`], 1 to [`MAX_BODY_BYTES`].
    #[serde(default, deserialize_with = "request_bytes")]
    pub max_request_bytes: Option<usize>,
    /// [`McpLayer::max_message_bytes`], 1 to [`MAX_BODY_BYTES`].
    #[serde(default, deserialize_with = "message_bytes")]
    pub max_message_bytes: Option<usize>,
    /// [`McpLayer::max_output_bytes`], 1 to [`MAX_BODY_BYTES`].
    #[serde(default, deserialize_with = "output_bytes")]
    pub max_output_bytes: Option<usize>,
    /// [`McpLayer::format_argument`].
    #[serde(default)]
    pub format_argument: Option<bool>,
    /// [`McpLayer::hint`]: `"off"`, `"instructions"` or `"descriptions"`.
    #[serde(default, deserialize_with = "hint")]
    pub hint: Option<McpHint>,
    /// [`McpLayer::meta_counts`].
    #[serde(default)]
    pub meta_counts: Option<bool>,
    /// [`McpLayer::verbatim_tools`].
    #[serde(default, deserialize_with = "verbatim_tools")]
    pub verbatim_tools: Option<Vec<String>>,
    /// The `Host` names an HTTP endpoint answers (DNS-rebinding
    /// protection); each entry 1 to 1024 bytes.
    #[serde(default, deserialize_with = "allowed_hosts")]
    pub allowed_hosts: Option<Vec<String>>,
    /// The `Origin`s an HTTP endpoint answers; each entry 1 to 1024 bytes.
    #[serde(default, deserialize_with = "allowed_origins")]
    pub allowed_origins: Option<Vec<String>>,
    /// The `[[mcp.tool]]` tables: at most [`MAX_MCP_ENTRIES`], no name twice.
    #[serde(default, rename = "tool", deserialize_with = "tools")]
    pub tools: Vec<McpToolSettings>,
}

/// An `[[mcp.tool]]` table: the tool's `name`, and its `format` (`"json"`
/// leaves it alone, [`McpLayer::tool_format`]) and/or compact lines for
/// its results ([`McpTool`]): `list` (the key the records sit under),
/// `noun`, `line`, which come together, and `plural`, `id`.
///
/// ```
/// use tower_terse::mcp::McpToolSettings;
///
/// let half = serde_json::from_str::<McpToolSettings>(r#"{"name": "a", "list": "items"}"#);
/// assert!(half.unwrap_err().to_string().starts_with("a tool needs `list`, `noun` and `line` together"));
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "ToolFields")]
#[non_exhaustive]
pub struct McpToolSettings {
    /// The tool's name, 1 to 256 bytes.
    pub name: String,
    /// [`McpLayer::tool_format`].
    pub format: Option<Format>,
    /// Its compact lines.
    pub lines: Option<McpTool>,
}

/// An `[[mcp.tool]]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolFields {
    #[serde(deserialize_with = "name")]
    name: String,
    #[serde(default)]
    format: Option<Format>,
    #[serde(default, deserialize_with = "list")]
    list: Option<String>,
    #[serde(default, deserialize_with = "noun")]
    noun: Option<String>,
    #[serde(default, deserialize_with = "plural")]
    plural: Option<String>,
    #[serde(default, deserialize_with = "line")]
    line: Option<Template>,
    #[serde(default, deserialize_with = "id")]
    id: Option<String>,
}

impl TryFrom<ToolFields> for McpToolSettings {
    type Error = String;

    fn try_from(t: ToolFields) -> Result<Self, String> {
        let lines = match (&t.list, &t.noun, &t.line) {
            (Some(list), Some(noun), Some(line)) => Some(McpTool::new(
                list.clone(),
                compact_resource(noun, &t.plural, line, &t.id),
            )),
            (None, None, None) if t.format.is_some() => None,
            _ => {
                return Err(format!(
                    "a tool needs `list`, `noun` and `line` together, or a `format` (tool `{}`)",
                    t.name
                ));
            }
        };
        Ok(McpToolSettings {
            name: t.name,
            format: t.format,
            lines,
        })
    }
}

impl McpLayer {
    /// The layer with the settings of an `[mcp]` table and its tools over
    /// this one's (`path`, `allowed_hosts` and `allowed_origins` are the
    /// endpoint's, not the layer's).
    pub fn mcp_settings(self, settings: &McpSettings) -> Self {
        let s = settings;
        let mut layer = self;
        layer = set(layer, s.default_format, McpLayer::default_format);
        layer = set(layer, s.max_request_bytes, McpLayer::max_request_bytes);
        layer = set(layer, s.max_message_bytes, McpLayer::max_message_bytes);
        layer = set(layer, s.max_output_bytes, McpLayer::max_output_bytes);
        layer = set(layer, s.format_argument, McpLayer::format_argument);
        layer = set(layer, s.hint, McpLayer::hint);
        layer = set(layer, s.meta_counts, McpLayer::meta_counts);
        layer = set(layer, s.verbatim_tools.clone(), McpLayer::verbatim_tools);
        for tool in &s.tools {
            if let Some(lines) = &tool.lines {
                layer = layer.tool(tool.name.clone(), lines.clone());
            }
            if let Some(format) = tool.format {
                layer = layer.tool_format(tool.name.clone(), format);
            }
        }
        layer
    }
}

/// `layer` with `value` set by `setter`, or unchanged when there is none.
fn set<T>(layer: McpLayer, value: Option<T>, setter: fn(McpLayer, T) -> McpLayer) -> McpLayer {
    match value {
        Some(value) => setter(layer, value),
        None => layer,
    }
}

fn path<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    let path = String::deserialize(de)?;
    if path.starts_with('/') && path.len() <= 1024 {
        return Ok(Some(path));
    }
    Err(D::Error::custom(format!(
        "`path` must start with `/` (and be at most 1024 bytes), not {path:?}"
    )))
}

fn bytes<'de, D: Deserializer<'de>>(de: D, key: &str) -> Result<Option<usize>, D::Error> {
    let n = usize::deserialize(de)?;
    if (1..=MAX_BODY_BYTES).contains(&n) {
        return Ok(Some(n));
    }
    Err(D::Error::custom(format!(
        "`{key}` must be between 1 and {MAX_BODY_BYTES}, not {n}"
    )))
}

fn request_bytes<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    bytes(de, "max_request_bytes")
}

fn message_bytes<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    bytes(de, "max_message_bytes")
}

fn output_bytes<'de, D: Deserializer<'de>>(de: D) -> Result<Option<usize>, D::Error> {
    bytes(de, "max_output_bytes")
}

fn hint<'de, D: Deserializer<'de>>(de: D) -> Result<Option<McpHint>, D::Error> {
    let text = String::deserialize(de)?;
    text.parse().map(Some).map_err(|_| {
        D::Error::custom(format!(
            "unknown hint {text:?}; expected \"off\", \"instructions\" or \"descriptions\""
        ))
    })
}

fn entries<'de, D: Deserializer<'de>>(de: D, key: &str) -> Result<Option<Vec<String>>, D::Error> {
    let entries = Vec::<String>::deserialize(de)?;
    if entries.len() > MAX_MCP_ENTRIES || entries.iter().any(|e| e.is_empty() || e.len() > 1024) {
        return Err(D::Error::custom(format!(
            "`{key}`: at most {MAX_MCP_ENTRIES} entries, none empty"
        )));
    }
    Ok(Some(entries))
}

fn verbatim_tools<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Vec<String>>, D::Error> {
    entries(de, "verbatim_tools")
}

fn allowed_hosts<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Vec<String>>, D::Error> {
    entries(de, "allowed_hosts")
}

fn allowed_origins<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Vec<String>>, D::Error> {
    entries(de, "allowed_origins")
}

fn name<'de, D: Deserializer<'de>, O: Read<String>>(de: D) -> Result<O, D::Error> {
    key(de, "name")
}

/// The tools, each read (and checked) in turn: past [`MAX_MCP_ENTRIES`],
/// or at a name already read, the list is refused at that tool.
fn tools<'de, D: Deserializer<'de>>(de: D) -> Result<Vec<McpToolSettings>, D::Error> {
    struct Tools;

    impl<'de> Visitor<'de> for Tools {
        type Value = Vec<McpToolSettings>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of tools")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut tools = Vec::new();
            while let Some(tool) = seq.next_element_seed(Tool(&tools))? {
                tools.push(tool);
            }
            Ok(tools)
        }
    }

    de.deserialize_seq(Tools)
}

/// One tool, after `0`: its error is raised as the tool's table is read,
/// so that a file's error names the table.
struct Tool<'a>(&'a [McpToolSettings]);

impl<'de> DeserializeSeed<'de> for Tool<'_> {
    type Value = McpToolSettings;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<McpToolSettings, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Tool<'_> {
    type Value = McpToolSettings;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tool")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<McpToolSettings, A::Error> {
        let tool = McpToolSettings::deserialize(MapAccessDeserializer::new(map))?;
        let (before, n) = (self.0, self.0.len() + 1);
        if n > MAX_MCP_ENTRIES {
            return Err(A::Error::custom(format!(
                "more than {MAX_MCP_ENTRIES} tools"
            )));
        }
        if let Some(first) = before.iter().position(|t| t.name == tool.name) {
            return Err(A::Error::custom(format!(
                "tool `{}` is declared twice (tools {} and {n})",
                tool.name,
                first + 1
            )));
        }
        Ok(tool)
    }
}
