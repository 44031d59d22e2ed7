//! DNS-rebinding protection for the MCP endpoint: the `Host` and `Origin`
//! of each request checked before it reaches the upstream.
//!
//! The gateway sends the upstream its own address as `Host`, so a server's
//! own check (the MCP SDKs validate `Host` on loopback) would always pass:
//! the gateway checks in its place, by the same rules.

use std::net::SocketAddr;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HOST, ORIGIN};
use http::{HeaderValue, Request, Response, StatusCode};
use http_body_util::Full;

/// The hostnames a loopback listener answers to by default, as the MCP
/// SDKs allow them.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Who may call the MCP endpoint, by the `Host` and `Origin` of the
/// request; a request refused gets a 403 with a JSON-RPC error, as the MCP
/// SDKs answer.
///
/// - `Host`: its hostname (any port) must be one of the allowed hosts,
///   when there is a list.
/// - `Origin`, when the request has one (browsers send it): one of the
///   allowed origins when there is a list; otherwise an origin whose
///   hostname is an allowed host, or, with no host list either, the
///   request's own `Host` (same origin).
///
/// ```
/// use terse_gateway::McpAccess;
///
/// let local = McpAccess::for_listener(([127, 0, 0, 1], 3000).into());
/// assert_eq!(local, McpAccess::loopback());
/// let public = McpAccess::for_listener(([0, 0, 0, 0], 3000).into())
///     .allowed_hosts(["mcp.example.com"])
///     .allowed_origins(["https://app.example.com"]);
/// assert_ne!(public, McpAccess::any());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpAccess {
    /// Lowercase hostnames, IPv6 literals in brackets; `None`: any.
    hosts: Option<Vec<String>>,
    /// Lowercase origins (`scheme://host[:port]`); `None`: by the hosts.
    origins: Option<Vec<String>>,
}

impl McpAccess {
    /// Any `Host`; an `Origin` only of the request's own host.
    ///
    /// ```
    /// assert_eq!(terse_gateway::McpAccess::any(), terse_gateway::McpAccess::default());
    /// ```
    pub fn any() -> Self {
        McpAccess::default()
    }

    /// Only `localhost`, `127.0.0.1` and `[::1]`, with any port, as `Host`
    /// and in `Origin`.
    ///
    /// ```
    /// let access = terse_gateway::McpAccess::loopback();
    /// assert_eq!(access, terse_gateway::McpAccess::any().allowed_hosts(["localhost", "127.0.0.1", "[::1]"]));
    /// ```
    pub fn loopback() -> Self {
        McpAccess::any().allowed_hosts(LOOPBACK)
    }

    /// The default for a gateway listening on `addr`: [`loopback`] when
    /// it is a loopback address (what the MCP SDKs do for a server bound
    /// there), else [`any`].
    ///
    /// [`loopback`]: Self::loopback
    /// [`any`]: Self::any
    ///
    /// ```
    /// use terse_gateway::McpAccess;
    /// assert_eq!(McpAccess::for_listener("[::1]:3000".parse()?), McpAccess::loopback());
    /// assert_eq!(McpAccess::for_listener("0.0.0.0:3000".parse()?), McpAccess::any());
    /// # Ok::<(), std::net::AddrParseError>(())
    /// ```
    pub fn for_listener(addr: SocketAddr) -> Self {
        if addr.ip().is_loopback() {
            Self::loopback()
        } else {
            Self::any()
        }
    }

    /// The hostnames (without port; IPv6 literals in brackets, `[::1]`)
    /// the `Host` of a request must name.
    ///
    /// ```
    /// let access = terse_gateway::McpAccess::any().allowed_hosts(["mcp.example.com"]);
    /// # drop(access);
    /// ```
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.hosts = Some(
            hosts
                .into_iter()
                .map(|h| h.as_ref().to_ascii_lowercase())
                .collect(),
        );
        self
    }

    /// The origins (`https://app.example.com`, with the port when it is
    /// not the scheme's) whose pages may call the endpoint; without it, an
    /// origin on an allowed host.
    ///
    /// ```
    /// let access = terse_gateway::McpAccess::any().allowed_origins(["https://app.example.com"]);
    /// # drop(access);
    /// ```
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.origins = Some(
            origins
                .into_iter()
                .map(|o| o.as_ref().trim_end_matches('/').to_ascii_lowercase())
                .collect(),
        );
        self
    }

    /// The 403 for `request`, or `None` when it may pass.
    pub(crate) fn refusal<B>(&self, request: &Request<B>) -> Option<Response<Full<Bytes>>> {
        let host = request
            .headers()
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| request.uri().authority().map(|a| a.as_str()));
        if let Some(hosts) = &self.hosts {
            let Some(host) = host else {
                return Some(forbidden("Missing Host header"));
            };
            match hostname(host) {
                Some(name) if hosts.contains(&name) => {}
                _ => return Some(forbidden(&format!("Invalid Host: {}", shown(host)))),
            }
        }
        let origin = request.headers().get(ORIGIN)?;
        let allowed = origin.to_str().ok().is_some_and(|origin| {
            let origin = origin.trim_end_matches('/').to_ascii_lowercase();
            match (&self.origins, &self.hosts) {
                (Some(origins), _) => origins.contains(&origin),
                (None, Some(hosts)) => origin_host(&origin)
                    .is_some_and(|o| hostname(o).is_some_and(|n| hosts.contains(&n))),
                (None, None) => match (origin_host(&origin), host) {
                    (Some(o), Some(h)) => hostname(o).is_some() && hostname(o) == hostname(h),
                    _ => false,
                },
            }
        });
        if allowed {
            None
        } else {
            let shown_origin = origin.to_str().map(shown).unwrap_or_default();
            Some(forbidden(&format!("Invalid Origin: {shown_origin}")))
        }
    }
}

/// The lowercase hostname of a `host[:port]` (IPv6 literals keep their
/// brackets); `None` when it is not one.
fn hostname(host: &str) -> Option<String> {
    let name = if host.starts_with('[') {
        let end = host.find(']')?;
        let rest = &host[end + 1..];
        if !(rest.is_empty() || port(rest.strip_prefix(':')?)) {
            return None;
        }
        &host[..=end]
    } else {
        match host.rsplit_once(':') {
            Some((name, p)) if port(p) => name,
            Some(_) => return None,
            None => host,
        }
    };
    let valid = !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'[' | b']' | b':')
        });
    valid.then(|| name.to_ascii_lowercase())
}

fn port(text: &str) -> bool {
    !text.is_empty() && text.len() <= 5 && text.bytes().all(|b| b.is_ascii_digit())
}

/// The `host[:port]` of an origin `scheme://host[:port]`.
fn origin_host(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    (web && !rest.is_empty() && !rest.contains('/')).then_some(rest)
}

/// At most 100 characters of what the client sent, for the error message.
fn shown(text: &str) -> &str {
    match text.char_indices().nth(100) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The 403 the MCP SDKs send for a refused `Host` or `Origin`.
fn forbidden(message: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "error": {"code": -32000, "message": message},
        "id": null,
    });
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = StatusCode::FORBIDDEN;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(host: Option<&str>, origin: Option<&str>) -> Request<()> {
        let mut builder = Request::post("/mcp");
        if let Some(host) = host {
            builder = builder.header(HOST, host);
        }
        if let Some(origin) = origin {
            builder = builder.header(ORIGIN, origin);
        }
        builder.body(()).unwrap()
    }

    fn passes(access: &McpAccess, host: Option<&str>, origin: Option<&str>) -> bool {
        access.refusal(&request(host, origin)).is_none()
    }

    #[test]
    fn loopback_refuses_other_hosts_and_origins() {
        let access = McpAccess::loopback();
        assert!(passes(&access, Some("localhost:3000"), None));
        assert!(passes(
            &access,
            Some("127.0.0.1:3000"),
            Some("http://127.0.0.1:3000")
        ));
        assert!(passes(
            &access,
            Some("[::1]:3000"),
            Some("http://localhost:5173")
        ));
        assert!(passes(&access, Some("LOCALHOST"), None));
        assert!(!passes(&access, Some("evil.example.com"), None));
        assert!(!passes(
            &access,
            Some("evil.example.com:3000"),
            Some("http://evil.example.com")
        ));
        assert!(!passes(
            &access,
            Some("localhost:3000"),
            Some("http://evil.example.com")
        ));
        assert!(!passes(&access, Some("localhost:3000"), Some("null")));
        assert!(!passes(&access, Some("localhost.evil.com"), None));
        assert!(!passes(&access, Some("localhost:x"), None));
        assert!(!passes(&access, Some("[::1]x"), None));
        assert!(!passes(&access, None, None));
        let refused = access
            .refusal(&request(Some("evil.example.com"), None))
            .unwrap();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    }

    #[test]
    fn any_host_and_same_origin_by_default() {
        let access = McpAccess::any();
        assert!(passes(&access, Some("mcp.example.com"), None));
        assert!(passes(
            &access,
            Some("mcp.example.com"),
            Some("https://mcp.example.com")
        ));
        assert!(!passes(
            &access,
            Some("mcp.example.com"),
            Some("https://evil.example.com")
        ));
        assert!(!passes(&access, None, Some("https://mcp.example.com")));
    }

    #[test]
    fn listed_origins_only() {
        let access = McpAccess::any()
            .allowed_hosts(["mcp.example.com"])
            .allowed_origins(["https://App.example.com/"]);
        assert!(passes(
            &access,
            Some("mcp.example.com:443"),
            Some("https://app.example.com")
        ));
        assert!(!passes(
            &access,
            Some("mcp.example.com"),
            Some("https://mcp.example.com")
        ));
        assert!(!passes(&access, Some("localhost"), None));
    }
}
