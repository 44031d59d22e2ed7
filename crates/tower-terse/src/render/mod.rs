//! The rendering core: one function, [`render`], from a JSON body, its
//! content type, the request's [`RenderPlan`] and the [`RenderSettings`] to the body
//! sent and its [`Outcome`].
//!
//! Every path that serves TOON, compact lines or projected JSON calls it:
//! the HTTP layer (`middleware`), the MCP layer's text blocks (`mcp`),
//! [`crate::render`] / [`crate::format::render_json`], and through them the `terse`
//! command and the gateway. So one body renders to the same bytes, with the
//! same TOON-or-JSON choice, whichever way it came.

mod compact;
mod decide;
pub(crate) mod log_gate;
mod media;
mod minify;
mod outcome;
pub(crate) mod public;
pub(crate) mod settings;
mod shape_scan;
mod working;
#[cfg(test)]
pub(crate) use working::tests::peak_of;
pub(crate) use working::{Cost, FIXED_BYTES, cost};
// MCP holds each text block's rendering by this bound; HTTP rewrites by `cost`.
#[cfg(any(test, feature = "mcp"))]
pub(crate) use working::working_bytes;

pub use media::{is_identity_coding, is_json_media_type};
pub use outcome::{Fallback, Outcome, ResponseFormat};

use std::cell::Cell;

use http::HeaderValue;
use serde_json::Value;

use crate::compact::CompactResource;
use crate::fields::Fields;
use crate::format::Format;
use crate::report;
use crate::tokens::{Choice, Served};
use crate::toon;
use decide::toon_or_json_within;
use settings::RenderSettings;

/// What the request asked for, as far as rendering goes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RenderPlan<'a> {
    pub(crate) format: Format,
    /// The client named the format.
    pub(crate) asked: bool,
    pub(crate) fields: Option<&'a Fields>,
    /// Where a `?fields=` projection finds the records of a list body: the
    /// route's resource's own list key, or the layer's.
    pub(crate) list_keys: &'a [String],
    /// The key a projection always keeps: the route's resource's, or the
    /// layer's.
    pub(crate) id_key: &'a str,
    /// A `?since=` request: the body is read as a change set for lines.
    pub(crate) since: bool,
    /// The compact lines of the route or tool, if it has any.
    pub(crate) lines: Option<RecordLines<'a>>,
    /// What `compact` renders where no lines apply: JSON on HTTP, TOON's
    /// rule in an MCP text block.
    pub(crate) otherwise: Format,
}

impl<'a> RenderPlan<'a> {
    /// A plan for `format` alone: no projection, no lines.
    pub(crate) fn new(format: Format, asked: bool) -> Self {
        RenderPlan {
            format,
            asked,
            fields: None,
            list_keys: &[],
            id_key: crate::defaults::ID_KEY,
            since: false,
            lines: None,
            otherwise: Format::Json,
        }
    }
}

/// The resource a body's records render with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordLines<'a> {
    pub(crate) resource: &'a CompactResource,
    /// The keys that may hold the records of an object body.
    pub(crate) list_keys: &'a [String],
    /// The route pattern or tool, for warnings and their gate.
    pub(crate) label: &'a str,
    /// The request's path, for warnings (cut short there).
    pub(crate) path: Option<&'a str>,
    /// The envelope as JSON (HTTP), or as text (an MCP text block).
    pub(crate) style: LineStyle,
}

/// How compact lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineStyle {
    /// The compact envelope's JSON.
    Envelope,
    /// The summary, then `id: line` per record, then `meta`.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    Text,
}

/// The body to send and what was decided.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// The new body; `None` sends the given one unchanged.
    pub(crate) body: Option<String>,
    pub(crate) outcome: Outcome,
}

/// A near tie of the smart fallback whose exact counts [`render_within`]
/// left for later ([`settle`]), with the rendering that is already done:
/// on an async worker, counting both texts of a large body exactly is the
/// work that belongs on the blocking pool, while parsing and encoding it
/// did not.
#[derive(Debug)]
pub(crate) struct Tie {
    /// The TOON.
    toon: String,
    /// The JSON to weigh it against.
    json: Candidate,
    /// Why TOON was tried, when another format was planned.
    fallback: Option<Fallback>,
    /// The estimates that found the tie, which settling it reads again.
    weighed: crate::tokens::Weighed,
}

/// The JSON a token-saving choice weighs TOON against: the cheapest JSON
/// of the document, which is the minified one. Dropping the whitespace
/// between JSON's tokens does not add o200k_base tokens (whitespace is a
/// piece of its own there, or a space glued to the piece after it; the
/// decision test checks it on every corpus document in every formatting),
/// so the JSON as written is served as it came only when it has no such
/// whitespace.
#[derive(Debug)]
enum Candidate {
    /// The handler's body as it came: it has no insignificant whitespace.
    Body,
    /// The handler's body without its insignificant whitespace.
    Minified(String),
    /// A `?fields=` projection, written minified.
    Projected(String),
}

impl Candidate {
    /// The handler's JSON `body`, minified when that drops anything. Every
    /// caller has had the body read whole by a parser first.
    fn of(body: &str) -> Self {
        minify::minify_parsed(body).map_or(Candidate::Body, Candidate::Minified)
    }

    /// The text weighed: its own, or the `body` as it came.
    fn text<'a>(&'a self, body: &'a str) -> &'a str {
        match self {
            Candidate::Body => body,
            Candidate::Minified(json) | Candidate::Projected(json) => json,
        }
    }
}

impl Tie {
    /// The work settling this tie of `body` takes: both its texts counted
    /// exactly ([`working::exact_count_work`]), in the units of
    /// [`Cost::work`]. A caller that holds a budget of work for a thread
    /// settles the tie there when it fits.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn count_work(&self, body: &[u8]) -> usize {
        let json = match &self.json {
            Candidate::Body => body.len(),
            Candidate::Minified(json) | Candidate::Projected(json) => json.len(),
        };
        working::exact_count_work(json.saturating_add(self.toon.len()))
    }
}

/// What [`render_within`] did.
#[derive(Debug)]
pub(crate) enum Rendering {
    /// The body to send and what was decided.
    Done(Rendered),
    /// A near tie left for [`settle`].
    Tie(Tie),
}

impl From<Rendered> for Rendering {
    fn from(rendered: Rendered) -> Self {
        Rendering::Done(rendered)
    }
}

/// Renders `body` as the plan asks. `content_type` is the body's, when it
/// came with one: a type that is not JSON leaves the body alone.
pub(crate) fn render(
    body: &[u8],
    content_type: Option<&HeaderValue>,
    plan: &RenderPlan<'_>,
    settings: &RenderSettings,
) -> Rendered {
    match render_within(body, content_type, plan, settings, usize::MAX) {
        Rendering::Done(rendered) => rendered,
        Rendering::Tie(tie) => settle(body, plan, settings, tie),
    }
}

/// [`render`], stopping before a near tie's exact counts when they would
/// take more than `count_here` work ([`working::exact_count_work`]): the caller
/// then [`settle`]s it where that work may run.
pub(crate) fn render_within(
    body: &[u8],
    content_type: Option<&HeaderValue>,
    plan: &RenderPlan<'_>,
    settings: &RenderSettings,
    count_here: usize,
) -> Rendering {
    let source = Source::new(settings, plan, body, count_here);
    if content_type.is_some_and(|value| !is_json_media_type(value)) {
        return Rendering::Done(source.as_it_came());
    }
    if gone() {
        return Rendering::Done(source.gone());
    }
    // `?fields=` and compact lines read the body into a `serde_json`
    // value, which holds a number past 64 bits (or of more digits than a
    // double keeps) as the nearest float: such a body goes out as it came
    // rather than with its numbers changed. TOON without `?fields=` is
    // written from the text, every digit kept. Compact lines read the
    // body's document, whose parser finds such numbers on its way
    // (`render::compact`): no scan here.
    let lines_read_it = plan.fields.is_none() && plan.lines.is_some();
    if (plan.fields.is_some() || plan.format == Format::Compact)
        && !(plan.format == Format::Compact && lines_read_it)
        && crate::toon::has_inexact_number(body)
    {
        return Rendering::Done(source.unchanged(Some(Fallback::Precision)));
    }
    match plan.format {
        Format::Json => json(&source, None).into(),
        Format::Toon => toon(&source, None),
        Format::Compact => compact::compact(&source),
    }
}

/// Settles a near tie [`render_within`] left, on exact counts, and renders
/// what it chose: the same answer [`render`] gives for the same body.
pub(crate) fn settle(
    body: &[u8],
    plan: &RenderPlan<'_>,
    settings: &RenderSettings,
    tie: Tie,
) -> Rendered {
    let source = Source::new(settings, plan, body, usize::MAX);
    if gone() {
        return source.gone();
    }
    let Tie {
        toon,
        json,
        fallback,
        weighed,
    } = tie;
    let Some(text) = crate::scan::utf8(body) else {
        // It was read as UTF-8 before it was encoded.
        return source.not_json();
    };
    let choice = crate::tokens::settle_weighed(json.text(text), &toon, weighed);
    source.served(choice, toon, json, fallback)
}

/// Whether the client of this rewrite has gone (a rewrite on the blocking
/// pool whose response was dropped): checked between the stages of the
/// work (parsing and encoding, counting), so that an abandoned rewrite
/// stops early and gives its slot of the limit back.
fn gone() -> bool {
    crate::blocking::cancelled()
}

/// The deepest nesting `serde_json` and the one-pass parser read.
const MAX_PARSED_DEPTH: usize = 127;

/// The handler's body, with its token count worked out at most once.
pub(crate) struct Source<'b> {
    settings: &'b RenderSettings,
    plan: &'b RenderPlan<'b>,
    body: &'b [u8],
    tokens: Cell<Option<usize>>,
    /// The most work a near tie's exact counts may take in this call.
    count_here: usize,
}

impl<'b> Source<'b> {
    fn new(
        settings: &'b RenderSettings,
        plan: &'b RenderPlan<'b>,
        body: &'b [u8],
        count_here: usize,
    ) -> Self {
        Source {
            settings,
            plan,
            body,
            tokens: Cell::new(None),
            count_here,
        }
    }
}

impl Source<'_> {
    fn tokens(&self) -> usize {
        if let Some(tokens) = self.tokens.get() {
            return tokens;
        }
        let tokens = self.settings.count_tokens(self.body);
        self.tokens.set(Some(tokens));
        tokens
    }

    fn outcome(&self, served: Option<Format>, fallback: Option<Fallback>) -> Outcome {
        let planned = self.plan.format;
        Outcome {
            planned,
            asked: self.plan.asked,
            served,
            minified: false,
            // A plan served as planned has no reason to give, unless the
            // fields it asked for were not applied.
            fallback: fallback.filter(|_| served != Some(planned) || self.plan.fields.is_some()),
            rewritten: false,
            tokens: None,
            json_tokens: None,
            exact: self.settings.exact(),
            bytes: self.body.len(),
        }
    }

    /// Not JSON to the parsers: sent exactly as it came. JSON nested deeper
    /// than they go (`serde_json`'s limit, which the one-pass parser
    /// shares) is JSON all the same, and counted as such.
    fn not_json(&self) -> Rendered {
        if working::shape(self.body).depth > MAX_PARSED_DEPTH {
            return self.unchanged(Some(Fallback::TooDeep));
        }
        self.as_it_came()
    }

    /// Its client has gone: nothing more is worked out, nothing is sent.
    fn gone(&self) -> Rendered {
        Rendered {
            body: None,
            outcome: self.outcome(None, Some(Fallback::Gone)),
        }
    }

    /// What the smart fallback's `choice` serves: the `toon`, or the JSON
    /// it was weighed against (the projection's, the body minified, or the
    /// body as it came).
    fn served(
        &self,
        choice: Choice,
        toon: String,
        json: Candidate,
        fallback: Option<Fallback>,
    ) -> Rendered {
        if let Candidate::Body = json {
            self.tokens.set(Some(choice.json_tokens));
        }
        let not_toon = Some(fallback.unwrap_or(Fallback::NotCheaper));
        match (choice.served, json) {
            (Served::Toon, _) => {
                self.rewritten(toon, Format::Toon, Some(choice.toon_tokens), fallback)
            }
            (Served::Json, Candidate::Projected(json)) => {
                self.rewritten(json, Format::Json, Some(choice.json_tokens), not_toon)
            }
            (Served::Json, Candidate::Minified(json)) => {
                self.minified(json, Some(choice.json_tokens), not_toon)
            }
            (Served::Json, Candidate::Body) => self.unchanged(not_toon),
        }
    }

    /// The body minified, `tokens` when already counted.
    fn minified(
        &self,
        json: String,
        tokens: Option<usize>,
        fallback: Option<Fallback>,
    ) -> Rendered {
        let mut rendered = self.rewritten(json, Format::Json, tokens, fallback);
        rendered.outcome.minified = rendered.outcome.rewritten;
        rendered
    }

    /// The handler's JSON `body` for a token-saving plan that serves JSON:
    /// minified when that drops anything and stays within the output
    /// bound, else as it came.
    fn cheapest_json(&self, body: &str, fallback: Option<Fallback>) -> Rendered {
        match Candidate::of(body) {
            Candidate::Minified(json) if json.len() <= self.settings.max_output_bytes => {
                self.minified(json, None, fallback)
            }
            _ => self.unchanged(fallback),
        }
    }

    /// The smart fallback's choice between `json` and `toon`, or the
    /// estimates of a near tie whose exact counts cost more than this call
    /// may do.
    fn choose(&self, json: &str, toon: &str) -> Result<Choice, crate::tokens::Weighed> {
        toon_or_json_within(self.settings, json, toon, self.count_here)
    }

    /// Not JSON: sent exactly as it came, uncounted.
    fn as_it_came(&self) -> Rendered {
        Rendered {
            body: None,
            outcome: self.outcome(None, Some(Fallback::NotJson)),
        }
    }

    /// Sent as it came, counted.
    fn unchanged(&self, fallback: Option<Fallback>) -> Rendered {
        let tokens = self.tokens();
        Rendered {
            body: None,
            outcome: Outcome {
                tokens: Some(tokens),
                json_tokens: Some(tokens),
                ..self.outcome(Some(Format::Json), fallback)
            },
        }
    }

    /// `body` in the `served` format; `tokens` when already counted.
    fn rewritten(
        &self,
        body: String,
        served: Format,
        tokens: Option<usize>,
        fallback: Option<Fallback>,
    ) -> Rendered {
        if gone() {
            return self.gone();
        }
        let tokens = tokens.unwrap_or_else(|| self.settings.count_tokens(body.as_bytes()));
        // Only reports and MCP's `_meta` need the JSON's count; a second
        // pass over the body is not paid for when nobody reads it.
        let json_tokens = match self.tokens.get() {
            Some(tokens) => Some(tokens),
            None => (self.settings.count_json || report::wanted()).then(|| self.tokens()),
        };
        Rendered {
            outcome: Outcome {
                rewritten: true,
                tokens: Some(tokens),
                json_tokens,
                bytes: body.len(),
                ..self.outcome(Some(served), fallback)
            },
            body: Some(body),
        }
    }
}

/// Parses and projects the body when `?fields=` asked for it.
fn projected(source: &Source<'_>) -> Option<Result<Value, ()>> {
    let fields = source.plan.fields?;
    let plan = source.plan;
    Some(
        serde_json::from_slice::<Value>(source.body)
            .map(|mut value| {
                fields.project(&mut value, plan.list_keys, plan.id_key);
                value
            })
            .map_err(|_| ()),
    )
}

/// The JSON, projected when `?fields=` asked; `fallback` says why JSON is
/// served when another format was planned.
fn json(source: &Source<'_>, fallback: Option<Fallback>) -> Rendered {
    json_as(source, fallback, false)
}

/// [`json`], and when `cheapest` (a plan that asked for fewer tokens and
/// serves JSON after all), the body minified ([`Source::cheapest_json`]).
fn json_as(source: &Source<'_>, fallback: Option<Fallback>, cheapest: bool) -> Rendered {
    match projected(source) {
        Some(Ok(value)) => source.rewritten(value.to_string(), Format::Json, None, fallback),
        Some(Err(())) => source.not_json(),
        // Nobody asked: counted as sent, without the cost of checking that
        // it parses (the bytes go out as they are either way).
        None if !source.plan.asked && !cheapest => source.unchanged(fallback),
        // Skipping a document does not check the UTF-8 inside its strings,
        // so the text is checked first.
        None => match crate::scan::utf8(source.body)
            .map(|text| (text, serde_json::from_str::<serde::de::IgnoredAny>(text)))
        {
            Some((text, Ok(_))) if cheapest => source.cheapest_json(text, fallback),
            Some((_, Ok(_))) => source.unchanged(fallback),
            _ => source.not_json(),
        },
    }
}

/// TOON, or the JSON when TOON would not be cheaper (smart fallback) or
/// would be larger than the output bound; or a near tie left for
/// [`settle`]. `fallback` is why TOON is tried when another format was
/// planned.
fn toon(source: &Source<'_>, fallback: Option<Fallback>) -> Rendering {
    let settings = source.settings;
    let limit = settings.max_output_bytes;
    let reason = |own: Fallback| Some(fallback.unwrap_or(own));
    match projected(source) {
        Some(Ok(value)) => {
            let json = || value.to_string();
            let Ok(text) = toon::encode_limited(&value, &settings.toon_options, limit) else {
                // The fields were asked for whatever the format: they stay.
                return source
                    .rewritten(json(), Format::Json, None, reason(Fallback::OutputLimit))
                    .into();
            };
            if !settings.smart_fallback {
                return source.rewritten(text, Format::Toon, None, fallback).into();
            }
            if gone() {
                return source.gone().into();
            }
            let json = json();
            match source.choose(&json, &text) {
                Ok(choice) => source
                    .served(choice, text, Candidate::Projected(json), fallback)
                    .into(),
                Err(weighed) => Rendering::Tie(Tie {
                    toon: text,
                    json: Candidate::Projected(json),
                    fallback,
                    weighed,
                }),
            }
        }
        Some(Err(())) => source.not_json().into(),
        None => {
            let Some(json) = crate::scan::utf8(source.body) else {
                return source.not_json().into();
            };
            let encoded = terse_toon::encode_json_limited_noting_whitespace(
                json,
                &settings.toon_options,
                limit,
            );
            let (text, spaced) = match encoded {
                Ok(encoded) => encoded,
                Err(err) if err.is_output_limit() => {
                    // The encoder read the whole document before it
                    // stopped: this is JSON.
                    return source
                        .cheapest_json(json, reason(Fallback::OutputLimit))
                        .into();
                }
                Err(_) => return source.not_json().into(),
            };
            if !settings.smart_fallback {
                return source.rewritten(text, Format::Toon, None, fallback).into();
            }
            if gone() {
                return source.gone().into();
            }
            // Three candidates: the JSON as written, the same minified, and
            // TOON. The minified JSON takes no more tokens than the JSON as
            // written (see `Candidate`), so TOON is weighed against it.
            // The parser saw whether there is any whitespace to drop.
            let candidate = if spaced {
                Candidate::of(json)
            } else {
                Candidate::Body
            };
            match source.choose(candidate.text(json), &text) {
                Ok(choice) => source.served(choice, text, candidate, fallback).into(),
                Err(weighed) => Rendering::Tie(Tie {
                    toon: text,
                    json: candidate,
                    fallback,
                    weighed,
                }),
            }
        }
    }
}
