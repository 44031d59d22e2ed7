//! Query strings: the crate's one percent-decoder, for `?format=`,
//! `?fields=` and `?since=`.
//!
//! Form encoding (`+` is a space) as browsers and HTTP clients write query
//! strings. A `%` not followed by two hex digits stays as it is rather than
//! failing the request: a query the layer cannot read is the handler's to
//! judge.

use std::borrow::Cow;

/// The pairs of `query` (`a=1&b`), each key percent-decoded and its value as
/// written (a key without `=` has the empty value).
pub(crate) fn pairs(query: &str) -> impl Iterator<Item = (Cow<'_, str>, &str)> {
    query.split('&').map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (decode(key), value)
    })
}

/// The first value of query parameter `name`, percent-decoded (`+` is a space).
pub(crate) fn query_param<'a>(query: &'a str, name: &str) -> Option<Cow<'a, str>> {
    pairs(query).find_map(|(key, value)| (key == name).then(|| decode(value)))
}

/// `text` percent-decoded, with bytes that are not UTF-8 replaced by U+FFFD:
/// for names and values the layer only compares or splits.
pub(crate) fn decode(text: &str) -> Cow<'_, str> {
    match decode_bytes(text) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Cow::Owned(text),
            Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        },
    }
}

/// `text` percent-decoded; `None` when the bytes are not UTF-8: for a value
/// that is refused rather than guessed at.
#[cfg_attr(
    not(all(feature = "changes", feature = "axum")),
    allow(dead_code, reason = "read by the `Since` extractor only")
)]
pub(crate) fn decode_utf8(text: &str) -> Option<Cow<'_, str>> {
    match decode_bytes(text) {
        Cow::Borrowed(_) => Some(Cow::Borrowed(text)),
        Cow::Owned(bytes) => String::from_utf8(bytes).ok().map(Cow::Owned),
    }
}

/// Decodes `%XX` escapes and `+` (as a space); borrowed when there are none.
fn decode_bytes(text: &str) -> Cow<'_, [u8]> {
    if !text.contains(['%', '+']) {
        return Cow::Borrowed(text.as_bytes());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match bytes.get(i + 1..i + 3).and_then(|p| hex_pair(p[0], p[1])) {
                Some(byte) => {
                    out.push(byte);
                    i += 2;
                }
                None => out.push(b'%'),
            },
            byte => out.push(byte),
        }
        i += 1;
    }
    Cow::Owned(out)
}

fn hex_pair(high: u8, low: u8) -> Option<u8> {
    // Two hex digits only: `u8::from_str_radix` would also take `+1`.
    let digit = |b: u8| (b as char).to_digit(16);
    Some((digit(high)? * 16 + digit(low)?) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_percent_decoded() {
        assert_eq!(
            query_param("a=1&fields=id%2Cname", "fields").unwrap(),
            "id,name"
        );
        assert_eq!(query_param("q=a+b", "q").unwrap(), "a b");
        assert_eq!(query_param("flag&x=1", "flag").unwrap(), "");
        assert_eq!(query_param("bad=%zz%4", "bad").unwrap(), "%zz%4");
        assert!(query_param("formats=toon", "format").is_none());
        assert_eq!(
            query_param("format=toon&format=json", "format").unwrap(),
            "toon"
        );
        assert_eq!(query_param("%66ormat=toon", "format").unwrap(), "toon");
    }

    #[test]
    fn stray_percent_signs_stay() {
        assert_eq!(decode_utf8("a%").as_deref(), Some("a%"));
        assert_eq!(decode_utf8("a%2").as_deref(), Some("a%2"));
        assert_eq!(decode_utf8("%zz").as_deref(), Some("%zz"));
        assert_eq!(decode_utf8("%+1").as_deref(), Some("% 1"));
        assert_eq!(decode_utf8("%41").as_deref(), Some("A"));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced_or_refused() {
        assert_eq!(decode("a%FFb"), "a\u{fffd}b");
        assert_eq!(decode_utf8("a%FFb"), None);
        assert_eq!(decode_utf8("caf%C3%A9").as_deref(), Some("café"));
        assert!(matches!(decode("plain"), Cow::Borrowed("plain")));
    }
}
