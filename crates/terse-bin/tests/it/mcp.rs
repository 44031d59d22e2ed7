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

/// All that is left to read from a pipe of the proxy, as text.
fn read_all(pipe: Option<impl Read>) -> String {
    let mut out = String::new();
    pipe.expect("piped").read_to_string(&mut out).expect("read");
    out
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
    let out = read_all(proxy.stdout.take());
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

    // A command named with terminal escapes is reported escaped, on one line.
    let output = run(&["mcp", "--", "/nonexistent/\u{1b}]0;title\u{7}\u{9b}31m"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains(['\u{1b}', '\u{7}', '\u{9b}']),
        "control characters reached stderr: {stderr:?}"
    );
    assert!(
        stderr.contains("/nonexistent/\\u{1b}]0;title\\u{7}\\u{9b}31m"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");

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

/// A file in the temporary folder, named after the test.
fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("terse-mcp-{name}-{}", std::process::id()))
}

/// A `tools/call` request line.
fn call_line(id: usize) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"list_users\",\"arguments\":{{}}}}}}"
    )
}

/// The answer to call `id`: a text block holding `rows` users as JSON.
fn answer_line(id: usize, rows: usize) -> String {
    let users: Vec<String> = (0..rows)
        .map(|i| {
            format!("{{\\\"id\\\":{i},\\\"name\\\":\\\"user {i}\\\",\\\"role\\\":\\\"member\\\"}}")
        })
        .collect();
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"[{}]\"}}]}}}}",
        users.join(",")
    )
}

/// User and system CPU time of a process so far, in clock ticks (Linux).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc (Linux)");
    // Fields after the command name (which may hold spaces), from field 3.
    let rest = &stat[stat.rfind(')').expect("stat") + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

/// The proxy's CPU ticks for one batch of `calls` answered in one batch.
fn batch_cpu(calls: usize) -> u64 {
    let answers = temp(&format!("batch-{calls}.json"));
    let batch: Vec<String> = (0..calls).map(|id| answer_line(id, 12)).collect();
    std::fs::write(&answers, format!("[{}]\n", batch.join(","))).expect("answers");
    let script = format!(
        "head -n 1 >/dev/null; cat '{}'; exec cat >/dev/null",
        answers.display()
    );
    let mut proxy = start(&[], &script);
    let mut stdin = proxy.stdin.take().expect("stdin");
    let requests: Vec<String> = (0..calls).map(call_line).collect();
    writeln!(stdin, "[{}]", requests.join(",")).expect("write");
    let mut line = String::new();
    BufReader::new(proxy.stdout.as_mut().expect("stdout"))
        .read_line(&mut line)
        .expect("read");
    assert!(
        line.matches("[12]{id,name,role}:").count() == calls,
        "every answer of the batch rewritten"
    );
    let ticks = cpu_ticks(proxy.id());
    drop(stdin);
    wait(&mut proxy, Duration::from_secs(30));
    let _ = std::fs::remove_file(answers);
    ticks
}

#[test]
fn a_batch_costs_cpu_linear_in_its_size() {
    // 100 times the answers: about 100 times the work, not 10 000 times.
    let small = batch_cpu(40).max(1);
    let large = batch_cpu(4000);
    eprintln!("terse mcp CPU: {small} ticks for 40 answers, {large} for 4000");
    assert!(
        large < small * 100 * 4,
        "4000 answers cost {large} ticks, 40 cost {small}"
    );
}

/// An answer large enough that its rewrite takes a while.
fn large_answer(id: usize) -> String {
    answer_line(id, 60_000)
}

#[test]
fn a_ping_reaches_the_server_while_a_large_result_is_rewritten() {
    let (big, written, pinged) = (temp("ping-big"), temp("ping-written"), temp("ping-pinged"));
    std::fs::write(&big, large_answer(1) + "\n").expect("answer");
    let script = format!(
        "head -n 1 >/dev/null; cat '{big}'; touch '{written}'; head -n 1 >/dev/null; touch '{pinged}'; \
         echo '{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{}}}}'; exec cat >/dev/null",
        big = big.display(),
        written = written.display(),
        pinged = pinged.display()
    );
    let mut proxy = start(&[], &script);
    let mut stdin = proxy.stdin.take().expect("stdin");
    let stdout = proxy.stdout.take().expect("stdout");
    let arrived = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let arrived = arrived.clone();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().expect("a line").expect("read");
            arrived.store(true, std::sync::atomic::Ordering::SeqCst);
            let second = lines.next().expect("a line").expect("read");
            (first, second)
        })
    };
    writeln!(stdin, "{}", call_line(1)).expect("write");
    while !written.exists() {
        std::thread::sleep(Duration::from_millis(5));
    }
    // The server wrote the result; the proxy is rewriting it (it takes
    // seconds: the ping is sent a little into it, as a client would).
    std::thread::sleep(Duration::from_millis(300));
    writeln!(
        stdin,
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}"
    )
    .expect("write");
    while !pinged.exists() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let result_first = arrived.load(std::sync::atomic::Ordering::SeqCst);
    let (first, second) = reader.join().expect("reader");
    assert!(
        !result_first,
        "the ping reached the server only after the rewrite ended"
    );
    // Each direction in order: the result, then the ping's answer.
    assert!(first.contains("[60000]{id,name,role}:"), "a TOON result");
    assert_eq!(second, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
    drop(stdin);
    wait(&mut proxy, Duration::from_secs(30));
    for file in [big, written, pinged] {
        let _ = std::fs::remove_file(file);
    }
}

#[test]
fn the_last_answer_reaches_the_client_when_the_server_exits_at_once() {
    let big = temp("exit-big");
    std::fs::write(&big, large_answer(1) + "\n").expect("answer");
    let script = format!("head -n 1 >/dev/null; cat '{}'; exit 0", big.display());
    let mut proxy = start(&[], &script);
    let mut stdin = proxy.stdin.take().expect("stdin");
    writeln!(stdin, "{}", call_line(1)).expect("write");
    let out = read_all(proxy.stdout.take());
    assert_eq!(wait(&mut proxy, Duration::from_secs(60)).code(), Some(0));
    assert!(out.ends_with("}\n"), "the whole answer");
    assert!(out.contains("[60000]{id,name,role}:"), "rewritten");
    let _ = std::fs::remove_file(big);
}

#[test]
fn past_the_pending_limit_a_new_call_is_still_rewritten() {
    let answer = temp("pending-answer");
    std::fs::write(&answer, answer_line(5000, 3) + "\n").expect("answer");
    let script = format!(
        "i=0; while [ $i -lt 5001 ]; do IFS= read -r line; i=$((i+1)); done; \
         cat '{}'; exec cat >/dev/null",
        answer.display()
    );
    let mut proxy = start(&[], &script);
    let mut stdin = proxy.stdin.take().expect("stdin");
    // 5000 calls never answered, then one that is.
    let calls: String = (0..=5000).map(|id| call_line(id) + "\n").collect();
    stdin.write_all(calls.as_bytes()).expect("write");
    let mut line = String::new();
    BufReader::new(proxy.stdout.as_mut().expect("stdout"))
        .read_line(&mut line)
        .expect("read");
    assert!(line.contains("[3]{id,name,role}:"), "{line}");
    drop(stdin);
    wait(&mut proxy, Duration::from_secs(30));
    let stderr = read_all(proxy.stderr.take());
    assert!(stderr.contains("the oldest is forgotten"), "{stderr}");
    let _ = std::fs::remove_file(answer);
}

/// Whether a process is running (not gone, not a zombie) (Linux).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(") ")
            .next()
            .is_some_and(|s| !s.starts_with('Z'))
    })
}

#[test]
fn nothing_the_server_started_outlives_the_proxy() {
    let pid_file = temp("grandchild-pid");
    // A grandchild that ignores the end of input (and SIGHUP), holding
    // the server's stdout open.
    let script = format!(
        "trap '' HUP; sleep 300 & echo $! > '{}'; cat >/dev/null",
        pid_file.display()
    );
    let mut proxy = start(&["--grace", "0.5"], &script);
    let stdin = proxy.stdin.take().expect("stdin");
    while std::fs::read_to_string(&pid_file).map_or(true, |pid| !pid.ends_with('\n')) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = std::fs::read_to_string(&pid_file).expect("pid");
    let pid = pid.trim();
    assert!(running(pid));
    drop(stdin);
    assert_eq!(wait(&mut proxy, Duration::from_secs(20)).code(), Some(0));
    let started = Instant::now();
    while running(pid) && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let alive = running(pid);
    if alive {
        let _ = Command::new("kill").args(["-KILL", pid]).status();
    }
    assert!(!alive, "the grandchild {pid} outlived terse mcp");
    let _ = std::fs::remove_file(pid_file);
}
