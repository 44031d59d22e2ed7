//! [`ResourceSettings`]: a compact resource as a configuration file
//! declares one, each value checked where it is read, so that a file's
//! error names the value (the gateway's `[[resource]]`, and the template
//! of an MCP tool).

use serde::{Deserialize, Deserializer, de::Error as _};

use super::resource::CompactResource;
use super::routes::RoutePattern;
use super::template::Template;

/// A compact resource and the routes it answers, as a configuration file's
/// `[[resource]]` table holds it: `route` (axum syntax), `noun`, `plural`,
/// `line` (a [`Template`]), `id`, `list` and `total_key`. Unknown keys
/// are refused; the route and the template are parsed as they are read.
///
/// ```
/// use tower_terse::TerseLayer;
/// use tower_terse::compact::ResourceSettings;
///
/// let tasks: ResourceSettings = serde_json::from_str(
///     r#"{"route": "/api/tasks", "noun": "task", "line": "{title} due {due|date}", "list": "tasks"}"#,
/// ).unwrap();
/// let layer = TerseLayer::new().compact_resource(&tasks.route, tasks.resource());
/// # drop(layer);
/// let bad = serde_json::from_str::<ResourceSettings>(r#"{"route": "/t", "noun": "t", "line": "{a|nope}"}"#);
/// assert!(bad.unwrap_err().to_string().starts_with("line template, column 4: unknown filter `nope`"));
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ResourceSettings {
    /// The route pattern, in axum's syntax.
    #[serde(deserialize_with = "route")]
    pub route: String,
    /// [`CompactResource::new`]'s noun: 1 to 256 bytes, not blank.
    #[serde(deserialize_with = "noun")]
    pub noun: String,
    /// [`CompactResource::with_plural`].
    #[serde(default, deserialize_with = "plural")]
    pub plural: Option<String>,
    /// The line of each record.
    #[serde(deserialize_with = "line")]
    pub line: Template,
    /// [`CompactResource::with_id_key`].
    #[serde(default, deserialize_with = "id")]
    pub id: Option<String>,
    /// [`CompactResource::with_list_key`]: the one key the list sits under.
    #[serde(default, deserialize_with = "list")]
    pub list: Option<String>,
    /// [`CompactResource::with_total_key`]: where the total is, a dotted
    /// path such as `meta.hits`.
    #[serde(default, deserialize_with = "total_key")]
    pub total_key: Option<String>,
}

impl ResourceSettings {
    /// The [`CompactResource`] these settings describe.
    pub fn resource(&self) -> CompactResource {
        let mut resource = compact_resource(&self.noun, &self.plural, &self.line, &self.id);
        if let Some(list) = &self.list {
            resource = resource.with_list_key(list.clone());
        }
        if let Some(total) = &self.total_key {
            resource = resource.with_total_key(total.clone());
        }
        resource
    }
}

/// The resource of a noun, a line, and the optional plural and id key.
pub(crate) fn compact_resource(
    noun: &str,
    plural: &Option<String>,
    line: &Template,
    id: &Option<String>,
) -> CompactResource {
    let mut resource = CompactResource::new(noun.to_owned(), line.clone());
    if let Some(plural) = plural {
        resource = resource.with_plural(plural.clone());
    }
    if let Some(id) = id {
        resource = resource.with_id_key(id.clone());
    }
    resource
}

/// A value read with one of the functions below into `T`, or where `T`
/// is an `Option`, into its `Some`: one function serves a required key and
/// an optional one.
pub(crate) trait Read<T>: Sized {
    fn wrap(value: T) -> Self;
}

impl<T> Read<T> for T {
    fn wrap(value: T) -> Self {
        value
    }
}

impl<T> Read<T> for Option<T> {
    fn wrap(value: T) -> Self {
        Some(value)
    }
}

fn route<'de, D: Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    let route = String::deserialize(de)?;
    RoutePattern::parse(&route).map_err(D::Error::custom)?;
    Ok(route)
}

/// A word an agent reads: 1 to 256 bytes, not blank.
fn word<'de, D: Deserializer<'de>, O: Read<String>>(de: D, key: &str) -> Result<O, D::Error> {
    let text = String::deserialize(de)?;
    if text.trim().is_empty() || text.len() > 256 {
        return Err(D::Error::custom(format!(
            "`{key}` must be 1 to 256 bytes long"
        )));
    }
    Ok(O::wrap(text))
}

/// A key name: 1 to 256 bytes.
pub(crate) fn key<'de, D: Deserializer<'de>, O: Read<String>>(
    de: D,
    key: &str,
) -> Result<O, D::Error> {
    let name = String::deserialize(de)?;
    if name.is_empty() || name.len() > 256 {
        return Err(D::Error::custom(format!(
            "`{key}` must be 1 to 256 bytes long"
        )));
    }
    Ok(O::wrap(name))
}

pub(crate) fn noun<'de, D: Deserializer<'de>, O: Read<String>>(de: D) -> Result<O, D::Error> {
    word(de, "noun")
}

pub(crate) fn plural<'de, D: Deserializer<'de>, O: Read<String>>(de: D) -> Result<O, D::Error> {
    word(de, "plural")
}

pub(crate) fn id<'de, D: Deserializer<'de>, O: Read<String>>(de: D) -> Result<O, D::Error> {
    key(de, "id")
}

pub(crate) fn list<'de, D: Deserializer<'de>, O: Read<String>>(de: D) -> Result<O, D::Error> {
    key(de, "list")
}

fn total_key<'de, D: Deserializer<'de>, O: Read<String>>(de: D) -> Result<O, D::Error> {
    key(de, "total_key")
}

pub(crate) fn line<'de, D: Deserializer<'de>, O: Read<Template>>(de: D) -> Result<O, D::Error> {
    let text = String::deserialize(de)?;
    Template::parse(&text).map(O::wrap).map_err(|err| {
        D::Error::custom(format!(
            "line template, column {}: {}",
            err.column(),
            err.message()
        ))
    })
}
