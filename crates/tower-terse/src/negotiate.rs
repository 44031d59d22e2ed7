//! Which format a request asks for.
//!
//! First match wins: the query parameter, the preference header, `Accept`
//! (TOON media types against JSON by q-value), then the configured default.
//! A name the layer does not know is not an error: the layer steps aside so
//! the handler can own it (`?format=csv`).

use http::header::{ACCEPT, HeaderMap, HeaderName};

use crate::format::Format;
use crate::query::query_param;

/// What the layer does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Negotiated {
    /// An unknown format was asked for: request and response are left alone.
    StepAside,
    /// Serve `format`; `asked` is false when only the configured default chose it.
    Use { format: Format, asked: bool },
}

/// Negotiates the format from the query string and headers.
pub(crate) fn negotiate(
    query: Option<&str>,
    headers: &HeaderMap,
    format_param: &str,
    prefer_header: &HeaderName,
    default: Format,
) -> Negotiated {
    if let Some(value) = query.and_then(|q| query_param(q, format_param)) {
        if !value.trim().is_empty() {
            return named(&value);
        }
    }
    if let Some(value) = headers.get(prefer_header) {
        return match value.to_str() {
            Ok(text) if text.trim().is_empty() => from_accept(headers, default),
            Ok(text) => named(text),
            Err(_) => Negotiated::StepAside,
        };
    }
    from_accept(headers, default)
}

fn named(name: &str) -> Negotiated {
    match name.parse() {
        Ok(format) => Negotiated::Use {
            format,
            asked: true,
        },
        Err(_) => Negotiated::StepAside,
    }
}

/// How much a client wants TOON and JSON, from its `Accept` header.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Weights {
    toon: Weight,
    json: Weight,
}

/// The q-value of the most specific media range that matched, and how
/// specific it was (0 none, 1 `*/*`, 2 `type/*`, 3 exact).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Weight {
    q: f32,
    specificity: u8,
}

impl Weight {
    fn consider(&mut self, q: f32, specificity: u8) {
        if specificity > self.specificity || (specificity == self.specificity && q > self.q) {
            *self = Weight { q, specificity };
        }
    }
}

fn from_accept(headers: &HeaderMap, default: Format) -> Negotiated {
    let Some(weights) = accept_weights(headers) else {
        return Negotiated::Use {
            format: default,
            asked: false,
        };
    };
    let json_like = if default == Format::Toon {
        Format::Json
    } else {
        default
    };
    let toon_named = weights.toon.specificity == 3;
    if !toon_named {
        // The client did not mention TOON; it only rules TOON out when none
        // of its ranges (not even a wildcard) would take it.
        let format = if default == Format::Toon && weights.toon.q <= 0.0 {
            Format::Json
        } else {
            default
        };
        return Negotiated::Use {
            format,
            asked: false,
        };
    }
    let format = if weights.toon.q <= 0.0 || weights.toon.q < weights.json.q {
        json_like
    } else if weights.toon.q > weights.json.q || weights.json.specificity < 3 {
        Format::Toon
    } else {
        // Both named with the same weight: the service's preference decides.
        default
    };
    Negotiated::Use {
        format,
        asked: true,
    }
}

/// Reads every `Accept` header; `None` when there is none with a range in it.
fn accept_weights(headers: &HeaderMap) -> Option<Weights> {
    let mut weights = Weights {
        toon: Weight::default(),
        json: Weight::default(),
    };
    let mut any = false;
    for value in headers.get_all(ACCEPT) {
        // What most clients send (curl, fetch, requests): it weighs TOON and
        // JSON alike, as the parse below would find, without parsing.
        if value.as_bytes() == b"*/*" {
            any = true;
            weights.toon.consider(1.0, 1);
            weights.json.consider(1.0, 1);
            continue;
        }
        let Ok(text) = value.to_str() else { continue };
        for range in text.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim();
            let Some((kind, sub)) = media.split_once('/') else {
                continue;
            };
            let Some(q) = quality(parts) else { continue };
            any = true;
            let (kind, sub) = (kind.trim(), sub.trim());
            for (toon_kind, toon_sub) in [("text", "toon"), ("application", "toon")] {
                if let Some(specificity) = matches(kind, sub, toon_kind, toon_sub) {
                    weights.toon.consider(q, specificity);
                }
            }
            if let Some(specificity) = matches(kind, sub, "application", "json") {
                weights.json.consider(q, specificity);
            }
        }
    }
    any.then_some(weights)
}

/// The q parameter of a media range: 1 when absent, `None` when malformed.
fn quality<'a>(params: impl Iterator<Item = &'a str>) -> Option<f32> {
    for param in params {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("q") {
            let q: f32 = value.trim().parse().ok()?;
            return (0.0..=1.0).contains(&q).then_some(q);
        }
    }
    Some(1.0)
}

fn matches(kind: &str, sub: &str, want_kind: &str, want_sub: &str) -> Option<u8> {
    if kind == "*" && sub == "*" {
        Some(1)
    } else if !kind.eq_ignore_ascii_case(want_kind) {
        None
    } else if sub == "*" {
        Some(2)
    } else if sub.eq_ignore_ascii_case(want_sub) {
        Some(3)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::defaults::PREFER_HEADER_NAME;
    use http::HeaderValue;

    fn run(query: Option<&str>, headers: &[(&str, &str)], default: Format) -> Negotiated {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        negotiate(query, &map, "format", &PREFER_HEADER_NAME, default)
    }

    fn asked(format: Format) -> Negotiated {
        Negotiated::Use {
            format,
            asked: true,
        }
    }

    fn unasked(format: Format) -> Negotiated {
        Negotiated::Use {
            format,
            asked: false,
        }
    }

    #[test]
    fn nothing_asked_gives_the_default() {
        assert_eq!(run(None, &[], Format::Json), unasked(Format::Json));
        assert_eq!(
            run(Some("page=2"), &[], Format::Toon),
            unasked(Format::Toon)
        );
        assert_eq!(
            run(Some("format="), &[], Format::Json),
            unasked(Format::Json)
        );
    }

    #[test]
    fn query_beats_header_beats_accept() {
        let all = [("x-prefer-format", "compact"), ("accept", "text/toon")];
        assert_eq!(
            run(Some("format=json"), &all, Format::Json),
            asked(Format::Json)
        );
        assert_eq!(run(None, &all, Format::Json), asked(Format::Compact));
        assert_eq!(
            run(None, &[("accept", "text/toon")], Format::Json),
            asked(Format::Toon)
        );
    }

    #[test]
    fn values_are_case_insensitive() {
        assert_eq!(
            run(Some("format=TOON"), &[], Format::Json),
            asked(Format::Toon)
        );
        assert_eq!(
            run(None, &[("x-prefer-format", "Compact")], Format::Json),
            asked(Format::Compact)
        );
        assert_eq!(
            run(None, &[("accept", "Application/TOON")], Format::Json),
            asked(Format::Toon)
        );
    }

    #[test]
    fn unknown_values_step_aside() {
        assert_eq!(
            run(Some("format=csv"), &[], Format::Json),
            Negotiated::StepAside
        );
        assert_eq!(
            run(None, &[("x-prefer-format", "yaml")], Format::Json),
            Negotiated::StepAside
        );
        // An unknown query value wins over a known header value.
        assert_eq!(
            run(
                Some("format=csv"),
                &[("x-prefer-format", "toon")],
                Format::Json
            ),
            Negotiated::StepAside
        );
    }

    #[test]
    fn accept_q_values_decide() {
        let cases = [
            ("text/toon;q=0.9, application/json", Format::Json),
            ("application/json;q=0.5, text/toon", Format::Toon),
            ("text/toon;q=0, application/json;q=0.1", Format::Json),
            ("text/toon, */*;q=0.1", Format::Toon),
            ("application/toon;q=0.8, application/*;q=0.5", Format::Toon),
            ("text/toon;q=0.3, application/*;q=0.5", Format::Json),
            (
                "text/toon; charset=utf-8; q=1.0, application/json; q=0.99",
                Format::Toon,
            ),
        ];
        for (accept, want) in cases {
            assert_eq!(
                run(None, &[("accept", accept)], Format::Json),
                asked(want),
                "{accept}"
            );
        }
    }

    #[test]
    fn accept_ties_between_named_types_go_to_the_default() {
        let accept = [("accept", "application/json, text/toon")];
        assert_eq!(run(None, &accept, Format::Json), asked(Format::Json));
        assert_eq!(run(None, &accept, Format::Toon), asked(Format::Toon));
    }

    #[test]
    fn accept_without_toon_keeps_the_default_unless_it_rules_toon_out() {
        assert_eq!(
            run(None, &[("accept", "*/*")], Format::Toon),
            unasked(Format::Toon)
        );
        assert_eq!(
            run(None, &[("accept", "application/json")], Format::Toon),
            unasked(Format::Json)
        );
        assert_eq!(
            run(None, &[("accept", "text/html")], Format::Compact),
            unasked(Format::Compact)
        );
    }

    #[test]
    fn a_bare_wildcard_weighs_as_the_parsed_one() {
        for default in [Format::Json, Format::Toon, Format::Compact] {
            for other in [
                None,
                Some("text/toon;q=0.5"),
                Some("application/json"),
                Some("text/toon;q=0"),
            ] {
                let with = |wildcard: &'static str| {
                    let mut headers = vec![("accept", wildcard)];
                    headers.extend(other.map(|other| ("accept", other)));
                    run(None, &headers, default)
                };
                assert_eq!(with("*/*"), with("*/* ;q=1"), "{default:?} {other:?}");
            }
        }
    }

    #[test]
    fn malformed_q_values_drop_the_range() {
        assert_eq!(
            run(
                None,
                &[("accept", "text/toon;q=high, application/json")],
                Format::Json
            ),
            unasked(Format::Json)
        );
        assert_eq!(
            run(None, &[("accept", "text/toon;q=2")], Format::Json),
            unasked(Format::Json)
        );
    }
}
