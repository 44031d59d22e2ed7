//! Fuzz target: arbitrary response bodies through the layer.
//!
//! The handler answers with the input's bytes as JSON (in one frame or
//! several), the request asks with the input's query string. Whatever the
//! bytes, the layer must send either them unchanged or a rewrite within its
//! output bound; a body it did not rewrite keeps its strong `ETag` and is
//! byte for byte what the handler sent; errors pass untouched.
//!
//! Layout: byte 0 picks how the body is framed and labelled, the status, the
//! method and the layer; byte 1 sizes the frames; the query string runs to
//! the first `\n`; the body is everything after it.

#![no_main]

use std::sync::OnceLock;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, ETAG};
use http::{Method, Request, StatusCode};
use libfuzzer_sys::fuzz_target;
use tower_terse::TerseLayer;
use terse_fuzz::{Reply, block_on, check_envelope, check_length, collect, event_resource, uri};
use tower_layer::Layer;
use tower_service::Service;

/// Bodies over this are sent on unchanged; small, so the fuzzer reaches it.
const MAX_BODY_BYTES: usize = 2048;
/// The bound on a TOON text or compact envelope the layer writes.
const MAX_OUTPUT_BYTES: usize = 4 * MAX_BODY_BYTES;
/// What a rewrite may add past the bound (none is expected today).
const SLACK: usize = 64;
/// The handler's ETag: a rewrite must weaken or drop it.
const TAG: &str = "\"fuzz\"";

/// The layers, built once: smart fallback on and off, both bounded, both
/// with a compact resource on the path every request goes to.
fn layers() -> &'static [TerseLayer; 2] {
    static LAYERS: OnceLock<[TerseLayer; 2]> = OnceLock::new();
    LAYERS.get_or_init(|| {
        let event = event_resource();
        let base = TerseLayer::new()
            .max_body_bytes(MAX_BODY_BYTES)
            .max_output_bytes(MAX_OUTPUT_BYTES)
            .compact_resource("/api/v1/events", event);
        [base.clone(), base.smart_fallback(false)]
    })
}

/// The input's body cut into frames as byte 0 and byte 1 say.
fn frames(mode: u8, size: u8, body: &Bytes) -> Vec<Bytes> {
    let size = match mode {
        0 => return vec![body.clone()],
        1 => {
            let at = usize::from(size) * body.len() / 256;
            return vec![body.slice(..at), body.slice(at..)];
        }
        2 => usize::from(size % 64) + 1,
        _ => usize::from(size % 8) + 1,
    };
    body.chunks(size)
        .map(|chunk| body.slice_ref(chunk))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let [choice, size, rest @ ..] = data else {
        return;
    };
    let (query, body) = match rest.iter().position(|&byte| byte == b'\n') {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (&rest[..0], rest),
    };
    let Some(uri) = uri("/api/v1/events", query) else {
        return;
    };
    let head = choice & 0x40 != 0;
    let status = [200, 201, 404, 500][usize::from(choice >> 4) & 3];
    let input = Bytes::copy_from_slice(body);
    let echo = Reply {
        status: StatusCode::from_u16(status).expect("a valid status"),
        content_type: if choice & 8 == 0 {
            "application/json"
        } else {
            "application/problem+json"
        },
        chunks: frames(choice & 3, *size, &input),
        length: (choice & 4 != 0).then_some(input.len()),
        etag: Some(TAG),
    };
    let mut request = Request::new(http_body_util::Empty::<Bytes>::new());
    *request.uri_mut() = uri;
    *request.method_mut() = if head { Method::HEAD } else { Method::GET };

    let layer = &layers()[usize::from(choice >> 7)];
    let mut service = layer.layer(echo.clone());
    let Ok(response) = block_on(service.call(request));
    let (parts, sent) = collect(response);

    if parts.status == StatusCode::BAD_REQUEST && parts.status != echo.status {
        // A `fields` list the layer refused before the handler ran.
        check_envelope(&parts.headers, &sent);
        return;
    }
    assert_eq!(parts.status, echo.status, "the status changed");
    check_length(&parts.headers, &sent, head);
    let unchanged = sent == input;
    if !parts.status.is_success() {
        assert!(unchanged, "an error body was changed");
        assert_eq!(parts.headers[CONTENT_TYPE], echo.content_type);
        return;
    }
    if unchanged || head && sent.is_empty() {
        return;
    }
    assert!(
        parts.headers.get(ETAG).is_none_or(|tag| tag != TAG),
        "a body kept its strong ETag but changed: {} bytes in, {} out",
        input.len(),
        sent.len()
    );
    assert!(
        sent.len() <= MAX_OUTPUT_BYTES + SLACK,
        "a rewrite of {} bytes past the bound of {MAX_OUTPUT_BYTES}: {} bytes in",
        sent.len(),
        input.len()
    );
});
