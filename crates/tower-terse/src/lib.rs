//! Serve existing JSON APIs to LLM agents in fewer tokens.
//!
//! Add one layer; handlers stay as they are. A client that asks for TOON
//! (`?format=toon`, `X-Prefer-Format: toon`, or `Accept: text/toon`) gets the
//! JSON response as TOON, with an `X-Token-Count` header:
//!
//! ```
//! use axum::{Json, Router, body::Body, routing::get};
//! use http_body_util::BodyExt;
//! use serde_json::json;
//! use tower_terse::TerseLayer;
//! use tower::ServiceExt;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let app = Router::new()
//!     .route("/users", get(|| async {
//!         Json(json!([
//!             {"id": 1, "name": "Ada", "role": "admin"},
//!             {"id": 2, "name": "Linus", "role": "member"},
//!             {"id": 3, "name": "Grace", "role": "member"},
//!         ]))
//!     }))
//!     .layer(TerseLayer::new());
//!
//! let request = http::Request::get("/users?format=toon").body(Body::empty()).unwrap();
//! let response = app.oneshot(request).await.unwrap();
//! assert_eq!(response.headers()["content-type"], "text/toon; charset=utf-8");
//! assert!(response.headers().contains_key("x-token-count"));
//! let body = response.into_body().collect().await.unwrap().to_bytes();
//! assert_eq!(body, "[3]{id,name,role}:\n  1,Ada,admin\n  2,Linus,member\n  3,Grace,member");
//! # }
//! ```
//!
//! Everything else passes through untouched: errors, non-JSON bodies,
//! compressed bodies, streams (never buffered), invalid JSON and bodies over
//! [`TerseLayer::max_body_bytes`]. Without a format request JSON goes out as
//! the handler made it, with `Vary` and its `X-Token-Count` added (see
//! [`TerseLayer::count_plain_responses`]). `?fields=a,b,c.d` keeps just
//! those keys of each record (and its id). Put the layer inside
//! `CompressionLayer`, so it sees bodies before they are compressed.
//!
//! The same bytes get the same answer: a rewrite whose body bytes and
//! rendering inputs equal a recent one's is answered from a bounded memo
//! (4 MiB by default), with exactly the body and headers the rewrite gives,
//! at the cost of a lookup. Entries are partitioned by the request's
//! credentials and give way to rewrites under a memory budget
//! ([`TerseLayer::rewrite_memo_bytes`]).
//!
//! [`format::render`] and [`format::render_json`] format a value the way
//! the layer would, for code that builds tool results itself.
//!
//! With the `mcp` cargo feature, `tower_terse::mcp::McpLayer` does the same for
//! the tool results of an MCP server's Streamable HTTP endpoint: JSON text
//! blocks as TOON or compact lines when the client sends
//! `X-Prefer-Format`, everything else untouched.
//!
//! One rendering core serves every path: the layer, the MCP layer,
//! [`format::render_json_with`] (and so the `terse` command and `terse gateway`) turn
//! the same JSON into the same bytes, and the layer leaves its decision on
//! each response it read as an [`Outcome`] extension. Every setting is a
//! field of [`Settings`], which deserializes with serde (a gateway's
//! `[layer]` and `[[route]]` tables are `Settings`).
//!
//! # What is where
//!
//! The root holds what a service author uses: the layer ([`TerseLayer`],
//! and the [`Terse`] service, [`ResponseFuture`], [`TerseBody`] and
//! [`TerseRequestBody`] it makes), [`Format`], [`Settings`],
//! [`CompactLine`], the [`Outcome`] and [`RequestTokens`] extensions, the
//! [`Passthrough`] extension, [`ErrorEnvelope`], and what `?since=` needs.
//! The rest is in modules:
//!
//! | module | holds |
//! | --- | --- |
//! | [`settings`] | [`Settings`] and the limits shared between layers ([`settings::BlockingLimit`], [`settings::MemoryBudget`]) |
//! | [`defaults`] | every default, once |
//! | [`format`](mod@format) | [`Format`], and [`format::render_json`] for code outside a layer |
//! | [`compact`] | compact lines: [`CompactLine`], templates, resources |
//! | [`outcome`] | what the layer did with a response |
//! | [`tokens`] | the token estimate and exact counts |
//! | [`toon`] | the TOON codec |
//! | `changes` | `?since=` change sets (the `changes` feature) |
//! | `mcp` | `McpLayer` (the `mcp` feature) |
//! | [`proxy`] | building blocks for servers built around the layer, such as `terse gateway` |
//!
//! # Cargo features
//!
//! | feature | default | adds |
//! | --- | --- | --- |
//! | `axum` | yes | Reads axum's `MatchedPath`, so resources and route settings match the router's pattern. |
//! | `tokio` | yes | Rewrites of large bodies on tokio's blocking pool, and long reads of ready bodies off the async workers ([`TerseLayer::offload_threshold`]). |
//! | `changes` | yes | `?since=` change sets: [`Changes`], [`Timestamp`], the `Since` extractor (with `axum`). |
//! | `mcp` | no | `mcp::McpLayer` for MCP Streamable HTTP endpoints. |
//! | `metrics` | no | The `terse_responses_total`, `terse_tokens_total` and `terse_json_tokens_total` counters through the `metrics` facade. |
//! | `exact-tokens` | yes | Exact o200k_base counts (`bpe-openai`): near ties of the TOON-or-JSON choice are settled on them, and `TerseLayer::exact_token_count` counts everything with them. |
//!
//! Any tokio runtime works, with or without its time driver: the layer's
//! one timer (the wait for a blocking slot) runs on a thread of its own.
//!
//! # Minimum supported Rust version
//!
//! Rust 1.87 (edition 2024), checked by clippy's `incompatible_msrv` lint.

// The rewrite's shape scan, SSE2 or AVX2 (`render/shape_scan.rs`, AVX2 on
// CPUs that have it: `terse_tokens::cpu` asks), the minifier's SSE2 and
// AVX2 passes (`render/minify.rs`: its masks, its stores of a block's kept
// bytes, and its output as text, the input less ASCII blanks) and the
// UTF-8 check of a body (`scan::utf8`, text from bytes it has checked; its
// blocks loaded by `scan::halves_avx2`) and the compact lines' copies of
// short texts into room reserved past a line (`compact/lines.rs`, with no
// call to `memcpy`) use `unsafe`; nothing else may (but a test's counting
// allocator). The token counters' SIMD kernels are in the terse-tokens
// crate.
#![deny(unsafe_code)]
// docs.rs marks what each cargo feature adds.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
// Nothing reachable from a request or a response body may panic.
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

#[cfg(test)]
mod api_tests;
mod blocking;
mod bounded;
mod budget;
mod calendar;
#[cfg(feature = "changes")]
pub mod changes;
pub mod compact;
mod cpu;
pub mod defaults;
mod duration;
mod error_envelope;
mod fields;
pub mod format;
#[cfg(feature = "mcp")]
pub mod mcp;
mod middleware;
mod negotiate;
pub mod outcome;
mod passthrough;
pub mod proxy;
mod query;
mod render;
mod report;
mod rewind;
mod rfc3339;
mod scan;
pub mod settings;
pub mod tokens;

// What a service author reaches for; everything else is in a module.
pub use compact::CompactLine;
pub use error_envelope::ErrorEnvelope;
pub use format::Format;
pub use middleware::{
    RequestTokens, ResponseFuture, Terse, TerseBody, TerseLayer, TerseRequestBody,
};
pub use outcome::Outcome;
pub use passthrough::Passthrough;
pub use settings::Settings;

/// The TOON codec the layers write with: encoding, decoding and their
/// options and errors (from the `terse-toon` crate, without its document
/// tree, which is an implementation detail of the layers).
///
/// ```
/// use tower_terse::toon::{EncodeOptions, encode};
///
/// let text = encode(&serde_json::json!({"a": [1, 2]}), &EncodeOptions::new());
/// assert_eq!(text, "a[2]: 1,2");
/// ```
pub mod toon {
    pub use terse_toon::{
        DecodeError, DecodeOptions, DecodeToJsonError, Delimiter, EncodeOptions, Error, decode,
        decode_slice, decode_to_json, encode, encode_json, encode_json_limited, encode_limited,
        from_str, has_inexact_number, to_string,
    };
}

#[cfg(all(feature = "changes", feature = "axum"))]
pub use changes::Since;
#[cfg(feature = "changes")]
pub use changes::{Changes, Timestamp};
