//! Durations as configuration files write them: `"250ms"`, `"5s"`, `"2m"`.

use std::time::Duration;

/// Parses a whole number and a unit, `ms`, `s`, `m` or `h`: `"250ms"`,
/// `"5s"`, `"2m"`, `"0s"`. The one spelling of times in every
/// configuration file of the project; callers check the range.
///
/// ```
/// use std::time::Duration;
/// use tower_terse::settings::parse_duration;
///
/// assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
/// assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
/// assert!(parse_duration("5").is_err());
/// assert!(parse_duration("1.5s").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let scale: u64 = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => 0,
    };
    number
        .parse::<u64>()
        .ok()
        .filter(|_| scale > 0)
        .and_then(|n| n.checked_mul(scale))
        .map(Duration::from_millis)
        .ok_or_else(|| {
            format!("{text:?} is not a duration: write a whole number and a unit, such as \"250ms\", \"5s\" or \"2m\"")
        })
}

/// Writes `duration` the way [`parse_duration`] reads it.
pub(crate) fn display(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(1000) && ms > 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_unit_and_refuses_the_rest() {
        assert_eq!(parse_duration("0ms"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in [
            "",
            "ms",
            "5",
            "5 s",
            "-5s",
            "5S",
            "99999999999999999999ms",
            "1.5s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
        assert_eq!(display(Duration::from_millis(500)), "500ms");
        assert_eq!(display(Duration::from_secs(5)), "5s");
    }
}
