//! [`Complete`]: a body read whole, rendered by the core, and the response
//! that carries the result.

use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::{HeaderMap, Response, response::Parts};
use http_body::{Body, SizeHint};
use std::sync::Arc;

use super::headers::{mark_format, mark_rewritten, set_length_and_count};
use super::plan::Plan;
use super::rewrite::rewrite;
use super::{Config, TerseBody};
use crate::budget::Reservation;
use crate::fields::Fields;
use crate::format::Format;
use crate::render::{self, Fallback, Rendered, ResponseFormat};
use crate::report;

/// A body read whole, with what its response needs to go out.
pub(super) struct Complete {
    pub(super) parts: Parts,
    pub(super) hint: SizeHint,
    pub(super) read: Bytes,
    /// The bytes held against the memory budget, when there is one.
    pub(super) held: Option<Reservation>,
    pub(super) trailers: Option<HeaderMap>,
    pub(super) plan: Plan,
    pub(super) config: Arc<Config>,
}

impl Complete {
    /// Rewrites the body on this thread.
    pub(super) fn rewrite_here<B: Body>(self) -> Response<TerseBody<B>> {
        let rendered = self.job()();
        self.send(rendered)
    }

    /// The rendering of the body, ready to run on any thread: it holds
    /// handles to the body and settings, not copies.
    pub(super) fn job(&self) -> impl FnOnce() -> Rendered + Send + 'static {
        let (config, plan, read) = (self.config.clone(), self.plan.clone(), self.read.clone());
        let content_type = self.parts.headers.get(CONTENT_TYPE).cloned();
        move || rewrite(&config, &plan, &read, content_type.as_ref())
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
        let body = TerseBody::unchanged(read, trailers, hint).holding(held);
        Response::from_parts(parts, body)
    }

    /// Holds, beside the body, the memory rendering it may take
    /// ([`render::working_bytes`]); `false` when the budget cannot, and
    /// the body is to go out as the handler made it ([`Self::refused`]).
    pub(super) fn affords_rendering(&mut self) -> bool {
        let Some(held) = &mut self.held else {
            return true;
        };
        let working = render::working_bytes(
            &self.read,
            self.plan.format,
            self.plan.fields.is_some(),
            &self.config.toon_options,
            self.config.max_output_bytes(),
        );
        held.try_grow(working)
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
            &self.config.vary,
        );
        self.unchanged()
    }

    /// The response for what the core rendered. The [`Outcome`] goes in
    /// its extensions, for the layers outside.
    ///
    /// [`Outcome`]: crate::Outcome
    pub(super) fn send<B: Body>(mut self, rendered: Rendered) -> Response<TerseBody<B>> {
        let Rendered { body, outcome } = rendered;
        self.parts.extensions.insert(outcome);
        mark_format(
            &mut self.parts,
            outcome.response_format(),
            &self.config.vary,
        );
        let (Some(served), Some(tokens)) = (outcome.served, outcome.tokens) else {
            // Not JSON after all: exactly as the handler made it.
            return self.unchanged();
        };
        let Complete {
            mut parts,
            read,
            mut held,
            trailers,
            plan,
            config,
            ..
        } = self;
        let send = match body {
            None => {
                set_length_and_count(&mut parts.headers, read.len(), tokens);
                read
            }
            Some(body) => {
                let body = Bytes::from(body);
                set_length_and_count(&mut parts.headers, body.len(), tokens);
                if let Some(content_type) = served.rewritten_content_type() {
                    parts.headers.insert(CONTENT_TYPE, content_type);
                }
                let fields = plan.fields.as_ref().map(Fields::fingerprint);
                mark_rewritten(&mut parts.headers, served, fields);
                body
            }
        };
        // A `HEAD` answer serves nothing.
        if !plan.head && report::wanted() {
            if let Some(report) = outcome.report(plan.route_label(&config)) {
                report.emit();
            }
        }
        let send = if plan.head { Bytes::new() } else { send };
        // What goes out is held until the client has taken it.
        if let Some(held) = &mut held {
            held.resize(send.len());
        }
        Response::from_parts(parts, TerseBody::full(send, trailers).holding(held))
    }
}
