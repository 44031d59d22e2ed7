//! `terse mcp`'s lifecycle, with the real binary and small shell servers:
//! exit statuses, a crash, the client closing stdin (a server that exits,
//! one that must be terminated, one that must be killed), forwarded
//! signals, and a 20 MB line that streams through in bounded memory.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// `terse mcp ARGS -- sh -c SCRIPT`, its stdio piped.
fn start(args: &[&str], script: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_terse"))
        .arg("mcp")
        .args(args)
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start terse mcp")
}

/// Waits for the proxy to exit, at most `limit`.
fn wait(child: &mut Child, limit: Duration) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for terse mcp") {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("terse mcp did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_proxy_exits_with_the_servers_status() {
    let mut proxy = start(&[], "exit 3");
    // The client keeps stdin open: the server's exit alone ends the proxy.
    let _stdin = proxy.stdin.take();
    assert_eq!(wait(&mut proxy, Duration::from_secs(10)).code(), Some(3));
}

#[test]
fn a_crashed_server_exits_with_128_plus_its_signal() {
    let mut proxy = start(&[], "kill -SEGV $$");
    let _stdin = proxy.stdin.take();
    assert_eq!(
        wait(&mut proxy, Duration::from_secs(10)).code(),
        Some(128 + 11)
    );
}

#[test]
fn closing_stdin_closes_the_servers_and_passes_its_last_words() {
    let mut proxy = start(&[], "cat; echo '{\"bye\":true}'; exit 4");
    let mut stdin = proxy.stdin.take().expect("stdin");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .expect("write");
    drop(stdin);
    let status = wait(&mut proxy, Duration::from_secs(10));
    let mut out = String::new();
    proxy
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("read");
    assert_eq!(
        out,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{\"bye\":true}\n"
    );
    assert_eq!(status.code(), Some(4));
}

#[test]
fn a_server_that_stays_after_stdin_closes_is_terminated_then_killed() {
    // Exits on SIGTERM after the grace period.
    let started = Instant::now();
    let mut proxy = start(&["--grace", "0.3"], "cat >/dev/null; exec sleep 30");
    drop(proxy.stdin.take());
    assert_eq!(
        wait(&mut proxy, Duration::from_secs(10)).code(),
        Some(128 + 15)
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // Ignores SIGTERM: killed after a second grace period.
    let mut proxy = start(
        &["--grace", "0.3"],
        "trap '' TERM; cat >/dev/null; while :; do sleep 0.05 >/dev/null; done",
    );
    drop(proxy.stdin.take());
    assert_eq!(
        wait(&mut proxy, Duration::from_secs(10)).code(),
        Some(128 + 9)
    );
}

#[test]
fn signals_reach_the_server() {
    let mut proxy = start(
        &[],
        "trap 'exit 7' TERM; echo ready; while :; do sleep 0.05 >/dev/null; done",
    );
    let _stdin = proxy.stdin.take();
    let mut ready = String::new();
    BufReader::new(proxy.stdout.as_mut().expect("stdout"))
        .read_line(&mut ready)
        .expect("read");
    assert_eq!(ready, "ready\n");
    let status = Command::new("kill")
        .args(["-TERM", &proxy.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    assert_eq!(wait(&mut proxy, Duration::from_secs(10)).code(), Some(7));
}

/// The peak resident memory of a process, in bytes (Linux).
fn peak_memory(pid: u32) -> Option<usize> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Sends `input` through `terse mcp --config CONFIG --format toon -- cat`
/// and gives what came back and the proxy's peak memory.
fn echo_through(config: &std::path::Path, input: Vec<u8>) -> (Vec<u8>, usize) {
    let mut proxy = start(
        &[
            "--config",
            config.to_str().expect("UTF-8"),
            "--format",
            "toon",
        ],
        "cat",
    );
    let mut stdin = proxy.stdin.take().expect("stdin");
    let mut stdout = proxy.stdout.take().expect("stdout");
    let length = input.len();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).expect("write");
        stdin
    });
    let mut out = vec![0; length];
    stdout.read_exact(&mut out).expect("the whole stream back");
    let peak = peak_memory(proxy.id()).expect("VmHWM in /proc (Linux)");
    drop(writer.join().expect("writer"));
    assert_eq!(wait(&mut proxy, Duration::from_secs(20)).code(), Some(0));
    (out, peak)
}

#[test]
fn a_20_mb_line_streams_through_unchanged_in_bounded_memory() {
    let config = std::env::temp_dir().join(format!("terse-mcp-20mb-{}.toml", std::process::id()));
    std::fs::write(&config, "[mcp]\nmax_message_bytes = 1048576\n").expect("config");
    let call =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"big\"}}\n";
    let small = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n";
    let (_, baseline) = echo_through(&config, [&call[..], small].concat());
    // A tool result of 20 MB, past the 1 MiB limit: relayed as it comes.
    let rows = "{\\\"id\\\":1,\\\"name\\\":\\\"Ada\\\"},".repeat(20 * 1024 * 1024 / 28);
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"[{rows}{{}}]\"}}]}}}}\n"
    );
    assert!(big.len() > 20 * 1024 * 1024);
    let input = [&call[..], big.as_bytes(), small].concat();
    let (out, peak) = echo_through(&config, input.clone());
    assert!(out == input, "every byte passes, in order");
    eprintln!("terse mcp peak memory: {baseline} bytes, {peak} with a 20 MB line");
    assert!(
        peak < baseline + 10 * 1024 * 1024,
        "peak memory {peak} bytes (from {baseline}): the line was buffered"
    );
    let _ = std::fs::remove_file(config);
}

#[test]
fn a_bad_config_or_command_stops_before_anything_runs() {
    let dir = std::env::temp_dir();
    let bad = dir.join(format!("terse-mcp-bad-{}.toml", std::process::id()));
    std::fs::write(&bad, "[mcp]\nhint = \"everywhere\"\n").expect("config");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_terse"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run terse")
    };
    let output = run(&[
        "mcp",
        "--config",
        bad.to_str().expect("UTF-8"),
        "--",
        "true",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(":2: unknown hint \"everywhere\""),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "stdout is the MCP channel");

    let output = run(&["mcp", "--", "/nonexistent/server"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot start /nonexistent/server"));

    // `path` is optional for stdio, not for the gateway.
    let stdio_only = dir.join(format!("terse-mcp-stdio-only-{}.toml", std::process::id()));
    std::fs::write(&stdio_only, "[mcp]\nformat_argument = true\n").expect("config");
    let output = run(&[
        "gateway",
        "--config",
        stdio_only.to_str().expect("UTF-8"),
        "--upstream",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("[mcp] needs `path`"));
    let _ = std::fs::remove_file(bad);
    let _ = std::fs::remove_file(stdio_only);
}
