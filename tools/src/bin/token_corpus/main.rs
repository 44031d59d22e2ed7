//! Writes the token-estimator corpus to `tests/data/tokens/`.
//!
//! ```text
//! cargo run -p terse-tools --bin token_corpus
//! ```
//!
//! The corpus is what the estimator's weights are fitted on and what its
//! accuracy test measures, so it has to look like the bodies the layer counts:
//! JSON (compact and pretty), TOON (each delimiter) and line-per-record text,
//! holding English, Spanish, German, French, Russian, Arabic, Hindi, Chinese,
//! Japanese, Korean, emoji, UUIDs, RFC 3339
//! timestamps, base64, numbers and code-like strings. Everything comes from a
//! fixed-seed generator, so running this again rewrites the same bytes.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod records;
mod render;
mod rng;
mod text;

use records::{SHAPES, Style, envelope, record};
use render::{ascii_escaped, lines, pretty};
use rng::Rng;
use terse_toon::{Delimiter, EncodeOptions};
use text::Lang;

/// How many samples to write; even-numbered ones train, odd-numbered ones test.
const SAMPLES: usize = 480;
/// Sample sizes are drawn log-uniformly between these bounds, in bytes.
const MIN_BYTES: f64 = 200.0;
const MAX_BYTES: f64 = 8000.0;

fn main() -> std::io::Result<()> {
    let dir = corpus_dir();
    std::fs::create_dir_all(&dir)?;
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.is_file() {
            std::fs::remove_file(path)?;
        }
    }
    let mut rng = Rng(0x7e55_e5ee_d000_0001);
    let mut total = 0;
    for index in 0..SAMPLES {
        let sample = make_sample(&mut rng, index);
        let name = format!(
            "{index:03}-{}-{}.{}",
            sample.kind, sample.lang, sample.extension
        );
        total += sample.text.len();
        std::fs::write(dir.join(name), sample.text)?;
    }
    println!(
        "wrote {SAMPLES} samples, {total} bytes, to {}",
        dir.display()
    );
    Ok(())
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/terse-tokens/tests/data/tokens")
}

struct Sample {
    kind: &'static str,
    lang: &'static str,
    extension: &'static str,
    text: String,
}

#[derive(Clone, Copy)]
enum Kind {
    JsonCompact,
    JsonPretty,
    Toon,
    Lines,
}

fn make_sample(rng: &mut Rng, index: usize) -> Sample {
    let kind = [Kind::JsonCompact, Kind::JsonPretty, Kind::Toon, Kind::Lines][(index / 2) % 4];
    let lang = Lang::ALL[(index / 8) % Lang::ALL.len()];
    let shape = rng.pick(&SHAPES);
    let style = Style {
        uuid_ids: rng.chance(0.5),
        nested: rng.chance(0.3),
        with_tags: rng.chance(0.3),
    };
    let target = (MIN_BYTES * (MAX_BYTES / MIN_BYTES).powf(rng.unit())) as usize;
    let (kind_name, extension) = match kind {
        Kind::JsonCompact => ("json", "json"),
        Kind::JsonPretty => ("json_pretty", "json"),
        Kind::Toon => ("toon", "toon"),
        Kind::Lines => ("lines", "txt"),
    };
    let render = |rng: &mut Rng, records: &[Value]| -> String {
        match kind {
            Kind::JsonCompact | Kind::JsonPretty => {
                let body = envelope(rng, shape, records);
                let text = if matches!(kind, Kind::JsonCompact) {
                    serde_json::to_string(&body).unwrap_or_default()
                } else {
                    pretty(&body, rng.chance(0.3))
                };
                // Some servers escape everything outside ASCII.
                if rng.chance(0.15) {
                    ascii_escaped(&text)
                } else {
                    text
                }
            }
            Kind::Toon => {
                let body = envelope(rng, shape, records);
                let delimiter = rng.pick(&[
                    Delimiter::Comma,
                    Delimiter::Comma,
                    Delimiter::Tab,
                    Delimiter::Pipe,
                ]);
                let options = EncodeOptions::new().with_delimiter(delimiter);
                terse_toon::encode(&body, &options)
            }
            Kind::Lines => lines(rng, shape, records),
        }
    };
    // Grow the list until its rendering reaches the target size; each
    // rendering draws from its own copy of the generator so that sizes do not
    // depend on how many attempts were made.
    let mut records = Vec::new();
    let mut text = String::new();
    loop {
        records.push(record(rng, shape, lang, &style, records.len()));
        let mut local = Rng(rng.0 ^ 0x5eed);
        let candidate = render(&mut local, &records);
        if candidate.len() > MAX_BYTES as usize && !text.is_empty() {
            break;
        }
        text = candidate;
        if text.len() >= target {
            break;
        }
    }
    Sample {
        kind: kind_name,
        lang: lang.name(),
        extension,
        text,
    }
}
