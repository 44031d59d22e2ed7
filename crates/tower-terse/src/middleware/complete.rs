//! [`Complete`]: a body read whole, rendered by the core, and the response
//! that carries the result.

use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::{HeaderMap, Response, response::Parts};
use http_body::{Body, SizeHint};

use super::TerseBody;
use super::headers::{Heads, mark_format, mark_rewritten, set_length_and_count};
use super::memoized::{Memoized, Miss, recall};
use super::plan::Plan;
use super::rewrite::{rewrite, rewrite_within, settle};
use crate::budget::Reservation;
use crate::fields::Fields;
use crate::format::Format;
use crate::render::settings::RenderSettings;
use crate::render::{self, Cost, Fallback, Rendered, Rendering, ResponseFormat, Tie};
use crate::report;

/// A body read whole, with what its response needs to go out.
pub(super) struct Complete {
    pub(super) parts: Parts,
    pub(super) hint: SizeHint,
    pub(super) read: Bytes,
    /// The bytes held against the memory budget, when there is one.
    pub(super) held: Option<Reservation>,
    /// Boxed, as they were read: most bodies have none.
    pub(super) trailers: Option<Box<HeaderMap>>,
    /// The request's plan, with its route's settings.
    pub(super) plan: Plan,
    /// Where the rewrite memo keeps this rewrite once it is done, when the
    /// lookup missed.
    pub(super) miss: Option<Miss>,
    /// What the headers' one pass found ([`rewritable_heads`](super::headers::rewritable_heads)).
    pub(super) heads: Heads,
}

impl Complete {
    /// The rendering the rewrite memo holds for this body and plan, at
    /// the cost of a lookup, to [`deliver`](Self::deliver); otherwise
    /// `None`, and the rewrite to come is kept once done ([`send`](Self::send)).
    pub(super) fn recall(&mut self) -> Option<Memoized> {
        match recall(&self.plan, self.heads.content_type.as_ref(), &self.read) {
            Ok(kept) => Some(kept),
            Err(miss) => {
                self.miss = miss;
                None
            }
        }
    }

    /// Renders the body on this thread, unless the smart fallback meets a
    /// near tie whose exact counts would take more than `count_here` work:
    /// that tie is for [`job`](Self::job) to settle off the async workers.
    pub(super) fn render_here_within(&self, count_here: usize) -> Rendering {
        rewrite_within(&self.plan, &self.read, count_here)
    }

    /// Does on this thread what [`job`](Self::job) would do elsewhere.
    pub(super) fn finish_here<B: Body>(self, tie: Option<Tie>) -> Response<TerseBody<B>> {
        let rendered = self.job(tie)();
        self.send(rendered)
    }

    /// The rendering of the body (or the settling of its near `tie`, once
    /// it is rendered), ready to run on any thread: it holds handles to
    /// the body and settings, not copies.
    pub(super) fn job(&self, tie: Option<Tie>) -> impl FnOnce() -> Rendered + Send + 'static {
        let (plan, read) = (self.plan.clone(), self.read.clone());
        move || match tie {
            Some(tie) => settle(&plan, &read, tie),
            None => rewrite(&plan, &read),
        }
    }

    /// The response exactly as the handler made it, holding what it sends.
    pub(super) fn unchanged<B: Body>(self) -> Response<TerseBody<B>> {
        let Complete {
            parts,
            hint,
            read,
            mut held,
            trailers,
            ..
        } = self;
        if let Some(held) = &mut held {
            held.resize(read.len());
        }
        let body = TerseBody::unchanged(read, trailers.map(|t| *t), hint).holding(held);
        Response::from_parts(parts, body)
    }

    /// What rendering the body will cost ([`render::cost`]).
    pub(super) fn cost(&self) -> Cost {
        let settings = &self.plan.config.render;
        // Exact counts when asked for. A near tie of the smart fallback is
        // costed once it is met, with both its texts' lengths known
        // (`render_here_within`): most rewrites never count exactly.
        render::cost(
            &self.read,
            self.plan.format,
            self.plan.fields.is_some(),
            &settings.toon_options,
            settings.max_output_bytes,
            settings.exact(),
        )
    }

    /// Holds, beside the body, the `memory` rendering it may take
    /// ([`Cost::memory`]); `false` when the budget cannot, and the body is
    /// to go out as the handler made it ([`Self::refused`]).
    pub(super) fn affords(&mut self, memory: usize) -> bool {
        match &mut self.held {
            Some(held) => held.try_grow(memory),
            None => true,
        }
    }

    /// The response for a rewrite that found no slot of the
    /// [`BlockingLimit`](crate::settings::BlockingLimit) in time: the body as the
    /// handler made it, with its usual headers, its tokens estimated (an
    /// exact count is the work there was no room for), and an [`Outcome`]
    /// whose fallback is [`Fallback::Busy`].
    ///
    /// [`Outcome`]: crate::Outcome
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(super) fn busy<B: Body>(self) -> Response<TerseBody<B>> {
        // Its tokens estimated: an exact count is the work there was no
        // room for. The one clone of the settings is on this rare path.
        let settings = RenderSettings {
            exact_tokens: false,
            smart_fallback: false,
            ..self.plan.config.render.clone()
        };
        // Not asked: counted as sent, not parsed.
        let plan = render::RenderPlan::new(Format::Json, false);
        // The headers said JSON before the body was read (`rewritable`).
        let mut rendered = render::render(&self.read, None, &plan, &settings);
        if rendered.outcome.served.is_some() {
            rendered.outcome.planned = self.plan.format;
            rendered.outcome.asked = self.plan.asked;
            rendered.outcome.fallback = Some(Fallback::Busy);
        }
        // Not kept: it says how busy the pool was, not what the body is.
        self.deliver(rendered.into())
    }

    /// The response as the handler made it, for a rewrite the budget
    /// refused: like one refused before reading.
    pub(super) fn refused<B: Body>(self) -> Response<TerseBody<B>> {
        self.fallen_back(Fallback::Budget)
    }

    /// The response as the handler made it, for a rewrite that was not
    /// done (`reason`, named where another format was asked for).
    pub(super) fn fallen_back<B: Body>(mut self, reason: Fallback) -> Response<TerseBody<B>> {
        let fallback = self.plan.rewrites().then_some(reason);
        mark_format(
            &mut self.parts,
            ResponseFormat::new(Format::Json, fallback),
            &self.plan.config.vary,
        );
        self.unchanged()
    }

    /// The response for what the core rendered, which the rewrite memo
    /// keeps when the lookup missed: a rendering is a function of the body
    /// and the plan alone.
    pub(super) fn send<B: Body>(mut self, rendered: Rendered) -> Response<TerseBody<B>> {
        let rendered = Memoized::from(rendered);
        let Some(miss) = self.miss.take() else {
            return self.deliver(rendered);
        };
        // Handles, not copies.
        let (config, read, kept) = (
            self.plan.config.clone(),
            self.read.clone(),
            rendered.clone(),
        );
        let response = self.deliver(rendered);
        // Kept once this response holds only what it sends: the memo takes
        // from the budget only what is spare then.
        miss.keep(&config, read, &kept);
        response
    }

    /// The response for a rendering, new or kept. The [`Outcome`] goes in
    /// its extensions, for the layers outside.
    ///
    /// [`Outcome`]: crate::Outcome
    pub(super) fn deliver<B: Body>(mut self, rendered: Memoized) -> Response<TerseBody<B>> {
        let Memoized {
            body,
            outcome,
            count,
        } = rendered;
        self.parts.extensions.insert(outcome);
        mark_format(
            &mut self.parts,
            outcome.response_format(),
            &self.plan.config.vary,
        );
        let (Some(served), Some(count)) = (outcome.served, count) else {
            // Not JSON after all: exactly as the handler made it.
            return self.unchanged();
        };
        let Complete {
            mut parts,
            read,
            mut held,
            trailers,
            plan,
            heads,
            ..
        } = self;
        let send = match body {
            None => {
                set_length_and_count(&mut parts.headers, &heads, read.len(), count);
                read
            }
            Some(body) => {
                set_length_and_count(&mut parts.headers, &heads, body.len(), count);
                if let Some(content_type) = served.rewritten_content_type() {
                    parts.headers.insert(CONTENT_TYPE, content_type);
                }
                let fields = plan.fields.as_ref().map(Fields::fingerprint);
                mark_rewritten(&mut parts.headers, served, outcome.minified, fields);
                body
            }
        };
        // A `HEAD` answer serves nothing.
        if !plan.head && report::wanted() {
            if let Some(report) = outcome.report(plan.route_label()) {
                report.emit();
            }
        }
        let send = if plan.head { Bytes::new() } else { send };
        // What goes out is held until the client has taken it.
        if let Some(held) = &mut held {
            held.resize(send.len());
        }
        let trailers = trailers.map(|t| *t);
        Response::from_parts(parts, TerseBody::full(send, trailers).holding(held))
    }
}
