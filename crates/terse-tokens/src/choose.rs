//! The smart fallback's one decision: TOON or the JSON, whichever costs
//! fewer tokens.

#[cfg(feature = "exact-tokens")]
use super::records::RecordCuts;

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
    /// a near tie was settled exactly (they were counted anyway). A long
    /// near tie (8 KiB or more, both texts together) settled before both
    /// texts were counted whole is not: its counts are the exact counts of
    /// the first slices of each text plus the estimates of the rest.
    pub exact: bool,
    /// Whether the choice was made on exact counts: always with
    /// [`Counting::Exact`], and for a near tie with [`Counting::Estimate`]
    /// (for a long one, possibly on the exact counts of the first slices of
    /// both texts, once the estimates of the rest could not turn it).
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
/// `tests/it/token_estimator.rs`) is under 8% per text, and the estimated
/// difference of two renderings of the same data is off by at most 6.3% of
/// the larger (7.2% for JSON with `\uXXXX` escapes, with
/// [`escaped_words`]) on the decision test's documents, so estimates more
/// than 8% apart (plus `TIE_TOKENS` for short texts, whose counts are
/// small) never disagree with the exact counts on which is smaller; the
/// decision test checks it on every corpus document. The paired error is
/// not much below one text's (see `docs/tokens.md`, "Near ties"): the
/// renderings differ in structure, where the estimator errs most.
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
/// paid for. The TOON is counted only until it passes the JSON. Texts of
/// 8 KiB or more together are counted a slice of each at a time, and
/// counting stops once the exact counts so far and the estimates of the
/// rest are further apart than the estimator's error on the rest: the
/// choice is still the one with fewer exact tokens, and the counts returned
/// are those sums (`exact` is not set). Texts over [`EXACT_TIE_MAX_BYTES`]
/// are decided on the estimates.
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
        Counting::Estimate => match weigh(json, toon) {
            Ok(choice) => choice,
            Err(weighed) => settle_weighed(json, toon, weighed),
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

/// The estimates of a near tie that [`weigh`] left open, kept for
/// [`settle_weighed`]: for long texts (8 KiB or more together), the
/// estimator's sums of the slices the exact counts go through, taken in the
/// same pass as the estimates of the whole texts. For tower-terse's smart
/// fallback, which settles a tie after the rendering that met it. Not a
/// stable API.
///
/// ```
/// use terse_tokens::{settle_weighed, weigh};
///
/// let (json, toon) = (r#"{"a":1}"#, "a: 1");
/// if let Err(weighed) = weigh(json, toon) {
///     assert!(settle_weighed(json, toon, weighed).decided_exactly);
/// }
/// ```
#[derive(Debug)]
pub struct Weighed {
    #[cfg(feature = "exact-tokens")]
    stages: Option<Box<Stages>>,
}

/// The estimator's sums of each text's slices, [`STAGES`] of them each,
/// cut at [`aligned`] offsets.
#[cfg(feature = "exact-tokens")]
#[derive(Debug)]
struct Stages {
    json: [i64; STAGES],
    toon: [i64; STAGES],
    /// The sides of the JSON's runs of escapes that touch a letter
    /// ([`escaped_words`]), counted once for both.
    json_escape_sides: usize,
}

/// [`choose`]'s choice with [`Counting::Estimate`] when the estimates make
/// it; `Err` for a near tie that exact counts settle, with its estimates
/// kept for [`settle_weighed`], so that a caller can take that work
/// elsewhere (off an async worker). Not a stable API.
///
/// ```
/// use terse_tokens::{Served, weigh};
///
/// let json = r#"[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"},{"id":3,"name":"Grace"}]"#;
/// let toon = "[3]{id,name}:\n  1,Ada\n  2,Linus\n  3,Grace";
/// match weigh(json, toon) {
///     Ok(choice) => assert_eq!(choice.served, Served::Toon),
///     Err(_) => {} // a near tie, for `settle_weighed`
/// }
/// ```
#[doc(hidden)]
pub fn weigh(json: &str, toon: &str) -> Result<Choice, Weighed> {
    let countable =
        cfg!(feature = "exact-tokens") && json.len().max(toon.len()) <= EXACT_TIE_MAX_BYTES;
    #[cfg(feature = "exact-tokens")]
    let (json_tokens, toon_tokens, stages) = match Stages::of(json, toon) {
        Some((json_tokens, toon_tokens, stages)) if countable => {
            (json_tokens, toon_tokens, Some(Box::new(stages)))
        }
        _ => {
            let (json_tokens, toon_tokens) = estimates(json, toon);
            (json_tokens, toon_tokens, None)
        }
    };
    #[cfg(not(feature = "exact-tokens"))]
    let (json_tokens, toon_tokens) = estimates(json, toon);
    if countable && near_tie(json_tokens, toon_tokens) {
        return Err(Weighed {
            #[cfg(feature = "exact-tokens")]
            stages,
        });
    }
    Ok(Choice {
        served: cheaper(json_tokens, toon_tokens),
        json_tokens,
        toon_tokens,
        exact: false,
        decided_exactly: false,
    })
}

/// The choice of a near tie on exact counts, its estimates taken anew:
/// what [`settle_weighed`] does with those [`weigh`] kept. For the tests,
/// which settle texts whether or not they are a near tie.
///
/// Texts of fewer than 8 KiB together are counted whole: the
/// JSON whole (reports want its count), the TOON only until it passes the
/// JSON. Longer ones are counted a slice of each at a time, and the
/// counting stops once the exact counts so far and the estimates of the
/// rest decide it (see `staged` in the source): the counts returned are
/// then those sums, and `exact` is not set.
#[cfg(all(test, feature = "exact-tokens"))]
fn settle(json: &str, toon: &str) -> Choice {
    let stages = (json.len().max(toon.len()) <= EXACT_TIE_MAX_BYTES)
        .then(|| Stages::of(json, toon))
        .flatten()
        .map(|(_, _, stages)| Box::new(stages));
    settle_weighed(json, toon, Weighed { stages })
}

/// The choice of a near tie that [`weigh`] left open, on exact counts,
/// with the estimates [`weigh`] took of the same `json` and
/// `toon`, which it does not take again (with the estimates of other texts
/// the choice may be wrong, but nothing panics). Not a stable API.
///
/// ```
/// use terse_tokens::{Counting, choose, settle_weighed, weigh};
///
/// let (json, toon) = (r#"{"id":7,"name":"Ada"}"#, "id: 7\nname: Ada");
/// let choice = match weigh(json, toon) {
///     Ok(choice) => choice,
///     Err(weighed) => settle_weighed(json, toon, weighed),
/// };
/// assert_eq!(choice, choose(json, toon, Counting::Estimate));
/// ```
#[doc(hidden)]
#[cfg(feature = "exact-tokens")]
pub fn settle_weighed(json: &str, toon: &str, weighed: Weighed) -> Choice {
    // One counter for both: they share their whitespace pieces.
    let mut counter = super::exact::Counter::new();
    if let Some(stages) = weighed.stages {
        return staged(json, toon, &stages, &mut counter);
    }
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

/// Near ties of texts this long together (in bytes) are counted in stages
/// by [`settle_weighed`]; shorter ones whole, which costs little, and gives their
/// exact counts to the headers and reports.
#[cfg(feature = "exact-tokens")]
const STAGED_MIN_BYTES: usize = 8 << 10;

/// How many slices a near tie's texts are cut into when counted in stages.
#[cfg(feature = "exact-tokens")]
const STAGES: usize = 8;

#[cfg(feature = "exact-tokens")]
impl Stages {
    /// The estimates of `json` and `toon` (as [`estimates`] takes them) and
    /// their slices' sums, when they are long enough to count in stages;
    /// `None` when they are not, or when the JSON has spaced separators
    /// (whose tokens [`estimates`] adds for the whole text; the smart
    /// fallback weighs minified JSON, which has none).
    fn of(json: &str, toon: &str) -> Option<(usize, usize, Stages)> {
        if json.len().saturating_add(toon.len()) < STAGED_MIN_BYTES
            || spaced_separators(json.as_bytes()) > 0
        {
            return None;
        }
        let sums = |text: &[u8]| {
            let cuts: [usize; STAGES + 1] = std::array::from_fn(|i| aligned(text.len(), i));
            let mut sums = [0; STAGES];
            super::estimate::estimate_sums(text, &cuts, &mut sums);
            sums
        };
        let stages = Stages {
            json: sums(json.as_bytes()),
            toon: sums(toon.as_bytes()),
            json_escape_sides: escape_sides(json.as_bytes()),
        };
        // Each the text's estimate, bit for bit (both are long: at least
        // one token).
        let total = |sums: &[i64; STAGES]| super::estimate::tokens(sums.iter().sum()).max(1);
        let json_tokens = total(&stages.json) + sides_tokens(stages.json_escape_sides);
        Some((json_tokens, total(&stages.toon), stages))
    }
}

/// Where slice `i` of a text of `len` bytes starts: `i` eighths of it,
/// down to one byte past a multiple of 64, so that every slice but the
/// last holds a whole number of the estimator's blocks of 64 pairs (a pair
/// belongs to the slice of its second byte, and the text's first byte has
/// none); a partial block is taken a pair at a time.
#[cfg(feature = "exact-tokens")]
fn aligned(len: usize, i: usize) -> usize {
    match i {
        0 => 0,
        STAGES.. => len,
        _ => (((len / STAGES * i) & !63) + 1).min(len),
    }
}

/// The estimate of what follows a cut in one text of a long near tie,
/// from the estimator's sums of its slices ([`Stages`]).
#[cfg(feature = "exact-tokens")]
struct Rests<'a> {
    text: &'a [u8],
    sums: &'a [i64; STAGES],
    /// For the JSON, whose escaped words [`estimates`] adds: the sides of
    /// its runs of escapes that touch a letter ([`escaped_words`]), all of
    /// them and those before `scanned`.
    escapes: Option<Escapes>,
}

/// The sides of a JSON's runs of escapes that touch a letter, counted
/// once for the whole text and then up to each cut in turn.
#[cfg(feature = "exact-tokens")]
struct Escapes {
    all: usize,
    before: usize,
    scanned: usize,
}

#[cfg(feature = "exact-tokens")]
impl<'a> Rests<'a> {
    /// The rests of `text`, whose slices at [`aligned`] offsets sum to
    /// `sums`; for the JSON, `escape_sides` is the sides of all its runs
    /// of escapes that touch a letter ([`escape_sides`]), `None` for the
    /// TOON.
    fn new(text: &'a [u8], sums: &'a [i64; STAGES], escape_sides: Option<usize>) -> Self {
        let escapes = escape_sides.map(|all| Escapes {
            all,
            before: 0,
            scanned: 0,
        });
        Rests {
            text,
            sums,
            escapes,
        }
    }

    /// The estimated tokens of the text after `at`, a place where a piece
    /// starts, at or after the last place asked: the sums of the slices
    /// from the one `at` is in, less the pairs between that slice's start
    /// and `at` (counted exactly before it), and the escaped words after
    /// it. A run of escapes ends at a hex digit and holds no `"`, `,`, `:`
    /// or line break: no cut falls inside one.
    fn after(&mut self, at: usize) -> usize {
        let len = self.text.len();
        let slice = (1..STAGES)
            .rev()
            .find(|&i| aligned(len, i) <= at)
            .unwrap_or(0);
        let mut gap = [0];
        super::estimate::estimate_sums(self.text, &[aligned(len, slice), at], &mut gap);
        let sum: i64 = self.sums.get(slice..).unwrap_or_default().iter().sum();
        let mut tokens = super::estimate::tokens(sum - gap[0]);
        if let Some(escapes) = &mut self.escapes {
            // With no side at all there is none before `at` either: the
            // JSON the smart fallback weighs seldom has escapes in words,
            // and the scan for them took 2.5k instructions of a near tie.
            if at > escapes.scanned && escapes.all > escapes.before {
                escape_runs(self.text, escapes.scanned..at, |_, sides| {
                    escapes.before += sides;
                });
                escapes.scanned = at;
            }
            tokens += sides_tokens(escapes.all - escapes.before);
        }
        tokens
    }
}

/// The first place in `text` after `after`, at or after [`aligned`]
/// offset `i` and before offset `i + 1`, where a piece starts
/// ([`piece_starts_at`]).
#[cfg(feature = "exact-tokens")]
fn cut_in_slice(text: &[u8], i: usize, after: usize) -> Option<usize> {
    let (from, to) = (aligned(text.len(), i), aligned(text.len(), i + 1));
    (from.max(after + 1)..to).find(|&at| piece_starts_at(text, at))
}

/// [`settle_weighed`] of long texts: each text is cut into [`STAGES`]
/// slices at places where o200k_base's pre-tokenizer starts a piece
/// ([`piece_starts_at`]), so the exact counts of the slices add up to the
/// exact count of the text. Stage `i` counts slice `i` of both exactly;
/// then the counts so far plus the estimates of what is left are
/// estimates of the two texts whose error is the error of the rests
/// alone. When the difference of the two sums is wider than the band on
/// that error, the rests cannot turn the answer and counting stops; the
/// counts returned are then those sums (`exact` is not set). A tie that
/// stays close to the end is counted whole, and decided on exact counts
/// as before.
///
/// Where the two texts hold the same list of records, a stage ends at
/// the first record after its eighth of the TOON, just after the record's
/// first key in both texts ([`RecordCuts`]): the rests are then two
/// renderings of the same records, and the band is the one a near tie of
/// two whole renderings is found with ([`near_tie`]: `TIE_PERCENT` of the
/// larger rest). Elsewhere a stage ends at its eighth of each text's
/// bytes, where the rests need not hold the same data and need not err
/// alike: the band is then the estimator's band on each rest, the two
/// added.
///
/// The decision test (`tests/it/token_decisions.rs`, `check_stages`)
/// checks both bands beyond its long documents, on every near tie of its
/// 704 distinct documents whatever its length, each rest estimated alone:
/// at every record of the 67 ties that hold a list of records (684 cuts),
/// the estimated difference of the two rests is never further from the
/// exact one than the paired band (at most 5.7% of the larger rest); at
/// every eighth of all 312 (1 966 cuts), never further than the added
/// bands. Below 8 KiB the work saved is small (the exact counter remembers
/// words, so the first slices cost the most) and the exact counts in the
/// headers are worth keeping.
///
/// On the load bench's nested orders (14 KB, 4 827 exact tokens of JSON
/// against 5 185 of TOON) it stops after 3 of the 8 stages, having counted
/// three eighths of each text (5 eighths at shares of the bytes).
#[cfg(feature = "exact-tokens")]
fn staged(json: &str, toon: &str, stages: &Stages, counter: &mut super::exact::Counter) -> Choice {
    let (json_bytes, toon_bytes) = (json.as_bytes(), toon.as_bytes());
    let mut json_rests = Rests::new(json_bytes, &stages.json, Some(stages.json_escape_sides));
    let mut toon_rests = Rests::new(toon_bytes, &stages.toon, None);
    let mut records = RecordCuts::new(json_bytes, toon_bytes).filter(|&(json_at, toon_at)| {
        piece_starts_at(json_bytes, json_at) && piece_starts_at(toon_bytes, toon_at)
    });
    let (mut json_counted, mut toon_counted) = (0usize, 0usize);
    let (mut json_from, mut toon_from) = (0, 0);
    for i in 1..STAGES {
        let target = aligned(toon.len(), i);
        let record = records.find(|&(_, toon_at)| toon_at >= target);
        let (json_at, toon_at, paired) = match record {
            Some((json_at, toon_at)) => (json_at, toon_at, true),
            None => match (
                cut_in_slice(json_bytes, i, json_from),
                cut_in_slice(toon_bytes, i, toon_from),
            ) {
                (Some(json_at), Some(toon_at)) => (json_at, toon_at, false),
                // A stage either text has no cut in goes on into the next.
                _ => continue,
            },
        };
        json_counted += counter.count(json.get(json_from..json_at).unwrap_or_default());
        toon_counted += counter.count(toon.get(toon_from..toon_at).unwrap_or_default());
        (json_from, toon_from) = (json_at, toon_at);
        let (json_left, toon_left) = (json_rests.after(json_at), toon_rests.after(toon_at));
        let (json_tokens, toon_tokens) = (json_counted + json_left, toon_counted + toon_left);
        let spread = if paired {
            json_left.max(toon_left)
        } else {
            json_left + toon_left
        };
        if json_tokens.abs_diff(toon_tokens) > spread * TIE_PERCENT / 100 + TIE_TOKENS {
            return Choice {
                served: cheaper(json_tokens, toon_tokens),
                json_tokens,
                toon_tokens,
                exact: false,
                decided_exactly: true,
            };
        }
    }
    json_counted += counter.count(json.get(json_from..).unwrap_or_default());
    toon_counted += counter.count(toon.get(toon_from..).unwrap_or_default());
    Choice {
        served: cheaper(json_counted, toon_counted),
        json_tokens: json_counted,
        toon_tokens: toon_counted,
        exact: true,
        decided_exactly: true,
    }
}

/// Whether o200k_base's pre-tokenizer starts a piece at `at` in `text`
/// whatever comes before and after: `at` follows an ASCII letter or digit
/// and holds one of `"`, `,`, `:` or a line break.
///
/// A letter ends a piece of letters (`[^\r\n\p{L}\p{N}]?\p{Lu}*\p{Ll}+`
/// and the like, with a contraction such as `'s` after it, which needs an
/// apostrophe) once the next character is no letter or mark; a digit ends a
/// piece of one to three digits once the next is no digit; neither is part
/// of a piece of punctuation or of whitespace. So a piece ends before `at`,
/// the next piece starts at `at` in the whole text as in `text[at..]` alone
/// (the pieces are found from left to right, with no look-behind), and the
/// pieces before `at` are those of `text[..at]` alone (only a piece of
/// whitespace looks past its end, and none ends at `at`). The exact count of
/// the text is then the count of `text[..at]` plus that of `text[at..]`,
/// which the unit tests check at every such place of a few documents.
#[cfg(feature = "exact-tokens")]
fn piece_starts_at(text: &[u8], at: usize) -> bool {
    let (Some(&before), Some(&here)) = (at.checked_sub(1).and_then(|b| text.get(b)), text.get(at))
    else {
        return false;
    };
    before.is_ascii_alphanumeric() && matches!(here, b'"' | b',' | b':' | b'\n')
}

/// Without exact counts, nothing is left open: the estimates decide. Not a
/// stable API.
///
/// ```
/// use terse_tokens::{Served, settle_weighed, weigh};
///
/// let (json, toon) = ("[1]", "[1]");
/// let choice = match weigh(json, toon) {
///     Ok(choice) => choice,
///     Err(weighed) => settle_weighed(json, toon, weighed),
/// };
/// assert_eq!(choice.served, Served::Json);
/// ```
#[doc(hidden)]
#[cfg(not(feature = "exact-tokens"))]
pub fn settle_weighed(json: &str, toon: &str, _: Weighed) -> Choice {
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
    let json = json.as_bytes();
    (
        super::estimate(json) + spaced_separators(json) + escaped_words(json),
        super::estimate(toon.as_bytes()),
    )
}

/// The tokens the estimate misses in JSON that writes characters beyond
/// ASCII as `\uXXXX` escapes inside words (`ensure_ascii`, the default of
/// Python's `json.dumps` and Django's `JsonResponse`): three for every four
/// sides of a run of escapes that touch an ASCII letter, as in
/// `Gr\u00fc\u00dfe`.
///
/// o200k_base takes a Latin word whole or in a piece or two; written with
/// escapes inside, it splits where each escape starts and ends, and the
/// estimator (fitted without escapes) does not see those splits. Its TOON
/// writes the characters themselves, so the pair shares nothing there and
/// the error does not cancel: it was the largest error of a paired
/// estimate in the decision test (9.9% of the larger text; German, French
/// and Spanish records). Runs of escapes that make up whole words
/// (Cyrillic, CJK) are estimated well as they are. The weight was fitted
/// on the decision test's Python-escaped documents with each language held
/// out in turn: 0.70 to 0.87 a side, and the held-out error of the pair is
/// then at most 7.2% (from 9.9%); see `docs/tokens.md`.
fn escaped_words(json: &[u8]) -> usize {
    sides_tokens(escape_sides(json))
}

/// The sides of `json`'s runs of escapes that touch a letter, which
/// [`escaped_words`] weighs.
fn escape_sides(json: &[u8]) -> usize {
    let mut sides = 0;
    escape_runs(json, 0..json.len(), |_, run_sides| sides += run_sides);
    sides
}

/// Tokens for `sides` of runs of escapes that touch a letter
/// ([`escaped_words`]).
fn sides_tokens(sides: usize) -> usize {
    (sides * 3 + 2) / 4
}

/// Calls `each` with the offset of every run of `\uXXXX` escapes in `json`
/// that starts in `span` and touches an ASCII letter, and how many of its
/// two sides do. `span` starts outside any escape.
fn escape_runs(json: &[u8], span: std::ops::Range<usize>, mut each: impl FnMut(usize, usize)) {
    let mut at = span.start;
    while let Some(found) = json
        .get(at..span.end)
        .and_then(|rest| memchr::memchr(b'\\', rest))
    {
        let start = at + found;
        // Every backslash in JSON starts an escape: a `\\` is skipped
        // whole, so the next one found starts an escape too.
        let mut end = start;
        while json.get(end + 1) == Some(&b'u')
            && json
                .get(end + 2..end + 6)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
        {
            end += 6;
        }
        if end == start {
            at = start + 2;
            continue;
        }
        let letter = |at: Option<&u8>| at.is_some_and(u8::is_ascii_alphabetic);
        let sides = usize::from(letter(start.checked_sub(1).and_then(|b| json.get(b))))
            + usize::from(letter(json.get(end)));
        if sides > 0 {
            each(start, sides);
        }
        at = end;
    }
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
    fn escapes_inside_words_are_counted() {
        // Two runs inside words, a letter on either side of each: four
        // sides, three tokens.
        assert_eq!(
            escaped_words(br#"{"a":"Gr\u00fc\u00dfe","b":"M\u00fcnchen"}"#),
            3
        );
        // A whole word of escapes touches no letter.
        assert_eq!(escaped_words(br#"["\u043f\u0440\u0438"]"#), 0);
        // An escaped backslash before a `u` is no escape of a character.
        assert_eq!(escaped_words(br#"["a\\u00fcb"]"#), 0);
        assert_eq!(escaped_words(br#"["x\n\"y\\"]"#), 0);
        // Cut short, at either end of the text.
        assert_eq!(escaped_words(br#"a\u00fc"#), 1);
        assert_eq!(escaped_words(br#"\u00"#), 0);
        assert_eq!(escaped_words(b"\\"), 0);
        assert_eq!(escaped_words(b""), 0);
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
    fn counts_add_up_where_pieces_start() {
        // Every sample of the estimator's corpus (JSON, TOON and lines, in
        // eleven languages): the exact count of the text is the sum of the
        // counts of the two sides of any place `piece_starts_at` takes.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokens");
        let mut places = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let whole = super::super::exact(&text);
            let starts: Vec<usize> = (0..text.len())
                .filter(|&at| piece_starts_at(text.as_bytes(), at))
                .collect();
            // A spread of them, so that the test stays quick.
            for &at in starts.iter().step_by(starts.len() / 12 + 1) {
                let (before, after) = text.split_at(at);
                assert_eq!(
                    super::super::exact(before) + super::super::exact(after),
                    whole,
                    "{at}: {before:?} | {after:?}"
                );
                places += 1;
            }
        }
        assert!(places > 1000, "{places}");
    }

    #[cfg(feature = "exact-tokens")]
    #[test]
    fn long_near_ties_are_counted_in_stages() {
        // Nested records, whose TOON and JSON are a few percent apart.
        let records: Vec<String> = (0..60)
            .map(|id| {
                format!(
                    r#"{{"id":"ord_{id:05}","customer":{{"id":{},"name":"Maple Delta","address":{{"city":"Maple","zip":"9845{}"}}}},"items":[{{"sku":"SKU-{}","qty":{},"price":50.56}}],"total":260.05}}"#,
                    7000 + id * 7,
                    id % 10,
                    100 + id * 3,
                    id % 5 + 1
                )
            })
            .collect();
        let json = format!(r#"{{"data":[{}]}}"#, records.join(","));
        let rows: String = (0..60)
            .map(|id| {
                format!(
                    "\n  - id: ord_{id:05}\n    customer:\n      id: {}\n      name: Maple Delta\n      address:\n        city: Maple\n        zip: \"9845{}\"\n    items[1]{{sku,qty,price}}:\n      SKU-{},{},50.56\n    total: 260.05",
                    7000 + id * 7,
                    id % 10,
                    100 + id * 3,
                    id % 5 + 1
                )
            })
            .collect();
        let toon = format!("data[60]:{rows}");
        assert!(json.len() + toon.len() >= STAGED_MIN_BYTES);
        let (json_exact, toon_exact) = (super::super::exact(&json), super::super::exact(&toon));
        let choice = settle(&json, &toon);
        assert!(choice.decided_exactly);
        assert_eq!(choice.served, cheaper(json_exact, toon_exact), "{choice:?}");
        if choice.exact {
            assert_eq!(
                (choice.json_tokens, choice.toon_tokens),
                (json_exact, toon_exact)
            );
        }
        // The cuts are in order, where pieces start, and the estimate of
        // the rest after each is that of the rest alone, within the weight
        // of the pair across the cut: at shares of the bytes, and after
        // the first key of each record.
        let (_, _, stages) = Stages::of(&json, &toon).unwrap();
        let records: Vec<(usize, usize)> =
            RecordCuts::new(json.as_bytes(), toon.as_bytes()).collect();
        assert_eq!(records.len(), 60);
        for (text, sums, json_side) in [(&json, &stages.json, true), (&toon, &stages.toon, false)] {
            let bytes = text.as_bytes();
            let mut at: Vec<usize> = (1..STAGES)
                .filter_map(|i| cut_in_slice(bytes, i, 0))
                .collect();
            assert!(at.len() > STAGES / 2, "{at:?}");
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
            at.extend(records.iter().map(|&(j, t)| if json_side { j } else { t }));
            at.sort_unstable();
            let mut rests = Rests::new(bytes, sums, json_side.then(|| escape_sides(bytes)));
            for at in at {
                assert!(piece_starts_at(bytes, at), "{at}");
                let alone = super::super::estimate(&bytes[at..]);
                let rest = rests.after(at);
                assert!(rest.abs_diff(alone) <= 2, "{at}: {rest} vs {alone}");
            }
        }
        // A tie that stays a tie is counted whole: the same text twice.
        let same = settle(&json, &json);
        assert!(same.exact && same.served == Served::Json);
        assert_eq!(same.json_tokens, json_exact);
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
