//! `@modelcontextprotocol/server-filesystem` (npm, stdio), the reference
//! filesystem server, behind `terse mcp` with its defaults: a file's
//! content reaches the client byte for byte (a `.json` file is not shown
//! as TOON nor re-serialized), whichever read tool returns it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use terse_tests::mcp_everything::{installed, script};

const PACKAGE: &str = "@modelcontextprotocol/server-filesystem";
const VERSION: &str = "2026.8.31";

/// A JSON file as people write them: indentation, `3.0`, a list of
/// records that TOON would shorten.
const FILE: &str = "{\n    \"version\": 3.0,\n    \"users\": [\n        {\"id\": 1, \"name\": \"Ada\", \"role\": \"admin\"},\n        {\"id\": 2, \"name\": \"Linus\", \"role\": \"member\"},\n        {\"id\": 3, \"name\": \"Grace\", \"role\": \"member\"}\n    ]\n}\n";

#[test]
#[ignore = "needs node/npm; run with --include-ignored (.ci/run does)"]
fn a_json_file_read_through_terse_mcp_comes_back_byte_identical() {
    let Some(home) = installed(PACKAGE, VERSION) else {
        return;
    };
    let root = std::env::temp_dir().join(format!("terse-fs-root-{}", std::process::id()));
    std::fs::create_dir_all(&root).expect("root");
    let root = root.canonicalize().expect("root");
    let file = root.join("users.json");
    std::fs::write(&file, FILE).expect("file");
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_terse-mcp"))
        .arg("--")
        .arg("node")
        .arg(script(&home, PACKAGE))
        .arg(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start terse mcp");
    let mut stdin = proxy.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(proxy.stdout.take().expect("stdout"));
    let mut send = |message: Value| writeln!(stdin, "{message}").expect("write");
    let mut answer = |id: u64| loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).expect("read") > 0,
            "no answer {id}"
        );
        let message: Value = serde_json::from_str(&line).expect("JSON");
        if message["id"] == id {
            return message;
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    answer(0);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let path = file.to_string_lossy();
    for (id, tool, arguments) in [
        (1, "read_text_file", json!({"path": path})),
        (2, "read_file", json!({"path": path})),
    ] {
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
        let result = answer(id);
        assert_eq!(
            result["result"]["content"][0]["text"].as_str(),
            Some(FILE),
            "{tool}: {result}"
        );
    }
    // Several files in one result: each as the file is.
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "read_multiple_files", "arguments": {"paths": [path]}}}));
    let text = answer(3)["result"]["content"][0]["text"]
        .as_str()
        .expect("text")
        .to_owned();
    assert!(text.contains(FILE), "{text}");
    drop(stdin);
    let status = proxy.wait().expect("wait");
    assert!(status.success() || status.code() == Some(143), "{status}");
    let _ = std::fs::remove_dir_all(root);
}
