//! Request and response headers that must not be passed on: hop-by-hop
//! headers, and request headers whose names have an underscore.

use http::header::{CONNECTION, Entry, HeaderName, TE, TRAILER, TRANSFER_ENCODING, UPGRADE};
use http::{HeaderMap, HeaderValue};

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
    remove_named_in_connection(headers);
    remove_matching(headers, hop_by_hop);
}

/// Removes `Connection` and every header it names, the first half of
/// [`remove_hop_by_hop`]; the other hop-by-hop headers are those
/// [`hop_by_hop`] matches.
pub(crate) fn remove_named_in_connection(headers: &mut HeaderMap) {
    // Taken out first, so that the names it lists are read while the map
    // changes; one value (the usual case) is taken without a list.
    let mut values = headers.get_all(CONNECTION).iter();
    let (only, several) = match (values.next(), values.next()) {
        (Some(value), None) => (Some(value.clone()), false),
        (first, _) => (None, first.is_some()),
    };
    // Without `Connection` (most requests and answers) there is no entry
    // to look up a second time.
    let listed: Vec<HeaderValue> = match several.then(|| headers.entry(CONNECTION)) {
        Some(Entry::Occupied(entry)) => entry.remove_entry_mult().1.collect(),
        _ => Vec::new(),
    };
    for name in only
        .iter()
        .chain(&listed)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
    {
        // Looked up by `&str`: any case, and no copy of the name.
        headers.remove(name.trim());
    }
}

/// Whether `name` is a hop-by-hop header whatever `Connection` says: the
/// hop-by-hop headers of RFC 9110 §7.6.1 (and `Keep-Alive`), besides those
/// `Connection` names, and every `Proxy-*` one. Standard names compared
/// one by one as `HeaderName`s (two small integers each); a list of them
/// read with `contains` cost several times as much, whether a constant
/// (built and dropped on every call) or a static.
pub(crate) fn hop_by_hop(name: &HeaderName) -> bool {
    *name == CONNECTION
        || *name == TE
        || *name == TRAILER
        || *name == TRANSFER_ENCODING
        || *name == UPGRADE
        || {
            let text = name.as_str();
            text == KEEP_ALIVE.as_str() || text.starts_with("proxy-")
        }
}

/// Removes every header whose name `matches`: one pass over the names
/// there are (a few), rather than a lookup for each name that could be.
pub(crate) fn remove_matching(headers: &mut HeaderMap, matches: impl Fn(&HeaderName) -> bool) {
    let names: Vec<HeaderName> = headers
        .keys()
        .filter(|name| matches(name))
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
    remove_matching(headers, underscored);
}

/// Whether `name` has an underscore (see [`remove_underscored`]).
pub(crate) fn underscored(name: &HeaderName) -> bool {
    // As bytes: a `char` pattern sets up a searcher for every name.
    name.as_str().as_bytes().contains(&b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_names_are_those_of_the_rfc_keep_alive_and_proxy_ones() {
        for (name, hop) in [
            ("connection", true),
            ("keep-alive", true),
            ("te", true),
            ("trailer", true),
            ("transfer-encoding", true),
            ("upgrade", true),
            ("proxy-authorization", true),
            ("proxy-x", true),
            ("content-type", false),
            ("x-proxy-id", false),
            ("keep-alive-x", false),
            ("trailers", false),
            ("upgrade-insecure-requests", false),
        ] {
            let name = HeaderName::from_static(name);
            assert_eq!(hop_by_hop(&name), hop, "{name}");
        }
    }

    #[test]
    fn names_in_connection_go_whatever_their_case_and_however_many_values() {
        let mut headers = HeaderMap::new();
        headers.append(
            CONNECTION,
            HeaderValue::from_static("X-Secret , Keep-Alive"),
        );
        headers.insert("x-secret", HeaderValue::from_static("1"));
        headers.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        headers.insert("x-kept", HeaderValue::from_static("1"));
        remove_hop_by_hop(&mut headers);
        assert_eq!(headers.keys().collect::<Vec<_>>(), ["x-kept"]);

        let mut headers = HeaderMap::new();
        headers.append(CONNECTION, HeaderValue::from_static("x-one"));
        headers.append(CONNECTION, HeaderValue::from_static("X-TWO,,"));
        headers.insert("x-one", HeaderValue::from_static("1"));
        headers.insert("x-two", HeaderValue::from_static("2"));
        headers.insert("x-kept", HeaderValue::from_static("1"));
        remove_hop_by_hop(&mut headers);
        assert_eq!(headers.keys().collect::<Vec<_>>(), ["x-kept"]);
    }
}
