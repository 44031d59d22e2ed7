//! The smart fallback's one decision: TOON or the JSON, whichever costs
//! fewer tokens.

/// How a caller counts the tokens it shows (`X-Token-Count`, reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Counting {
    /// The fast [`estimate`](super::estimate()); near ties are still
    /// settled by exact counts when the `exact-tokens` feature is on.
    #[default]
    Estimate,
    /// Exact o200k_base counts for everything ([`exact`](super::exact())).
    #[cfg(feature = "exact-tokens")]
    Exact,
}

/// Which of the two texts [`choose`] serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served {
    /// The TOON text: it takes fewer tokens.
    Toon,
    /// The JSON: TOON would not take fewer tokens (a tie goes to JSON,
    /// which every client reads).
    Json,
}

/// What [`choose`] decided, and the counts it decided on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The text to serve.
    pub served: Served,
    /// The JSON's tokens: estimated, or exact when `exact` is set.
    pub json_tokens: usize,
    /// The TOON's tokens: estimated, or exact when `exact` is set. When a
    /// near tie was settled exactly and the JSON is served, the TOON's
    /// count may have stopped once it passed the JSON's: then it is at
    /// least `json_tokens`, not its exact count.
    pub toon_tokens: usize,
    /// Whether `json_tokens` and the served text's tokens are exact counts:
    /// always with [`Counting::Exact`], and with [`Counting::Estimate`] when
    /// a near tie was settled exactly (they were counted anyway).
    pub exact: bool,
    /// Whether the choice was made on exact counts: always with
    /// [`Counting::Exact`], and for a near tie with [`Counting::Estimate`].
    pub decided_exactly: bool,
}

impl Choice {
    /// The tokens of the served text, counted the caller's way.
    pub fn served_tokens(&self) -> usize {
        match self.served {
            Served::Toon => self.toon_tokens,
            Served::Json => self.json_tokens,
        }
    }
}

/// Estimates this close are a near tie, settled by exact counts: the
/// estimator's error on text it never saw (cross-family p95, see
/// `tests/tests/token_estimator.rs`) is under 8% per text, and two renderings
/// of the same data err alike, so estimates more than 8% apart (plus
/// `TIE_TOKENS` for short texts, whose counts are small) never disagree with
/// the exact counts on which is smaller; the decision test checks it on every
/// corpus document.
const TIE_PERCENT: usize = 8;
/// Added to the tie band: short documents are a few tokens apart at most,
/// and a rounding of the estimate is one token.
const TIE_TOKENS: usize = 4;

/// Texts longer than this (either of the two) are never counted exactly in
/// estimate mode: an exact count runs at tens of MB/s, the estimate at GB/s.
/// Their near ties are decided on the estimates.
pub const EXACT_TIE_MAX_BYTES: usize = 1 << 20;

/// Chooses between the `json` and `toon` renderings of one document: the
/// one that takes fewer o200k_base tokens, and JSON on a tie.
///
/// With [`Counting::Estimate`] both are estimated, and when the estimates
/// are within the estimator's error band of each other (a near tie) and the
/// `exact-tokens` feature is on, both are counted exactly and the exact
/// counts decide, so the choice is the one with fewer exact tokens; the
/// counts returned are then the exact ones (`exact` is set), since they were
/// paid for. The TOON is counted only until it passes the JSON. Texts over
/// [`EXACT_TIE_MAX_BYTES`] are decided on the estimates.
/// With [`Counting::Exact`] both are counted exactly.
///
/// ```
/// use terse_tokens::{Counting, Served, choose};
///
/// let json = r#"[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"},{"id":3,"name":"Grace"}]"#;
/// let toon = "[3]{id,name}:\n  1,Ada\n  2,Linus\n  3,Grace";
/// let choice = choose(json, toon, Counting::Estimate);
/// assert_eq!(choice.served, Served::Toon);
/// assert!(choice.toon_tokens < choice.json_tokens);
/// // Counts are exact exactly when the decision needed them (a near tie,
/// // as short texts often are).
/// assert_eq!(choice.exact, choice.decided_exactly);
///
/// // A tie goes to JSON.
/// assert_eq!(choose("[1]", "[1]", Counting::Estimate).served, Served::Json);
/// ```
pub fn choose(json: &str, toon: &str, counting: Counting) -> Choice {
    match counting {
        Counting::Estimate => match on_estimates(json, toon) {
            Some(choice) => choice,
            None => settle(json, toon),
        },
        #[cfg(feature = "exact-tokens")]
        Counting::Exact => {
            let (json_tokens, toon_tokens) = (super::exact(json), super::exact(toon));
            Choice {
                served: cheaper(json_tokens, toon_tokens),
                json_tokens,
                toon_tokens,
                exact: true,
                decided_exactly: true,
            }
        }
    }
}

/// [`choose`]'s choice with [`Counting::Estimate`] when the estimates make
/// it; `None` for a near tie that exact counts settle ([`settle`]), so that
/// a caller can take that work elsewhere (off an async worker).
pub fn on_estimates(json: &str, toon: &str) -> Option<Choice> {
    let (json_tokens, toon_tokens) = estimates(json, toon);
    let countable =
        cfg!(feature = "exact-tokens") && json.len().max(toon.len()) <= EXACT_TIE_MAX_BYTES;
    if countable && near_tie(json_tokens, toon_tokens) {
        return None;
    }
    Some(Choice {
        served: cheaper(json_tokens, toon_tokens),
        json_tokens,
        toon_tokens,
        exact: false,
        decided_exactly: false,
    })
}

/// The choice of a near tie that [`on_estimates`] left open, on exact
/// counts: the JSON counted whole (reports want its count), the TOON only
/// until it passes the JSON.
#[cfg(feature = "exact-tokens")]
pub fn settle(json: &str, toon: &str) -> Choice {
    // One counter for both: they share their whitespace pieces.
    let mut counter = super::exact::Counter::new();
    let json_tokens = counter.count(json);
    // TOON is served only with fewer tokens than the JSON.
    let toon_tokens = json_tokens
        .checked_sub(1)
        .and_then(|below| counter.count_till(toon, below));
    Choice {
        served: if toon_tokens.is_some() {
            Served::Toon
        } else {
            Served::Json
        },
        json_tokens,
        toon_tokens: toon_tokens.unwrap_or(json_tokens),
        exact: true,
        decided_exactly: true,
    }
}

/// Without exact counts, [`on_estimates`] leaves nothing open: the
/// estimates decide.
#[cfg(not(feature = "exact-tokens"))]
pub fn settle(json: &str, toon: &str) -> Choice {
    let (json_tokens, toon_tokens) = estimates(json, toon);
    Choice {
        served: cheaper(json_tokens, toon_tokens),
        json_tokens,
        toon_tokens,
        exact: false,
        decided_exactly: false,
    }
}

/// The estimates [`choose`] decides on: the JSON's (with the tokens of
/// spaced separators, see below) and the TOON's. For the decision test,
/// which reports how far their difference is from the exact one; not a
/// stable API.
#[doc(hidden)]
pub fn estimates(json: &str, toon: &str) -> (usize, usize) {
    (
        super::estimate(json.as_bytes()) + spaced_separators(json.as_bytes()),
        super::estimate(toon.as_bytes()),
    )
}

/// The tokens the estimate misses in JSON written with spaced separators
/// (`", "` and `": "`, the default of Python's `json.dumps` and Django's
/// `JsonResponse`): one for each separator whose space is followed by
/// anything but a letter. o200k_base takes `","` as one piece but `",` and
/// ` "` as two, and the estimator's weights are fitted on minified and
/// pretty JSON, where that never happens. The `": "` of pretty JSON is in
/// the fit, so colons count only in JSON that has spaced commas.
fn spaced_separators(json: &[u8]) -> usize {
    let Some(n) = json.len().checked_sub(2) else {
        return 0;
    };
    // No `", "` at all, as in the minified JSON the smart fallback weighs:
    // no spaced comma, so nothing to add (see the end), found by a search
    // that runs many bytes an instruction rather than the count below.
    if memchr::memmem::find(json, b", ").is_none() {
        return 0;
    }
    // Three slices of one length, so the loop has no bounds checks; counted
    // in blocks of 255 bytes into byte counters, which LLVM runs on vectors
    // of 16 or 32 bytes (word-sized counters would take 4 a step).
    let (before, space, after) = (&json[..n], &json[1..n + 1], &json[2..n + 2]);
    let (mut commas, mut colons) = (0usize, 0usize);
    let mut start = 0;
    while start < n {
        let end = (start + 255).min(n);
        let (mut block_commas, mut block_colons) = (0u8, 0u8);
        for i in start..end {
            let spaced = (space[i] == b' ') & !after[i].is_ascii_alphabetic();
            block_commas += u8::from(spaced & (before[i] == b','));
            block_colons += u8::from(spaced & (before[i] == b':'));
        }
        commas += usize::from(block_commas);
        colons += usize::from(block_colons);
        start = end;
    }
    if commas == 0 { 0 } else { commas + colons }
}

/// TOON when it takes fewer tokens; a tie goes to JSON.
fn cheaper(json_tokens: usize, toon_tokens: usize) -> Served {
    if toon_tokens < json_tokens {
        Served::Toon
    } else {
        Served::Json
    }
}

/// Whether two estimates are within the estimator's error band.
fn near_tie(json_tokens: usize, toon_tokens: usize) -> bool {
    let larger = json_tokens.max(toon_tokens);
    json_tokens.abs_diff(toon_tokens) <= larger * TIE_PERCENT / 100 + TIE_TOKENS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tie_goes_to_json() {
        assert_eq!(cheaper(10, 10), Served::Json);
        assert_eq!(cheaper(10, 9), Served::Toon);
        assert_eq!(cheaper(9, 10), Served::Json);
    }

    #[test]
    fn spaced_separators_are_counted_in_spaced_json_only() {
        assert_eq!(spaced_separators(br#"{"a": 1, "b": "x", "c": true}"#), 4);
        // Pretty JSON's colons are in the estimator's fit.
        assert_eq!(spaced_separators(b"{\n  \"a\": 1,\n  \"b\": 2\n}"), 0);
        assert_eq!(spaced_separators(br#"{"a":1,"b":2}"#), 0);
        assert_eq!(spaced_separators(b""), 0);
        assert_eq!(spaced_separators(b", "), 0);
        // Counted across the blocks of 255 bytes alike.
        let long = r#"{"a": 1, "b": [1, 2]}, "#.repeat(100);
        assert_eq!(spaced_separators(long.as_bytes()), 100 * 5 - 1);
        let json = r#"[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Linus"}]"#;
        let choice = choose(
            json,
            "[2]{id,name}:\n  1,Ada\n  2,Linus",
            Counting::Estimate,
        );
        if !choice.exact {
            assert_eq!(
                choice.json_tokens,
                super::super::estimate(json.as_bytes()) + 7
            );
        }
    }

    #[test]
    fn the_band_grows_with_the_counts() {
        assert!(near_tie(10, 14));
        assert!(!near_tie(10, 16));
        assert!(near_tie(1000, 925));
        assert!(!near_tie(1000, 900));
        assert!(near_tie(0, 0));
    }

    #[test]
    fn clear_wins_are_decided_on_the_estimates() {
        let ids = 1..=20;
        let records: Vec<String> = ids
            .clone()
            .map(|id| format!(r#"{{"id":{id},"name":"user {id}","active":true}}"#))
            .collect();
        let json = format!("[{}]", records.join(","));
        let rows: String = ids.map(|id| format!("\n  {id},user {id},true")).collect();
        let toon = format!("[20]{{id,name,active}}:{rows}");
        let choice = choose(&json, &toon, Counting::Estimate);
        assert_eq!(choice.served, Served::Toon);
        assert!(!choice.decided_exactly);
        assert_eq!(choice.served_tokens(), choice.toon_tokens);
    }

    #[cfg(feature = "exact-tokens")]
    #[test]
    fn near_ties_are_decided_exactly() {
        let choice = choose(r#"{"a":1}"#, "a: 1", Counting::Estimate);
        assert!(choice.decided_exactly);
        // Counted exactly anyway: the counts are the exact ones.
        assert!(choice.exact);
        let exact = choose(r#"{"a":1}"#, "a: 1", Counting::Exact);
        assert!(exact.exact && exact.decided_exactly);
        assert_eq!(exact.served, choice.served);
        assert_eq!(exact.json_tokens, super::super::exact(r#"{"a":1}"#));
        assert_eq!(choice.json_tokens, exact.json_tokens);
        assert_eq!(choice.served_tokens(), exact.served_tokens());
    }

    #[cfg(feature = "exact-tokens")]
    #[test]
    fn huge_texts_are_not_counted_exactly_in_estimate_mode() {
        let json = format!("[{}]", "1,".repeat(EXACT_TIE_MAX_BYTES / 2) + "1");
        let choice = choose(&json, &json, Counting::Estimate);
        assert!(!choice.decided_exactly);
        assert_eq!(choice.served, Served::Json);
    }
}
