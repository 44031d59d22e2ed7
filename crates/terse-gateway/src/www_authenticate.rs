//! The `resource_metadata` parameter of `WWW-Authenticate` challenges
//! (RFC 9728 §5.1), found by parsing the header as RFC 9110 §11.6.1
//! writes it: challenges and their parameters are comma-separated, a
//! parameter's value is a token or a quoted-string (with `\` escapes), and
//! a challenge may carry a token68 instead of parameters. A parameter
//! named inside another's quoted value is text, never a parameter.
//!
//! One pass over the bytes, no recursion, no allocation before a
//! parameter is rewritten: a value that does not parse is left as it came.

/// `value` with the URL of every `resource_metadata` parameter (any
/// challenge, any scheme) passed through `moved`, written back as a
/// quoted-string; `None` when no URL moved or `value` is not a well-formed
/// `WWW-Authenticate` value.
pub(crate) fn move_resource_metadata(
    value: &[u8],
    moved: impl Fn(&str) -> Option<String>,
) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = Vec::new();
    // How much of `value` is in `out` already.
    let mut copied = 0;
    let mut i = 0;
    loop {
        i = skip(value, i, |b| is_space(b) || b == b',');
        if i == value.len() {
            break;
        }
        let start = i;
        i = skip(value, i, is_word);
        if i == start {
            return None;
        }
        let name = &value[start..i];
        let after_spaces = skip(value, i, is_space);
        if value.get(after_spaces) != Some(&b'=') {
            // An auth-scheme (a space and its parameters or token68 follow)
            // or a token68 (a comma or the end follows).
            continue;
        }
        let equals = after_spaces;
        if value.get(equals + 1) == Some(&b'=') {
            // A token68's padding: `abc==`.
            i = skip(value, equals, |b| b == b'=');
            if !at_separator(value, i) {
                return None;
            }
            continue;
        }
        let value_start = skip(value, equals + 1, is_space);
        let (text, end) = match value.get(value_start) {
            Some(&b'"') => quoted(value, value_start)?,
            Some(&b) if is_tchar(b) => {
                let end = skip(value, value_start, is_tchar);
                (value[value_start..end].to_vec(), end)
            }
            // `abc=` then a comma or the end: a token68 ending in `=`.
            _ => {
                i = equals + 1;
                if !at_separator(value, i) {
                    return None;
                }
                continue;
            }
        };
        if !at_separator(value, end) {
            return None;
        }
        i = end;
        if !name.eq_ignore_ascii_case(b"resource_metadata") {
            continue;
        }
        let Some(url) = std::str::from_utf8(&text).ok().and_then(&moved) else {
            continue;
        };
        out.extend_from_slice(&value[copied..value_start]);
        push_quoted(&mut out, url.as_bytes());
        copied = end;
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&value[copied..]);
    Some(out)
}

/// The quoted-string starting at `value[start]` (a `"`): its text with the
/// escapes resolved, and the offset past its closing quote; `None` when it
/// is not closed or holds a byte a quoted-string cannot.
fn quoted(value: &[u8], start: usize) -> Option<(Vec<u8>, usize)> {
    let mut text = Vec::new();
    let mut i = start + 1;
    loop {
        match *value.get(i)? {
            b'"' => return Some((text, i + 1)),
            b'\\' => {
                let escaped = *value.get(i + 1)?;
                if !is_qdtext(escaped) && escaped != b'"' && escaped != b'\\' {
                    return None;
                }
                text.push(escaped);
                i += 2;
            }
            b if is_qdtext(b) => {
                text.push(b);
                i += 1;
            }
            _ => return None,
        }
    }
}

/// `text` as a quoted-string: `"` and `\` escaped.
fn push_quoted(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    for &b in text {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// Whether `value[i..]` goes on with optional spaces then a comma or ends.
fn at_separator(value: &[u8], i: usize) -> bool {
    let i = skip(value, i, is_space);
    i == value.len() || value[i] == b','
}

fn skip(value: &[u8], mut i: usize, pred: impl Fn(u8) -> bool) -> usize {
    while i < value.len() && pred(value[i]) {
        i += 1;
    }
    i
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `tchar` (RFC 9110 §5.6.2).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A byte of a token or a token68 (which adds `/`; its `=` padding is
/// handled apart).
fn is_word(b: u8) -> bool {
    is_tchar(b) || b == b'/'
}

/// `qdtext`: HTAB, SP, `!`, `#`-`[`, `]`-`~` and obs-text.
fn is_qdtext(b: u8) -> bool {
    b == b'\t'
        || b == b' '
        || b == b'!'
        || (0x23..=0x5b).contains(&b)
        || (0x5d..=0x7e).contains(&b)
        || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    const UP: &str = "http://up:9";

    fn moved(url: &str) -> Option<String> {
        url.strip_prefix(UP).map(|rest| format!("https://gw{rest}"))
    }

    fn rewrite(value: &str) -> Option<String> {
        move_resource_metadata(value.as_bytes(), moved).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn the_parameter_moves_in_any_challenge() {
        assert_eq!(
            rewrite(
                r#"Bearer resource_metadata="http://up:9/.well-known/oauth-protected-resource/mcp""#
            )
            .as_deref(),
            Some(
                r#"Bearer resource_metadata="https://gw/.well-known/oauth-protected-resource/mcp""#
            )
        );
        assert_eq!(
            rewrite(
                r#"Basic realm="a, resource_metadata=\"http://up:9/x\"", Bearer error="invalid_token" , RESOURCE_METADATA = "http://up:9/m", scope="a b""#
            )
            .as_deref(),
            Some(
                r#"Basic realm="a, resource_metadata=\"http://up:9/x\"", Bearer error="invalid_token" , RESOURCE_METADATA = "https://gw/m", scope="a b""#
            )
        );
        // Token68 challenges around it, with and without padding.
        assert_eq!(
            rewrite(r#"Negotiate abc/d+e==, DPoP resource_metadata="http://up:9/m", Basic xyz="#)
                .as_deref(),
            Some(r#"Negotiate abc/d+e==, DPoP resource_metadata="https://gw/m", Basic xyz="#)
        );
        // Escapes inside the URL are resolved, and quotes escaped again.
        assert_eq!(
            rewrite(r#"Bearer resource_metadata="http://up:9/\m\"x""#).as_deref(),
            Some(r#"Bearer resource_metadata="https://gw/m\"x""#)
        );
    }

    #[test]
    fn what_does_not_move_or_parse_is_left_alone() {
        for value in [
            r#"Bearer resource_metadata="https://elsewhere/m""#,
            r#"Bearer realm="http://up:9/m""#,
            r#"Bearer error_description="resource_metadata=\"http://up:9/m\"""#,
            "Bearer",
            "",
            ",,, ,",
            r#"Bearer resource_metadata="http://up:9/m"#,
            r#"Bearer resource_metadata="http://up:9/m"x"#,
            r#"Bearer resource_metadata="http://up:9/m\"#,
            "Bearer resource_metadata=\"http://up:9/\u{1}\"",
            r#"Bearer "resource_metadata"="http://up:9/m""#,
            r#"Bearer resource_metadata=="http://up:9/m""#,
            r#"Bearer a=b=c, resource_metadata="http://up:9/m""#,
            "Bearer resource_metadata=",
            "=",
            "\"",
            "\\",
        ] {
            assert_eq!(rewrite(value), None, "{value}");
        }
    }

    #[test]
    fn hostile_values_cost_one_pass() {
        let many = r#"Bearer resource_metadata="http://up:9/m", "#.repeat(10_000);
        let out = rewrite(&many).unwrap();
        assert_eq!(out.matches("https://gw/m").count(), 10_000);
        for evil in [
            "\"".repeat(100_000),
            "\\".repeat(100_000),
            "a=".repeat(100_000),
            "=".repeat(100_000),
            format!("Bearer resource_metadata=\"{}", "\\\"".repeat(50_000)),
            "a ".repeat(100_000),
        ] {
            assert_eq!(rewrite(&evil), None);
        }
        // Arbitrary bytes never panic.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..2_000 {
            let len = (seed % 64) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    b" \t,=\"\\abr/_x:\x01\xff"[(seed % 15) as usize]
                })
                .collect();
            let _ = move_resource_metadata(&bytes, moved);
        }
    }
}
