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

/// The results of `calls` (`(tool, arguments)`) from the filesystem server
/// serving `root`, started as `program` (`terse mcp -- node ...`, or node
/// alone), over stdio as a client speaks to it.
fn call_tools(mut program: Command, calls: &[(&str, Value)]) -> Vec<Value> {
    let mut child = program
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |message: Value| writeln!(stdin, "{message}").expect("write");
    let mut answer = |id: usize| loop {
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
    let mut results = Vec::new();
    for (index, (tool, arguments)) in calls.iter().enumerate() {
        let id = index + 1;
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
        results.push(answer(id)["result"].clone());
    }
    drop(stdin);
    let _ = child.wait();
    results
}

/// `directory_tree` answers `JSON.stringify(tree, null, 2)`: behind `terse
/// mcp` the text block is the cheapest of that JSON minified and its TOON,
/// and reads back to the same tree; the file read beside it stays byte for
/// byte.
#[test]
#[ignore = "needs node/npm; run with --include-ignored (.ci/run does)"]
fn a_pretty_directory_tree_comes_back_in_its_cheapest_form() {
    let Some(home) = installed(PACKAGE, VERSION) else {
        return;
    };
    let root = std::env::temp_dir().join(format!("terse-fs-tree-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for dir in ["src/render", "src/mcp", "tests/corpus", "docs"] {
        std::fs::create_dir_all(root.join(dir)).expect("dir");
    }
    for file in [
        "src/lib.rs",
        "src/render/minify.rs",
        "src/render/decide.rs",
        "src/mcp/body.rs",
        "tests/corpus/orders.json",
        "docs/headers.md",
        "README.md",
    ] {
        std::fs::write(root.join(file), FILE).expect("file");
    }
    let root = root.canonicalize().expect("root");
    let calls = [
        ("directory_tree", json!({"path": root})),
        ("read_text_file", json!({"path": root.join("README.md")})),
    ];
    let mut node = Command::new("node");
    node.arg(script(&home, PACKAGE)).arg(&root);
    let own = call_tools(node, &calls);
    let mut terse = Command::new(env!("CARGO_BIN_EXE_terse-mcp"));
    terse
        .arg("--")
        .arg("node")
        .arg(script(&home, PACKAGE))
        .arg(&root);
    let through = call_tools(terse, &calls);
    let text = |result: &Value| {
        result["content"][0]["text"]
            .as_str()
            .expect("text")
            .to_owned()
    };

    let pretty = text(&own[0]);
    assert!(
        pretty.contains("\n  "),
        "the server pretty-prints: {pretty}"
    );
    let tree: Value = serde_json::from_str(&pretty).expect("JSON");
    let served = text(&through[0]);
    let minified = terse_tests::json_formats::minify(&pretty);
    let toon = terse_toon::encode(&tree, &Default::default());
    let count = |text: &str| tower_terse::tokens::exact(text);
    assert!(
        count(&served) <= count(&minified).min(count(&toon)),
        "served {} tokens, minified {}, TOON {}",
        count(&served),
        count(&minified),
        count(&toon)
    );
    assert!(count(&served) < count(&pretty));
    let read: Value = if served == minified {
        serde_json::from_str(&served).expect("JSON")
    } else {
        terse_toon::decode(&served, &Default::default()).expect("TOON")
    };
    assert_eq!(read, tree);
    // A file's content is never touched.
    assert_eq!(text(&through[1]), FILE);
    assert_eq!(through[1], own[1]);
    let _ = std::fs::remove_dir_all(root);
}
