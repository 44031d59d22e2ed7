//! Fuzz target: arbitrary request bodies through the layer.
//!
//! The input is a request body, sent as TOON or as another type, in one
//! frame or many, with or without a declared length. The handler echoes the
//! body it got. Whatever the bytes: a TOON body that decodes (strictly)
//! reaches the handler as exactly that JSON, with a `Content-Length` that
//! matches it, or is refused with 413 for its size; one that does not
//! decode is a 400 in the error envelope and the handler never runs; any
//! other body reaches the handler byte for byte. Nothing panics.
//!
//! Layout: byte 0 picks the content type (bits 0-1), the framing (bit 2)
//! and whether the length is declared (bit 3); the rest is the body.

#![no_main]

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::sync::OnceLock;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use terse_fuzz::{Frames, block_on, check_envelope, check_length, collect};
use tower_layer::Layer;
use tower_service::Service;
use tower_terse::TerseLayer;

/// Bodies over this are refused; small, so the fuzzer reaches it.
const MAX_BODY_BYTES: usize = 4096;
/// The most JSON a TOON body may decode to.
const MAX_OUTPUT_BYTES: usize = 4 * MAX_BODY_BYTES;

const TYPES: [&str; 4] = [
    "text/toon",
    "Application/TOON; charset=utf-8",
    "application/json",
    "text/plain",
];

fn layer() -> &'static TerseLayer {
    static LAYER: OnceLock<TerseLayer> = OnceLock::new();
    LAYER.get_or_init(|| {
        TerseLayer::new()
            .max_body_bytes(MAX_BODY_BYTES)
            .max_output_bytes(MAX_OUTPUT_BYTES)
    })
}

/// A handler that answers 200 with the body it got, its type in
/// `X-Seen-Type`, and checks that a declared length is the body's.
#[derive(Clone)]
struct Echo;

impl<B> Service<Request<B>> for Echo
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::fmt::Debug,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Ready<Result<Response<Full<Bytes>>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let (parts, body) = request.into_parts();
        let got = block_on(body.collect())
            .expect("the bodies never fail")
            .to_bytes();
        check_length(&parts.headers, &got, false);
        let mut response = Response::new(Full::new(got));
        if let Some(seen) = parts.headers.get(CONTENT_TYPE) {
            response.headers_mut().insert("x-seen-type", seen.clone());
        }
        ready(Ok(response))
    }
}

/// The spec's equality of numbers (§2): by value, whatever `serde_json`'s
/// representation (the exact digits of a long decimal read back as a
/// float, its nearest float may have been an integer).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, body)) = data.split_first() else {
        return;
    };
    let content_type = TYPES[usize::from(choice & 3)];
    let toon = choice & 3 < 2;
    let input = Bytes::copy_from_slice(body);
    let chunks = if choice & 4 == 0 {
        vec![input.clone()]
    } else {
        input
            .chunks(7)
            .map(|chunk| input.slice_ref(chunk))
            .collect()
    };
    let mut request = Request::new(Frames::new(chunks, choice & 8 != 0));
    *request.method_mut() = Method::POST;
    *request.uri_mut() = http::Uri::from_static("/records");
    request
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    if choice & 8 != 0 {
        request
            .headers_mut()
            .insert(CONTENT_LENGTH, HeaderValue::from(input.len()));
    }

    let mut service = layer().layer(Echo);
    let Ok(response) = block_on(service.call(request));
    let (parts, sent) = collect(response);
    check_length(&parts.headers, &sent, false);
    let seen = parts.headers.get("x-seen-type").map(HeaderValue::as_bytes);

    if !toon || input.is_empty() {
        assert_eq!(parts.status, StatusCode::OK);
        assert_eq!(sent, input, "a body that is not TOON was changed");
        assert_eq!(seen, Some(content_type.as_bytes()));
        return;
    }
    match tower_terse::toon::decode_slice(&input, &Default::default()) {
        Ok(expected) if parts.status == StatusCode::OK => {
            assert_eq!(seen, Some(&b"application/json"[..]));
            let got: Value = serde_json::from_slice(&sent).expect("the handler got JSON");
            assert!(
                same(&got, &expected),
                "the handler got other data than the TOON holds"
            );
            assert!(input.len() <= MAX_BODY_BYTES && sent.len() <= MAX_OUTPUT_BYTES);
        }
        Ok(expected) => {
            assert_eq!(
                parts.status,
                StatusCode::PAYLOAD_TOO_LARGE,
                "TOON that decodes was refused"
            );
            // The JSON the layer writes: numbers with the digits sent,
            // which may be longer than the nearest float's.
            drop(expected);
            let json = tower_terse::toon::decode_to_json(&input, &Default::default(), usize::MAX)
                .expect("decodes");
            assert!(
                input.len() > MAX_BODY_BYTES || json.len() > MAX_OUTPUT_BYTES,
                "a body of {} bytes (JSON {}) was refused as too large",
                input.len(),
                json.len()
            );
            check_envelope(&parts.headers, &sent);
        }
        Err(_) => {
            // Too large may be found first: by length, or by the keys its
            // rows would repeat.
            assert!(
                parts.status == StatusCode::BAD_REQUEST
                    || parts.status == StatusCode::PAYLOAD_TOO_LARGE,
                "malformed TOON answered {}",
                parts.status
            );
            check_envelope(&parts.headers, &sent);
        }
    }
});
