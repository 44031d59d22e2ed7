//! Just enough RFC 3339 for the `time`, `date` and `ago` filters.
//!
//! Written by hand rather than pulling in `chrono` or `time`: the filters need
//! one format, read-only, with no time zone database, and a hundred lines keep
//! the layer's dependency tree small.

use crate::calendar;

/// A calendar instant as the value wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Timestamp {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    /// Hour and minute, when the value has a time of day.
    pub clock: Option<(u32, u32, u32)>,
    /// Offset from UTC in seconds (0 for `Z` or no offset).
    pub offset: i64,
}

impl Timestamp {
    /// Seconds since the Unix epoch, saturating at the ends of `i64`.
    ///
    /// Reckoned in `i128`: a year read from a number (`from_unix` of
    /// `i64::MIN`) is far outside `i64` seconds once multiplied out.
    pub fn unix(&self) -> i64 {
        let (h, m, s) = self.clock.unwrap_or((0, 0, 0));
        let days = calendar::days_from_civil(self.year, self.month.into(), self.day.into());
        let seconds =
            i128::from(days) * 86_400 + i128::from(h) * 3600 + i128::from(m) * 60 + i128::from(s)
                - i128::from(self.offset);
        i64::try_from(seconds).unwrap_or(if seconds < 0 { i64::MIN } else { i64::MAX })
    }
}

/// The UTC instant `seconds` after the Unix epoch.
pub(super) fn from_unix(seconds: i64) -> Timestamp {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    let (year, month, day) = calendar::civil_from_days(days);
    // A month is 1-12 and a day 1-31, so the casts cannot truncate.
    let (month, day) = (month as u32, day as u32);
    // `rest` is below 86 400, so the casts cannot truncate.
    let clock = (
        (rest / 3600) as u32,
        (rest % 3600 / 60) as u32,
        (rest % 60) as u32,
    );
    Timestamp {
        year,
        month,
        day,
        clock: Some(clock),
        offset: 0,
    }
}

/// `YYYY-MM-DD`, then optionally `T`/`t`/space, `HH:MM`, `:SS`, `.fraction`,
/// and `Z`/`z`/`±HH:MM`.
pub(super) fn parse(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    let year = digits(b, 0, 4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let month = digits(b, 5, 2)? as u32;
    let day = digits(b, 8, 2)? as u32;
    if !(1..=12).contains(&month)
        || day == 0
        || i64::from(day) > calendar::days_in_month(year, i64::from(month))
    {
        return None;
    }
    let mut ts = Timestamp {
        year,
        month,
        day,
        clock: None,
        offset: 0,
    };
    if b.len() == 10 {
        return Some(ts);
    }
    if !matches!(b[10], b'T' | b't' | b' ') || b.get(13) != Some(&b':') {
        return None;
    }
    let hour = digits(b, 11, 2)? as u32;
    let minute = digits(b, 14, 2)? as u32;
    let mut i = 16;
    let mut second = 0;
    if b.get(i) == Some(&b':') {
        second = digits(b, i + 1, 2)? as u32;
        i += 3;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
    }
    // 60 is a leap second, which RFC 3339 allows.
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    ts.clock = Some((hour, minute, second));
    match b.get(i) {
        None => {}
        Some(b'Z' | b'z') if i + 1 == b.len() => {}
        Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let hours = digits(b, i + 1, 2)?;
            let minutes = digits(b, i + 4, 2)?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let offset = hours * 3600 + minutes * 60;
            ts.offset = if sign == b'-' { -offset } else { offset };
        }
        _ => return None,
    }
    Some(ts)
}

fn digits(b: &[u8], at: usize, len: usize) -> Option<i64> {
    let slice = b.get(at..at + len)?;
    slice.iter().try_fold(0i64, |acc, &c| {
        c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rfc3339_forms() {
        let ts = parse("2025-03-01T09:30:15Z").unwrap();
        assert_eq!((ts.year, ts.month, ts.day), (2025, 3, 1));
        assert_eq!(ts.clock, Some((9, 30, 15)));
        assert_eq!(ts.unix(), 1_740_821_415);
        let ts = parse("2025-03-01t09:30:15.123456+01:30").unwrap();
        assert_eq!(ts.offset, 5400);
        assert_eq!(ts.unix(), 1_740_821_415 - 5400);
        assert_eq!(parse("2025-03-01 09:30-02:00").unwrap().offset, -7200);
        assert_eq!(parse("2025-03-01").unwrap().clock, None);
        assert_eq!(parse("1970-01-01T00:00:00Z").unwrap().unix(), 0);
        assert_eq!(parse("2024-02-29T00:00:00Z").unwrap().unix(), 1_709_164_800);
        assert_eq!(
            parse("2016-12-31T23:59:60Z").unwrap().clock,
            Some((23, 59, 60))
        );
    }

    #[test]
    fn rejects_what_is_not_a_timestamp() {
        for bad in [
            "",
            "hello",
            "2025-13-01",
            "2025-02-30",
            "2023-02-29",
            "2025-03-01T24:00:00Z",
            "2025-03-01T09:60Z",
            "2025-03-01T09:30:00.Z",
            "2025-03-01T09:30:00+1:00",
            "2025-03-01T09:30:00Zjunk",
            "2025-03-01X09:30",
            "२०२५-03-01",
            "2025-03-01T09:30:00+24:00",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn extreme_instants_neither_overflow_nor_panic() {
        for secs in [i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 86_399] {
            let ts = from_unix(secs);
            assert_eq!(ts.unix(), secs, "{secs}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_not_without_panicking(text in "\\PC{0,40}|[0-9:T.+Zz -]{0,40}") {
            if let Some(ts) = parse(&text) {
                let _ = ts.unix();
            }
        }

        #[test]
        fn any_instant_round_trips(secs in proptest::num::i64::ANY) {
            proptest::prop_assert_eq!(from_unix(secs).unix(), secs);
        }
    }

    #[test]
    fn unix_seconds_round_trip() {
        for secs in [
            0,
            1,
            86_399,
            86_400,
            1_740_821_415,
            -1,
            -86_401,
            4_102_444_800,
        ] {
            let ts = from_unix(secs);
            assert_eq!(ts.unix(), secs, "{secs}");
        }
        let ts = from_unix(-1);
        assert_eq!(
            (ts.year, ts.month, ts.day, ts.clock),
            (1969, 12, 31, Some((23, 59, 59)))
        );
    }
}
