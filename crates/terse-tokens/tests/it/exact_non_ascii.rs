//! `tokens::exact` on text that is mostly ASCII with characters beyond it
//! here and there, as API JSON is: its ASCII stretches are counted by the
//! ASCII counter and only the parts around the other characters the
//! general way, and the sum must be `tiktoken`'s count of the whole text,
//! whatever the characters and wherever they fall: at every offset of the
//! ASCII counter's 64-byte blocks, at the edges of pieces, inside words,
//! numbers, whitespace and punctuation runs.

use proptest::prelude::*;
use terse_tokens::exact;

fn tiktoken(text: &str) -> usize {
    tiktoken::get_encoding("o200k_base")
        .expect("o200k_base is compiled in")
        .count(text)
}

/// Characters beyond ASCII that the pre-tokenizer's classes tell apart:
/// Latin-1 and other letters (small, capital, title case), combining
/// marks, CJK, scripts with vowel signs, emoji alone, with modifiers, in
/// ZWJ sequences and flags, Unicode spaces, digits and other numbers,
/// punctuation, symbols and format characters.
const CHARS: &[&str] = &[
    "é",
    "É",
    "ñ",
    "ß",
    "ø",
    "\u{1c5}",
    "\u{301}",
    "e\u{301}",
    "\u{308}",
    "ſ",
    "\u{212a}",
    "д",
    "Ж",
    "用",
    "会议",
    "カ",
    "한",
    "ह\u{94d}",
    "ع",
    "🎉",
    "👍🏽",
    "👩\u{200d}💻",
    "👨\u{200d}👩\u{200d}👧",
    "🇪🇸",
    "\u{a0}",
    "\u{2003}",
    "\u{202f}",
    "\u{3000}",
    "\u{85}",
    "\u{2028}",
    "٣",
    "१",
    "²",
    "½",
    "Ⅻ",
    "’",
    "—",
    "…",
    "€",
    "«",
    "\u{200b}",
    "\u{200d}",
    "\u{feff}",
];

/// Units of ASCII JSON, spaced JSON and TOON.
const ASCII: &str = "(\\{\"|\":\"|\",\"|\": |\": \"|\"\\}|\\[|\\]|, |,|:|\n|\n  |\n    - |\r\n|\t|  | |id|name|Status|HTTP|It's|'s|'LL|'|ord_|x|Z|7|12|1234|2025-06-02T09:30:00Z|3\\.5|-|/|!|#|_)";

/// Inserts each character at its offset (taken modulo the text's length,
/// moved back to a char boundary).
fn insert(mut text: String, chars: &[(usize, usize)]) -> String {
    for &(at, which) in chars {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.insert_str(at, CHARS[which % CHARS.len()]);
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(800))]

    // ASCII JSON behind 0 to 63 bytes of padding, so that everything falls
    // at every offset of the 64-byte blocks, with a few characters beyond
    // ASCII at any offsets: inside and between pieces of every kind.
    #[test]
    fn mixed_text_counts_as_tiktoken_counts_it_whole(
        pad in 0..64usize,
        pad_with in "[ a7,\"\n]",
        units in proptest::collection::vec(ASCII, 0..80),
        chars in proptest::collection::vec((any::<usize>(), any::<usize>()), 1..6),
    ) {
        let text = insert(pad_with.repeat(pad) + &units.concat(), &chars);
        prop_assert_eq!(exact(&text), tiktoken(&text), "{:?}", text);
    }

    // Characters beyond ASCII as units of their own, as often as ASCII
    // ones, and runs of them: text where the parts meet and merge.
    #[test]
    fn dense_mixes_count_as_tiktoken_counts_them_whole(
        units in proptest::collection::vec(
            prop_oneof![
                ASCII.prop_map(|unit| unit.to_owned()),
                (0..CHARS.len(), 1..4usize).prop_map(|(c, n)| CHARS[c].repeat(n)),
            ],
            0..60,
        ),
    ) {
        let text = units.concat();
        prop_assert_eq!(exact(&text), tiktoken(&text), "{:?}", text);
    }
}

/// A fixed ASCII JSON document of a few hundred bytes, with every kind of
/// piece: keys, strings of words, numbers, a date, spaces, a contraction.
const DOCUMENT: &str = r#"{"data":[{"id":"ord_00012","status":"shipped","customer":{"id":7743,"name":"Maple Delta","note":"It's here"},"items":[{"sku":"SKU-453","qty":2,"price":50.56}],"at":"2025-06-02T09:30:00Z"},{"id":"ord_00013","status":"refunded","total":  260.05}]}"#;

#[test]
fn one_character_at_every_offset_of_a_document() {
    assert!(DOCUMENT.len() > 200 && DOCUMENT.is_ascii());
    assert_eq!(exact(DOCUMENT), tiktoken(DOCUMENT));
    for c in CHARS {
        for at in 0..=200 {
            let inserted = format!("{}{c}{}", &DOCUMENT[..at], &DOCUMENT[at..]);
            assert_eq!(exact(&inserted), tiktoken(&inserted), "{inserted:?}");
            let replaced = format!("{}{c}{}", &DOCUMENT[..at], &DOCUMENT[at + 1..]);
            assert_eq!(exact(&replaced), tiktoken(&replaced), "{replaced:?}");
        }
    }
}

#[test]
fn names_across_a_long_document() {
    // Rows with names, cities and emoji beyond ASCII among many ASCII rows,
    // over many 64-byte blocks.
    let ascii = r#"{"id":"ord_00012","name":"Maple Delta","city":"River","tag":"new"},"#;
    let mixed = r#"{"id":"ord_00013","name":"José Núñez","city":"東京","tag":"🎉"},"#;
    let mut text = String::from("[");
    for n in 0..60 {
        text.push_str(if n % 7 == 3 { mixed } else { ascii });
    }
    text.push(']');
    assert_eq!(exact(&text), tiktoken(&text));
}

#[test]
fn long_runs_beyond_ascii_inside_json() {
    // Long pieces beyond ASCII (a word of one letter, CJK without spaces,
    // one emoji over and over) inside otherwise ASCII JSON: `bpe-openai`
    // is the reference, since `tiktoken` merges such pieces slowly.
    for unit in ["é", "用", "🎉", "👩\u{200d}💻", "\u{a0}", "e\u{301}"] {
        let run = unit.repeat(20_000 / unit.len());
        let text = format!(
            "{}{{\"name\": \"{run}\", \"n\": 12}}{}",
            DOCUMENT.repeat(3),
            DOCUMENT.repeat(3)
        );
        assert_eq!(
            exact(&text),
            bpe_openai::o200k_base().count(text.as_str()),
            "{unit:?}"
        );
    }
}
