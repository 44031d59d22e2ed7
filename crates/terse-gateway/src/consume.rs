//! What the gateway consumes from a request before forwarding it: its own
//! query parameters, its preference header and its media types are asked
//! of the gateway, not of the service behind it.
//!
//! Services treat them as their own otherwise: Django REST framework picks
//! a renderer by `?format=` (404 for `toon`) and by `Accept` (406 for
//! `text/toon`); JSON API servers that filter on every query parameter
//! answer an empty list for `?fields=`.

use http::header::{ACCEPT, HeaderName};
use http::uri::PathAndQuery;
use http::{HeaderMap, HeaderValue};
use std::sync::Arc;
use tower_terse::defaults::{FIELDS_PARAM, FORMAT_PARAM, PREFER_HEADER_NAME};

/// The media types only the gateway serves.
const TERSE_TYPES: [&str; 2] = ["text/toon", "application/toon"];

/// The names the gateway reads from requests and drops before forwarding.
///
/// ```
/// let consumed = terse_gateway::Consumed::default();
/// assert_eq!(consumed.params(), ["format", "fields"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consumed {
    // Shared: the gateway's service is cloned for every request.
    params: Arc<[String]>,
    header: Option<HeaderName>,
}

impl Default for Consumed {
    /// `?format=`, `?fields=` and `X-Prefer-Format`, the layer's defaults.
    fn default() -> Self {
        Consumed {
            params: Arc::new([FORMAT_PARAM.to_owned(), FIELDS_PARAM.to_owned()]),
            header: Some(PREFER_HEADER_NAME),
        }
    }
}

impl Consumed {
    /// Drops the query parameters `params` and the header `header`
    /// (besides terse's media types in `Accept`, always dropped).
    ///
    /// ```
    /// let consumed = terse_gateway::Consumed::new(["terse_format"], None);
    /// assert_eq!(consumed.params(), ["terse_format"]);
    /// ```
    pub fn new<I, S>(params: I, header: Option<HeaderName>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Consumed {
            params: params.into_iter().map(Into::into).collect(),
            header,
        }
    }

    /// The query parameters dropped.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// `path_and_query` without the consumed parameters (`None` when
    /// nothing changes).
    pub(crate) fn query(&self, path_and_query: &PathAndQuery) -> Option<PathAndQuery> {
        let query = path_and_query.query()?;
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| {
                let key = pair.split_once('=').map_or(*pair, |(key, _)| key);
                !self.params.iter().any(|name| key_is(key, name))
            })
            .collect();
        if kept.len() == query.split('&').count() {
            return None;
        }
        let path = path_and_query.path();
        let text = if kept.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{}", kept.join("&"))
        };
        PathAndQuery::try_from(text).ok()
    }

    /// Whether `name` is the preference header, which the upstream never
    /// sees: dropped with the other headers not passed on.
    pub(crate) fn is_header(&self, name: &HeaderName) -> bool {
        self.header.as_ref() == Some(name)
    }

    /// Drops terse's media types from `Accept`; an `Accept` left empty
    /// becomes `application/json`.
    pub(crate) fn accept(&self, headers: &mut HeaderMap) {
        if !headers.contains_key(ACCEPT) {
            return;
        }
        let mut kept: Vec<String> = Vec::new();
        let mut dropped = false;
        for value in headers.get_all(ACCEPT) {
            let Ok(text) = value.to_str() else {
                // Not text: nothing of ours can be in it.
                return;
            };
            for range in text.split(',') {
                let media = range.split(';').next().unwrap_or("").trim();
                if TERSE_TYPES.iter().any(|t| media.eq_ignore_ascii_case(t)) {
                    dropped = true;
                } else if !range.trim().is_empty() {
                    kept.push(range.trim().to_owned());
                }
            }
        }
        if !dropped {
            return;
        }
        let accept = if kept.is_empty() {
            HeaderValue::from_static("application/json")
        } else {
            HeaderValue::try_from(kept.join(", "))
                .unwrap_or_else(|_| HeaderValue::from_static("application/json"))
        };
        headers.insert(ACCEPT, accept);
    }
}

/// Whether a raw query key is `name` once percent-decoded.
fn key_is(raw: &str, name: &str) -> bool {
    if !raw.contains(['%', '+']) {
        return raw == name;
    }
    let bytes = raw.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|b| (*b as char).to_digit(16));
        match bytes[i] {
            b'%' => match (hex(i + 1), hex(i + 2)) {
                (Some(high), Some(low)) => {
                    decoded.push((high * 16 + low) as u8);
                    i += 3;
                    continue;
                }
                _ => decoded.push(b'%'),
            },
            b'+' => decoded.push(b' '),
            byte => decoded.push(byte),
        }
        i += 1;
    }
    decoded == name.as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(uri: &str) -> Option<String> {
        Consumed::default()
            .query(&PathAndQuery::try_from(uri).unwrap())
            .map(|pq| pq.to_string())
    }

    #[test]
    fn the_gateway_parameters_are_dropped_and_the_rest_kept_in_order() {
        assert_eq!(query("/t?format=toon"), Some("/t".to_owned()));
        assert_eq!(
            query("/t?page=2&format=toon&fields=id,title&q=a%26b"),
            Some("/t?page=2&q=a%26b".to_owned())
        );
        assert_eq!(
            query("/t?f%6Frmat=toon&formats=x"),
            Some("/t?formats=x".to_owned())
        );
        assert_eq!(query("/t?fields"), Some("/t".to_owned()));
        assert_eq!(query("/t?page=2"), None);
        assert_eq!(query("/t"), None);
        let own = Consumed::new(["terse"], None);
        assert_eq!(
            own.query(&PathAndQuery::from_static("/t?format=api&terse=toon"))
                .map(|pq| pq.to_string()),
            Some("/t?format=api".to_owned())
        );
    }

    #[test]
    fn accept_loses_only_terse_types() {
        let accept = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(ACCEPT, HeaderValue::from_str(value).unwrap());
            }
            headers.insert("x-prefer-format", HeaderValue::from_static("toon"));
            let consumed = Consumed::default();
            crate::headers::remove_matching(&mut headers, |name| consumed.is_header(name));
            consumed.accept(&mut headers);
            assert!(!headers.contains_key("x-prefer-format"));
            headers
                .get_all(ACCEPT)
                .iter()
                .map(|v| v.to_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(accept(&["text/toon"]), ["application/json"]);
        assert_eq!(
            accept(&["Text/TOON;q=1, application/json;q=0.5", "*/*;q=0.1"]),
            ["application/json;q=0.5, */*;q=0.1"]
        );
        assert_eq!(accept(&["application/json"]), ["application/json"]);
        assert_eq!(accept(&[]), Vec::<String>::new());
    }
}
