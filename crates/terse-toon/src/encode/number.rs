//! Canonical number text (spec §2).
//!
//! Integers that `serde_json` holds as `i64`/`u64` are written exactly.
//! Floats are written as the shortest decimal that reads back to the same
//! `f64`, always in plain notation: no exponent, no trailing fractional zeros,
//! no fractional part when it is zero, and `-0` as `0`. Non-finite values
//! (which a `serde_json::Value` cannot hold) would be written as `null`.

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
    write_plain(out, buffer.format_finite(value));
}

/// Rewrites ryu's shortest form (`1.5e-7`, `1e20`, `123.0`) in plain
/// decimal notation.
fn write_plain(out: &mut impl Sink, shortest: &str) {
    let (negative, unsigned) = match shortest.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, shortest),
    };
    let (mantissa, exponent) = match unsigned.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i32>().unwrap_or(0)),
        None => (unsigned, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));

    // All significant digits, and where the decimal point falls among them.
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
    if digits.is_empty() {
        out.push('0');
        return;
    }
    let digits = std::str::from_utf8(digits).unwrap_or("0");

    if negative {
        out.push('-');
    }
    let count = digits.len() as i32;
    if point <= 0 {
        out.push_str("0.");
        push_zeros(out, (-point) as usize);
        out.push_str(digits);
    } else if point >= count {
        out.push_str(digits);
        push_zeros(out, (point - count) as usize);
    } else {
        let (int_digits, frac_digits) = digits.split_at(point as usize);
        out.push_str(int_digits);
        out.push('.');
        out.push_str(frac_digits);
    }
}

fn push_zeros(out: &mut impl Sink, count: usize) {
    const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";
    let mut left = count;
    while left > 0 {
        let step = left.min(ZEROS.len());
        out.push_str(&ZEROS[..step]);
        left -= step;
    }
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
    fn floats_are_plain_and_canonical() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-7.0, "-7"),
            (1.5, "1.5"),
            (2.75, "2.75"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e-6, "0.000001"),
            (1e-7, "0.0000001"),
            (-1.25e-9, "-0.00000000125"),
            (1e20, "100000000000000000000"),
            (1e21, "1000000000000000000000"),
            (1.5e22, "15000000000000000000000"),
            (123456.789, "123456.789"),
            (9007199254740993.0, "9007199254740992"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
        ];
        for (value, expected) in cases {
            assert_eq!(float(value), expected, "{value:e}");
        }
        assert_eq!(float(f64::MAX).len(), 309);
        assert!(float(f64::MIN_POSITIVE).starts_with("0.000"));
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
            prop_assert!(!text.contains(['e', 'E']));
            let back: f64 = text.parse().unwrap();
            prop_assert_eq!(back, if value == 0.0 { 0.0 } else { value });
            // As short as the standard library's shortest plain form (the
            // two may break an exact tie between neighbours differently).
            let std_text = format!("{}", if value == 0.0 { 0.0 } else { value });
            prop_assert_eq!(text.len(), std_text.len());
        }
    }
}
