//! Compares two exact o200k_base counters, `tiktoken` and `bpe-openai`, on
//! speed and agreement over every corpus the repository holds.
use std::time::Instant;
fn main() {
    let mut texts = Vec::new();
    for dir in [
        "crates/terse-tokens/tests/data/tokens",
        "crates/terse-tokens/tests/data/tokens_heldout",
        "tests/corpus",
    ] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(dir);
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if let Ok(t) = std::fs::read_to_string(&p) {
                texts.push((p, t));
            }
        }
    }
    let bytes: usize = texts.iter().map(|t| t.1.len()).sum();
    let t = Instant::now();
    let _ = terse_tokens::exact("warm");
    println!("tiktoken init {:?}", t.elapsed());
    let t = Instant::now();
    let _ = bpe_openai::o200k_base().count("warm");
    println!("bpe-openai init {:?}", t.elapsed());
    for adv in [
        " ".repeat(100_000),
        "a".repeat(100_000),
        "a".repeat(1_000_000),
        "x7".repeat(500_000),
        "1".repeat(100_000),
        "\n \n\t ".repeat(20_000),
        "🎉".repeat(20_000),
        "ab ".repeat(30000) + "  x",
        "Hello  world\r\n\r\n  ".repeat(3000),
    ] {
        let t = Instant::now();
        let x = terse_tokens::exact(&adv);
        let tx = t.elapsed();
        let t = Instant::now();
        let y = bpe_openai::o200k_base().count(adv.as_str());
        println!(
            "adversarial {} bytes: tiktoken {x} in {tx:?}, bpe-openai {y} in {:?}",
            adv.len(),
            t.elapsed()
        );
    }
    let t = Instant::now();
    let a: Vec<usize> = texts.iter().map(|t| terse_tokens::exact(&t.1)).collect();
    let ta = t.elapsed();
    let t = Instant::now();
    let b: Vec<usize> = texts
        .iter()
        .map(|t| bpe_openai::o200k_base().count(t.1.as_str()))
        .collect();
    let tb = t.elapsed();
    let mut differ = 0;
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            differ += 1;
            println!("differ {} {x} {y}", texts[i].0.display());
        }
    }
    println!(
        "{} texts, {bytes} bytes; tiktoken {:.1} MB/s, bpe-openai {:.1} MB/s; {differ} differ",
        texts.len(),
        bytes as f64 / ta.as_secs_f64() / 1e6,
        bytes as f64 / tb.as_secs_f64() / 1e6
    );
}
