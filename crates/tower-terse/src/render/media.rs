//! The two header predicates every path shares: is this body JSON, and is
//! it sent as it is (no content coding)?

use http::HeaderValue;

/// `application/json` or any `*/*+json` (`application/hal+json`,
/// `application/vnd.api+json`, `application/ld+json`,
/// `application/problem+json`...), with any parameters (`charset`), in any
/// case.
pub fn is_json_media_type(value: &HeaderValue) -> bool {
    value.to_str().is_ok_and(is_json_media_text)
}

/// [`is_json_media_type`] for a content type as text.
fn is_json_media_text(text: &str) -> bool {
    let media = text.split(';').next().unwrap_or("").trim();
    let Some((kind, sub)) = media.split_once('/') else {
        return false;
    };
    let sub = sub.as_bytes();
    !kind.is_empty()
        && !kind.contains(char::is_whitespace)
        && (kind.eq_ignore_ascii_case("application") && sub.eq_ignore_ascii_case(b"json")
            || sub.len() > 5 && sub[sub.len() - 5..].eq_ignore_ascii_case(b"+json"))
}

/// Whether a `Content-Encoding` value leaves the body as it is: empty or
/// `identity` codings only. Every value of the header must pass.
pub fn is_identity_coding(value: &HeaderValue) -> bool {
    value.to_str().is_ok_and(|text| {
        text.split(',')
            .map(str::trim)
            .all(|coding| coding.is_empty() || coding.eq_ignore_ascii_case("identity"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> bool {
        is_json_media_type(&HeaderValue::from_str(text).unwrap())
    }

    #[test]
    fn json_and_every_plus_json_type_with_any_parameters() {
        for yes in [
            "application/json",
            "Application/JSON; charset=utf-8",
            "application/hal+json",
            "application/vnd.api+json",
            "application/ld+json; profile=\"x\"",
            "application/problem+json",
        ] {
            assert!(json(yes), "{yes}");
        }
        for no in [
            "text/plain",
            "application/jsonx",
            "application/+json",
            "json",
            "text/toon",
            "",
            "+",
            "text/event-stream",
        ] {
            assert!(!json(no), "{no}");
        }
    }

    #[test]
    fn identity_is_the_only_coding_left_alone() {
        let coding = |text: &str| is_identity_coding(&HeaderValue::from_str(text).unwrap());
        assert!(coding("identity"));
        assert!(coding(" Identity , "));
        assert!(!coding("gzip"));
        assert!(!coding("identity, br"));
    }
}
