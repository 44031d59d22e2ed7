//! URLs in response headers that point at the upstream, pointed back at the
//! gateway (what nginx's `proxy_redirect default` does): a client cannot
//! reach the upstream's address, or should not use it.

use std::fmt;
use std::str::FromStr;

use http::header::{CONTENT_LOCATION, HeaderName, LINK, LOCATION, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue};

use crate::host::is_authority;
use crate::www_authenticate::move_resource_metadata;

/// The most `Link` header values rewritten; more pass as they are.
const MAX_LINKS: usize = 64;

/// The most `WWW-Authenticate` header values rewritten; more pass as they
/// are.
const MAX_CHALLENGE_HEADERS: usize = 16;

/// The origin clients reach the gateway at, when it is not what their
/// `Host` says (a TLS-terminating proxy in front, a name behind a load
/// balancer): rewritten `Location`, `Content-Location` and `Link` URLs, and
/// the OAuth protected-resource URLs (`resource_metadata` in
/// `WWW-Authenticate`, `resource` in the metadata document), use it rather
/// than `http://` and the client's `Host`.
///
/// `scheme://host[:port]`, the scheme `http` or `https`, the host a
/// reg-name or IP literal; a trailing `/` is allowed, any other path,
/// query, fragment or user info is not.
///
/// ```
/// use terse_gateway::PublicOrigin;
///
/// let origin: PublicOrigin = "https://api.example.com/".parse()?;
/// assert_eq!(origin.as_str(), "https://api.example.com");
/// assert!("https://api.example.com/v1".parse::<PublicOrigin>().is_err());
/// assert!("ftp://api.example.com".parse::<PublicOrigin>().is_err());
/// assert!("https://a\"b".parse::<PublicOrigin>().is_err());
/// # Ok::<(), terse_gateway::OriginError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicOrigin(String);

/// Why a [`PublicOrigin`] was refused.
///
/// ```
/// let err = "nope".parse::<terse_gateway::PublicOrigin>().unwrap_err();
/// assert!(err.to_string().contains("nope"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginError(String);

impl fmt::Display for OriginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OriginError {}

impl PublicOrigin {
    /// `scheme://host[:port]`, without a trailing `/`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for PublicOrigin {
    type Err = OriginError;

    fn from_str(text: &str) -> Result<Self, OriginError> {
        let refuse = || {
            OriginError(format!(
                "{text:?} is not an origin such as \"https://api.example.com\""
            ))
        };
        let (scheme, rest) = text.split_once("://").ok_or_else(refuse)?;
        if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
            return Err(refuse());
        }
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if !is_authority(authority.as_bytes()) {
            return Err(refuse());
        }
        Ok(PublicOrigin(format!(
            "{}://{authority}",
            scheme.to_ascii_lowercase()
        )))
    }
}

/// Rewrites absolute URLs from one origin and path prefix to another.
/// A request extension: the answer's URLs are to be worked out whatever
/// its headers, and the [`Redirects`] left on it as a response extension
/// (set by the OAuth metadata layer, which rewrites the body with them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RedirectsWanted;

#[derive(Debug, Clone)]
pub(crate) struct Redirects {
    /// `http://host:port/prefix`, the upstream as configured.
    from: String,
    /// `http://host:port`, the gateway as the client named it (or its
    /// public origin).
    to: String,
}

impl Redirects {
    /// From the upstream's `authority` and `prefix` to the gateway at
    /// `origin`, or else at `host` (the client's, validated by
    /// [`crate::host::request_host`]); `None` with neither.
    pub(crate) fn new(
        authority: &str,
        prefix: &str,
        origin: Option<&PublicOrigin>,
        host: Option<&HeaderValue>,
    ) -> Option<Self> {
        let to = match origin {
            Some(origin) => origin.as_str().to_owned(),
            None => {
                let host = host?;
                // Validated before, and checked again here: a `Host` with
                // anything but a host and port never goes into a URL.
                if !is_authority(host.as_bytes()) {
                    return None;
                }
                format!("http://{}", host.to_str().ok()?)
            }
        };
        Some(Redirects {
            from: format!("http://{authority}{prefix}"),
            to,
        })
    }

    /// Whether [`apply`](Self::apply) may find anything to change in
    /// `headers`: for most answers it has nothing to look at, and the
    /// redirects are not worked out at all.
    pub(crate) fn wanted(headers: &HeaderMap) -> bool {
        headers.keys().any(Self::names)
    }

    /// Whether a header named `name` may hold URLs to point back (what
    /// [`wanted`](Self::wanted) looks for).
    pub(crate) fn names(name: &HeaderName) -> bool {
        // One by one: standard names, each compared as a small integer.
        *name == LOCATION || *name == CONTENT_LOCATION || *name == LINK || *name == WWW_AUTHENTICATE
    }

    /// `Location`, `Content-Location`, every `Link` URL and every
    /// `resource_metadata` URL of `WWW-Authenticate` that point under the
    /// upstream's prefix, now under the gateway's root.
    pub(crate) fn apply(&self, headers: &mut HeaderMap) {
        for name in [LOCATION, CONTENT_LOCATION] {
            let rewritten = headers
                .get(&name)
                .and_then(|v| v.to_str().ok())
                .and_then(|url| self.url(url));
            if let Some(value) = rewritten.and_then(|url| HeaderValue::try_from(url).ok()) {
                headers.insert(name, value);
            }
        }
        self.challenges(headers);
        if !headers.contains_key(LINK) || headers.get_all(LINK).iter().count() > MAX_LINKS {
            return;
        }
        let links: Vec<HeaderValue> = headers
            .get_all(LINK)
            .iter()
            .map(|value| {
                value
                    .to_str()
                    .ok()
                    .and_then(|text| self.links(text))
                    .and_then(|text| HeaderValue::try_from(text).ok())
                    .unwrap_or_else(|| value.clone())
            })
            .collect();
        headers.remove(LINK);
        for link in links {
            headers.append(LINK, link);
        }
    }

    /// The `resource_metadata` URL of every `WWW-Authenticate` challenge
    /// (RFC 9728 §5.1), whatever the status and scheme, moved: a client
    /// fetches the metadata from where the header says.
    fn challenges(&self, headers: &mut HeaderMap) {
        let count = headers.get_all(WWW_AUTHENTICATE).iter().count();
        if count == 0 || count > MAX_CHALLENGE_HEADERS {
            return;
        }
        let mut changed = false;
        let values: Vec<HeaderValue> = headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .map(|value| {
                move_resource_metadata(value.as_bytes(), |url| self.url(url))
                    .and_then(|moved| HeaderValue::from_bytes(&moved).ok())
                    .inspect(|_| changed = true)
                    .unwrap_or_else(|| value.clone())
            })
            .collect();
        if !changed {
            return;
        }
        headers.remove(WWW_AUTHENTICATE);
        for value in values {
            headers.append(WWW_AUTHENTICATE, value);
        }
    }

    /// `url` moved to the gateway, when it points under the upstream.
    pub(crate) fn url(&self, url: &str) -> Option<String> {
        let head = url.get(..self.from.len())?;
        if !head.eq_ignore_ascii_case(&self.from) {
            return None;
        }
        let rest = &url[self.from.len()..];
        match rest.bytes().next() {
            None => Some(format!("{}/", self.to)),
            Some(b'/') => Some(format!("{}{rest}", self.to)),
            Some(b'?' | b'#') => Some(format!("{}/{rest}", self.to)),
            // `http://up:80001` is another port, `/apix` another path.
            Some(_) => None,
        }
    }

    /// A `Link` value with each `<URL>` moved (RFC 8288: URLs are in angle
    /// brackets, which they cannot contain).
    fn links(&self, text: &str) -> Option<String> {
        let mut out = String::with_capacity(text.len() + 16);
        let mut rest = text;
        let mut changed = false;
        while let Some(open) = rest.find('<') {
            let close = open + rest[open..].find('>')?;
            out.push_str(&rest[..=open]);
            let url = &rest[open + 1..close];
            match self.url(url) {
                Some(moved) => {
                    out.push_str(&moved);
                    changed = true;
                }
                None => out.push_str(url),
            }
            rest = &rest[close..];
            out.push('>');
            rest = &rest[1..];
        }
        out.push_str(rest);
        changed.then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redirects(prefix: &str) -> Redirects {
        Redirects::new(
            "127.0.0.1:8000",
            prefix,
            None,
            Some(&HeaderValue::from_static("gw.local:3000")),
        )
        .unwrap()
    }

    #[test]
    fn urls_under_the_upstream_move_to_the_gateway() {
        let r = redirects("");
        assert_eq!(
            r.url("http://127.0.0.1:8000/tasks/2?x=1").as_deref(),
            Some("http://gw.local:3000/tasks/2?x=1")
        );
        assert_eq!(
            r.url("HTTP://127.0.0.1:8000").as_deref(),
            Some("http://gw.local:3000/")
        );
        assert_eq!(
            r.url("http://127.0.0.1:8000?a").as_deref(),
            Some("http://gw.local:3000/?a")
        );
        assert_eq!(r.url("http://127.0.0.1:80001/x"), None);
        assert_eq!(r.url("https://example.com/x"), None);
        assert_eq!(r.url("/tasks/2"), None);
        let r = redirects("/api");
        assert_eq!(
            r.url("http://127.0.0.1:8000/api/tasks").as_deref(),
            Some("http://gw.local:3000/tasks")
        );
        assert_eq!(r.url("http://127.0.0.1:8000/apix"), None);
        assert_eq!(r.url("http://127.0.0.1:8000/other"), None);
    }

    #[test]
    fn headers_are_rewritten_in_place() {
        let mut headers = HeaderMap::new();
        headers.insert(
            LOCATION,
            HeaderValue::from_static("http://127.0.0.1:8000/a"),
        );
        headers.insert(CONTENT_LOCATION, HeaderValue::from_static("/b"));
        headers.append(
            LINK,
            HeaderValue::from_static(
                r#"<http://127.0.0.1:8000/t?page=2>; rel="next", <https://docs.example/>; rel="help""#,
            ),
        );
        headers.append(LINK, HeaderValue::from_static("<broken"));
        redirects("").apply(&mut headers);
        assert_eq!(headers[LOCATION], "http://gw.local:3000/a");
        assert_eq!(headers[CONTENT_LOCATION], "/b");
        let links: Vec<_> = headers.get_all(LINK).iter().collect();
        assert_eq!(
            links,
            [
                r#"<http://gw.local:3000/t?page=2>; rel="next", <https://docs.example/>; rel="help""#,
                "<broken"
            ]
        );
        for evil in ["evil/x", "a\"b", "a b", "u@h"] {
            let host = HeaderValue::from_static(evil);
            assert!(Redirects::new("a:1", "", None, Some(&host)).is_none());
        }
    }

    #[test]
    fn challenges_name_the_gateway_and_malformed_ones_pass() {
        let mut headers = HeaderMap::new();
        let challenge = r#"Bearer error="invalid_token", resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp""#;
        headers.append(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
        let malformed: Vec<HeaderValue> = [
            &br#"Bearer resource_metadata="http://127.0.0.1:8000/m"#[..],
            b"Bearer resource_metadata=\"http://127.0.0.1:8000/\xff\"",
            br#"Bearer resource_metadata="http://127.0.0.1:8000/m"""#,
            br#""""\\,,=="#,
            b"Bearer resource_metadata=http://127.0.0.1:8000/m",
        ]
        .iter()
        .map(|bytes| HeaderValue::from_bytes(bytes).unwrap())
        .collect();
        for value in &malformed {
            headers.append(WWW_AUTHENTICATE, value.clone());
        }
        redirects("").apply(&mut headers);
        let values: Vec<_> = headers.get_all(WWW_AUTHENTICATE).iter().collect();
        assert_eq!(
            values[0],
            r#"Bearer error="invalid_token", resource_metadata="http://gw.local:3000/.well-known/oauth-protected-resource/mcp""#
        );
        assert_eq!(&values[1..], malformed.iter().collect::<Vec<_>>());
        // Past the most values rewritten, all pass as they came.
        let mut many = HeaderMap::new();
        for _ in 0..=MAX_CHALLENGE_HEADERS {
            many.append(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
        }
        let before = many.clone();
        redirects("").apply(&mut many);
        assert_eq!(many, before);
    }

    #[test]
    fn a_public_origin_replaces_the_host() {
        let origin: PublicOrigin = "HTTPS://api.example.com:8443".parse().unwrap();
        let host = HeaderValue::from_static("internal:3000");
        let r = Redirects::new("127.0.0.1:8000", "", Some(&origin), Some(&host)).unwrap();
        assert_eq!(
            r.url("http://127.0.0.1:8000/a").as_deref(),
            Some("https://api.example.com:8443/a")
        );
        assert!(Redirects::new("127.0.0.1:8000", "", Some(&origin), None).is_some());
        for bad in [
            "api.example.com",
            "https://",
            "https://a/b",
            "https://u@a",
            "https://a?x",
        ] {
            assert!(bad.parse::<PublicOrigin>().is_err(), "{bad}");
        }
    }
}
