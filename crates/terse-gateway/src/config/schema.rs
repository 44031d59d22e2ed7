//! The file as written: every section and key, each value parsed into its
//! type and checked against its range as it is read, so that an error
//! carries the line and column of the value, and nothing is parsed again.

use std::net::SocketAddr;
use std::ops::RangeInclusive;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use tower_terse::Settings;
use tower_terse::compact::ResourceSettings;
use tower_terse::mcp::McpSettings;
use tower_terse::settings::{BudgetSize, Route};

use super::bounds::MAX_RESOURCES;
use crate::forwarded::TrustedProxies;
use crate::upstream::Upstream;
use crate::urls::PublicOrigin;

/// The sections of a file; `[layer]`, `[[route]]`, `[[resource]]` and
/// `[mcp]` are tower-terse's own types, checked by their `Deserialize`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    #[serde(default)]
    pub gateway: GatewaySection,
    #[serde(default)]
    pub layer: Settings,
    #[serde(default, rename = "route", deserialize_with = "bounded")]
    pub routes: Vec<Route>,
    #[serde(default, rename = "resource", deserialize_with = "bounded")]
    pub resources: Vec<ResourceSettings>,
    pub mcp: Option<McpSettings>,
}

/// At most [`MAX_RESOURCES`] routes or resources.
fn bounded<'de, D: Deserializer<'de>, T: Deserialize<'de>>(de: D) -> Result<Vec<T>, D::Error> {
    let items = Vec::<T>::deserialize(de)?;
    if items.len() > MAX_RESOURCES {
        return Err(D::Error::custom(format!(
            "more than {MAX_RESOURCES} entries"
        )));
    }
    Ok(items)
}

/// Declares `[gateway]`, a field for each key, and the function its
/// `deserialize_with` names: the value read as `$raw`, turned into `$ty` by
/// `$parse` (an error names the key).
macro_rules! gateway {
    ($($(#[$doc:meta])* $key:ident $name:literal: $raw:ty => $ty:ty = $parse:expr;)*) => {
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(super) struct GatewaySection {
            $($(#[$doc])* #[serde(default, deserialize_with = $name)]
            pub $key: Option<$ty>,)*
        }

        $(fn $key<'de, D: Deserializer<'de>>(de: D) -> Result<Option<$ty>, D::Error> {
            let raw = <$raw>::deserialize(de)?;
            let parse: fn(&'static str, $raw) -> Result<$ty, String> = $parse;
            parse(stringify!($key), raw).map(Some).map_err(D::Error::custom)
        })*
    };
}

gateway! {
    upstream "upstream": String => String = |key, url| match Upstream::check(&url) {
        Ok(_) => Ok(url),
        Err(err) => Err(format!("`{key}`: {err}")),
    };
    listen "listen": String => SocketAddr = |key, text| address(key, &text, "127.0.0.1:3000");
    metrics_listen "metrics_listen": String => SocketAddr = |key, text| address(key, &text, "127.0.0.1:9464");
    connect_timeout "connect_timeout": String => Duration = duration;
    response_timeout "response_timeout": String => Duration = duration;
    idle_timeout "idle_timeout": String => Duration = duration;
    shutdown_timeout "shutdown_timeout": String => Duration = duration;
    max_request_headers "max_request_headers": usize => usize = |key, n| in_range(key, n, 1..=1000);
    max_header_bytes "max_header_bytes": usize => usize = |key, n| in_range(key, n, 8192..=1 << 20);
    // Hostile clients: connection deadlines and cap, the memory budget of
    // all rewrites, and the proxies trusted with forwarding headers.
    header_read_timeout "header_read_timeout": String => Duration = duration;
    keep_alive_timeout "keep_alive_timeout": String => Duration = duration;
    send_timeout "send_timeout": String => Duration = duration;
    max_connections "max_connections": usize => usize = |key, n| in_range(key, n, 1..=1 << 20);
    max_concurrent_streams "max_concurrent_streams": u32 => u32 = |key, n| {
        in_range(key, n as usize, 1..=1000).map(|_| n)
    };
    // Its range and its error are tower-terse's, as `terse mcp` reads it.
    max_buffered_bytes "max_buffered_bytes": BudgetSize => BudgetSize = |_, size| Ok(size);
    trusted_proxies "trusted_proxies": Vec<String> => TrustedProxies = |key, blocks| {
        TrustedProxies::new(blocks.iter().map(String::as_str)).map_err(|err| format!("`{key}`: {err}"))
    };
    /// Dropped from untrusted clients besides `UNTRUSTED_HEADERS`.
    untrusted_headers "untrusted_headers": Vec<String> => Vec<http::HeaderName> = |key, names| {
        names
            .iter()
            .map(|name| {
                http::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| format!("`{key}`: {name:?} is not a header name"))
            })
            .collect()
    };
    /// What reaches the upstream: its own `Host` or the client's.
    preserve_host "preserve_host": bool => bool = |_, on| Ok(on);
    /// The origin of rewritten URLs instead of the client's `Host`.
    public_origin "public_origin": String => PublicOrigin =
        |key, text| text.parse().map_err(|err| format!("`{key}`: {err}"));
    /// `false`: no line per request (nginx's `access_log off`).
    request_log "request_log": bool => bool = |_, on| Ok(on);
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
