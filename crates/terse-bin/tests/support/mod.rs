//! What the tests of `terse gateway` as a process share: reading the
//! addresses it prints, and the request heads their upstreams get.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::process::Child;

/// The first `count` addresses `gateway` prints, one a line (`http://ADDR`,
/// `/metrics` dropped), from its piped stdout.
pub fn addresses(gateway: &mut Child, count: usize) -> Vec<String> {
    let mut stdout = BufReader::new(gateway.stdout.take().unwrap());
    (0..count)
        .map(|_| {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            line.split_whitespace()
                .find_map(|word| word.strip_prefix("http://"))
                .unwrap_or_else(|| panic!("no address in {line:?}"))
                .trim_end_matches(',')
                .trim_end_matches("/metrics")
                .to_owned()
        })
        .collect()
}

/// Reads a request's head (the upstreams here answer without its body).
pub fn read_head(stream: &mut TcpStream) {
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap() == 1 {
        head.push(byte[0]);
    }
}
