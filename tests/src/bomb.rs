//! Bodies that cost far more than their size, for the attack tests: a gzip
//! bomb (a few hundred KiB of gzip that inflate to a JSON list of any
//! size), and records nested deep (whose TOON is mostly indentation).

use std::io::Write as _;

use axum::Router;
use axum::body::Body;
use axum::http::Response;
use axum::routing::get;
use bytes::Bytes;
use serde_json::json;

/// `[0,0,…,0]` of `bytes` bytes (plus three), gzip-compressed: a few
/// hundred KiB at most, deflate's ratio topping out near a thousand to one.
pub fn gzip_bomb(bytes: usize) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(b"[").expect("gzip");
    let zeros = "0,".repeat(64 * 1024);
    for _ in 0..bytes / zeros.len() {
        encoder.write_all(zeros.as_bytes()).expect("gzip");
    }
    encoder.write_all(b"0]").expect("gzip");
    Bytes::from(encoder.finish().expect("gzip"))
}

/// An object nested `depth` levels (`{"level":…,"child":…}`) around a list
/// of `rows` small records: costly to render as TOON for its size, each
/// line indented by its depth.
///
/// ```
/// let body = terse_tests::bomb::deep_records(2, 1);
/// assert_eq!(
///     body,
///     r#"{"level":1,"child":{"level":0,"child":[{"id":0,"name":"row 0","tags":["a","b"]}]}}"#
/// );
/// ```
pub fn deep_records(depth: usize, rows: usize) -> String {
    let mut body = format!(
        "[{}]",
        (0..rows)
            .map(|i| format!(r#"{{"id":{i},"name":"row {i}","tags":["a","b"]}}"#))
            .collect::<Vec<_>>()
            .join(",")
    );
    for level in 0..depth {
        body = format!(r#"{{"level":{level},"child":{body}}}"#);
    }
    body
}

/// An upstream serving `/small`, and `/bomb` answering `bomb` as gzip
/// whatever the request accepts.
pub fn bomb_router(bomb: Bytes) -> Router {
    Router::new()
        .route(
            "/small",
            get(|| async { axum::Json(json!({"id": 1, "name": "small"})) }),
        )
        .route(
            "/bomb",
            get(move || {
                let bomb = bomb.clone();
                async move {
                    Response::builder()
                        .header("content-type", "application/json")
                        .header("content-encoding", "gzip")
                        .body(Body::from(bomb))
                        .expect("response")
                }
            }),
        )
}
