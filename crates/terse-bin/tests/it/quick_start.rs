//! The README's quick start, run as written: its `curl` line reads a compact
//! list from agent-api, and its `terse report` line measures the running
//! service, with the port this test listens on in place of 3000.

use std::io::Read;
use std::process::Command;

/// The address the README's commands name.
const README_BASE: &str = "http://127.0.0.1:3000";

/// The lines of the quick start's shell block that starts agent-api.
fn quick_start_lines() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("read README.md");
    let section = readme
        .split("\n## Quick start\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a `## Quick start` section");
    let block = section
        .split("```sh\n")
        .skip(1)
        .filter_map(|block| block.split("\n```").next())
        .find(|block| block.contains("cargo run -p agent-api"))
        .expect("a shell block that runs agent-api");
    block.lines().map(str::to_owned).collect()
}

/// agent-api as `cargo run -p agent-api` serves it, on a free port, with a
/// fresh database; returns its base URL. The server lives as long as the
/// runtime.
fn start_agent_api(runtime: &tokio::runtime::Runtime, dir: &std::path::Path) -> String {
    let db = agent_api::Db::open(dir.join("agent-api.db")).expect("open database");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    runtime.spawn(async move {
        axum::serve(listener, agent_api::app(db))
            .await
            .expect("serve");
    });
    base
}

#[test]
fn the_quick_start_commands_work_as_written() {
    let lines = quick_start_lines();
    let dir = std::env::temp_dir().join(format!("terse-quick-start-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let base = start_agent_api(&runtime, &dir);

    // `curl '<url>'`: a compact list, served as such.
    let curl = lines
        .iter()
        .find_map(|line| line.strip_prefix("curl '"))
        .and_then(|rest| rest.split('\'').next())
        .expect("a quoted curl line");
    assert!(curl.starts_with(README_BASE), "{curl}");
    let url = curl.replacen(README_BASE, &base, 1);
    let mut response = ureq::get(&url).call().expect("GET the curl line's URL");
    assert_eq!(response.status().as_u16(), 200, "{url}");
    let served = response
        .headers()
        .get("x-response-format")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(served.starts_with("compact"), "X-Response-Format: {served}");
    let mut body = String::new();
    response
        .body_mut()
        .as_reader()
        .read_to_string(&mut body)
        .expect("body");
    assert!(!body.trim().is_empty());

    // `cargo run -p terse-bin -- report ...`: the same arguments to the
    // binary, measuring every endpoint of the running service.
    let report = lines
        .iter()
        .find(|line| line.contains("-p terse-bin -- report"))
        .expect("a report line");
    let args: Vec<String> = report
        .split(" -- ")
        .nth(1)
        .expect("arguments after --")
        .split_whitespace()
        .map(|arg| arg.replacen(README_BASE, &base, 1))
        .collect();
    let output = Command::new(env!("CARGO_BIN_EXE_terse"))
        .args(&args)
        .output()
        .expect("run terse");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "terse {args:?}: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    for (name, _) in terse_bin::report::AGENT_API_ENDPOINTS {
        assert!(
            stdout.contains(name),
            "{name} missing from the report:\n{stdout}"
        );
    }
    drop(runtime);
    let _ = std::fs::remove_dir_all(&dir);
}
