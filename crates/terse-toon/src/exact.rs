//! Numbers an `f64` cannot hold as written: `12345678901234567890123`,
//! `0.10000000000000000000001`.
//!
//! `serde_json` (without `arbitrary_precision`, which would change what a
//! `Value` number is for every crate that shares it) reads an integer past
//! 64 bits, or a decimal of more digits than a double keeps, into the
//! nearest `f64`: written back, the digits change (`1.2345678901234568e22`),
//! and eight distinct ids become one. TOON's number grammar takes any
//! number of digits, so the encoder writes such a number in its exact
//! canonical form ([`canonical`]), and the paths that go through a
//! `serde_json::Value` find them first ([`has_inexact_number`]) to keep the
//! body as it came.

/// A decimal number as its digits and the power of ten of the first:
/// `-1.25e3` is `(true, "125", 3)`; zero has no digits.
#[derive(Debug, PartialEq, Eq)]
struct Decimal<'a> {
    negative: bool,
    /// The significant digits, without leading or trailing zeros (for a
    /// token, possibly split by a decimal point: see `digits`).
    digits: Vec<&'a [u8]>,
    /// The power of ten of the first significant digit.
    exponent: i64,
}

/// Exponents beyond this are read as this (a number `1e999999999999999`
/// is far outside any `f64` either way).
const MAX_EXPONENT: i64 = 1 << 40;

impl<'a> Decimal<'a> {
    /// Reads a token of the JSON number grammar (which TOON's shares);
    /// `None` for anything else.
    fn read(token: &'a [u8]) -> Option<Decimal<'a>> {
        let (negative, rest) = match token.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, token),
        };
        let int_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if int_len == 0 {
            return None;
        }
        let (int, mut rest) = rest.split_at(int_len);
        let mut frac: &[u8] = &[];
        if let Some((b'.', after)) = rest.split_first() {
            let len = after.iter().take_while(|b| b.is_ascii_digit()).count();
            if len == 0 {
                return None;
            }
            (frac, rest) = after.split_at(len);
        }
        let mut exp: i64 = 0;
        if let Some((b'e' | b'E', after)) = rest.split_first() {
            let (sign, digits) = match after.split_first() {
                Some((b'-', digits)) => (-1, digits),
                Some((b'+', digits)) => (1, digits),
                _ => (1, after),
            };
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            for &d in digits {
                exp = (exp * 10 + i64::from(d - b'0')).min(MAX_EXPONENT);
            }
            exp *= sign;
        } else if !rest.is_empty() {
            return None;
        }
        // The significant digits: from the first non-zero of int ++ frac to
        // the last non-zero.
        let int_lead = int.iter().take_while(|&&b| b == b'0').count();
        let (int_sig, frac_sig, first_at);
        if int_lead < int.len() {
            int_sig = &int[int_lead..];
            frac_sig = frac;
            first_at = (int_sig.len() as i64) - 1;
        } else {
            let frac_lead = frac.iter().take_while(|&&b| b == b'0').count();
            if frac_lead == frac.len() {
                return Some(Decimal {
                    negative,
                    digits: Vec::new(),
                    exponent: 0,
                });
            }
            int_sig = &[];
            frac_sig = &frac[frac_lead..];
            first_at = -(frac_lead as i64) - 1;
        }
        let mut digits: Vec<&[u8]> = [int_sig, frac_sig]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect();
        // Trailing zeros go, across the point if the fraction is all zeros.
        while let Some(last) = digits.pop() {
            let kept = last.len() - last.iter().rev().take_while(|&&b| b == b'0').count();
            if kept > 0 {
                digits.push(&last[..kept]);
                break;
            }
        }
        Some(Decimal {
            negative,
            digits,
            exponent: first_at.saturating_add(exp),
        })
    }

    fn significant(&self) -> usize {
        self.digits.iter().map(|part| part.len()).sum()
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    fn same_value(&self, other: &Decimal<'_>) -> bool {
        if self.is_zero() || other.is_zero() {
            return self.is_zero() && other.is_zero();
        }
        self.negative == other.negative
            && self.exponent == other.exponent
            && self.digits.concat() == other.digits.concat()
    }
}

/// Whether `serde_json` reads the number `token` (JSON's grammar) into a
/// value that writes back as the same number: an integer within `u64` or
/// `i64`, or a decimal whose nearest `f64` has the token's exact value as
/// its shortest form. `1.50`, `1e3`, `-0` and `0.1` are exact;
/// `12345678901234567890123`, `1.00000000000000000001` and `1e400` are
/// not. Text outside the grammar is not a number, and not inexact.
///
/// ```
/// use terse_toon::number_is_exact;
///
/// assert!(number_is_exact("18446744073709551615"));
/// assert!(number_is_exact("0.1"));
/// assert!(number_is_exact("1.2345678901234568e22"));
/// assert!(!number_is_exact("12345678901234567890123"));
/// assert!(!number_is_exact("0.30000000000000001"));
/// assert!(!number_is_exact("1e400"));
/// ```
pub fn number_is_exact(token: &str) -> bool {
    let bytes = token.as_bytes();
    let Some(decimal) = Decimal::read(bytes) else {
        return true;
    };
    if decimal.is_zero() {
        return true;
    }
    let plain_integer = bytes.iter().all(|&b| b.is_ascii_digit() || b == b'-');
    if plain_integer {
        let fits = if decimal.negative {
            token.parse::<i64>().is_ok()
        } else {
            token.parse::<u64>().is_ok()
        };
        if fits {
            return true;
        }
    }
    // Up to 15 significant digits within the normal range of doubles, any
    // decimal is the shortest form of its nearest `f64`.
    if decimal.significant() <= 15 && (-300..=300).contains(&decimal.exponent) {
        return true;
    }
    let Ok(float) = token.parse::<f64>() else {
        return false;
    };
    if !float.is_finite() {
        return false;
    }
    // Rust writes the shortest digits that read back as the same float.
    let shortest = format!("{float:e}");
    Decimal::read(shortest.as_bytes()).is_some_and(|back| back.same_value(&decimal))
}

/// The canonical TOON text (spec §2) of the number `token` as written,
/// every digit kept: plain decimal from 1e-6 up to 1e21 (and integers of
/// up to 64 digits), else the JSON
/// exponent form with a lowercase `e` and a sign (`1.5e+21`, `1e-7`); no
/// trailing zeros, `-0` as `0`. `None` for text outside the grammar, or an
/// exponent no plain reading could hold.
///
/// ```
/// use terse_toon::exact_canonical;
///
/// assert_eq!(exact_canonical("12345678901234567890123").as_deref(), Some("12345678901234567890123"));
/// assert_eq!(exact_canonical("1.50E+3").as_deref(), Some("1500"));
/// assert_eq!(exact_canonical("-0.000001000").as_deref(), Some("-0.000001"));
/// assert_eq!(exact_canonical("1.0000000000000000000001e30").as_deref(), Some("1000000000000000000000100000000"));
/// assert_eq!(exact_canonical("1.0000000000000000000001e-30").as_deref(), Some("1.0000000000000000000001e-30"));
/// assert_eq!(exact_canonical("1.5e99").as_deref(), Some("1.5e+99"));
/// assert_eq!(exact_canonical("-0.0").as_deref(), Some("0"));
/// ```
pub fn exact_canonical(token: &str) -> Option<String> {
    let decimal = Decimal::read(token.as_bytes())?;
    if decimal.exponent.abs() >= MAX_EXPONENT {
        return None;
    }
    if decimal.is_zero() {
        return Some("0".to_owned());
    }
    let digits: Vec<u8> = decimal.digits.concat();
    let mut out = String::with_capacity(digits.len() + 32);
    if decimal.negative {
        out.push('-');
    }
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let e = decimal.exponent;
    // Plain from 1e-6 up to 1e21, as the spec requires, and an integer of
    // up to 64 digits plain too (the exponent form is only allowed there):
    // an id past 64 bits reads as the digits it was written with.
    let integer = e >= 0 && (e as usize) + 1 >= digits.len();
    if (-6..21).contains(&e) || (integer && e < 64) {
        if e >= 0 {
            let int_len = (e + 1) as usize;
            if digits.len() <= int_len {
                out.push_str(&text(&digits));
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
            } else {
                out.push_str(&text(&digits[..int_len]));
                out.push('.');
                out.push_str(&text(&digits[int_len..]));
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-e - 1) as usize));
            out.push_str(&text(&digits));
        }
    } else {
        out.push_str(&text(&digits[..1]));
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&text(&digits[1..]));
        }
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&e.unsigned_abs().to_string());
    }
    Some(out)
}

/// Whether the JSON text `json` has a number [`number_is_exact`] refuses:
/// one pass over the bytes, numbers read only outside strings. For the
/// paths that read a body into a `serde_json::Value` (which would change
/// the number) to leave it as it came instead. Text that is not JSON is
/// read as far as it goes; the parser refuses it later.
///
/// ```
/// use terse_toon::has_inexact_number;
///
/// assert!(has_inexact_number(br#"{"id":12345678901234567890123}"#));
/// assert!(!has_inexact_number(br#"{"id":"12345678901234567890123","n":[1.5,-2e3]}"#));
/// ```
pub fn has_inexact_number(json: &[u8]) -> bool {
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b'"' => {
                i += 1;
                loop {
                    i = quote_or_backslash(json, i);
                    match json.get(i) {
                        Some(b'\\') => i += 2,
                        _ => break,
                    }
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < json.len()
                    && matches!(json[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                // A token of at most 15 bytes without an exponent has at
                // most 15 significant digits within the normal range of
                // doubles (or is a short integer): exact as it is, which
                // is nearly every number of any body.
                let token = &json[start..i];
                if token.len() > 15 || token.iter().any(|b| matches!(b, b'e' | b'E')) {
                    let text = std::str::from_utf8(token).unwrap_or("");
                    if !number_is_exact(text) {
                        return true;
                    }
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// The index of the first `"` or `\\` at or after `from` (or the length):
/// eight bytes at a time, as strings are most of a body's bytes.
fn quote_or_backslash(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        // The lowest flagged byte of a word is always a real match.
        let flagged = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash))
            & HIGHS;
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' {
            return i;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_numbers_are_those_serde_json_writes_back_alike() {
        for token in [
            "0",
            "-0",
            "7",
            "-9223372036854775808",
            "18446744073709551615",
            "1.5",
            "1.50",
            "1e3",
            "1E-7",
            "0.1",
            "123456789012345",
            "1.7976931348623157e308",
            "5e-324",
            "1.2345678901234568e22",
        ] {
            let value: serde_json::Value = serde_json::from_str(token).unwrap();
            let back = value.to_string();
            assert!(number_is_exact(token), "{token} ({back})");
            assert_eq!(
                exact_canonical(token).map(|c| c.parse::<f64>().unwrap()),
                Some(back.parse::<f64>().unwrap()),
                "{token}"
            );
        }
        for token in [
            "18446744073709551616",
            "-9223372036854775809",
            "12345678901234567890123",
            "0.30000000000000001",
            "1.00000000000000000001",
            "1e400",
            "-1e400",
            "1e-400",
            "3.141592653589793238462643383279",
        ] {
            assert!(!number_is_exact(token), "{token}");
        }
    }

    #[test]
    fn canonical_text_keeps_every_digit() {
        for token in [
            "12345678901234567890123",
            "-12345678901234567890123",
            "0.30000000000000001",
            "3.00000000000000000010e-7",
            "1000000000000000000000.5",
        ] {
            let got = exact_canonical(token).unwrap();
            let value: f64 = got.parse().unwrap();
            let want: f64 = token.parse().unwrap();
            assert_eq!(value, want, "{token} -> {got}");
            assert_eq!(
                Decimal::read(got.as_bytes()).unwrap().digits.concat(),
                Decimal::read(token.as_bytes()).unwrap().digits.concat(),
                "{token} -> {got}"
            );
        }
        assert_eq!(
            exact_canonical("123456789012345678901").as_deref(),
            Some("123456789012345678901")
        );
        assert_eq!(exact_canonical("1e999999999999999999"), None);
    }

    #[test]
    fn numbers_inside_strings_are_not_read() {
        assert!(!has_inexact_number(
            br#"["12345678901234567890123", "a\"12345678901234567890123"]"#
        ));
        assert!(has_inexact_number(br#"{"a\\":12345678901234567890123}"#));
        assert!(!has_inexact_number(b"[1, 2, 3.25, -4e-2]"));
    }
}
