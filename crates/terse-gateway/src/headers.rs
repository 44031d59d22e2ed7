//! Request and response headers that must not be passed on: hop-by-hop
//! headers, and request headers whose names have an underscore.

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
    remove_matching(headers, |name| name.starts_with("proxy-"));
}

/// Removes every header whose (lowercase) name `matches`.
pub(crate) fn remove_matching(headers: &mut HeaderMap, matches: impl Fn(&str) -> bool) {
    let names: Vec<HeaderName> = headers
        .keys()
        .filter(|name| matches(name.as_str()))
        .cloned()
        .collect();
    for name in names {
        headers.remove(name);
    }
}

/// Removes every request header whose name has an underscore, from every
/// client, trusted proxy or not (nginx's `underscores_in_headers off`,
/// Apache httpd's and gunicorn's defaults).
///
/// CGI, WSGI, Rack and PHP name a header's variable with `-` read as `_`
/// (`HTTP_X_FORWARDED_FOR`), so `X_Forwarded_For` reaches the service as
/// the `X-Forwarded-For` the gateway set, joined to it. Dropping only the
/// aliases of the headers the gateway sets would leave every other header
/// a service trusts (`X-Remote-User` from an auth proxy, an API key header
/// a middleware checks) open to the same trick, and the gateway cannot
/// know which those are; a name with `_` is rare in real APIs, and a
/// service behind nginx already never gets one.
///
/// ```
/// use http::HeaderMap;
///
/// let mut headers = HeaderMap::new();
/// headers.insert("x_forwarded_for", "10.6.6.6".parse().unwrap());
/// headers.insert("x-real_ip", "10.6.6.6".parse().unwrap());
/// headers.insert("x-kept", "1".parse().unwrap());
/// terse_gateway::remove_underscored(&mut headers);
/// assert_eq!(headers.keys().collect::<Vec<_>>(), ["x-kept"]);
/// ```
pub fn remove_underscored(headers: &mut HeaderMap) {
    remove_matching(headers, |name| name.contains('_'));
}
