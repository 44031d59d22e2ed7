//! What both fuzz targets share: driving the layer's futures and bodies to
//! the end without a runtime, and the checks every response must pass.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::{Future, Ready, ready};
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE, ETAG};
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode};
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use serde_json::Value;
use tower_service::Service;

/// Polls `future` until it is ready. Every service and body in these targets
/// is always ready, so no waker is ever needed; the bound turns a future
/// that never finishes into a failure instead of a hang.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1_000_000 {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
    panic!("a future of the layer stayed pending with everything it waits on ready");
}

/// The whole body of a response, headers kept.
pub fn collect<B>(response: Response<B>) -> (http::response::Parts, Bytes)
where
    B: Body,
    B::Error: std::fmt::Debug,
{
    let (parts, body) = response.into_parts();
    let collected = block_on(body.collect()).expect("the inner bodies never fail");
    (parts, collected.to_bytes())
}

/// Checks that a declared `Content-Length` is the length of the body sent.
/// A `HEAD` answer has no body and declares what `GET` would send.
pub fn check_length(headers: &HeaderMap, body: &[u8], head: bool) {
    let Some(value) = headers.get(CONTENT_LENGTH) else {
        return;
    };
    assert_eq!(
        headers.get_all(CONTENT_LENGTH).iter().count(),
        1,
        "more than one Content-Length"
    );
    let declared: usize = value
        .to_str()
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or_else(|| panic!("Content-Length is not a number: {value:?}"));
    if !(head && body.is_empty()) {
        assert_eq!(
            declared,
            body.len(),
            "Content-Length does not match the body"
        );
    }
}

/// A response body made of the given chunks, each one frame, all ready.
#[derive(Debug)]
pub struct Frames {
    chunks: VecDeque<Bytes>,
    exact: Option<u64>,
}

impl Frames {
    /// A body of `chunks`; `exact` gives the size hint an honest handler
    /// would (`None`: unknown length, as a streaming handler has).
    pub fn new(chunks: impl IntoIterator<Item = Bytes>, exact: bool) -> Self {
        let chunks: VecDeque<Bytes> = chunks.into_iter().collect();
        let len = chunks.iter().map(|chunk| chunk.len() as u64).sum();
        Frames {
            chunks,
            exact: exact.then_some(len),
        }
    }
}

impl Body for Frames {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.chunks.pop_front().map(|chunk| Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        match self.exact {
            Some(len) => SizeHint::with_exact(len),
            None => SizeHint::default(),
        }
    }
}

/// A query string as the `http` crate accepts it: the bytes as they came
/// when it takes them, or else with every byte it refuses percent-encoded,
/// so the layer's decoding still sees them.
pub fn uri(path: &str, query: &[u8]) -> Option<http::Uri> {
    let mut raw = path.as_bytes().to_vec();
    raw.push(b'?');
    raw.extend_from_slice(query);
    if let Ok(uri) = http::Uri::from_maybe_shared(raw) {
        return Some(uri);
    }
    let mut text = format!("{path}?");
    for &byte in query {
        if byte.is_ascii_graphic() && byte != b'#' {
            text.push(byte as char);
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    http::Uri::try_from(text).ok()
}

/// A 400 is the layer's envelope: `{"error":{"code","message","hint"}}`,
/// all strings, nothing else, as JSON.
pub fn check_envelope(headers: &HeaderMap, sent: &[u8]) {
    assert_eq!(
        headers.get(CONTENT_TYPE).map(HeaderValue::as_bytes),
        Some(&b"application/json"[..]),
        "a refusal that is not JSON"
    );
    let value: Value = serde_json::from_slice(sent).expect("a refusal body that does not parse");
    let root = value.as_object().expect("a refusal that is not an object");
    assert_eq!(root.len(), 1, "a refusal with more than `error`: {value}");
    let error = root["error"].as_object().expect("`error` is not an object");
    assert_eq!(error.len(), 3, "an error with other keys: {value}");
    for key in ["code", "message", "hint"] {
        let text = error
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("`error.{key}` is not a string: {value}"));
        assert!(!text.is_empty(), "`error.{key}` is empty: {value}");
    }
}

/// The compact resource both targets register: a template with a field and
/// an optional group, so rendering and dropping groups both run.
pub fn event_resource() -> tower_terse::compact::CompactResource {
    tower_terse::compact::CompactResource::new(
        "event",
        tower_terse::compact::Template::parse("{title}{? @ {room}}").expect("the template parses"),
    )
}

/// The handler both targets wrap: answers with the given status, type,
/// frames and headers, whatever it is asked.
#[derive(Clone)]
pub struct Reply {
    /// The status to answer with.
    pub status: StatusCode,
    /// The content type.
    pub content_type: &'static str,
    /// The body, frame by frame.
    pub chunks: Vec<Bytes>,
    /// A `Content-Length` to declare, if any.
    pub length: Option<usize>,
    /// An `ETag` to send, if any.
    pub etag: Option<&'static str>,
}

impl<B> Service<Request<B>> for Reply {
    type Response = Response<Frames>;
    type Error = Infallible;
    type Future = Ready<Result<Response<Frames>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _req: Request<B>) -> Self::Future {
        let body = Frames::new(self.chunks.clone(), self.length.is_some());
        let mut response = Response::new(body);
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(self.content_type));
        if let Some(tag) = self.etag {
            headers.insert(ETAG, HeaderValue::from_static(tag));
        }
        if let Some(length) = self.length {
            headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
        }
        ready(Ok(response))
    }
}
