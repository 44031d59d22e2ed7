//! Two independent exact o200k_base counters agree: `tokens::exact`
//! (`tiktoken`, with `bpe`'s linear encoder for texts with long pieces) and
//! `bpe-openai` (its own serialized tables and backtracking encoder).
//!
//! On random strings mixing scripts, whitespace, digits and punctuation
//! (some with long runs, so both paths of `exact` run), on every text of
//! the repository's corpora, and on adversarial long pieces.

use std::path::Path;

use terse_tokens::exact;

fn reference(text: &str) -> usize {
    bpe_openai::o200k_base().count(text)
}

fn check(label: &str, text: &str) {
    assert_eq!(
        exact(text),
        reference(text),
        "{label}: {:?}",
        text.chars().take(80).collect::<String>()
    );
}

/// A small deterministic generator (xorshift), so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Pieces random strings are made of: every kind of character the
/// pre-tokenizer tells apart, in several scripts.
const UNITS: &[&str] = &[
    "a",
    "Z",
    "hello",
    "World",
    "'s",
    "'LL",
    "7",
    "2025",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\n\n",
    // Indentation and the rarer ASCII whitespace, whose pieces `exact`
    // finds itself.
    "    ",
    " \n",
    "\u{b}",
    "\u{c}",
    "/",
    "!",
    "\"",
    "\",\"",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    ".",
    "-",
    "_",
    "é",
    "ß",
    "Ñ",
    "д",
    "Привет",
    "用",
    "户",
    "会议",
    "カ",
    "한국",
    "ह",
    "नमस्ते",
    "ع",
    "مرحبا",
    "🎉",
    "👩‍💻",
    "\u{301}",
    "\u{a0}",
    "\u{3000}",
    "٣",
    "€",
    "—",
    "’",
    "\u{200b}",
];

fn random_text(rng: &mut Rng) -> String {
    let mut text = String::new();
    let parts = rng.below(40);
    for _ in 0..parts {
        let unit = UNITS[rng.below(UNITS.len())];
        // Now and then a long run of one unit: a long piece.
        let times = if rng.below(25) == 0 {
            20 + rng.below(200)
        } else {
            1
        };
        text.push_str(&unit.repeat(times));
    }
    text
}

#[test]
fn random_mixed_script_strings() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..20_000 {
        let text = random_text(&mut rng);
        check(&format!("random string {i}"), &text);
    }
}

/// Units of ASCII text, which `exact` splits into pieces itself: the
/// kinds of byte the pre-tokenizer tells apart, and the runs JSON, spaced
/// JSON and TOON make of them.
const ASCII_UNITS: &[&str] = &[
    "a", "Z", "id", "Name", "HTTP", "'s", "'Re", "'d", "'", "7", "42", "2025", " ", "  ", "\t",
    "\n", "\r\n", "\n  ", "\u{b}", "\u{c}", "\u{0}", "\u{7f}", "\"", "\",\"", "\":\"", "\": \"",
    ", ", ": ", "{", "}", "[", "]", "/", "!", ".", "-", "_", "#",
];

#[test]
fn random_ascii_strings() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for i in 0..20_000 {
        let text: String = (0..rng.below(60))
            .map(|_| ASCII_UNITS[rng.below(ASCII_UNITS.len())])
            .collect();
        check(&format!("random ASCII string {i}"), &text);
    }
}

#[test]
fn every_corpus_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut count = 0;
    for dir in [
        root.join("tests/data/tokens"),
        root.join("tests/data/tokens_heldout"),
        root.join("../../tests/corpus"),
    ] {
        for entry in std::fs::read_dir(&dir).expect("corpus folder") {
            let path = entry.expect("entry").path();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            check(&path.display().to_string(), &text);
            count += 1;
        }
    }
    assert!(count > 200, "only {count} texts");
}

#[test]
fn adversarial_long_pieces() {
    const LEN: usize = 100_000;
    for unit in [
        "a", "Z", "7", " ", "\n", "\r\n", "!", "/", "\"", "用", "한", "é", "\u{3000}", "🎉", "ab",
        "aB", " a", "!\n", "/\n",
    ] {
        let run = unit.repeat(LEN / unit.len());
        check(&format!("{unit:?} x {}", LEN / unit.len()), &run);
        check(
            &format!("{unit:?} run in JSON"),
            &format!("{{\"id\": 1, \"text\": \"{run}\", \"n\": 2}}"),
        );
    }
}
