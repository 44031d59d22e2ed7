//! Hop-by-hop and forwarded headers.

use std::net::IpAddr;

use http::header::{CONNECTION, HeaderName, TE, TRAILER, TRANSFER_ENCODING, UPGRADE};
use http::{HeaderMap, HeaderValue};

const KEEP_ALIVE: HeaderName = HeaderName::from_static("keep-alive");
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
const X_FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");

/// Removes the headers that concern one connection only (RFC 9110 §7.6.1):
/// `Connection` and every header it names, `Keep-Alive`, `TE`, `Trailer`,
/// `Transfer-Encoding`, `Upgrade`, and every `Proxy-*` header.
///
/// ```
/// use http::HeaderMap;
///
/// let mut headers = HeaderMap::new();
/// headers.insert("connection", "close, x-secret".parse().unwrap());
/// headers.insert("x-secret", "1".parse().unwrap());
/// headers.insert("proxy-authorization", "Basic eA==".parse().unwrap());
/// headers.insert("x-kept", "1".parse().unwrap());
/// terse_gateway::remove_hop_by_hop(&mut headers);
/// assert_eq!(headers.keys().collect::<Vec<_>>(), ["x-kept"]);
/// ```
pub fn remove_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in [
        CONNECTION,
        KEEP_ALIVE,
        TE,
        TRAILER,
        TRANSFER_ENCODING,
        UPGRADE,
    ] {
        headers.remove(name);
    }
    let proxy: Vec<HeaderName> = headers
        .keys()
        .filter(|name| name.as_str().starts_with("proxy-"))
        .cloned()
        .collect();
    for name in proxy {
        headers.remove(name);
    }
}

/// Adds `X-Forwarded-For` (the client's address appended to any list the
/// request brought), and sets `X-Forwarded-Proto: http` and
/// `X-Forwarded-Host` (the `Host` the client asked for).
pub(crate) fn add_forwarded(
    headers: &mut HeaderMap,
    client: Option<IpAddr>,
    host: Option<HeaderValue>,
) {
    if let Some(ip) = client {
        let previous: Vec<&str> = headers
            .get_all(&X_FORWARDED_FOR)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let list = if previous.is_empty() {
            ip.to_string()
        } else {
            format!("{}, {ip}", previous.join(", "))
        };
        if let Ok(value) = HeaderValue::try_from(list) {
            headers.insert(X_FORWARDED_FOR, value);
        }
    }
    headers.insert(X_FORWARDED_PROTO, HeaderValue::from_static("http"));
    match host {
        Some(host) => {
            headers.insert(X_FORWARDED_HOST, host);
        }
        None => {
            headers.remove(X_FORWARDED_HOST);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_appends() {
        let mut headers = HeaderMap::new();
        headers.append(X_FORWARDED_FOR, HeaderValue::from_static("10.0.0.1"));
        headers.append(X_FORWARDED_FOR, HeaderValue::from_static("10.0.0.2"));
        add_forwarded(
            &mut headers,
            Some([127, 0, 0, 1].into()),
            Some(HeaderValue::from_static("api.example")),
        );
        assert_eq!(headers[X_FORWARDED_FOR], "10.0.0.1, 10.0.0.2, 127.0.0.1");
        assert_eq!(headers[X_FORWARDED_PROTO], "http");
        assert_eq!(headers[X_FORWARDED_HOST], "api.example");
    }
}
