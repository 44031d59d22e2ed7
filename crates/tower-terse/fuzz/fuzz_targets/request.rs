//! Fuzz target: arbitrary requests through the layer.
//!
//! The input is a query string and headers; the handler behind the layer
//! always answers 200 with a fixed JSON list. Whatever the request holds, the
//! layer must answer 200 (served, in any format) or 400 with its error
//! envelope, with a `Content-Length` that matches the body, and never panic.
//!
//! Layout: byte 0 picks the method, the path, the layer's settings and the
//! body's shape; the rest is split on `\n` into the query string and then
//! `name:value` header lines (names and values as the `http` crate takes them,
//! so repeated, junk and non-ASCII header values all get through).

#![no_main]

use std::sync::OnceLock;

use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::{HeaderName, HeaderValue, Method, Request, StatusCode};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tower_terse::{Format, TerseLayer};
use terse_fuzz::{Reply, block_on, check_envelope, check_length, collect, event_resource, uri};
use tower_layer::Layer;
use tower_service::Service;

/// Paths with a compact resource registered and without.
const PATHS: [&str; 4] = [
    "/api/v1/events",
    "/users/ada/events",
    "/api/v1/events/7",
    "/other/x",
];

/// Bodies the handler may answer with: a root list, a list under `data` with
/// pagination, a single object, a list under `items`.
const BODIES: [&str; 4] = [
    r#"[{"id":7,"title":"Standup","room":"4.12","owner":{"name":"Ada","email":"a@x.io"}},{"id":9,"title":"Review","room":null,"tags":["a","b"]}]"#,
    r#"{"data":[{"id":"e1","title":"Plan","room":"2","owner":{"name":"Lin"}},{"id":"e2","title":"Ship"}],"meta":{"total":57,"offset":0,"limit":2}}"#,
    r#"{"id":7,"title":"Standup","room":"4.12","owner":{"name":"Ada","email":"a@x.io","team":{"name":"core"}}}"#,
    r#"{"items":[{"id":1,"title":"x","room":"y"},{"title":"no id"},3],"page":1,"per_page":3,"total_count":4}"#,
];

/// The layers, built once: defaults, small `fields` limits, compact by
/// default, TOON by default with small limits. All with compact resources.
fn layers() -> &'static [TerseLayer; 4] {
    static LAYERS: OnceLock<[TerseLayer; 4]> = OnceLock::new();
    LAYERS.get_or_init(|| {
        let event = event_resource();
        let base = TerseLayer::new()
            .compact_resource("/api/v1/events", event.clone())
            .compact_resource("/users/{id}/events", event);
        let small =
            |layer: TerseLayer| layer.max_fields(3).max_field_depth(2).max_fields_length(24);
        [
            base.clone(),
            small(base.clone()),
            base.clone().default_format(Format::Compact),
            small(base.default_format(Format::Toon)),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let head = choice & 1 == 1;
    let path = PATHS[usize::from(choice >> 1) & 3];
    let layer = &layers()[usize::from(choice >> 3) & 3];
    let body = BODIES[usize::from(choice >> 5) & 3];

    let mut lines = rest.split(|&byte| byte == b'\n');
    let query = lines.next().unwrap_or_default();
    let Some(uri) = uri(path, query) else {
        return;
    };
    let mut request = Request::new(http_body_util::Empty::<Bytes>::new());
    *request.uri_mut() = uri;
    *request.method_mut() = if head { Method::HEAD } else { Method::GET };
    for line in lines {
        let Some(colon) = line.iter().position(|&byte| byte == b':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(&line[..colon]),
            HeaderValue::from_bytes(&line[colon + 1..]),
        ) else {
            continue;
        };
        request.headers_mut().append(name, value);
    }

    let mut service = layer.layer(Reply {
        status: StatusCode::OK,
        content_type: "application/json",
        chunks: vec![Bytes::from_static(body.as_bytes())],
        length: Some(body.len()),
        etag: None,
    });
    let Ok(response) = block_on(service.call(request));
    let (parts, sent) = collect(response);
    check_length(&parts.headers, &sent, head);
    if let Some(count) = parts.headers.get("x-token-count") {
        assert!(
            count
                .to_str()
                .is_ok_and(|text| text.parse::<usize>().is_ok()),
            "X-Token-Count is not a number: {count:?}"
        );
    }
    match parts.status {
        StatusCode::OK => check_served(&parts.headers, &sent),
        StatusCode::BAD_REQUEST => check_envelope(&parts.headers, &sent),
        status => panic!("unexpected status {status}"),
    }
});

/// A 200 holds JSON or TOON, as its content type says (empty for `HEAD`).
fn check_served(headers: &http::HeaderMap, sent: &[u8]) {
    if sent.is_empty() {
        return;
    }
    let content_type = headers.get(CONTENT_TYPE).map(HeaderValue::as_bytes);
    match content_type {
        Some(b"application/json") => {
            serde_json::from_slice::<Value>(sent).expect("a JSON answer that does not parse");
        }
        Some(b"text/toon; charset=utf-8") => {
            let text = std::str::from_utf8(sent).expect("TOON that is not UTF-8");
            tower_terse::toon::decode(text, &Default::default())
                .unwrap_or_else(|err| panic!("TOON that does not decode: {err}\n{text}"));
        }
        other => panic!("unexpected content type {other:?}"),
    }
}
