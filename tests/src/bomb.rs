//! A gzip bomb: a few hundred KiB of gzip that inflate to a JSON list of
//! any size, for the attack tests of the gateway.

use std::io::Write as _;

use bytes::Bytes;

/// `[0,0,…,0]` of `bytes` bytes (plus three), gzip-compressed: a few
/// hundred KiB at most, deflate's ratio topping out near a thousand to one.
pub fn gzip_bomb(bytes: usize) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(b"[").expect("gzip");
    let zeros = "0,".repeat(64 * 1024);
    for _ in 0..bytes / zeros.len() {
        encoder.write_all(zeros.as_bytes()).expect("gzip");
    }
    encoder.write_all(b"0]").expect("gzip");
    Bytes::from(encoder.finish().expect("gzip"))
}
