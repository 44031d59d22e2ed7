//! Turning a complete JSON body into the negotiated format: one function per
//! format, chosen in [`rewrite`].

use std::cell::Cell;
use std::time::Instant;

use bytes::Bytes;
use http::HeaderValue;
use serde_json::Value;

use super::Config;
use super::plan::Plan;
use crate::compact::envelope::Envelope;
use crate::compact::{CompactResource, NotCompact, RenderContext};
use crate::format::Format;
use crate::report;
use crate::tokens::{self, Served};
use crate::toon;
use crate::toon::document::{Document, Node};

/// What to send for a body the layer read whole.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Not JSON after all: send it exactly as the handler made it.
    NotJson,
    /// Sent as it came, with about `tokens` tokens.
    Unchanged { tokens: usize },
    /// A new body in the `served` format, of about `tokens` tokens where the
    /// handler's JSON has `json_tokens`: counted only when the rewrite
    /// counted it anyway or a report will be emitted.
    Rewritten {
        body: Bytes,
        served: Format,
        tokens: usize,
        json_tokens: Option<usize>,
    },
}

impl Format {
    /// The content type of a body rewritten to this format; `None` keeps
    /// the handler's (JSON projected by `fields` is still its JSON).
    pub(crate) fn rewritten_content_type(self) -> Option<HeaderValue> {
        match self {
            Format::Json => None,
            Format::Toon => Some(HeaderValue::from_static("text/toon; charset=utf-8")),
            Format::Compact => Some(HeaderValue::from_static("application/json")),
        }
    }
}

/// The handler's body, with its token count worked out at most once.
struct Source<'b> {
    config: &'b Config,
    body: &'b Bytes,
    tokens: Cell<Option<usize>>,
}

impl Source<'_> {
    fn tokens(&self) -> usize {
        if let Some(tokens) = self.tokens.get() {
            return tokens;
        }
        let tokens = self.config.count_tokens(self.body);
        self.tokens.set(Some(tokens));
        tokens
    }

    fn unchanged(&self) -> Outcome {
        Outcome::Unchanged {
            tokens: self.tokens(),
        }
    }

    /// `body` in the `served` format; `tokens` when already counted.
    fn rewritten(&self, body: Bytes, served: Format, tokens: Option<usize>) -> Outcome {
        Outcome::Rewritten {
            tokens: tokens.unwrap_or_else(|| self.config.count_tokens(&body)),
            body,
            served,
            // Only reports need it; a second pass over the body is not paid
            // for when nobody listens.
            json_tokens: match self.tokens.get() {
                Some(tokens) => Some(tokens),
                None => report::wanted().then(|| self.tokens()),
            },
        }
    }
}

/// Renders `body` in the plan's format.
pub(crate) fn rewrite(config: &Config, plan: &Plan, body: &Bytes) -> Outcome {
    let source = Source {
        config,
        body,
        tokens: Cell::new(None),
    };
    match plan.format {
        Format::Json => json(&source, plan),
        Format::Toon => toon(&source, plan),
        Format::Compact => compact(&source, plan),
    }
}

/// Parses and projects the body when `?fields=` asked for it.
fn projected(source: &Source<'_>, plan: &Plan) -> Option<Result<Value, ()>> {
    let fields = plan.fields.as_ref()?;
    let config = source.config;
    Some(
        serde_json::from_slice::<Value>(source.body)
            .map(|mut value| {
                fields.project(&mut value, &config.list_keys, &config.id_key);
                value
            })
            .map_err(|_| ()),
    )
}

fn json(source: &Source<'_>, plan: &Plan) -> Outcome {
    match projected(source, plan) {
        Some(Ok(value)) => source.rewritten(Bytes::from(value.to_string()), Format::Json, None),
        Some(Err(())) => Outcome::NotJson,
        // Nobody asked: counted as sent, without the cost of checking that
        // it parses (the bytes go out as they are either way).
        None if !plan.asked => source.unchanged(),
        // Skipping a document does not check the UTF-8 inside its strings,
        // so the text is checked first.
        None => match std::str::from_utf8(source.body)
            .map(serde_json::from_str::<serde::de::IgnoredAny>)
        {
            Ok(Ok(_)) => source.unchanged(),
            _ => Outcome::NotJson,
        },
    }
}

/// TOON, or the JSON when TOON would not be cheaper (smart fallback) or
/// would be larger than the output bound.
fn toon(source: &Source<'_>, plan: &Plan) -> Outcome {
    let config = source.config;
    let limit = config.max_output_bytes();
    match projected(source, plan) {
        Some(Ok(value)) => {
            let json = || Bytes::from(value.to_string());
            let Ok(text) = toon::encode_limited(&value, &config.toon_options, limit) else {
                // The fields were asked for whatever the format: they stay.
                return source.rewritten(json(), Format::Json, None);
            };
            if !config.smart_fallback {
                return source.rewritten(Bytes::from(text), Format::Toon, None);
            }
            let json = value.to_string();
            let choice = tokens::choose(&json, &text, config.counting());
            match choice.served {
                Served::Toon => {
                    source.rewritten(Bytes::from(text), Format::Toon, Some(choice.toon_tokens))
                }
                Served::Json => {
                    source.rewritten(Bytes::from(json), Format::Json, Some(choice.json_tokens))
                }
            }
        }
        Some(Err(())) => Outcome::NotJson,
        None => {
            let Ok(json) = std::str::from_utf8(source.body) else {
                return Outcome::NotJson;
            };
            let text = match toon::encode_json_limited(json, &config.toon_options, limit) {
                Ok(text) => text,
                Err(err) if err.is_output_limit() => return source.unchanged(),
                Err(_) => return Outcome::NotJson,
            };
            if !config.smart_fallback {
                return source.rewritten(Bytes::from(text), Format::Toon, None);
            }
            let choice = tokens::choose(json, &text, config.counting());
            source.tokens.set(Some(choice.json_tokens));
            match choice.served {
                Served::Toon => {
                    source.rewritten(Bytes::from(text), Format::Toon, Some(choice.toon_tokens))
                }
                Served::Json => source.unchanged(),
            }
        }
    }
}

/// Compact lines for a route with a registered resource and a list body;
/// JSON otherwise, as an asked-for format never fails.
fn compact(source: &Source<'_>, plan: &Plan) -> Outcome {
    let config = source.config;
    let route = &plan.route;
    let Some((pattern, resource)) = config.resources.lookup_route(route.matched(), route.path())
    else {
        return json(source, plan);
    };
    // One pass over the text; records are rendered from the borrowed document
    // and the envelope borrows its ids and meta from it.
    let Ok(document) = std::str::from_utf8(source.body).map(Document::parse) else {
        return Outcome::NotJson;
    };
    let Ok(document) = document else {
        return Outcome::NotJson;
    };
    let cx = RenderContext::now().with_max_output_bytes(config.max_output_bytes());
    let envelope = match change_set(plan, document.root(), resource, &cx) {
        Some(change_set) => change_set,
        None => Envelope::build(document.root(), &config.list_keys, resource, &cx),
    };
    match envelope {
        // The lines stayed within the bound; the ids and meta, copied from
        // the body, may still take the envelope just past it.
        Ok(envelope) => match envelope.into_json() {
            envelope if envelope.len() <= config.max_output_bytes() => {
                source.rewritten(Bytes::from(envelope), Format::Compact, None)
            }
            _ => source.unchanged(),
        },
        Err(err) => {
            let admitted = err
                .should_log()
                .then(|| config.log_gate.admit(pattern.as_str(), Instant::now()));
            if let Some(Some(suppressed)) = admitted {
                tracing::warn!(
                    route = %pattern,
                    path = %cut(route.path(), 256),
                    reason = %err,
                    suppressed,
                    "compact lines not served: the JSON goes out unchanged (logged at most once a minute per route)"
                );
            }
            source.unchanged()
        }
    }
}

/// The envelope of a `?since=` answer, read as a change set; `None` for any
/// other request (or without the `changes` feature).
fn change_set<'t>(
    plan: &Plan,
    body: Node<'t>,
    resource: &CompactResource,
    cx: &RenderContext,
) -> Option<Result<Envelope<'t>, NotCompact>> {
    #[cfg(feature = "changes")]
    if plan.since {
        return crate::compact::change_set::compact_change_set(body, resource, cx);
    }
    #[cfg(not(feature = "changes"))]
    let _ = (plan, body, resource, cx);
    None
}

/// `text` cut to at most `max` bytes on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
