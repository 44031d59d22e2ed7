//! Header rules: which responses may be rewritten, and the headers a
//! rewritten or counted response carries.

use http::header::{
    ACCEPT_RANGES, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG, Entry,
    HeaderMap, HeaderName, IF_NONE_MATCH, TRANSFER_ENCODING, VARY,
};
use http::{HeaderValue, StatusCode, response::Parts};

use crate::format::Format;
use crate::render::{Fallback, ResponseFormat, is_identity_coding, is_json_media_type};

/// Approximate tokens of the body as sent.
pub(crate) const X_TOKEN_COUNT: HeaderName = HeaderName::from_static("x-token-count");

/// The format of the body as sent, and why it is not the one asked for.
pub(crate) const X_RESPONSE_FORMAT: HeaderName = HeaderName::from_static("x-response-format");

/// What a response's headers allow the layer to do with its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rewritable {
    /// A successful JSON answer the layer may read and rewrite.
    Yes,
    /// A successful JSON answer the layer may not rewrite, and why: a
    /// content coding, `no-transform`, or a declared length over
    /// `max_body_bytes`.
    Blocked(Fallback),
    /// Not the layer's: an error, a 204/205/206, or a body that is not JSON.
    No,
}

/// What the layer may do with a response with these headers: rewrite a 2xx
/// other than 204/205/206 with a JSON content type, no content coding, no
/// `no-transform` and a declared length (if any) within `max_body_bytes`.
pub(crate) fn rewritable(parts: &Parts, max_body_bytes: usize) -> Rewritable {
    rewritable_heads(parts, max_body_bytes).0
}

/// [`rewritable`], and for a response that is, what its one pass over the
/// headers found that the layer reads again once the body is read
/// ([`Heads`]).
pub(crate) fn rewritable_heads(
    parts: &Parts,
    max_body_bytes: usize,
) -> (Rewritable, Option<Heads>) {
    let status = parts.status;
    if !status.is_success()
        || matches!(
            status,
            StatusCode::NO_CONTENT | StatusCode::RESET_CONTENT | StatusCode::PARTIAL_CONTENT
        )
    {
        return (Rewritable::No, None);
    }
    // One pass over the few headers a response has, rather than a lookup
    // per name: this runs for every response.
    let mut content_type = None;
    let mut content_length = None;
    let mut lengths = 0usize;
    let mut transfer_encoding = false;
    let mut identity = true;
    let mut no_transform = false;
    for (name, value) in &parts.headers {
        if name == CONTENT_TYPE {
            // The first value, as `HeaderMap::get` gives it.
            content_type.get_or_insert(value);
        } else if name == CONTENT_ENCODING {
            identity &= is_identity_coding(value);
        } else if name == CACHE_CONTROL {
            no_transform |= forbids_transform(value);
        } else if name == CONTENT_LENGTH {
            content_length.get_or_insert(value);
            lengths += 1;
        } else if name == TRANSFER_ENCODING {
            transfer_encoding = true;
        }
    }
    if !content_type.is_some_and(is_json_media_type) {
        return (Rewritable::No, None);
    }
    if !identity {
        return (Rewritable::Blocked(Fallback::Compressed), None);
    }
    if no_transform {
        return (Rewritable::Blocked(Fallback::NoTransform), None);
    }
    let within = content_length
        .is_none_or(|len| declared_length(len).is_some_and(|n| n <= max_body_bytes as u64));
    if !within {
        return (Rewritable::Blocked(Fallback::BodyLimit), None);
    }
    let heads = Heads {
        content_type: content_type.cloned(),
        length: content_length.filter(|_| lengths == 1).cloned(),
        transfer_encoding,
    };
    (Rewritable::Yes, Some(heads))
}

/// What the layer reads of a rewritable response's headers once its body
/// is read, found in [`rewritable_heads`]' pass over them (the layer
/// changes none of these in between): no lookup to make again.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Heads {
    /// The first `Content-Type`: the rendering and the memo's key read it.
    pub(crate) content_type: Option<HeaderValue>,
    /// The `Content-Length` when there is exactly one.
    length: Option<HeaderValue>,
    /// Whether there is a `Transfer-Encoding` to drop.
    transfer_encoding: bool,
}

impl Heads {
    /// The same findings from `headers`, with lookups.
    #[cfg(test)]
    pub(crate) fn of(headers: &HeaderMap) -> Heads {
        let mut lengths = headers.get_all(CONTENT_LENGTH).iter();
        let length = match (lengths.next(), lengths.next()) {
            (Some(length), None) => Some(length.clone()),
            _ => None,
        };
        Heads {
            content_type: headers.get(CONTENT_TYPE).cloned(),
            length,
            transfer_encoding: headers.contains_key(TRANSFER_ENCODING),
        }
    }
}

/// Whether a `Cache-Control` value forbids transforming the body
/// (`no-transform`, RFC 9111 §5.2.2.6): such a response passes through as
/// it is.
fn forbids_transform(value: &HeaderValue) -> bool {
    value.to_str().is_ok_and(|text| {
        text.split(',')
            .any(|directive| directive.trim().eq_ignore_ascii_case("no-transform"))
    })
}

fn declared_length(value: &HeaderValue) -> Option<u64> {
    value.to_str().ok()?.trim().parse().ok()
}

/// The request headers a response may vary on: `Accept` and the preference
/// header, also joined ready to insert (most responses have no `Vary` yet).
#[derive(Debug, Clone)]
pub(crate) struct VaryNames {
    names: [HeaderValue; 2],
    joined: HeaderValue,
}

impl VaryNames {
    pub(crate) fn new(prefer_header: HeaderValue) -> Self {
        let accept = HeaderValue::from_static("Accept");
        let joined = [accept.as_bytes(), b", ", prefer_header.as_bytes()].concat();
        VaryNames {
            joined: HeaderValue::from_bytes(&joined).unwrap_or_else(|_| accept.clone()),
            names: [accept, prefer_header],
        }
    }
}

/// Merges the names into `Vary`, keeping what is there and adding only what
/// is missing; `Vary: *` already covers everything.
pub(crate) fn add_vary(headers: &mut HeaderMap, vary: &VaryNames) {
    // One lookup for the usual case, a response without `Vary`.
    if let Entry::Vacant(entry) = headers.entry(VARY) {
        entry.insert(vary.joined.clone());
        return;
    }
    let names = &vary.names;
    let mut present: Vec<String> = Vec::new();
    for value in headers.get_all(VARY) {
        let Ok(text) = value.to_str() else { continue };
        present.extend(
            text.split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned),
        );
    }
    if present.iter().any(|name| name == "*") {
        return;
    }
    let missing: Vec<&str> = names
        .iter()
        .filter_map(|name| name.to_str().ok())
        .filter(|name| !present.iter().any(|p| p.eq_ignore_ascii_case(name)))
        .collect();
    if missing.is_empty() {
        return;
    }
    let merged = present
        .iter()
        .map(String::as_str)
        .chain(missing)
        .collect::<Vec<_>>()
        .join(", ");
    if let Ok(value) = HeaderValue::from_str(&merged) {
        headers.insert(VARY, value);
    }
}

/// Marks a response the layer could have rewritten with what it served:
/// the [`ResponseFormat`] goes in its extensions (for the layers outside)
/// and in `X-Response-Format`, and `Vary` joins it, since the header (a
/// fallback is named only where another format was asked for) and the body
/// both depend on the request's format headers.
pub(crate) fn mark_format(parts: &mut Parts, format: ResponseFormat, vary: &VaryNames) {
    if let Some(value) = response_format_value(format) {
        parts.headers.insert(X_RESPONSE_FORMAT, value);
    }
    parts.extensions.insert(format);
    add_vary(&mut parts.headers, vary);
}

/// The `X-Response-Format` value of `format`: a format served as planned
/// (nearly every response) names itself, with no text to build.
fn response_format_value(format: ResponseFormat) -> Option<HeaderValue> {
    match (format.fallback, format.minified) {
        (None, false) => Some(HeaderValue::from_static(format.served.as_str())),
        _ => HeaderValue::try_from(format.to_string()).ok(),
    }
}

/// Sets the headers of a body the layer has read and is sending as `len`
/// bytes with `count` (its tokens, [`count_value`]) as `X-Token-Count`;
/// `heads` are the handler's headers as [`rewritable_heads`] found them.
pub(crate) fn set_length_and_count(
    headers: &mut HeaderMap,
    heads: &Heads,
    len: usize,
    count: HeaderValue,
) {
    // The whole body is known now, so it goes out with a length, not chunked.
    if heads.transfer_encoding {
        headers.remove(TRANSFER_ENCODING);
    }
    // A body sent as it came mostly declared its length already: that one
    // value, written as this length is, stays (inserting it again would
    // give the same header).
    let mut digits = itoa::Buffer::new();
    let length = digits.format(len).as_bytes();
    let declared = heads
        .length
        .as_ref()
        .is_some_and(|value| value.as_bytes() == length);
    if !declared {
        headers.insert(CONTENT_LENGTH, decimal_value(length, len));
    }
    headers.insert(X_TOKEN_COUNT, count);
}

/// The `X-Token-Count` value of `tokens`.
pub(crate) fn count_value(tokens: usize) -> HeaderValue {
    decimal_value(itoa::Buffer::new().format(tokens).as_bytes(), tokens)
}

/// The header value of `n` from its `digits`, in one allocation
/// (`HeaderValue::from(n)` takes two).
fn decimal_value(digits: &[u8], n: usize) -> HeaderValue {
    // Digits are always a valid value; the fallback only keeps this total.
    HeaderValue::from_bytes(digits).unwrap_or_else(|_| HeaderValue::from(n))
}

/// Headers that describe the old bytes exactly and would now lie: an `ETag`
/// becomes a weak tag of this representation (the data is the same, the
/// bytes are not, and TOON, compact lines and each `fields` projection must
/// never validate one another in a cache), digests go, and so does
/// `Accept-Ranges` (ranges would be of the handler's bytes).
///
/// `"v1"` served as TOON becomes `W/"v1-toon"`; with `fields` it also
/// carries the fingerprint of the list: `W/"v1-json-f1a2b3c4d"`; served as
/// the handler's JSON `minified`, `W/"v1-json-min"`.
pub(crate) fn mark_rewritten(
    headers: &mut HeaderMap,
    served: Format,
    minified: bool,
    fields: Option<u32>,
) {
    if headers.contains_key(ETAG) {
        let retagged: Vec<HeaderValue> = headers
            .get_all(ETAG)
            .iter()
            .filter_map(|tag| representation_tag(tag.as_bytes(), served, minified, fields))
            .collect();
        headers.remove(ETAG);
        for tag in retagged {
            headers.append(ETAG, tag);
        }
    }
    // Names, not text: a name given as text is parsed again on each call.
    for stale in &STALE_WHEN_REWRITTEN {
        headers.remove(stale);
    }
}

/// What [`mark_rewritten`] drops besides the tags.
const STALE_WHEN_REWRITTEN: [HeaderName; 5] = [
    HeaderName::from_static("content-digest"),
    HeaderName::from_static("repr-digest"),
    HeaderName::from_static("digest"),
    HeaderName::from_static("content-md5"),
    ACCEPT_RANGES,
];

/// The weak tag of one representation of the entity tagged `tag`; `None`
/// for a malformed tag, which is dropped rather than passed on as a lie.
fn representation_tag(
    tag: &[u8],
    served: Format,
    minified: bool,
    fields: Option<u32>,
) -> Option<HeaderValue> {
    let opaque = tag.strip_prefix(b"W/").unwrap_or(tag);
    let inner = opaque.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let mut suffix = representation_suffix(served, fields);
    if minified {
        suffix.push_str("-min");
    }
    let mut weak = Vec::with_capacity(inner.len() + suffix.len() + 4);
    weak.extend_from_slice(b"W/\"");
    weak.extend_from_slice(inner);
    weak.extend_from_slice(suffix.as_bytes());
    weak.push(b'"');
    HeaderValue::from_bytes(&weak).ok()
}

/// What [`mark_rewritten`] appends to a tag: `-toon`, `-json-f1a2b3c4d`.
fn representation_suffix(served: Format, fields: Option<u32>) -> String {
    match fields {
        Some(fields) => format!("-{}-f{fields:08x}", served.as_str()),
        None => format!("-{}", served.as_str()),
    }
}

/// The most entity tags of an `If-None-Match` looked at; more are dropped
/// (the handler then answers in full, which is always right).
const MAX_CONDITIONAL_TAGS: usize = 64;

/// Turns the client's `If-None-Match` into the handler's tags for the
/// representation asked (`served`, `fields`): a tag this layer made for it
/// (`W/"v1-toon"`) becomes the handler's (`"v1"`); every other tag is
/// dropped, so the tag of another representation (the JSON's `"v1"`, the
/// TOON's for a compact request) never earns a `304` for this one. `*`
/// stays. Without a tag left, the header goes.
pub(crate) fn untag_if_none_match(headers: &mut HeaderMap, served: Format, fields: Option<u32>) {
    if !headers.contains_key(IF_NONE_MATCH) {
        return;
    }
    let suffix = representation_suffix(served, fields);
    let mut kept: Vec<String> = Vec::new();
    let tags = headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|text| text.split(','))
        .map(str::trim)
        .take(MAX_CONDITIONAL_TAGS);
    for tag in tags {
        if tag == "*" {
            kept.push("*".to_owned());
        } else if let Some(inner) = tag
            .strip_prefix("W/\"")
            .and_then(|rest| rest.strip_suffix('"'))
            .and_then(|rest| rest.strip_suffix(suffix.as_str()))
        {
            kept.push(format!("\"{inner}\""));
        }
    }
    headers.remove(IF_NONE_MATCH);
    if let Ok(value) = HeaderValue::try_from(kept.join(", ")) {
        if !kept.is_empty() {
            headers.insert(IF_NONE_MATCH, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(status: u16, headers: &[(&str, &str)]) -> Parts {
        let mut builder = http::Response::builder().status(status);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(()).unwrap().into_parts().0
    }

    const JSON: (&str, &str) = ("content-type", "application/json");

    #[test]
    fn only_plain_successful_json_within_the_limit_is_rewritable() {
        let yes = |p: Parts| rewritable(&p, 10) == Rewritable::Yes;
        let no = |p: Parts| rewritable(&p, 10) == Rewritable::No;
        let blocked = |p: Parts, why| rewritable(&p, 10) == Rewritable::Blocked(why);
        assert!(yes(parts(200, &[JSON])));
        assert!(yes(parts(
            201,
            &[("content-type", "Application/Vnd.API+JSON; charset=utf-8")]
        )));
        assert!(yes(parts(200, &[JSON, ("content-length", "10")])));
        assert!(yes(parts(200, &[JSON, ("content-encoding", "identity")])));
        assert!(blocked(
            parts(200, &[JSON, ("content-length", "11")]),
            Fallback::BodyLimit
        ));
        assert!(blocked(
            parts(200, &[JSON, ("content-encoding", "gzip")]),
            Fallback::Compressed
        ));
        assert!(blocked(
            parts(200, &[JSON, ("cache-control", "public, No-Transform")]),
            Fallback::NoTransform
        ));
        assert!(no(parts(404, &[JSON])));
        assert!(no(parts(304, &[JSON])));
        for status in [204, 205, 206] {
            assert!(no(parts(status, &[JSON])));
        }
        for other in [
            "text/event-stream",
            "application/x-ndjson",
            "text/json",
            "application/jsonl",
        ] {
            assert!(no(parts(200, &[("content-type", other)])), "{other}");
        }
        assert!(no(parts(200, &[])));
    }

    #[test]
    fn the_response_format_header_says_what_its_display_says() {
        let fallbacks = [
            None,
            Some(Fallback::NotCheaper),
            Some(Fallback::OutputLimit),
            Some(Fallback::Compressed),
            Some(Fallback::Gone),
        ];
        for served in [Format::Json, Format::Toon, Format::Compact] {
            for (fallback, minified) in fallbacks.into_iter().flat_map(|f| [(f, false), (f, true)])
            {
                let format = ResponseFormat::new(served, fallback).with_minified(minified);
                let value = response_format_value(format).unwrap();
                assert_eq!(value.to_str().unwrap(), format.to_string());
            }
        }
    }

    #[test]
    fn the_length_is_set_to_what_goes_out_whatever_was_declared() {
        let length = |declared: &[&'static str], len: usize| {
            let mut headers = HeaderMap::new();
            for value in declared {
                headers.append(CONTENT_LENGTH, HeaderValue::from_static(value));
            }
            headers.insert(TRANSFER_ENCODING, HeaderValue::from_static("chunked"));
            let heads = Heads::of(&headers);
            set_length_and_count(&mut headers, &heads, len, count_value(7));
            assert!(!headers.contains_key(TRANSFER_ENCODING));
            assert_eq!(headers[X_TOKEN_COUNT], "7");
            headers
                .get_all(CONTENT_LENGTH)
                .iter()
                .map(|value| value.to_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(length(&[], 14_808), ["14808"]);
        assert_eq!(length(&["14808"], 14_808), ["14808"]);
        assert_eq!(length(&["0"], 0), ["0"]);
        assert_eq!(length(&[], 0), ["0"]);
        assert_eq!(length(&["10"], 0), ["0"]);
        assert_eq!(length(&["9"], 10), ["10"]);
        assert_eq!(length(&["014808"], 14_808), ["14808"]);
        assert_eq!(length(&[" 14808"], 14_808), ["14808"]);
        assert_eq!(length(&["14808", "14808"], 14_808), ["14808"]);
        assert_eq!(length(&["1"], usize::MAX), [usize::MAX.to_string()]);
        for n in [0, 7, 10, 99, 100, 4_321, 1 << 40, usize::MAX] {
            let digits = itoa::Buffer::new().format(n).as_bytes().to_vec();
            assert_eq!(decimal_value(&digits, n), n.to_string());
        }
    }

    /// What the one pass keeps of a rewritable response's headers is what
    /// the lookups it replaces would find.
    #[test]
    fn the_pass_keeps_what_the_lookups_find() {
        let sets: [&[(&str, &str)]; 6] = [
            &[JSON],
            &[JSON, ("content-length", "7")],
            &[("content-length", "7"), JSON, ("content-length", "7")],
            &[JSON, ("transfer-encoding", "chunked"), ("vary", "accept")],
            &[("content-type", "application/problem+json"), JSON],
            &[JSON, ("content-length", " 9"), ("x-other", "1")],
        ];
        for headers in sets {
            let parts = parts(200, headers);
            let (rewritable, heads) = rewritable_heads(&parts, 10);
            assert_eq!(rewritable, Rewritable::Yes, "{headers:?}");
            assert_eq!(heads, Some(Heads::of(&parts.headers)), "{headers:?}");
        }
        assert_eq!(rewritable_heads(&parts(404, &[JSON]), 10).1, None);
    }

    #[test]
    fn repeated_headers_count_as_the_lookups_read_them() {
        let of = |headers: &[(&str, &str)]| rewritable(&parts(200, headers), 10);
        // The first content type and the first length decide.
        assert_eq!(of(&[JSON, ("content-type", "text/plain")]), Rewritable::Yes);
        assert_eq!(of(&[("content-type", "text/plain"), JSON]), Rewritable::No);
        assert_eq!(
            of(&[JSON, ("content-length", "11"), ("content-length", "5")]),
            Rewritable::Blocked(Fallback::BodyLimit)
        );
        assert_eq!(
            of(&[JSON, ("content-length", "5"), ("content-length", "11")]),
            Rewritable::Yes
        );
        // Every coding and every cache directive counts.
        assert_eq!(
            of(&[
                JSON,
                ("content-encoding", "identity"),
                ("content-encoding", "gzip")
            ]),
            Rewritable::Blocked(Fallback::Compressed)
        );
        assert_eq!(
            of(&[
                JSON,
                ("cache-control", "max-age=5"),
                ("cache-control", "no-transform")
            ]),
            Rewritable::Blocked(Fallback::NoTransform)
        );
        // A coding is named before `no-transform`, and both before the length.
        assert_eq!(
            of(&[
                ("content-length", "99"),
                ("cache-control", "no-transform"),
                ("content-encoding", "br"),
                JSON
            ]),
            Rewritable::Blocked(Fallback::Compressed)
        );
    }

    #[test]
    fn vary_is_merged_never_duplicated() {
        let names = VaryNames::new(HeaderValue::from_static("X-Prefer-Format"));
        let mut headers = HeaderMap::new();
        add_vary(&mut headers, &names);
        assert_eq!(headers[VARY], "Accept, X-Prefer-Format");
        add_vary(&mut headers, &names);
        assert_eq!(headers.get_all(VARY).iter().count(), 1);
        assert_eq!(headers[VARY], "Accept, X-Prefer-Format");

        let mut headers = HeaderMap::new();
        headers.append(VARY, HeaderValue::from_static("accept-encoding, accept"));
        headers.append(VARY, HeaderValue::from_static("Origin"));
        add_vary(&mut headers, &names);
        assert_eq!(headers.get_all(VARY).iter().count(), 1);
        assert_eq!(
            headers[VARY],
            "accept-encoding, accept, Origin, X-Prefer-Format"
        );

        let mut headers = HeaderMap::new();
        headers.insert(VARY, HeaderValue::from_static("*"));
        add_vary(&mut headers, &names);
        assert_eq!(headers[VARY], "*");
    }

    #[test]
    fn strong_etags_are_weakened_and_digests_dropped() {
        let mut headers = HeaderMap::new();
        headers.insert(ETAG, HeaderValue::from_static("\"v1\""));
        headers.insert("content-digest", HeaderValue::from_static("sha-256=:x:"));
        headers.insert("accept-ranges", HeaderValue::from_static("bytes"));
        mark_rewritten(&mut headers, Format::Toon, false, None);
        assert_eq!(headers[ETAG], "W/\"v1-toon\"");
        assert!(!headers.contains_key("content-digest"));
        assert!(!headers.contains_key("accept-ranges"));
        // The handler's JSON minified is a representation of its own.
        let mut headers = HeaderMap::new();
        headers.insert(ETAG, HeaderValue::from_static("\"v1\""));
        mark_rewritten(&mut headers, Format::Json, true, None);
        assert_eq!(headers[ETAG], "W/\"v1-json-min\"");

        let tag = |etag: &'static str, served, fields| {
            let mut headers = HeaderMap::new();
            headers.insert(ETAG, HeaderValue::from_static(etag));
            mark_rewritten(&mut headers, served, false, fields);
            headers
                .get(ETAG)
                .map(|tag| tag.to_str().unwrap().to_owned())
        };
        assert_eq!(
            tag("W/\"v1\"", Format::Compact, None).unwrap(),
            "W/\"v1-compact\""
        );
        assert_eq!(
            tag("\"v1\"", Format::Json, Some(0xab)).unwrap(),
            "W/\"v1-json-f000000ab\""
        );
        let all = [
            tag("\"v1\"", Format::Json, Some(1)),
            tag("\"v1\"", Format::Json, Some(2)),
            tag("\"v1\"", Format::Toon, None),
            tag("\"v1\"", Format::Toon, Some(1)),
            tag("\"v1\"", Format::Compact, None),
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b, "representations share a tag");
            }
        }
        // Not a quoted tag: dropped, never passed on unchanged.
        assert_eq!(tag("v1", Format::Toon, None), None);
    }

    #[test]
    fn conditional_tags_are_the_handlers_for_the_representation_asked() {
        let untag = |values: &[&'static str], served, fields| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(IF_NONE_MATCH, HeaderValue::from_static(value));
            }
            untag_if_none_match(&mut headers, served, fields);
            headers
                .get(IF_NONE_MATCH)
                .map(|v| v.to_str().unwrap().to_owned())
        };
        assert_eq!(
            untag(&["W/\"v1-toon\""], Format::Toon, None).as_deref(),
            Some("\"v1\"")
        );
        // The JSON's own tag, or another representation's, is not this one's.
        assert_eq!(untag(&["\"v1\""], Format::Toon, None), None);
        assert_eq!(untag(&["W/\"v1-toon\""], Format::Compact, None), None);
        assert_eq!(
            untag(&["W/\"v1-json-f000000ab\""], Format::Json, Some(0xac)),
            None
        );
        assert_eq!(
            untag(
                &["W/\"v1-json-f000000ab\", \"v0\"", "W/\"v2-json-f000000ab\""],
                Format::Json,
                Some(0xab)
            )
            .as_deref(),
            Some("\"v1\", \"v2\"")
        );
        assert_eq!(untag(&["*"], Format::Compact, None).as_deref(), Some("*"));
        assert_eq!(untag(&[], Format::Toon, None), None);
        // What `mark_rewritten` makes, `untag_if_none_match` takes back.
        let mut headers = HeaderMap::new();
        headers.insert(ETAG, HeaderValue::from_static("\"abc\""));
        mark_rewritten(&mut headers, Format::Compact, false, Some(7));
        let tag = headers[ETAG].to_str().unwrap().to_owned();
        let mut request = HeaderMap::new();
        request.insert(IF_NONE_MATCH, HeaderValue::try_from(tag).unwrap());
        untag_if_none_match(&mut request, Format::Compact, Some(7));
        assert_eq!(request[IF_NONE_MATCH], "\"abc\"");
    }
}
