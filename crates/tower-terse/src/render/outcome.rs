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
    /// Whether the JSON sent is the handler's minified: its insignificant
    /// whitespace dropped, every other byte as written, because that took
    /// fewer tokens than TOON and than the JSON as written.
    pub minified: bool,
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
///
/// The layer sends it in `X-Response-Format` (`json; fallback=not-cheaper`)
/// and in its logs, by the names [`as_str`](Self::as_str) gives:
///
/// ```
/// use tower_terse::outcome::Fallback;
///
/// assert_eq!(Fallback::NotCheaper.as_str(), "not-cheaper");
/// assert_eq!(Fallback::Compressed.to_string(), "compressed");
/// ```
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
    /// The body is larger than `max_body_bytes`: it was not read whole.
    BodyLimit,
    /// The memory budget (`memory_budget`, the gateway's
    /// `max_buffered_bytes`) could not hold the rewrite.
    Budget,
    /// Every slot for blocking work was taken: the body went out as it came
    /// rather than wait.
    Busy,
    /// The body has a content coding (`Content-Encoding: gzip`): a
    /// compression layer sits inside this one.
    Compressed,
    /// The response says `Cache-Control: no-transform`.
    NoTransform,
    /// The JSON nests deeper (128 levels and more) than the parsers read:
    /// it goes out as it came, counted.
    TooDeep,
    /// The client went away while the body was being rewritten: the
    /// rewrite stopped where it was, and nothing was sent.
    Gone,
    /// The body has a number no `f64` holds as written (an integer past
    /// 64 bits, more digits than a double keeps), which `?fields=` or
    /// compact lines would change: it goes out as it came.
    Precision,
}

impl Fallback {
    /// The reason's name, as `X-Response-Format` and the logs write it:
    /// `not-cheaper`, `too-large` (output), `no-template`, `not-a-list`,
    /// `not-json`, `body-too-large`, `budget`, `busy`, `compressed`,
    /// `no-transform`, `too-deep`, `gone`, `number-precision`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Fallback::NotCheaper => "not-cheaper",
            Fallback::OutputLimit => "too-large",
            Fallback::NoResource => "no-template",
            Fallback::NotCompact => "not-a-list",
            Fallback::NotJson => "not-json",
            Fallback::BodyLimit => "body-too-large",
            Fallback::Budget => "budget",
            Fallback::Busy => "busy",
            Fallback::Compressed => "compressed",
            Fallback::NoTransform => "no-transform",
            Fallback::TooDeep => "too-deep",
            Fallback::Gone => "gone",
            Fallback::Precision => "number-precision",
        }
    }
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The format a response went out in, whether its JSON was minified, and
/// why it is not the one the request asked for: what `X-Response-Format`
/// says (`toon`, `json; fallback=not-cheaper`,
/// `json; minified; fallback=not-cheaper`).
///
/// The header's grammar: the format served (`json`, `toon`, `compact`),
/// then `; minified` when the JSON is the handler's with its insignificant
/// whitespace dropped (RFC 8259 §2; keys, escapes and numbers byte for
/// byte), then `; fallback=REASON` when another format was asked for
/// ([`Fallback::as_str`]). Parameters come in that order, each at most once.
///
/// [`TerseLayer`](crate::TerseLayer) decides it once per response it could
/// have rewritten (a successful JSON answer), puts it in the response's
/// extensions beside the [`Outcome`] (when the body was read) and writes the
/// header from it:
///
/// ```
/// use tower_terse::Format;
/// use tower_terse::outcome::{Fallback, ResponseFormat};
///
/// let served = ResponseFormat::new(Format::Json, Some(Fallback::NotCheaper));
/// assert_eq!(served.to_string(), "json; fallback=not-cheaper");
/// assert_eq!(
///     served.with_minified(true).to_string(),
///     "json; minified; fallback=not-cheaper"
/// );
/// assert_eq!(ResponseFormat::new(Format::Toon, None).to_string(), "toon");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ResponseFormat {
    /// The format of the body sent.
    pub served: Format,
    /// Whether the JSON sent is the handler's minified ([`Outcome::minified`]).
    pub minified: bool,
    /// Why the format asked for was not served; `None` when it was.
    pub fallback: Option<Fallback>,
}

impl ResponseFormat {
    /// `served`, and the reason another format asked for was not; the body
    /// not minified.
    pub const fn new(served: Format, fallback: Option<Fallback>) -> Self {
        ResponseFormat {
            served,
            minified: false,
            fallback,
        }
    }

    /// This format, saying whether its JSON was minified.
    pub const fn with_minified(self, minified: bool) -> Self {
        ResponseFormat { minified, ..self }
    }
}

impl fmt::Display for ResponseFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.served.as_str())?;
        if self.minified {
            f.write_str("; minified")?;
        }
        match self.fallback {
            Some(reason) => write!(f, "; fallback={reason}"),
            None => Ok(()),
        }
    }
}

impl Outcome {
    /// What `X-Response-Format` says of this decision: a body that was not
    /// JSON after all went out as the handler's bytes, under its JSON type.
    pub fn response_format(&self) -> ResponseFormat {
        ResponseFormat::new(self.served.unwrap_or(Format::Json), self.fallback)
            .with_minified(self.minified)
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::settings::test_settings as settings;
    use crate::render::{RenderPlan, render};
    use crate::toon::EncodeOptions;

    #[test]
    fn deep_json_is_json_and_counted() {
        let options = EncodeOptions::default();
        let settings = settings(&options);
        for levels in [127, 128, 129, 1000, 100_000] {
            let deep = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
            for (format, asked) in [
                (Format::Json, false),
                (Format::Json, true),
                (Format::Toon, true),
                (Format::Compact, true),
            ] {
                let rendered = render(
                    deep.as_bytes(),
                    None,
                    &RenderPlan::new(format, asked),
                    &settings,
                );
                let outcome = rendered.outcome;
                assert!(outcome.tokens.is_some(), "{levels} {format:?}: {outcome:?}");
                assert_eq!(outcome.served, Some(outcome.response_format().served));
                assert_ne!(outcome.fallback, Some(Fallback::NotJson), "{levels}");
                if levels >= 128 && format == Format::Toon {
                    assert_eq!(outcome.fallback, Some(Fallback::TooDeep), "{levels}");
                }
            }
        }
        // A body that is not JSON stays uncounted.
        for (format, asked) in [(Format::Json, true), (Format::Toon, true)] {
            let rendered = render(b"[1, 2", None, &RenderPlan::new(format, asked), &settings);
            assert_eq!(rendered.outcome.tokens, None);
            assert_eq!(rendered.outcome.fallback, Some(Fallback::NotJson));
        }
    }
}
