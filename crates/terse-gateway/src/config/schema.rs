//! The file as written: every section and key, each value parsed into its
//! type and checked against its range as it is read, so that an error
//! carries the line and column of the value, and nothing is parsed again.

use std::net::SocketAddr;
use std::ops::RangeInclusive;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use toml::Spanned;
use tower_terse::compact::Template;
use tower_terse::mcp::McpHint;
use tower_terse::settings::Route;
use tower_terse::{Format, Settings};

use super::bounds::{MAX_BODY_BYTES, MAX_BUFFERED_BYTES, MAX_RESOURCES, MIN_BUFFERED_BYTES};
use crate::forwarded::TrustedProxies;
use crate::upstream::Upstream;
use crate::urls::PublicOrigin;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    #[serde(default)]
    pub gateway: GatewaySection,
    #[serde(default)]
    pub layer: Settings,
    #[serde(default, rename = "route")]
    pub routes: Vec<Spanned<Route>>,
    #[serde(default, rename = "resource")]
    pub resources: Vec<ResourceSection>,
    pub mcp: Option<McpSection>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GatewaySection {
    #[serde(default, deserialize_with = "upstream")]
    pub upstream: Option<String>,
    #[serde(default, deserialize_with = "listen")]
    pub listen: Option<SocketAddr>,
    #[serde(default, deserialize_with = "metrics_listen")]
    pub metrics_listen: Option<SocketAddr>,
    #[serde(default, deserialize_with = "connect_timeout")]
    pub connect_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "response_timeout")]
    pub response_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "idle_timeout")]
    pub idle_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "shutdown_timeout")]
    pub shutdown_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "max_request_headers")]
    pub max_request_headers: Option<usize>,
    #[serde(default, deserialize_with = "max_header_bytes")]
    pub max_header_bytes: Option<usize>,
    // Hostile clients: connection deadlines and cap, the memory budget of
    // all rewrites, and the proxies trusted with forwarding headers.
    #[serde(default, deserialize_with = "header_read_timeout")]
    pub header_read_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "keep_alive_timeout")]
    pub keep_alive_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "send_timeout")]
    pub send_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "max_connections")]
    pub max_connections: Option<usize>,
    #[serde(default, deserialize_with = "max_concurrent_streams")]
    pub max_concurrent_streams: Option<usize>,
    #[serde(default, deserialize_with = "max_buffered_bytes")]
    pub max_buffered_bytes: Option<usize>,
    #[serde(default, deserialize_with = "trusted_proxies")]
    pub trusted_proxies: Option<TrustedProxies>,
    // Dropped from untrusted clients besides `UNTRUSTED_HEADERS`.
    #[serde(default, deserialize_with = "untrusted_headers")]
    pub untrusted_headers: Option<Vec<http::HeaderName>>,
    // What reaches the upstream: its own `Host` or the client's.
    pub preserve_host: Option<bool>,
    // The origin of rewritten URLs instead of the client's `Host`.
    #[serde(default, deserialize_with = "public_origin")]
    pub public_origin: Option<PublicOrigin>,
    // `false`: no line per request (nginx's `access_log off`).
    pub request_log: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ResourceSection {
    /// Checked by the layer's route table as the layer is built.
    pub route: Spanned<String>,
    #[serde(deserialize_with = "noun")]
    pub noun: String,
    #[serde(default, deserialize_with = "plural")]
    pub plural: Option<String>,
    #[serde(deserialize_with = "line")]
    pub line: Template,
    #[serde(default, deserialize_with = "id")]
    pub id: Option<String>,
    #[serde(default, deserialize_with = "list")]
    pub list: Option<String>,
    #[serde(default, deserialize_with = "total_key")]
    pub total_key: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct McpSection {
    /// Required by the gateway; `terse mcp` (stdio) has no path.
    #[serde(default, deserialize_with = "path")]
    pub path: Option<String>,
    pub default_format: Option<Format>,
    #[serde(default, deserialize_with = "max_request_bytes")]
    pub max_request_bytes: Option<usize>,
    #[serde(default, deserialize_with = "max_message_bytes")]
    pub max_message_bytes: Option<usize>,
    #[serde(default, deserialize_with = "max_output_bytes")]
    pub max_output_bytes: Option<usize>,
    // What the agent sees: the per-call `format` argument, the TOON hint,
    // the token counts in `_meta`.
    pub format_argument: Option<bool>,
    #[serde(default, deserialize_with = "hint")]
    pub hint: Option<McpHint>,
    pub meta_counts: Option<bool>,
    pub verbatim_tools: Option<Vec<String>>,
    // DNS-rebinding protection of the endpoint (see `McpAccess`).
    #[serde(default, deserialize_with = "allowed_hosts")]
    pub allowed_hosts: Option<Vec<String>>,
    #[serde(default, deserialize_with = "allowed_origins")]
    pub allowed_origins: Option<Vec<String>>,
    #[serde(default, rename = "tool")]
    pub tools: Vec<McpToolSection>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct McpToolSection {
    /// Spanned: a tool declared twice, or with half a template, is refused
    /// at its name.
    pub name: Spanned<String>,
    /// `"json"` leaves the tool alone; `"toon"`/`"compact"` is its default.
    pub format: Option<Format>,
    #[serde(default, deserialize_with = "list")]
    pub list: Option<String>,
    #[serde(default, deserialize_with = "noun")]
    pub noun: Option<String>,
    #[serde(default, deserialize_with = "plural")]
    pub plural: Option<String>,
    #[serde(default, deserialize_with = "line")]
    pub line: Option<Template>,
    #[serde(default, deserialize_with = "id")]
    pub id: Option<String>,
}

/// A value read with `read` into `T`, or where `T` is an `Option`, into
/// its `Some`: one function serves a required key and an optional one.
trait Read<T>: Sized {
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

/// Declares, for each key, the function its `deserialize_with` names: the
/// value read as `$raw`, turned into `$ty` by `$parse` (an error names
/// the key).
macro_rules! keys {
    ($($key:ident: $raw:ty => $ty:ty = $parse:expr;)*) => {$(
        fn $key<'de, D: Deserializer<'de>, O: Read<$ty>>(de: D) -> Result<O, D::Error> {
            let raw = <$raw>::deserialize(de)?;
            let parse: fn(&'static str, $raw) -> Result<$ty, String> = $parse;
            parse(stringify!($key), raw).map(O::wrap).map_err(D::Error::custom)
        }
    )*};
}

keys! {
    upstream: String => String = |key, url| match Upstream::check(&url) {
        Ok(_) => Ok(url),
        Err(err) => Err(format!("`{key}`: {err}")),
    };
    listen: String => SocketAddr = |key, text| address(key, &text, "127.0.0.1:3000");
    metrics_listen: String => SocketAddr = |key, text| address(key, &text, "127.0.0.1:9464");
    connect_timeout: String => Duration = duration;
    response_timeout: String => Duration = duration;
    idle_timeout: String => Duration = duration;
    shutdown_timeout: String => Duration = duration;
    header_read_timeout: String => Duration = duration;
    keep_alive_timeout: String => Duration = duration;
    send_timeout: String => Duration = duration;
    max_request_headers: usize => usize = |key, n| in_range(key, n, 1..=1000);
    max_header_bytes: usize => usize = |key, n| in_range(key, n, 8192..=1 << 20);
    max_connections: usize => usize = |key, n| in_range(key, n, 1..=1 << 20);
    max_concurrent_streams: usize => usize = |key, n| in_range(key, n, 1..=1000);
    max_buffered_bytes: usize => usize =
        |key, n| in_range(key, n, MIN_BUFFERED_BYTES..=MAX_BUFFERED_BYTES);
    max_request_bytes: usize => usize = |key, n| in_range(key, n, 1..=MAX_BODY_BYTES);
    max_message_bytes: usize => usize = |key, n| in_range(key, n, 1..=MAX_BODY_BYTES);
    max_output_bytes: usize => usize = |key, n| in_range(key, n, 1..=MAX_BODY_BYTES);
    trusted_proxies: Vec<String> => TrustedProxies = |key, blocks| {
        TrustedProxies::new(blocks.iter().map(String::as_str)).map_err(|err| format!("`{key}`: {err}"))
    };
    untrusted_headers: Vec<String> => Vec<http::HeaderName> = |key, names| {
        names
            .iter()
            .map(|name| {
                http::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| format!("`{key}`: {name:?} is not a header name"))
            })
            .collect()
    };
    public_origin: String => PublicOrigin =
        |key, text| text.parse().map_err(|err| format!("`{key}`: {err}"));
    noun: String => String = text;
    plural: String => String = text;
    id: String => String = name;
    list: String => String = name;
    total_key: String => String = name;
    line: String => Template = |_, text| {
        Template::parse(&text)
            .map_err(|err| format!("line template, column {}: {}", err.column(), err.message()))
    };
    path: String => String = |key, path| {
        if path.starts_with('/') && path.len() <= 1024 {
            Ok(path)
        } else {
            Err(format!("`{key}` must start with `/` (and be at most 1024 bytes), not {path:?}"))
        }
    };
    hint: String => McpHint = |_, text| {
        text.parse().map_err(|_| {
            format!("unknown hint {text:?}; expected \"off\", \"instructions\" or \"descriptions\"")
        })
    };
    allowed_hosts: Vec<String> => Vec<String> = entries;
    allowed_origins: Vec<String> => Vec<String> = entries;
}

fn address(key: &str, text: &str, example: &str) -> Result<SocketAddr, String> {
    text.parse().map_err(|_| {
        format!("`{key}` must be an IP address and port such as \"{example}\", not {text:?}")
    })
}

/// A duration as every configuration file of the project writes one
/// ([`parse_duration`](tower_terse::settings::parse_duration)), from 1ms
/// to one hour.
pub(super) fn duration(key: &str, text: String) -> Result<Duration, String> {
    let range = Duration::from_millis(1)..=Duration::from_secs(3600);
    tower_terse::settings::parse_duration(&text)
        .ok()
        .filter(|duration| range.contains(duration))
        .ok_or_else(|| {
            format!(
                "`{key}`: {text:?} is not a duration from 1ms to 1h such as \"250ms\", \"5s\" or \"2m\""
            )
        })
}

fn in_range(key: &str, n: usize, range: RangeInclusive<usize>) -> Result<usize, String> {
    if range.contains(&n) {
        return Ok(n);
    }
    Err(format!(
        "`{key}` must be between {} and {}, not {n}",
        range.start(),
        range.end()
    ))
}

/// A word an agent reads (a noun): 1 to 256 bytes, not blank.
fn text(key: &str, text: String) -> Result<String, String> {
    if text.trim().is_empty() || text.len() > 256 {
        return Err(format!("`{key}` must be 1 to 256 bytes long"));
    }
    Ok(text)
}

/// A key name: 1 to 256 bytes.
fn name(key: &str, name: String) -> Result<String, String> {
    if name.is_empty() || name.len() > 256 {
        return Err(format!("`{key}` must be 1 to 256 bytes long"));
    }
    Ok(name)
}

fn entries(key: &str, entries: Vec<String>) -> Result<Vec<String>, String> {
    if entries.len() > MAX_RESOURCES || entries.iter().any(|e| e.is_empty() || e.len() > 1024) {
        return Err(format!(
            "`{key}`: at most {MAX_RESOURCES} entries, none empty"
        ));
    }
    Ok(entries)
}
