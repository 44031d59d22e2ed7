//! [`Outcome`]: what the rendering core decided for one body.

use std::fmt;

use crate::format::Format;
use crate::report::Report;

/// What the layer did with one response body (or the MCP layer with one
/// text block): the format it planned, the one it served and why they
/// differ, and the tokens and bytes sent.
///
/// [`TerseLayer`](crate::TerseLayer) puts it in the extensions of every
/// response whose body it read, so the layers outside it (a request log,
/// metrics) read the decision instead of guessing it from headers:
///
/// ```
/// use axum::{Json, Router, body::Body, routing::get};
/// use serde_json::json;
/// use tower::ServiceExt;
/// use tower_terse::{Format, Outcome, TerseLayer};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let app = Router::new()
///     .route("/one", get(|| async { Json(json!({"id": 1})) }))
///     .layer(TerseLayer::new());
/// let request = http::Request::get("/one?format=toon").body(Body::empty()).unwrap();
/// let response = app.oneshot(request).await.unwrap();
/// let outcome = response.extensions().get::<Outcome>().unwrap();
/// assert_eq!(outcome.planned, Format::Toon);
/// assert!(outcome.tokens.is_some());
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// The format the request's plan chose (asked for, or the default).
    pub planned: Format,
    /// Whether the client named the format.
    pub asked: bool,
    /// The format of the body sent; `None` when the body was not JSON after
    /// all and went out exactly as it came.
    pub served: Option<Format>,
    /// Why `served` is not `planned`, when it is not.
    pub fallback: Option<Fallback>,
    /// Whether the body sent is new (rewritten or projected), not the
    /// handler's bytes.
    pub rewritten: bool,
    /// The tokens of the body sent (`X-Token-Count`); `None` for a body that
    /// is not JSON.
    pub tokens: Option<usize>,
    /// The tokens of the handler's JSON, when they were counted (by the
    /// smart fallback, or for a report).
    pub json_tokens: Option<usize>,
    /// Whether the counts come from the o200k_base tokenizer (`true`) or
    /// the estimate.
    pub exact: bool,
    /// The bytes of the body sent.
    pub bytes: usize,
}

/// Why the format served is not the one planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fallback {
    /// TOON would not take fewer tokens than the JSON (the smart fallback).
    NotCheaper,
    /// The rewritten body would be larger than `max_output_bytes`.
    OutputLimit,
    /// Compact lines were asked for where no resource is registered.
    NoResource,
    /// The body is not a list, or a record does not fit its resource.
    NotCompact,
    /// The body is not JSON.
    NotJson,
    /// No slot of the [`BlockingLimit`](crate::BlockingLimit) came free
    /// in time: the body went out unchanged.
    Busy,
}

impl Fallback {
    /// A short name, for logs: `not_cheaper`, `output_limit`,
    /// `no_resource`, `not_compact`, `not_json`, `busy`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Fallback::NotCheaper => "not_cheaper",
            Fallback::OutputLimit => "output_limit",
            Fallback::NoResource => "no_resource",
            Fallback::NotCompact => "not_compact",
            Fallback::NotJson => "not_json",
            Fallback::Busy => "busy",
        }
    }
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Outcome {
    /// The report of this decision for a body under `route`; `None` for a
    /// body that is not JSON, or whose JSON was not counted (no report was
    /// wanted while it rendered).
    pub(crate) fn report<'a>(&self, route: &'a str) -> Option<Report<'a>> {
        Some(Report {
            route,
            asked: self.asked.then_some(self.planned),
            planned: self.planned,
            served: self.served?,
            bytes: self.bytes,
            tokens: self.tokens?,
            json_tokens: self.json_tokens?,
        })
    }
}
