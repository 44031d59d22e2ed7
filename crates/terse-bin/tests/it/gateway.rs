//! `terse gateway` as a process: a bad config stops it before it listens
//! (one line naming file and line, exit code 2), and its metrics listener
//! counts what it served. Its probes and stop: `health.rs`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::support::{addresses, gateway_logging, json_upstream};

/// Writes `config` to a file of its own and runs `terse gateway --config` on it.
fn refused(name: &str, config: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!(
        "terse-gateway-config-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join("terse.toml");
    std::fs::write(&path, config).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_terse"))
        .args([
            "gateway",
            "--upstream",
            "http://127.0.0.1:9",
            "--listen",
            "127.0.0.1:0",
            "--config",
        ])
        .arg(&path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.stdout.is_empty(), "it never listened");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    let file = path.display().to_string();
    (output.status.code(), stderr.replace(&file, "terse.toml"))
}

#[test]
fn each_kind_of_config_error_names_file_and_line_and_exits_2() {
    let cases = [
        (
            "filter",
            "[[resource]]\nroute = \"/api/tasks\"\nnoun = \"task\"\nline = \"{title|nosuchfilter}\"\n",
            "error: terse.toml:4: line template, column 8: unknown filter `nosuchfilter`; known filters: time,",
        ),
        (
            "unknown-key",
            "[layer]\nsmart_fallback = true\ncolour = \"blue\"\n",
            "error: terse.toml:3: unknown field `colour`, expected one of",
        ),
        (
            "wrong-type",
            "[layer]\nmax_body_bytes = \"8 MiB\"\n",
            "error: terse.toml:2: invalid type: string \"8 MiB\", expected usize",
        ),
        (
            "template-syntax",
            "\n[[resource]]\nroute = \"/t\"\nnoun = \"t\"\nline = \"{title\"\n",
            "error: terse.toml:5: ",
        ),
        (
            "route",
            "[[resource]]\nroute = \"tasks/{\"\nnoun = \"t\"\nline = \"{a}\"\n",
            "error: terse.toml:2: invalid route pattern `tasks/{`",
        ),
        (
            "toml-syntax",
            "[layer]\ndefault_format = toon\n",
            "error: terse.toml:2: ",
        ),
        (
            "value",
            "[layer.toon]\ndelimiter = \"semicolon\"\n",
            "error: terse.toml:2: unknown TOON delimiter \"semicolon\"",
        ),
        (
            "duration",
            "[gateway]\nresponse_timeout = \"forever\"\n",
            "error: terse.toml:2: `response_timeout`: \"forever\" is not a duration",
        ),
        (
            "metrics-listen",
            "[gateway]\nmetrics_listen = \"9464\"\n",
            "error: terse.toml:2: `metrics_listen` must be an IP address and port such as \"127.0.0.1:9464\", not \"9464\"",
        ),
        (
            "mcp-unknown-key",
            "[mcp]\npath = \"/mcp\"\nendpoint = \"/mcp\"\n",
            "error: terse.toml:3: unknown field `endpoint`, expected one of `path`,",
        ),
        (
            "mcp-path",
            "[mcp]\npath = \"mcp\"\n",
            "error: terse.toml:2: `path` must start with `/`",
        ),
        (
            "mcp-filter",
            "[mcp]\npath = \"/mcp\"\n\n[[mcp.tool]]\nname = \"list_events\"\nlist = \"events\"\nnoun = \"event\"\nline = \"{start|nosuchfilter}\"\n",
            "error: terse.toml:8: line template, column 8: unknown filter `nosuchfilter`",
        ),
        (
            "mcp-template",
            "[mcp]\npath = \"/mcp\"\n[[mcp.tool]]\nname = \"a\"\nlist = \"items\"\nnoun = \"item\"\nline = \"{title\"\n",
            "error: terse.toml:7: line template, column ",
        ),
        (
            "mcp-duplicate",
            "[mcp]\npath = \"/mcp\"\n[[mcp.tool]]\nname = \"a\"\nlist = \"x\"\nnoun = \"x\"\nline = \"{a}\"\n[[mcp.tool]]\nname = \"a\"\nlist = \"y\"\nnoun = \"y\"\nline = \"{b}\"\n",
            "error: terse.toml:8: tool `a` is declared twice (tools 1 and 2)",
        ),
    ];
    for (name, config, expected) in cases {
        let (code, stderr) = refused(name, config);
        assert_eq!(code, Some(2), "{name}: {stderr}");
        assert!(stderr.starts_with(expected), "{name}: {stderr}");
    }
    // A file that cannot be read names the file.
    let output = Command::new(env!("CARGO_BIN_EXE_terse"))
        .args([
            "gateway",
            "--upstream",
            "http://127.0.0.1:9",
            "--config",
            "/nonexistent/terse.toml",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .starts_with("error: /nonexistent/terse.toml: cannot read")
    );
}

#[test]
fn templates_nested_too_deep_or_too_long_stop_the_gateway_at_start() {
    // 10 000 groups deep: far past both bounds, refused without a stack
    // overflow (the exit code is 2, not a signal).
    let deep = "{?".repeat(10_000) + "{a}" + &" }".repeat(10_000);
    let shallow_but_deep = "{?".repeat(33) + "{a}" + &" }".repeat(33);
    let long = "{a}".to_owned() + &"x".repeat(5_000);
    let cases = [
        (
            "deep-resource",
            format!("[[resource]]\nroute = \"/t\"\nnoun = \"t\"\nline = \"{deep}\"\n"),
            "error: terse.toml:4: line template, column 4097: the template is 40003 bytes long; templates are at most 4096 bytes",
        ),
        (
            "nested-resource",
            format!(
                "\n[[resource]]\nroute = \"/t\"\nnoun = \"t\"\nline = \"{shallow_but_deep}\"\n"
            ),
            "error: terse.toml:5: line template, column 65: optional groups nested more than 32 deep",
        ),
        (
            "long-resource",
            format!("[[resource]]\nroute = \"/t\"\nnoun = \"t\"\nline = \"{long}\"\n"),
            "error: terse.toml:4: line template, column 4097: the template is 5003 bytes long",
        ),
        (
            "deep-mcp-tool",
            format!(
                "[mcp]\npath = \"/mcp\"\n[[mcp.tool]]\nname = \"a\"\nlist = \"items\"\nnoun = \"item\"\nline = \"{deep}\"\n"
            ),
            "error: terse.toml:7: line template, column 4097: the template is 40003 bytes long",
        ),
        (
            "nested-mcp-tool",
            format!(
                "[mcp]\npath = \"/mcp\"\n[[mcp.tool]]\nname = \"a\"\nlist = \"items\"\nnoun = \"item\"\nline = \"{shallow_but_deep}\"\n"
            ),
            "error: terse.toml:7: line template, column 65: optional groups nested more than 32 deep",
        ),
    ];
    for (name, config, expected) in cases {
        let (code, stderr) = refused(name, &config);
        assert_eq!(code, Some(2), "{name}: {stderr}");
        assert!(stderr.starts_with(expected), "{name}: {stderr}");
    }
}

/// Sends `request` over a connection of its own and reads the answer whole.
fn exchange(addr: &str, request: &str) -> String {
    let mut client = TcpStream::connect(addr).unwrap();
    client.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    client.read_to_string(&mut answer).unwrap();
    answer
}

/// A GET of `target`: the answer's head (lowercased) and body.
fn get(addr: &str, target: &str) -> (String, String) {
    let answer = exchange(
        addr,
        &format!("GET {target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"),
    );
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head.to_ascii_lowercase(), body.to_owned())
}

fn token_count(head: &str) -> u64 {
    head.lines()
        .find_map(|line| line.strip_prefix("x-token-count: "))
        .unwrap_or_else(|| panic!("no X-Token-Count in {head}"))
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn metrics_listener_counts_what_the_gateway_served() {
    // An upstream that answers every request with the same flat list.
    let rows: Vec<String> = (1..=12)
        .map(|i| format!(r#"{{"id":{i},"title":"Task {i}","done":{}}}"#, i % 2 == 0))
        .collect();
    let body = format!(r#"{{"data":[{}]}}"#, rows.join(","));
    let upstream_addr = json_upstream(body.clone());
    let dir = std::env::temp_dir().join(format!("terse-gateway-metrics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("terse.toml");
    std::fs::write(
        &config,
        "[gateway]\nmetrics_listen = \"127.0.0.1:0\"\n\n[[resource]]\nroute = \"/api/tasks\"\nnoun = \"task\"\nline = \"{title}\"\n",
    )
    .unwrap();
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_terse"))
        .args(["gateway", "--listen", "127.0.0.1:0", "--upstream"])
        .arg(format!("http://{upstream_addr}"))
        .arg("--config")
        .arg(&config)
        .env("RUST_LOG", "off")
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let [addr, metrics_addr]: [String; 2] = addresses(&mut gateway, 2).try_into().unwrap();

    let mut tokens = std::collections::BTreeMap::<&str, u64>::new();
    for (target, format) in [
        ("/api/tasks", "json"),
        ("/api/tasks?format=toon", "toon"),
        ("/api/tasks?format=compact", "compact"),
    ] {
        let (head, _) = get(&addr, target);
        assert!(head.starts_with("http/1.1 200"), "{head}");
        tokens.insert(format, token_count(&head));
    }
    let (head, _) = get(&addr, "/elsewhere?format=toon");
    let elsewhere = token_count(&head);

    let (head, scraped) = get(&metrics_addr, "/metrics");
    assert!(head.contains("content-type: text/plain"), "{head}");
    let value = |series: &str| -> u64 {
        scraped
            .lines()
            .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no {series} in\n{scraped}"))
            .parse()
            .unwrap()
    };
    for (format, count) in &tokens {
        let labels = format!(r#"{{route="/api/tasks",format="{format}"}}"#);
        assert_eq!(value(&format!("terse_responses_total{labels}")), 1);
        assert_eq!(value(&format!("terse_tokens_total{labels}")), *count);
    }
    // Each of the three cost the JSON's tokens before it was rewritten.
    assert_eq!(
        value(r#"terse_json_tokens_total{route="/api/tasks"}"#),
        3 * tokens["json"]
    );
    assert!(tokens["compact"] < tokens["toon"] && tokens["toon"] < tokens["json"]);
    assert_eq!(
        value(r#"terse_tokens_total{route="other",format="toon"}"#),
        elsewhere
    );
    // The counters are not on the agents' address, nor other paths here.
    let (head, _) = get(&addr, "/metrics");
    assert!(!head.contains("text/plain; version=0.0.4"), "{head}");
    let (head, _) = get(&metrics_addr, "/");
    assert!(head.starts_with("http/1.1 404"), "{head}");
    // The listener has the gateway's request limits: too many headers is a
    // 431, a write is not a read.
    let headers: String = (0..200).map(|i| format!("x-h{i}: v\r\n")).collect();
    let answer = exchange(
        &metrics_addr,
        &format!("GET /metrics HTTP/1.1\r\nhost: x\r\n{headers}connection: close\r\n\r\n"),
    );
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    let answer = exchange(
        &metrics_addr,
        "POST /metrics HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    );
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");

    gateway.kill().unwrap();
    gateway.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_exact_counters_warm_up_beside_a_listener_that_answers_at_once() {
    // An upstream answering a small list to every request.
    let upstream = json_upstream(r#"[{"id":1}]"#.to_owned());
    let mut gateway = gateway_logging(upstream, "info");
    // Every line of the log, as it comes.
    let stderr = std::io::BufReader::new(gateway.stderr.take().unwrap());
    let (lines, log) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        for line in stderr.lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let [addr]: [String; 1] = addresses(&mut gateway, 1).try_into().unwrap();
    let (head, body) = get(&addr, "/items");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert_eq!(body, r#"[{"id":1}]"#);
    let ready = |line: &String| line.contains("exact token counters ready");
    // The first answer did not wait for the tables: they were not ready
    // when it came, and they are built without a request asking for them.
    let before: Vec<String> = log.try_iter().collect();
    assert!(!before.iter().any(ready), "{before:?}");
    let after = log.iter().find(ready);
    let _ = gateway.kill();
    let _ = gateway.wait();
    assert!(after.is_some(), "the gateway never warmed its counters");
}
