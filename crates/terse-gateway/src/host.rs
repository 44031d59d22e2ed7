//! The host a request names, validated as RFC 9112 §3.2 requires: one
//! `Host` at most, well-formed (RFC 3986 §3.2.2: a reg-name or an IP
//! literal in brackets, and an optional port of digits), or a 400.
//!
//! The gateway sends the host on in `X-Forwarded-Host` (and in `Host`
//! with `preserve_host`) and writes it into rewritten `Location` and
//! `Link` URLs: a value such as `a"b` or `evil/x@y` must never get that
//! far, and two `Host` headers must not leave the gateway and the
//! upstream each believing a different one.

#[cfg(test)]
use http::header::HOST;
use http::request::Parts;
use http::{HeaderValue, StatusCode, Version};
use tower_terse::ErrorEnvelope;

/// The authority the request is for (`example.com`, `[::1]:9`), or `None`
/// when it names none (HTTP/1.0 without `Host`, an empty `Host`); a 400
/// `bad_request_host` when it is malformed.
///
/// An absolute-form target's or HTTP/2's `:authority` wins over `Host`
/// (RFC 9112 §3.2.2), and both are validated; HTTP/2 with both must have
/// them agree (RFC 9113 §8.3.1), HTTP/1.1 must send exactly one `Host`.
#[cfg(test)]
pub(crate) fn request_host(parts: &Parts) -> Result<Option<HeaderValue>, ErrorEnvelope> {
    let mut hosts = parts.headers.get_all(HOST).iter();
    let header = hosts.next();
    host_of(parts, header, hosts.next().is_some())
}

/// [`request_host`] with the request's `Host` found already (in the one
/// pass over its headers that `Upstream` makes): its first `header`, and
/// whether there are `several`.
pub(crate) fn host_of(
    parts: &Parts,
    header: Option<&HeaderValue>,
    several: bool,
) -> Result<Option<HeaderValue>, ErrorEnvelope> {
    if several {
        return Err(refusal("the request has more than one Host header"));
    }
    if let Some(header) = header {
        if !header.is_empty() && !is_authority(header.as_bytes()) {
            return Err(refusal(
                "the Host header is not a host name or IP literal with an optional port",
            ));
        }
    } else if parts.version == Version::HTTP_11 {
        return Err(refusal("an HTTP/1.1 request must have a Host header"));
    }
    let Some(authority) = parts.uri.authority() else {
        return Ok(header.filter(|h| !h.is_empty()).cloned());
    };
    if !is_authority(authority.as_str().as_bytes()) {
        return Err(refusal(
            "the request's authority is not a host name or IP literal with an optional port",
        ));
    }
    if parts.version == Version::HTTP_2
        && header.is_some_and(|h| {
            !h.as_bytes()
                .eq_ignore_ascii_case(authority.as_str().as_bytes())
        })
    {
        return Err(refusal(
            "the Host header and :authority name different hosts",
        ));
    }
    Ok(HeaderValue::from_str(authority.as_str()).ok())
}

fn refusal(message: &'static str) -> ErrorEnvelope {
    ErrorEnvelope::new(StatusCode::BAD_REQUEST, "bad_request_host", message).with_hint(
        "send one Host such as `api.example.com`, `api.example.com:8080` or `[::1]:8080`",
    )
}

/// Whether `text` is `host [":" port]` (RFC 3986 §3.2.2-3) with a host
/// that is not empty: an HTTP URI has one (RFC 9110 §4.2.1).
pub(crate) fn is_authority(text: &[u8]) -> bool {
    // Most hosts are plain reg-names (`localhost:8080`, `10.0.0.7`): one
    // pass over their bytes to a `:` or the end, then the port's digits.
    let plain = text
        .iter()
        .take_while(|&&b| REG_NAME[usize::from(b)])
        .count();
    match text.get(plain) {
        None => return plain > 0,
        Some(b':') if plain > 0 => return port_fits(&text[plain + 1..]),
        // An escape or an IP literal: the whole grammar.
        _ => {}
    }
    by_the_grammar(text)
}

/// [`is_authority`] by the grammar, step by step.
fn by_the_grammar(text: &[u8]) -> bool {
    let (host, port) = if text.first() == Some(&b'[') {
        let Some(close) = text.iter().position(|&b| b == b']') else {
            return false;
        };
        if !is_ip_literal(&text[1..close]) {
            return false;
        }
        (&text[..=close], &text[close + 1..])
    } else {
        match text.iter().position(|&b| b == b':') {
            Some(colon) => (&text[..colon], &text[colon..]),
            None => (text, &text[text.len()..]),
        }
    };
    let port_ok = match port.split_first() {
        None => true,
        // RFC 3986 lets a port be any run of digits; one past 65535 names
        // no port TCP has, and a proxy and a service would read it apart.
        Some((b':', digits)) => port_fits(digits),
        Some(_) => false,
    };
    port_ok && !host.is_empty() && (host[0] == b'[' || is_reg_name(host))
}

/// Whether `digits` are digits only (or none) naming at most 65535, as
/// `u16`'s parse reads them (any number of leading zeros): counted as they
/// are checked, with no text made of them.
fn port_fits(digits: &[u8]) -> bool {
    let mut value = 0u32;
    for &b in digits {
        if !b.is_ascii_digit() {
            return false;
        }
        value = value * 10 + u32::from(b - b'0');
        if value > u32::from(u16::MAX) {
            return false;
        }
    }
    true
}

/// `IPv6address / IPvFuture`, between the brackets.
fn is_ip_literal(inside: &[u8]) -> bool {
    if let Some(future) = inside
        .strip_prefix(b"v")
        .or_else(|| inside.strip_prefix(b"V"))
    {
        // "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
        let Some(dot) = future.iter().position(|&b| b == b'.') else {
            return false;
        };
        let (version, rest) = (&future[..dot], &future[dot + 1..]);
        return !version.is_empty()
            && version.iter().all(u8::is_ascii_hexdigit)
            && !rest.is_empty()
            && rest
                .iter()
                .all(|&b| is_unreserved(b) || is_sub_delim(b) || b == b':');
    }
    std::str::from_utf8(inside).is_ok_and(|s| s.parse::<std::net::Ipv6Addr>().is_ok())
}

/// `*( unreserved / pct-encoded / sub-delims )`; IPv4 addresses are
/// reg-names by this grammar too.
fn is_reg_name(host: &[u8]) -> bool {
    let mut i = 0;
    while i < host.len() {
        let b = host[i];
        if b == b'%' {
            let hex = host.get(i + 1..i + 3);
            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            i += 3;
        } else if REG_NAME[usize::from(b)] {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// `unreserved / sub-delims` by byte: a host is read once per request.
static REG_NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_unreserved(b as u8) || is_sub_delim(b as u8);
        b += 1;
    }
    table
};

const fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

const fn is_sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reg_name_table_is_the_grammar_and_ports_parse_as_u16_does() {
        for b in 0..=255u8 {
            assert_eq!(
                REG_NAME[usize::from(b)],
                is_unreserved(b) || is_sub_delim(b),
                "{b}"
            );
        }
        for digits in [
            "",
            "0",
            "80",
            "00080",
            "65535",
            "65536",
            "0000000065535",
            "99999999999999999999",
            "8a",
            "-1",
            " 80",
        ] {
            let parsed = digits.bytes().all(|b| b.is_ascii_digit())
                && (digits.is_empty() || digits.parse::<u16>().is_ok());
            assert_eq!(port_fits(digits.as_bytes()), parsed, "{digits:?}");
        }
    }

    #[test]
    fn hosts_are_reg_names_or_ip_literals_with_an_optional_port() {
        for good in [
            "localhost:8080",
            "[::1]:9",
            "[::1]",
            "example.com",
            "127.0.0.1:3000",
            "xn--bcher-kva.example",
            "a%20b",
            "host:",
            "[v1.fe80::a+en1]",
            "under_score.example",
            "example.com:65535",
            "[::1]:0",
        ] {
            assert!(is_authority(good.as_bytes()), "{good}");
        }
        for bad in [
            "a\"b",
            "a b",
            "a/b",
            "user@host",
            "host:80:80",
            "host:8o",
            ":80",
            "",
            "[::1",
            "[::g]:1",
            "[::1]x",
            "[fe80::1%25eth0]",
            "a%2",
            "a\\b",
            "a<b>",
            "host?x",
            "host#x",
            "[]",
            "[v.x]",
            "example.com:65536",
            "[::1]:99999999999999999999",
        ] {
            assert!(!is_authority(bad.as_bytes()), "{bad}");
        }
    }

    /// The one pass over a plain host answers as the grammar does.
    #[test]
    fn the_quick_pass_agrees_with_the_grammar() {
        let alphabet = [b'a', b'1', b':', b'%', b'[', b']', b'2', b'_', b'@', b'.'];
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..5 {
            texts = texts
                .iter()
                .flat_map(|text| {
                    alphabet.iter().map(move |&b| {
                        let mut longer = text.clone();
                        longer.push(b);
                        longer
                    })
                })
                .collect();
            for text in &texts {
                assert_eq!(
                    is_authority(text),
                    by_the_grammar(text),
                    "{:?}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    fn parts(version: Version, uri: &str, hosts: &[&str]) -> Parts {
        let mut builder = http::Request::builder().version(version).uri(uri);
        for host in hosts {
            builder = builder.header(HOST, *host);
        }
        builder.body(()).unwrap().into_parts().0
    }

    #[test]
    fn one_valid_host_per_request() {
        let host = |version, uri, hosts: &[&str]| {
            request_host(&parts(version, uri, hosts))
                .map(|h| h.map(|h| h.to_str().unwrap().to_owned()))
        };
        assert_eq!(
            host(Version::HTTP_11, "/", &["example.com"])
                .unwrap()
                .as_deref(),
            Some("example.com")
        );
        assert!(host(Version::HTTP_11, "/", &["a", "b"]).is_err());
        assert!(host(Version::HTTP_11, "/", &["a\"b"]).is_err());
        assert!(host(Version::HTTP_11, "/", &[]).is_err());
        assert_eq!(host(Version::HTTP_10, "/", &[]).unwrap(), None);
        assert_eq!(host(Version::HTTP_11, "/", &[""]).unwrap(), None);
        // The absolute form's authority wins, and is validated.
        assert_eq!(
            host(Version::HTTP_11, "http://b.example/", &["a.example"])
                .unwrap()
                .as_deref(),
            Some("b.example")
        );
        assert!(host(Version::HTTP_11, "http://u@b.example/", &["a.example"]).is_err());
        // HTTP/2: `:authority`, which `Host` must agree with.
        assert_eq!(
            host(Version::HTTP_2, "http://[::1]:9/", &[])
                .unwrap()
                .as_deref(),
            Some("[::1]:9")
        );
        assert!(host(Version::HTTP_2, "http://a.example/", &["b.example"]).is_err());
        assert!(host(Version::HTTP_2, "http://a.example/", &["A.example"]).is_ok());
        assert_eq!(host(Version::HTTP_2, "/", &[]).unwrap(), None);
    }
}
