//! Hop-by-hop headers.

use http::HeaderMap;
use http::header::{CONNECTION, HeaderName, TE, TRAILER, TRANSFER_ENCODING, UPGRADE};

const KEEP_ALIVE: HeaderName = HeaderName::from_static("keep-alive");

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
