//! The request lines of `terse gateway` as a process writes them: every
//! field in its place, a request whose path holds a terminal control (a
//! C1 CSI, sent as raw UTF-8) logged with it escaped, on one line; none
//! with `request_log = false`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use crate::support::{addresses, gateway_logging, json_upstream, stop_and_read_log};

/// Sends `target` as a request's target, raw, and reads the status.
fn status_of(addr: &str, target: &[u8]) -> u16 {
    let mut client = TcpStream::connect(addr).unwrap();
    let mut request = b"GET ".to_vec();
    request.extend_from_slice(target);
    request.extend_from_slice(b" HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    client.write_all(&request).unwrap();
    let mut answer = Vec::new();
    client.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer);
    answer.split(' ').nth(1).unwrap().parse().unwrap()
}

#[test]
fn request_lines_hold_every_field_and_no_path_breaks_or_styles_them() {
    let upstream = json_upstream(r#"[{"id":1,"name":"a"}]"#.to_owned());
    let mut child = gateway_logging(upstream, "terse_gateway=info");
    let [addr]: [String; 1] = addresses(&mut child, 1).try_into().unwrap();
    assert_eq!(status_of(&addr, b"/items?key=secret"), 200);
    // U+009B, the one-byte CSI of 8-bit terminals, as UTF-8.
    let hostile = "/x\u{9b}31mred";
    status_of(&addr, hostile.as_bytes());
    let log = stop_and_read_log(child);

    let lines: Vec<&str> = log.lines().filter(|l| l.contains(" request ")).collect();
    assert_eq!(lines.len(), 2, "{log}");
    // `YYYY-MM-DDTHH:MM:SS.ffffffZ  INFO request ...`, the fields in order.
    let (time, rest) = lines[0].split_at(27);
    assert_eq!(
        time.bytes().filter(u8::is_ascii_digit).count(),
        20,
        "{time}"
    );
    let fields: Vec<(&str, &str)> = rest
        .strip_prefix("  INFO request ")
        .unwrap_or_else(|| panic!("{rest}"))
        .split(' ')
        .map(|field| field.split_once('=').unwrap())
        .collect();
    let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        [
            "method",
            "path",
            "status",
            "format",
            "fallback",
            "tokens",
            "request_tokens",
            "forwarded_tokens",
            "upstream_ms",
            "total_ms",
            "bytes",
            "complete"
        ]
    );
    let value = |name: &str| fields.iter().find(|(n, _)| *n == name).unwrap().1;
    assert_eq!(value("method"), "GET");
    // The query (which may hold secrets) is not logged.
    assert_eq!(value("path"), "/items");
    assert_eq!(value("status"), "200");
    assert_eq!(value("format"), "json");
    assert_eq!(value("fallback"), "-");
    assert!(value("tokens").parse::<u64>().unwrap() > 0);
    assert_eq!(value("request_tokens"), "-");
    assert_eq!(value("forwarded_tokens"), "-");
    value("upstream_ms").parse::<u64>().unwrap();
    value("total_ms").parse::<u64>().unwrap();
    assert!(value("bytes").parse::<u64>().unwrap() > 0);
    assert_eq!(value("complete"), "true");

    // The hostile path is written escaped, and nothing in the log is a
    // control character but the line breaks between lines.
    assert!(
        lines[1].contains(" path=/x\\u{9b}31mred "),
        "{:?}",
        lines[1]
    );
    assert!(!log.chars().any(|c| c.is_control() && c != '\n'), "{log:?}");
}

#[test]
fn request_log_false_writes_no_request_line_and_keeps_the_other_events() {
    let upstream = json_upstream(r#"{"ok":true}"#.to_owned());
    let dir = std::env::temp_dir().join(format!("terse-request-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("terse.toml");
    std::fs::write(&config, "[gateway]\nrequest_log = false\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_terse"))
        .args(["gateway", "--listen", "127.0.0.1:0", "--config"])
        .arg(&config)
        .arg("--upstream")
        .arg(format!("http://{upstream}"))
        .env("RUST_LOG", "terse_gateway=info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let [addr]: [String; 1] = addresses(&mut child, 1).try_into().unwrap();
    for _ in 0..3 {
        assert_eq!(status_of(&addr, b"/items"), 200);
    }
    let log = stop_and_read_log(child);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!log.contains(" request "), "{log}");
    // The gateway's own events at the same level and target still are.
    assert!(log.contains("  INFO shutting down"), "{log}");
}
