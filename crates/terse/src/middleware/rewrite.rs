//! Turning a complete JSON body into the negotiated format: one function per
//! format, chosen in [`rewrite`].

use std::time::Instant;

use bytes::Bytes;
use http::HeaderValue;
use serde_json::Value;

use super::Config;
use super::plan::Plan;
use crate::compact::RenderContext;
use crate::compact::envelope::Envelope;
use crate::format::Format;
use crate::toon;
use crate::toon::document::Document;

/// What to send for a body the layer read whole.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Not JSON after all: send it exactly as the handler made it.
    NotJson,
    /// Valid JSON, sent as it came, with about `tokens` tokens.
    Unchanged { tokens: usize },
    /// A new body in the `served` format.
    Rewritten {
        body: Bytes,
        served: Format,
        tokens: usize,
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

/// Renders `body` in the plan's format.
pub(crate) fn rewrite(config: &Config, plan: &Plan, body: &Bytes) -> Outcome {
    match plan.format {
        Format::Json => json(config, plan, body),
        Format::Toon => toon(config, plan, body),
        Format::Compact => compact(config, plan, body),
    }
}

/// Parses and projects the body when `?fields=` asked for it.
fn projected(config: &Config, plan: &Plan, body: &Bytes) -> Option<Result<Value, ()>> {
    let fields = plan.fields.as_ref()?;
    Some(
        serde_json::from_slice::<Value>(body)
            .map(|mut value| {
                fields.project(&mut value, &config.list_keys, &config.id_key);
                value
            })
            .map_err(|_| ()),
    )
}

fn json(config: &Config, plan: &Plan, body: &Bytes) -> Outcome {
    match projected(config, plan, body) {
        Some(Ok(value)) => rewritten_json(config, Bytes::from(value.to_string())),
        Some(Err(())) => Outcome::NotJson,
        // Skipping a document does not check the UTF-8 inside its strings,
        // so the text is checked first.
        None => {
            match std::str::from_utf8(body).map(serde_json::from_str::<serde::de::IgnoredAny>) {
                Ok(Ok(_)) => Outcome::Unchanged {
                    tokens: config.count_tokens(body),
                },
                _ => Outcome::NotJson,
            }
        }
    }
}

fn rewritten_json(config: &Config, body: Bytes) -> Outcome {
    Outcome::Rewritten {
        tokens: config.count_tokens(&body),
        body,
        served: Format::Json,
    }
}

/// TOON, or the JSON when TOON would not be cheaper (smart fallback) or
/// would be larger than the output bound.
fn toon(config: &Config, plan: &Plan, body: &Bytes) -> Outcome {
    let limit = config.max_output_bytes();
    match projected(config, plan, body) {
        Some(Ok(value)) => {
            let json = || Bytes::from(value.to_string());
            let Ok(text) = toon::encode_limited(&value, &config.toon_options, limit) else {
                // The fields were asked for whatever the format: they stay.
                return rewritten_json(config, json());
            };
            if config.smart_fallback {
                let json = json();
                let json_tokens = config.count_tokens(&json);
                cheaper_toon(config, text, json_tokens).unwrap_or(Outcome::Rewritten {
                    body: json,
                    served: Format::Json,
                    tokens: json_tokens,
                })
            } else {
                toon_outcome(config, text, None)
            }
        }
        Some(Err(())) => Outcome::NotJson,
        None => {
            let Ok(json) = std::str::from_utf8(body) else {
                return Outcome::NotJson;
            };
            let text = match toon::encode_json_limited(json, &config.toon_options, limit) {
                Ok(text) => text,
                Err(err) if err.is_output_limit() => {
                    return Outcome::Unchanged {
                        tokens: config.count_tokens(body),
                    };
                }
                Err(_) => return Outcome::NotJson,
            };
            if config.smart_fallback {
                let json_tokens = config.count_tokens(body);
                cheaper_toon(config, text, json_tokens).unwrap_or(Outcome::Unchanged {
                    tokens: json_tokens,
                })
            } else {
                toon_outcome(config, text, None)
            }
        }
    }
}

/// The TOON outcome when it takes fewer tokens than the JSON.
fn cheaper_toon(config: &Config, text: String, json_tokens: usize) -> Option<Outcome> {
    let tokens = config.count_tokens(text.as_bytes());
    (tokens < json_tokens).then(|| toon_outcome(config, text, Some(tokens)))
}

fn toon_outcome(config: &Config, text: String, tokens: Option<usize>) -> Outcome {
    let body = Bytes::from(text);
    Outcome::Rewritten {
        tokens: tokens.unwrap_or_else(|| config.count_tokens(&body)),
        body,
        served: Format::Toon,
    }
}

/// Compact lines for a route with a registered resource and a list body;
/// JSON otherwise, as an asked-for format never fails.
fn compact(config: &Config, plan: &Plan, body: &Bytes) -> Outcome {
    let Some(route) = &plan.route else {
        return json(config, plan, body);
    };
    let Some((pattern, resource)) = config.resources.lookup_route(route.matched(), route.path())
    else {
        return json(config, plan, body);
    };
    // One pass over the text; records are rendered from the borrowed document
    // and the envelope borrows its ids and meta from it.
    let Ok(document) = std::str::from_utf8(body).map(Document::parse) else {
        return Outcome::NotJson;
    };
    let Ok(document) = document else {
        return Outcome::NotJson;
    };
    let cx = RenderContext::now().with_max_output_bytes(config.max_output_bytes());
    match Envelope::build(document.root(), &config.list_keys, resource, &cx) {
        // The lines stayed within the bound; the ids and meta, copied from
        // the body, may still take the envelope just past it.
        Ok(envelope) => match envelope.into_json() {
            envelope if envelope.len() <= config.max_output_bytes() => {
                let envelope = Bytes::from(envelope);
                Outcome::Rewritten {
                    tokens: config.count_tokens(&envelope),
                    body: envelope,
                    served: Format::Compact,
                }
            }
            _ => Outcome::Unchanged {
                tokens: config.count_tokens(body),
            },
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
            Outcome::Unchanged {
                tokens: config.count_tokens(body),
            }
        }
    }
}

/// `text` cut to at most `max` bytes on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
