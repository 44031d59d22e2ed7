//! The two header predicates every path shares: is this body JSON, and is
//! it sent as it is (no content coding)?

use http::HeaderValue;

/// `application/json` or any `*/*+json` (`application/hal+json`,
/// `application/vnd.api+json`, `application/ld+json`,
/// `application/problem+json`...), with any parameters (`charset`), in any
/// case.
pub fn is_json_media_type(value: &HeaderValue) -> bool {
    // Every response the layers see is asked this (often more than once),
    // so it works on the bytes: no UTF-8 or Unicode-whitespace machinery.
    let bytes = value.as_bytes();
    if bytes == b"application/json" {
        return true;
    }
    // What `HeaderValue::to_str` refuses (opaque bytes) is no JSON type;
    // what it takes is ASCII whose only whitespace is space and tab.
    if !bytes
        .iter()
        .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b))
    {
        return false;
    }
    let media = match bytes.iter().position(|&b| b == b';') {
        Some(end) => &bytes[..end],
        None => bytes,
    }
    .trim_ascii();
    let Some(slash) = media.iter().position(|&b| b == b'/') else {
        return false;
    };
    let (kind, sub) = (&media[..slash], &media[slash + 1..]);
    !kind.is_empty()
        && !kind.iter().any(|&b| b == b' ' || b == b'\t')
        && (kind.eq_ignore_ascii_case(b"application") && sub.eq_ignore_ascii_case(b"json")
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

    /// The rule as text, as written before it worked on bytes.
    fn by_text(value: &HeaderValue) -> bool {
        value.to_str().is_ok_and(|text| {
            let media = text.split(';').next().unwrap_or("").trim();
            let Some((kind, sub)) = media.split_once('/') else {
                return false;
            };
            let sub = sub.as_bytes();
            !kind.is_empty()
                && !kind.contains(char::is_whitespace)
                && (kind.eq_ignore_ascii_case("application") && sub.eq_ignore_ascii_case(b"json")
                    || sub.len() > 5 && sub[sub.len() - 5..].eq_ignore_ascii_case(b"+json"))
        })
    }

    #[test]
    fn the_byte_rule_agrees_with_the_text_rule() {
        let pieces: [&[u8]; 16] = [
            b"application",
            b"APPLICATION",
            b"text",
            b"/",
            b"json",
            b"+json",
            b"JSON",
            b";",
            b" ",
            b"\t",
            b"charset=utf-8",
            b"vnd.api",
            b"*",
            b"\xc3\xa9",
            b"\x7f",
            b"x",
        ];
        let mut checked = 0;
        // Every sequence of up to five pieces: spaces and tabs around and
        // inside each part, parameters, case, bytes `to_str` refuses.
        let mut stack: Vec<(Vec<u8>, usize)> = vec![(Vec::new(), 0)];
        while let Some((value, depth)) = stack.pop() {
            if let Ok(header) = HeaderValue::from_bytes(&value) {
                assert_eq!(
                    is_json_media_type(&header),
                    by_text(&header),
                    "{:?}",
                    String::from_utf8_lossy(&value)
                );
                checked += 1;
            }
            if depth < 5 {
                for piece in pieces {
                    stack.push(([value.as_slice(), piece].concat(), depth + 1));
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
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
