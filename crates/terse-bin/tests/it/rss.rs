//! `terse gateway` as a process gives back what a large TOON decode took:
//! after six 1.8 MB TOON tables in a row, its resident size comes back
//! within the default memory budget once the load stops. When decoding
//! built a `serde_json` tree (some 800 000 small blocks from glibc's arenas
//! per table), the gateway without `malloc_trim` (`src/malloc.rs`) stayed
//! at 448 MiB (release build), against a budget of 256 MiB; decoding now
//! writes the JSON as it reads, and the gateway stays near 67 MiB.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};

use terse_gateway::config::DEFAULT_BUFFERED_BYTES;

use crate::support::{addresses, read_head};

/// An upstream that answers every request 200 with a small JSON body,
/// then reads what the gateway still sends until it closes.
fn accepting_upstream() -> SocketAddr {
    let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = upstream.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in upstream.incoming() {
            let mut stream = stream.unwrap();
            std::thread::spawn(move || {
                read_head(&mut stream);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{\"ok\":true}",
                );
                let _ = stream.shutdown(Shutdown::Write);
                let _ = std::io::copy(&mut stream, &mut std::io::sink());
            });
        }
    });
    addr
}

/// The resident size of process `pid`, in bytes.
fn resident(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: usize = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .unwrap()
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kib * 1024
}

#[test]
fn resident_size_comes_back_within_the_budget_after_large_toon_requests() {
    // 100 000 rows of eight one-digit values: 1.8 MB of TOON.
    let mut table = String::from("rows[100000]{a,b,c,d,e,f,g,h}:\n");
    for i in 0..100_000usize {
        let row: Vec<String> = (0..8).map(|j| ((i + j) % 10).to_string()).collect();
        table.push_str("  ");
        table.push_str(&row.join(","));
        table.push('\n');
    }
    let upstream = accepting_upstream();
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_terse"))
        .args(["gateway", "--listen", "127.0.0.1:0", "--upstream"])
        .arg(format!("http://{upstream}"))
        .env("RUST_LOG", "off")
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let [addr]: [String; 1] = addresses(&mut gateway, 1).try_into().unwrap();
    let pid = gateway.id();

    let mut peak = 0;
    for _ in 0..6 {
        let mut client = TcpStream::connect(&addr).unwrap();
        write!(
            client,
            "POST /rows HTTP/1.1\r\nhost: x\r\ncontent-type: text/toon\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{table}",
            table.len()
        )
        .unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        peak = peak.max(resident(pid));
    }

    // The gateway gives memory back every two seconds once the budget is
    // idle: look for up to 20 s, at most 40 times.
    let mut after = resident(pid);
    for _ in 0..40 {
        if after <= DEFAULT_BUFFERED_BYTES / 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        after = resident(pid);
    }
    gateway.kill().unwrap();
    gateway.wait().unwrap();
    // Margin: none beyond the budget itself; the trimmed gateway sits far
    // under it (57 MiB in the release build), the untrimmed one far over.
    assert!(
        after <= DEFAULT_BUFFERED_BYTES,
        "resident {} MiB after the load (peak {} MiB), budget {} MiB",
        after >> 20,
        peak >> 20,
        DEFAULT_BUFFERED_BYTES >> 20
    );
}
