//! OAuth protected-resource metadata (RFC 9728) through the gateway.
//!
//! An upstream that asks for OAuth names itself in its metadata document's
//! `resource`; a client that reached it through the gateway checks that
//! field against the URL it used (RFC 9728 §3.3) and stops the flow when
//! they differ. The document's `resource` is moved to the gateway, as
//! `Location` is ([`crate::urls`]); its `authorization_servers` are other
//! hosts and stay as they are.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use http::header::{CONTENT_ENCODING, CONTENT_LENGTH, ETAG};
use http::{HeaderMap, HeaderValue, Method, Request, Response};
use http_body::Body;
use http_body_util::BodyExt;
use pin_project_lite::pin_project;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use tower::{Layer, Service};

use crate::upstream_body::UpstreamBody;
use crate::urls::{Redirects, RedirectsWanted};

/// Moves the `resource` of OAuth protected-resource metadata answers to
/// the gateway; every other request passes through untouched. It wraps
/// [`Upstream`](crate::Upstream), which works out the answer's URLs for a
/// metadata request and leaves them on the answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct ResourceMetadataLayer;

impl<S> Layer<S> for ResourceMetadataLayer {
    type Service = ResourceMetadata<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ResourceMetadata { inner }
    }
}

/// The service [`ResourceMetadataLayer`] makes.
#[derive(Debug, Clone)]
pub struct ResourceMetadata<S> {
    inner: S,
}

impl<S, B> Service<Request<B>> for ResourceMetadata<S>
where
    S: Service<Request<B>, Response = Response<UpstreamBody>>,
    S::Future: Send + 'static,
{
    type Response = Response<UpstreamBody>;
    type Error = S::Error;
    type Future = MetadataFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        // A GET (or HEAD, answered as the GET) for the metadata, whose
        // answer names the resource.
        let metadata = matches!(*req.method(), Method::GET | Method::HEAD)
            && is_metadata_path(req.uri().path());
        if !metadata {
            let future = self.inner.call(req);
            return MetadataFuture {
                state: State::Passing { future },
            };
        }
        req.extensions_mut().insert(RedirectsWanted);
        let answer = self.inner.call(req);
        let future = Box::pin(async move {
            let response = answer.await?;
            if !response.status().is_success() {
                return Ok(response);
            }
            let (mut parts, body) = response.into_parts();
            let body = match parts.extensions.remove::<Redirects>() {
                Some(redirects) => move_resource(&mut parts.headers, body, &redirects).await,
                None => body,
            };
            Ok(Response::from_parts(parts, body))
        });
        MetadataFuture {
            state: State::Rewriting { future },
        }
    }
}

pin_project! {
    /// Response future of [`ResourceMetadata`]: every other request's
    /// answer is the inner future itself, and only a metadata request pays
    /// for a boxed one.
    pub struct MetadataFuture<F: Future> {
        #[pin]
        state: State<F>,
    }
}

pin_project! {
    #[project = StateProj]
    enum State<F: Future> {
        // Not a metadata request: the inner answer as it comes.
        Passing { #[pin] future: F },
        // A metadata request: the answer with its `resource` moved.
        Rewriting { future: Pin<Box<dyn Future<Output = F::Output> + Send>> },
    }
}

impl<F: Future> Future for MetadataFuture<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        match self.project().state.project() {
            StateProj::Passing { future } => future.poll(cx),
            StateProj::Rewriting { future } => future.as_mut().poll(cx),
        }
    }
}

/// The largest metadata document read to rewrite; a larger one streams on
/// as it came. Real ones are a few hundred bytes.
pub(crate) const MAX_DOCUMENT_BYTES: usize = 64 * 1024;

/// The well-known path of the metadata (RFC 9728 §3.1), alone or with the
/// resource's path after it.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Whether a request for `path` asks for protected-resource metadata.
fn is_metadata_path(path: &str) -> bool {
    path.strip_prefix(WELL_KNOWN)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The upstream's answer to a metadata request with its `resource` moved
/// to the gateway: read whole when it is an identity-coded body of at most
/// [`MAX_DOCUMENT_BYTES`], rewritten when it is a JSON object whose
/// `resource` points under the upstream (a strong `ETag` then weakened).
/// Anything else goes on unchanged and complete, what was read first
/// replayed ahead of the rest.
async fn move_resource(
    headers: &mut HeaderMap,
    body: UpstreamBody,
    redirects: &Redirects,
) -> UpstreamBody {
    let coded = headers
        .get(CONTENT_ENCODING)
        .is_some_and(|c| !c.as_bytes().eq_ignore_ascii_case(b"identity"));
    let too_long = body
        .size_hint()
        .lower()
        .try_into()
        .map_or(true, |len: usize| len > MAX_DOCUMENT_BYTES);
    if coded || too_long {
        return body;
    }
    // Pinned where it stays: the body holds its idle timer.
    let mut body = Box::pin(body);
    let mut read = BytesMut::new();
    let next = loop {
        match body.as_mut().frame().await {
            None => break None,
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) if read.len() + data.len() <= MAX_DOCUMENT_BYTES => {
                    read.extend_from_slice(&data);
                }
                Ok(data) => break Some(Ok(http_body::Frame::data(data))),
                Err(trailers) => break Some(Ok(trailers)),
            },
            Some(Err(err)) => break Some(Err(err)),
        }
    };
    let read = read.freeze();
    if next.is_some() {
        return UpstreamBody::replayed(read, next, body);
    }
    let Some(moved) = move_resource_field(&read, |url| redirects.url(url)) else {
        return UpstreamBody::from(read);
    };
    headers.insert(CONTENT_LENGTH, HeaderValue::from(moved.len()));
    // The same document named from elsewhere: no longer the bytes a strong
    // tag names, still what its weak form does (RFC 9110 §8.8.1).
    let weakened = headers
        .get(ETAG)
        .filter(|tag| !tag.as_bytes().starts_with(b"W/"))
        .and_then(|tag| HeaderValue::from_bytes(&[b"W/", tag.as_bytes()].concat()).ok());
    if let Some(weak) = weakened {
        headers.insert(ETAG, weak);
    }
    UpstreamBody::from(Bytes::from(moved))
}

/// `document` with the URL of its top-level `resource` passed through
/// `moved`, every other byte as it was; `None` when it is not a JSON
/// object (serde_json's parse: linear, nesting bounded) or no URL moved.
pub(crate) fn move_resource_field(
    document: &[u8],
    moved: impl Fn(&str) -> Option<String>,
) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(document).ok()?;
    let Resources(resources) = serde_json::from_str(text).ok()?;
    let mut out = Vec::with_capacity(text.len() + 32);
    let mut copied = 0;
    for raw in resources {
        let Some(url) = serde_json::from_str::<String>(raw.get())
            .ok()
            .and_then(|url| moved(&url))
        else {
            continue;
        };
        // The value's place in `text`: it is a slice of it.
        let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
        out.extend_from_slice(&document[copied..start]);
        serde_json::to_writer(&mut out, &url).ok()?;
        copied = start + raw.get().len();
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&document[copied..]);
    Some(out)
}

/// The values of a JSON object's `resource` members, in order (a
/// duplicated key gives each); anything but an object is refused.
struct Resources<'a>(Vec<&'a RawValue>);

impl<'de> Deserialize<'de> for Resources<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ResourcesVisitor)
    }
}

struct ResourcesVisitor;

impl<'de> Visitor<'de> for ResourcesVisitor {
    type Value = Resources<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = Vec::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let value: &'de RawValue = map.next_value()?;
            if key == "resource" {
                found.push(value);
            }
        }
        Ok(Resources(found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved(url: &str) -> Option<String> {
        url.strip_prefix("http://up:9")
            .map(|rest| format!("http://gw{rest}"))
    }

    fn rewrite(doc: &str) -> Option<String> {
        move_resource_field(doc.as_bytes(), moved).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn the_resource_moves_and_nothing_else() {
        let doc = r#"{ "resource" : "http://up:9/mcp", "authorization_servers": ["http://up:9/as"], "n": 1.50 }"#;
        assert_eq!(
            rewrite(doc).as_deref(),
            Some(
                r#"{ "resource" : "http://gw/mcp", "authorization_servers": ["http://up:9/as"], "n": 1.50 }"#
            )
        );
        assert_eq!(
            rewrite(r#"{"resource":"http:\/\/up:9\/mcp","resource":"http://up:9/"}"#).as_deref(),
            Some(r#"{"resource":"http://gw/mcp","resource":"http://gw/"}"#)
        );
    }

    #[test]
    fn other_documents_pass() {
        for doc in [
            r#"{"resource":"https://elsewhere/mcp"}"#,
            r#"{"resource":7}"#,
            r#"{"nested":{"resource":"http://up:9/mcp"}}"#,
            r#"["http://up:9/mcp"]"#,
            r#""http://up:9/mcp""#,
            r#"{"resource":"http://up:9/mcp""#,
            r#"{"resource":"http://up:9/mcp"} x"#,
            "",
            "\u{feff}{\"resource\":\"http://up:9/mcp\"}",
        ] {
            assert_eq!(rewrite(doc), None, "{doc}");
        }
        let deep = format!(
            r#"{{"resource":"http://up:9/mcp","x":{}1{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        // Skipped values are walked without recursion: depth costs no stack.
        let out = rewrite(&deep).expect("a deep document moves");
        assert!(out.starts_with(r#"{"resource":"http://gw/mcp","x":[[["#));
        assert_eq!(
            out.len(),
            deep.len() - "http://up:9".len() + "http://gw".len()
        );
        assert_eq!(move_resource_field(b"{\"resource\":\"\xff\"}", moved), None);
    }

    #[test]
    fn metadata_paths() {
        assert!(is_metadata_path("/.well-known/oauth-protected-resource"));
        assert!(is_metadata_path(
            "/.well-known/oauth-protected-resource/mcp"
        ));
        assert!(!is_metadata_path("/.well-known/oauth-protected-resourcex"));
        assert!(!is_metadata_path("/.well-known/oauth-authorization-server"));
        assert!(!is_metadata_path("/mcp"));
    }
}
