//! Canonical number text (spec §2), as the reference encoder writes it.
//!
//! Integers that `serde_json` holds as `i64`/`u64` are written exactly.
//! Floats are written with the shortest digits that read back to the same
//! `f64`, laid out as JavaScript's `Number.prototype.toString` lays them out
//! (the reference implementation writes `String(value)`): plain decimal for
//! magnitudes from 1e-6 up to (not including) 1e21, exponent form outside it
//! (`1e-7`, `5.08728717057225e-9`, `1e+21`, `1.5e+300`); no trailing
//! fractional zeros, no fractional part when it is zero, and `-0` as `0`.
//! Non-finite values (which a `serde_json::Value` cannot hold) would be
//! written as `null`.

use super::out::Sink;
use serde_json::Number;

/// Writes a `serde_json` number in canonical form.
pub(crate) fn write_number(out: &mut impl Sink, number: &Number) {
    if let Some(n) = number.as_u64() {
        out.push_str(itoa::Buffer::new().format(n));
    } else if let Some(n) = number.as_i64() {
        out.push_str(itoa::Buffer::new().format(n));
    } else if let Some(n) = number.as_f64() {
        write_f64(out, n);
    }
}

/// Writes a float in canonical form.
pub(crate) fn write_f64(out: &mut impl Sink, value: f64) {
    if !value.is_finite() {
        out.push_str("null");
        return;
    }
    if value == 0.0 {
        out.push('0');
        return;
    }
    let mut buffer = ryu::Buffer::new();
    write_shortest(out, buffer.format_finite(value));
}

/// Rewrites ryu's shortest form (`1.5e-7`, `1e20`, `123.0`) in the layout
/// of JavaScript's `Number.prototype.toString` (ECMA-262 Number::toString).
fn write_shortest(out: &mut impl Sink, shortest: &str) {
    let (negative, unsigned) = match shortest.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, shortest),
    };
    let (mantissa, exponent) = match unsigned.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i32>().unwrap_or(0)),
        None => (unsigned, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));

    // All significant digits (17 at most), and `point`: the value is
    // 0.DIGITS times ten to the power `point` (ECMA-262's n).
    let mut digits = [0u8; 40];
    let mut len = 0;
    for &b in int_part.as_bytes().iter().chain(frac_part.as_bytes()) {
        if len < digits.len() {
            digits[len] = b;
            len += 1;
        }
    }
    let mut point = int_part.len() as i32 + exponent;
    let leading = digits[..len].iter().take_while(|&&d| d == b'0').count();
    point -= leading as i32;
    let mut digits = &digits[leading..len];
    while let [rest @ .., b'0'] = digits {
        digits = rest;
    }
    let Ok(digits) = std::str::from_utf8(digits) else {
        return;
    };
    if digits.is_empty() {
        out.push('0');
        return;
    }

    if negative {
        out.push('-');
    }
    let count = digits.len() as i32;
    if (count..=21).contains(&point) {
        out.push_str(digits);
        push_zeros(out, (point - count) as usize);
    } else if (1..=21).contains(&point) {
        let (int_digits, frac_digits) = digits.split_at(point as usize);
        out.push_str(int_digits);
        out.push('.');
        out.push_str(frac_digits);
    } else if (-5..=0).contains(&point) {
        out.push_str("0.");
        push_zeros(out, (-point) as usize);
        out.push_str(digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let exponent = point - 1;
        out.push_str(if exponent < 0 { "e-" } else { "e+" });
        out.push_str(itoa::Buffer::new().format(exponent.unsigned_abs()));
    }
}

/// At most 20 zeros: plain notation stops at 21 digits.
fn push_zeros(out: &mut impl Sink, count: usize) {
    const ZEROS: &str = "00000000000000000000";
    out.push_str(&ZEROS[..count.min(ZEROS.len())]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn float(value: f64) -> String {
        let mut out = String::new();
        write_f64(&mut out, value);
        out
    }

    #[test]
    fn floats_are_laid_out_as_javascript_does() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-7.0, "-7"),
            (1.5, "1.5"),
            (2.75, "2.75"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e-6, "0.000001"),
            (3e-6, "0.000003"),
            (1e-7, "1e-7"),
            (-1.5e-7, "-1.5e-7"),
            (5.08728717057225e-9, "5.08728717057225e-9"),
            (1.23e-18, "1.23e-18"),
            (-1.25e-9, "-1.25e-9"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e21, "1e+21"),
            (1.5e22, "1.5e+22"),
            (1.5e300, "1.5e+300"),
            (123456.789, "123456.789"),
            (9007199254740993.0, "9007199254740992"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
        ];
        for (value, expected) in cases {
            assert_eq!(float(value), expected, "{value:e}");
        }
    }

    #[test]
    fn integers_are_exact() {
        let mut out = String::new();
        write_number(&mut out, &Number::from(u64::MAX));
        out.push(' ');
        write_number(&mut out, &Number::from(i64::MIN));
        assert_eq!(out, "18446744073709551615 -9223372036854775808");
    }

    proptest! {
        #[test]
        fn floats_read_back_exactly(bits in any::<u64>()) {
            let value = f64::from_bits(bits);
            prop_assume!(value.is_finite());
            let text = float(value);
            let back: f64 = text.parse().unwrap();
            prop_assert_eq!(back, if value == 0.0 { 0.0 } else { value });
            let magnitude = value.abs();
            let exponent_form = magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude);
            prop_assert_eq!(text.contains('e'), exponent_form, "{}", text);
            // As short as the standard library's shortest form (the two may
            // break an exact tie between neighbours differently).
            let std_digits = format!("{:e}", if value == 0.0 { 0.0 } else { value.abs() });
            let digits = |s: &str| s.split('e').next().unwrap().chars().filter(char::is_ascii_digit).count();
            let ours = text.trim_start_matches('-');
            let ours_digits = if exponent_form {
                digits(ours)
            } else {
                ours.chars().filter(char::is_ascii_digit).collect::<String>().trim_matches('0').len().max(1)
            };
            prop_assert_eq!(ours_digits, digits(&std_digits), "{} vs {}", text, std_digits);
        }
    }
}
