//! A service written as an application author writes one, built outside the
//! workspace against tower-terse as `cargo package` ships it. It serves a
//! list as compact lines and as TOON and an error untouched, through a real
//! server on loopback, and checks each answer with a plain HTTP/1.1 client.

use std::io::{Read, Write};
use std::net::TcpStream;

use axum::http::StatusCode;
use axum::{Json, Router, routing::get};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tower_terse::{CompactLine, ErrorEnvelope, TerseLayer};

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "ticket", line = "{title} ({status})")]
struct Ticket {
    id: u32,
    title: String,
    status: String,
}

async fn tickets() -> Json<Value> {
    let data: Vec<Ticket> = (1..=3)
        .map(|n| Ticket {
            id: n,
            title: format!("Ticket {n}"),
            status: if n % 2 == 0 { "open" } else { "closed" }.to_owned(),
        })
        .collect();
    Json(json!({ "data": data }))
}

async fn missing() -> ErrorEnvelope {
    ErrorEnvelope::new(StatusCode::NOT_FOUND, "not_found", "no such ticket")
}

/// The application: every rewrite goes to the blocking pool with one slot,
/// so the wait for a slot (and its timer) runs on every request.
pub fn app() -> Router {
    Router::new()
        .route("/tickets", get(tickets))
        .route("/tickets/missing", get(missing))
        // The body as the handler received it: JSON, decoded from TOON.
        .route(
            "/echo",
            axum::routing::post(|body: String| async move {
                ([(axum::http::header::CONTENT_TYPE, "application/json")], body)
            }),
        )
        .layer(
            TerseLayer::new()
                .resource::<Ticket>("/tickets")
                .offload_threshold(0)
                .max_concurrent_rewrites(1)
                .request_body_timeout(std::time::Duration::from_millis(300)),
        )
}

/// One request over a fresh connection: status line, headers (lowercase
/// names) and body.
fn fetch(addr: std::net::SocketAddr, path: &str) -> (u16, Vec<(String, String)>, String) {
    send(addr, &format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
}

/// Sends `request` as written and reads the answer.
fn send(addr: std::net::SocketAddr, request: &str) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a complete answer");
    let mut lines = head.lines();
    let status = lines.next().expect("status line")[9..12].parse().expect("status");
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(key, _)| key == name)
        .map_or("", |(_, value)| value.as_str())
}

/// Checks the three answers; panics (a failed check) on any difference.
pub fn check(addr: std::net::SocketAddr) {
    let (status, headers, body) = fetch(addr, "/tickets?format=compact");
    assert_eq!(status, 200, "{body}");
    assert!(header(&headers, "x-response-format").starts_with("compact"), "{headers:?}");
    assert!(body.contains("Ticket 2 (open)"), "{body}");
    assert!(header(&headers, "x-token-count").parse::<u64>().is_ok(), "{headers:?}");

    let (status, headers, body) = fetch(addr, "/tickets?format=toon");
    assert_eq!(status, 200, "{body}");
    assert_eq!(header(&headers, "content-type"), "text/toon; charset=utf-8");
    assert!(body.starts_with("data[3]{id,title,status}:"), "{body}");

    let (status, headers, body) = fetch(addr, "/tickets/missing?format=toon");
    assert_eq!(status, 404, "{body}");
    assert!(header(&headers, "content-type").starts_with("application/json"), "{headers:?}");
    let error: Value = serde_json::from_str(&body).expect("the error as JSON");
    assert_eq!(error["error"]["code"], "not_found", "{body}");
    // Rewrites at once, past the one slot: the others wait for it, on the
    // limit's timer.
    let clients: Vec<_> = (0..8)
        .map(|_| std::thread::spawn(move || fetch(addr, "/tickets?format=toon")))
        .collect();
    for client in clients {
        let (status, headers, body) = client.join().expect("client");
        assert_eq!(status, 200, "{body}");
        assert!(header(&headers, "x-token-count").parse::<u64>().is_ok(), "{headers:?}");
    }
    // A TOON request body reaches the handler as JSON, with every digit.
    let toon = "id: 12345678901234567890123\ntitle: Ticket 4";
    let (status, _, body) = send(
        addr,
        &format!(
            "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/toon\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{toon}",
            toon.len()
        ),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, r#"{"id":12345678901234567890123,"title":"Ticket 4"}"#);
    // One that stops after its headers is answered 408 once its read
    // deadline passes, which only a timer can tell.
    let (status, _, body) = send(
        addr,
        "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/toon\r\nContent-Length: 100\r\nConnection: close\r\n\r\nid: 1\n",
    );
    assert_eq!(status, 408, "{body}");
    println!("ok: compact, TOON, an error and TOON requests served on {addr}");
}
