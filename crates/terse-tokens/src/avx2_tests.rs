//! The AVX2 kernel against the portable one and the baseline.

use super::super::dispatch::{baseline, chunk_sum as dispatched, portable};
use super::*;

/// The AVX2 kernel's sum where the CPU has AVX2, else the dispatched
/// one (which is then the portable kernel, and the test says nothing).
fn avx2_sum(bytes: &[u8], pairs: usize) -> i64 {
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the CPU has just said it has AVX2 and POPCNT.
        unsafe { chunk_sum(bytes, pairs) }
    } else {
        dispatched(bytes, pairs)
    }
}

/// Both kernels on `bytes`, over every pair and over the pairs that
/// leave up to `RUN - 1` bytes after them (as a chunk before the last
/// one does).
fn assert_agree(bytes: &[u8]) {
    for past in 0..RUN {
        let pairs = bytes.len().saturating_sub(1 + past);
        let want = baseline(bytes, pairs);
        let what = format!("{} bytes, {pairs} pairs: {bytes:?}", bytes.len());
        assert_eq!(avx2_sum(bytes, pairs), want, "{what}");
        assert_eq!(portable(bytes, pairs), want, "{what}");
    }
}

#[test]
fn every_ascii_pair_is_weighed_as_the_portable_kernel_does() {
    // Each prev byte followed by every ASCII byte in turn: all 2^14
    // ASCII pairs, in blocks that take the vector path.
    for prev in 0..0x80u8 {
        let text: Vec<u8> = (0..0x80u8).flat_map(|b| [prev, b]).collect();
        assert_agree(&text);
        // Shifted by one, so each pair sits at the other parity.
        assert_agree(&text[1..]);
    }
}

#[test]
fn every_length_around_the_blocks_agrees() {
    let text: Vec<u8> = br#"{"id":"5f0c7a8e-2b1d","title":"Weekly sync at 09:30","tags":["q3"]}"#
        .iter()
        .chain("\n  ñ 用户 🎉 д ह\tabcdefghij ".as_bytes())
        .copied()
        .cycle()
        .take(5 * BLOCK + 9)
        .collect();
    for start in 0..3 {
        for end in start..text.len() {
            assert_agree(&text[start..end]);
        }
    }
}

#[test]
fn long_runs_of_each_byte_value_agree() {
    // A full chunk of one byte: every block scores the same, so a sum
    // that wrapped or overflowed anywhere would show.
    for b in 0..=255u8 {
        let run = vec![b; CHUNK + RUN];
        assert_eq!(avx2_sum(&run, CHUNK), baseline(&run, CHUNK), "{b:#04x}");
    }
}

/// Bytes in the shapes that take different paths: any bytes, ASCII,
/// ASCII with a few high bytes (blocks that fall back to the table
/// among blocks that do not), lowercase runs, and UTF-8 text.
fn texts() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let bytes = proptest::collection::vec(any::<u8>(), 0..700);
    prop_oneof![
        bytes.clone(),
        bytes
            .clone()
            .prop_map(|bytes| bytes.iter().map(|b| b & 0x7f).collect()),
        (bytes.clone(), proptest::collection::vec(any::<u8>(), 0..8)).prop_map(|(bytes, high)| {
            let mut bytes: Vec<u8> = bytes.iter().map(|b| b & 0x7f).collect();
            for (k, h) in high.iter().enumerate() {
                if let Some(byte) = bytes.get_mut(usize::from(*h) * 3 + k * 89) {
                    *byte |= 0x80;
                }
            }
            bytes
        }),
        "[a-z \\n0-9A-Z\"{}:,.-]{0,700}".prop_map(String::into_bytes),
        "\\PC{0,300}".prop_map(String::into_bytes),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    #[test]
    fn agrees_with_the_portable_kernel_on_any_bytes(bytes in texts()) {
        for past in 0..RUN {
            let pairs = bytes.len().saturating_sub(1 + past);
            let want = baseline(&bytes, pairs);
            proptest::prop_assert_eq!(avx2_sum(&bytes, pairs), want);
            proptest::prop_assert_eq!(portable(&bytes, pairs), want);
        }
    }
}
