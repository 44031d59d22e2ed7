//! What the tests of `terse gateway` as a process share: an upstream that
//! answers one JSON body, starting the gateway in front of it with its log
//! piped, reading the addresses it prints, and the request heads their
//! upstreams get.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};

/// An upstream on loopback that answers every request with `body` as
/// `application/json`, one request per connection.
pub fn json_upstream(body: String) -> SocketAddr {
    let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = upstream.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in upstream.incoming() {
            let mut stream = stream.unwrap();
            read_head(&mut stream);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    addr
}

/// `terse gateway` on a free loopback port in front of `upstream`, logging
/// at `rust_log` to its piped stderr; its stdout (the addresses) is piped.
pub fn gateway_logging(upstream: SocketAddr, rust_log: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_terse"))
        .args(["gateway", "--listen", "127.0.0.1:0", "--upstream"])
        .arg(format!("http://{upstream}"))
        .env("RUST_LOG", rust_log)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .unwrap()
}

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

/// Stops `gateway` with SIGTERM, checks that it exits 0, and returns its
/// whole log (its piped stderr).
#[allow(dead_code, reason = "not every test file stops a gateway")]
pub fn stop_and_read_log(mut gateway: Child) -> String {
    let pid = rustix::process::Pid::from_raw(i32::try_from(gateway.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let mut log = String::new();
    gateway
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert_eq!(gateway.wait().unwrap().code(), Some(0), "{log}");
    log
}
