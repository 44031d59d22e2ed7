//! Runs the real `terse` binary: every subcommand, stdin and file input, each
//! option, and each error case (exit code, the one stderr line, empty stdout).

use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use terse_toon::{Delimiter, EncodeOptions};

/// Runs `terse ARGS` with `stdin` as standard input.
fn terse(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_terse"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start terse");
    // The child may exit before reading everything (a usage error): a closed
    // pipe here is not what these tests are about.
    let _ = child.stdin.take().expect("stdin").write_all(stdin);
    child.wait_with_output().expect("wait for terse")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// Asserts a successful run with nothing on stderr and returns stdout.
fn success(output: &Output) -> String {
    assert!(
        output.status.success(),
        "expected success, got {:?}; stderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "unexpected stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout(output)
}

/// Asserts the bad-input contract: exit code 1, nothing on stdout, exactly one
/// line on stderr that starts with `prefix`. Returns that line.
fn failure(output: &Output, prefix: &str) -> String {
    assert_eq!(
        output.status.code(),
        Some(1),
        "exit code; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stdout.is_empty(),
        "stdout must be empty, got {:?}",
        stdout(output)
    );
    let stderr = String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8");
    assert!(
        stderr.ends_with('\n'),
        "stderr must end with a newline: {stderr:?}"
    );
    let line = stderr.trim_end_matches('\n');
    assert!(!line.contains('\n'), "stderr must be one line: {stderr:?}");
    assert!(
        line.starts_with(prefix),
        "stderr {line:?} must start with {prefix:?}"
    );
    assert!(
        line.len() > prefix.len(),
        "stderr must say what went wrong: {line:?}"
    );
    line.to_owned()
}

/// A file in a fresh directory of this test's own, removed when dropped.
struct TempFile {
    dir: PathBuf,
    path: PathBuf,
}

impl TempFile {
    fn new(test: &str, name: &str, contents: &[u8]) -> Self {
        let dir = std::env::temp_dir().join(format!("terse-bin-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        let path = dir.join(name);
        std::fs::write(&path, contents).expect("write temp file");
        TempFile { dir, path }
    }

    fn arg(&self) -> &str {
        self.path.to_str().expect("temp path is UTF-8")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const USERS_JSON: &str = r#"{"users":[{"id":1,"name":"Ada","tags":["x","y"]},{"id":2,"name":"Linus","tags":[]}],"meta":{"page":1,"next":null}}"#;

fn users() -> Value {
    serde_json::from_str(USERS_JSON).unwrap()
}

fn toon(value: &Value, delimiter: Delimiter, indent_size: usize) -> String {
    terse_toon::encode(
        value,
        &EncodeOptions::new()
            .with_delimiter(delimiter)
            .with_indent_size(indent_size),
    )
}

// ---- encode ----

#[test]
fn encode_reads_stdin() {
    let out = success(&terse(
        &["encode"],
        br#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"}]}"#,
    ));
    assert_eq!(out, "users[2]{id,name}:\n  1,Ada\n  2,Linus\n");
}

#[test]
fn encode_reads_stdin_given_as_dash() {
    let out = success(&terse(&["encode", "-"], b"[1,2,3]"));
    assert_eq!(out, "[3]: 1,2,3\n");
}

#[test]
fn encode_reads_a_file() {
    let file = TempFile::new("encode-file", "users.json", USERS_JSON.as_bytes());
    let out = success(&terse(&["encode", file.arg()], b"ignored"));
    assert_eq!(out, format!("{}\n", toon(&users(), Delimiter::Comma, 2)));
}

#[test]
fn encode_delimiter_options() {
    let input = br#"{"tags":["a","b c","d"],"rows":[{"x":1,"y":"p"},{"x":2,"y":"q"}]}"#;
    let comma = success(&terse(&["encode", "--delimiter", "comma"], input));
    assert_eq!(comma, "tags[3]: a,b c,d\nrows[2]{x,y}:\n  1,p\n  2,q\n");
    let tab = success(&terse(&["encode", "--delimiter", "tab"], input));
    assert_eq!(
        tab,
        "tags[3\t]: a\tb c\td\nrows[2\t]{x\ty}:\n  1\tp\n  2\tq\n"
    );
    let pipe = success(&terse(&["encode", "--delimiter", "pipe"], input));
    assert_eq!(pipe, "tags[3|]: a|b c|d\nrows[2|]{x|y}:\n  1|p\n  2|q\n");
}

/// `terse encode` writes, for every corpus document and options, the TOON
/// the layers serve: `render_json_with` with the same options (the smart
/// fallback off, as encode always writes TOON), which
/// tests/it/consistency.rs holds the gateway, the layer and the MCP
/// layer to.
#[test]
fn encode_writes_what_the_layers_serve() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("the corpus")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the corpus is there");
    for (flag, delimiter, indent) in [
        ("comma", Delimiter::Comma, 2),
        ("tab", Delimiter::Tab, 4),
        ("pipe", Delimiter::Pipe, 1),
    ] {
        let settings = tower_terse::Settings::new()
            .smart_fallback(false)
            .toon_options(
                EncodeOptions::new()
                    .with_delimiter(delimiter)
                    .with_indent_size(indent),
            );
        for file in &files {
            let json = std::fs::read_to_string(file).expect("read");
            let (served, outcome) =
                tower_terse::format::render_json_with(&json, tower_terse::Format::Toon, &settings)
                    .expect("JSON");
            assert_eq!(outcome.served, Some(tower_terse::Format::Toon));
            let indent = indent.to_string();
            let args = ["encode", "--delimiter", flag, "--indent", &indent];
            let out = success(&terse(&args, json.as_bytes()));
            assert_eq!(out, format!("{served}\n"), "{}", file.display());
        }
    }
}

/// `terse report` measures the endpoints it is given, none by default.
#[test]
fn report_needs_endpoints() {
    let line = failure(
        &terse(&["report", "--url", "http://127.0.0.1:9"], b""),
        "error: ",
    );
    assert!(line.contains("--endpoint NAME=PATH"), "{line}");
    assert!(line.contains("--agent-api"), "{line}");
}

#[test]
fn encode_indent_option() {
    let input = br#"{"a":{"b":{"c":1}}}"#;
    assert_eq!(success(&terse(&["encode"], input)), "a:\n  b:\n    c: 1\n");
    assert_eq!(
        success(&terse(&["encode", "--indent", "4"], input)),
        "a:\n    b:\n        c: 1\n"
    );
}

#[test]
fn encode_rejects_invalid_json() {
    let line = failure(
        &terse(&["encode"], br#"{"a": [1, 2"#),
        "error: invalid JSON: ",
    );
    assert!(line.contains("line 1"), "{line}");
}

#[test]
fn encode_rejects_empty_input() {
    failure(&terse(&["encode"], b""), "error: invalid JSON: ");
}

#[test]
fn encode_rejects_input_that_is_not_utf8() {
    failure(&terse(&["encode"], b"\"caf\xe9\""), "error: invalid JSON: ");
}

#[test]
fn encode_reports_a_missing_file() {
    let missing = std::env::temp_dir().join("terse-bin-no-such-dir/missing.json");
    let missing = missing.to_str().unwrap();
    failure(
        &terse(&["encode", missing], b"{}"),
        &format!("error: cannot read {missing}: "),
    );
}

#[test]
fn encode_rejects_an_unknown_delimiter() {
    let output = terse(&["encode", "--delimiter", "semicolon"], b"{}");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
}

#[test]
fn encode_rejects_a_zero_indent() {
    let output = terse(&["encode", "--indent", "0"], b"{}");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
}

// ---- decode ----

#[test]
fn decode_reads_stdin_and_prints_compact_json() {
    let out = success(&terse(
        &["decode"],
        b"users[2]{id,name}:\n  1,Ada\n  2,Linus\n",
    ));
    assert_eq!(
        out,
        "{\"users\":[{\"id\":1,\"name\":\"Ada\"},{\"id\":2,\"name\":\"Linus\"}]}\n"
    );
}

#[test]
fn decode_reads_a_file() {
    let file = TempFile::new(
        "decode-file",
        "users.toon",
        toon(&users(), Delimiter::Pipe, 2).as_bytes(),
    );
    let out = success(&terse(&["decode", file.arg()], b"ignored"));
    assert_eq!(out, format!("{USERS_JSON}\n"));
}

#[test]
fn decode_indent_option() {
    let input = b"a:\n    b:\n        c: 1";
    assert_eq!(
        success(&terse(&["decode", "--indent", "4"], input)),
        "{\"a\":{\"b\":{\"c\":1}}}\n"
    );
    // Two spaces are not a multiple of four: strict decoding with indent 4 refuses them.
    failure(
        &terse(&["decode", "--indent", "4"], b"a:\n  b: 1"),
        "error: line 2, column ",
    );
}

/// Nested objects, a table, list items holding objects and arrays, and
/// strings holding every delimiter: what indentation and delimiters shape.
const NESTED_JSON: &str = r#"{"store":{"name":"A, B | C","address":{"city":"Paris","lines":["1 rue\tX","2e"]}},"orders":[{"id":1,"sku":"a|b","qty":2},{"id":2,"sku":"c,d","qty":1}],"events":[{"kind":"open","at":{"h":9,"m":30},"tags":["x","y"]},[1,[2,3]],"plain",{"empty":{}}]}"#;

#[test]
fn decode_reads_what_encode_wrote_at_any_indent_and_delimiter() {
    let expected: Value = serde_json::from_str(NESTED_JSON).unwrap();
    for delimiter in ["comma", "tab", "pipe"] {
        for indent in 1..=8 {
            let indent = indent.to_string();
            let toon = success(&terse(
                &["encode", "--indent", &indent, "--delimiter", delimiter],
                NESTED_JSON.as_bytes(),
            ));
            assert!(
                toon.contains(&format!("\n{}", " ".repeat(indent.parse().unwrap()))),
                "indented by {indent}: {toon}"
            );
            let json = success(&terse(&["decode"], toon.as_bytes()));
            let decoded: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(
                decoded, expected,
                "--indent {indent} --delimiter {delimiter}"
            );
        }
    }
}

#[test]
fn decode_is_strict_by_default() {
    // The first indented line sets the indent (2); the third breaks it.
    let line = failure(
        &terse(&["decode"], b"a:\n  b:\n     c: 1\n"),
        "error: line 3, column ",
    );
    assert!(line.len() > "error: line 2, column 1: ".len());
    failure(
        &terse(&["decode"], b"items[3]: a,b\n"),
        "error: line 1, column ",
    );
}

#[test]
fn decode_lenient_option() {
    assert_eq!(
        success(&terse(&["decode", "--lenient"], b"a:\n   b: 1\n")),
        "{\"a\":{\"b\":1}}\n"
    );
    assert_eq!(
        success(&terse(&["decode", "--lenient"], b"name: Ada\nname: Bob")),
        "{\"name\":\"Bob\"}\n"
    );
}

#[test]
fn decode_error_names_line_and_column() {
    let line = failure(
        &terse(&["decode"], b"ok: 1\nrows[2]{x,y}:\n  1,2\n"),
        "error: line ",
    );
    let rest = line.strip_prefix("error: line ").unwrap();
    let (line_no, rest) = rest.split_once(", column ").expect("line, column");
    let (column, message) = rest.split_once(": ").expect("column: message");
    assert!(line_no.parse::<usize>().unwrap() >= 2, "{line}");
    assert!(column.parse::<usize>().unwrap() >= 1, "{line}");
    assert!(!message.is_empty());
}

#[test]
fn decode_rejects_bytes_that_are_not_utf8() {
    failure(
        &terse(&["decode"], b"a: ok\nb: \xff\xfe\n"),
        "error: line 2, column ",
    );
}

#[test]
fn decode_reports_a_missing_file() {
    let missing = std::env::temp_dir().join("terse-bin-no-such-dir/missing.toon");
    let missing = missing.to_str().unwrap();
    failure(
        &terse(&["decode", missing], b""),
        &format!("error: cannot read {missing}: "),
    );
}

#[test]
fn encode_then_decode_gives_the_input_back() {
    for delimiter in ["comma", "tab", "pipe"] {
        let encoded = success(&terse(
            &["encode", "--delimiter", delimiter, "--indent", "3"],
            USERS_JSON.as_bytes(),
        ));
        let decoded = success(&terse(&["decode", "--indent", "3"], encoded.as_bytes()));
        assert_eq!(decoded, format!("{USERS_JSON}\n"), "delimiter {delimiter}");
    }
}

// ---- stats ----

/// The five renderings `stats` measures, computed here independently.
/// What `terse stats` measures of `value` read as `text`: the text minified
/// (whitespace dropped between tokens: serde_json's compact text, for text
/// serde_json wrote), the text as read, then the renderings of the value.
fn renderings(value: &Value, text: &str) -> Vec<(&'static str, String)> {
    vec![
        ("json", serde_json::to_string(value).unwrap()),
        ("json_as_read", text.to_owned()),
        ("json_pretty", serde_json::to_string_pretty(value).unwrap()),
        ("toon", toon(value, Delimiter::Comma, 2)),
        ("toon_tab", toon(value, Delimiter::Tab, 2)),
        ("toon_pipe", toon(value, Delimiter::Pipe, 2)),
    ]
}

fn expected_stats(value: &Value, text: &str) -> Value {
    let mut object = serde_json::Map::new();
    for (key, text) in renderings(value, text) {
        object.insert(
            key.to_owned(),
            json!({
                "bytes": text.len(),
                "tokens_estimated": tower_terse::tokens::estimate(text.as_bytes()),
                "tokens_exact": tower_terse::tokens::exact(&text),
            }),
        );
    }
    Value::Object(object)
}

#[test]
fn stats_json_reads_stdin() {
    let out = success(&terse(&["stats", "--json"], USERS_JSON.as_bytes()));
    assert!(
        out.ends_with('\n') && out.trim_end().lines().count() == 1,
        "one line: {out:?}"
    );
    let stats: Value = serde_json::from_str(&out).expect("stats --json prints JSON");
    let keys: Vec<&str> = stats
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "json",
            "json_as_read",
            "json_pretty",
            "toon",
            "toon_tab",
            "toon_pipe"
        ]
    );
    assert_eq!(stats, expected_stats(&users(), USERS_JSON));
    assert_eq!(stats["json"]["bytes"], USERS_JSON.len());
}

#[test]
fn stats_json_reads_a_file_and_normalises_the_input() {
    let pretty = serde_json::to_string_pretty(&users()).unwrap();
    let file = TempFile::new("stats-file", "users.json", pretty.as_bytes());
    let out = success(&terse(&["stats", "--json", file.arg()], b""));
    let stats: Value = serde_json::from_str(&out).unwrap();
    // Whatever the input's layout, "json" is its minified form.
    assert_eq!(stats["json"]["bytes"], USERS_JSON.len());
    assert_eq!(stats["json_as_read"]["bytes"], pretty.len());
    assert_eq!(stats["json_pretty"]["bytes"], pretty.len());
    assert_eq!(stats, expected_stats(&users(), &pretty));
}

#[test]
fn stats_table_shows_every_rendering_with_savings() {
    let rows: Vec<Value> = (1..=20)
        .map(|i| json!({"id": i, "name": format!("user {i}"), "active": i % 2 == 0, "team": null}))
        .collect();
    let value = json!({ "data": rows });
    let out = success(&terse(&["stats"], value.to_string().as_bytes()));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("format"), "{out}");
    let labels = [
        "JSON (minified)",
        "JSON (as read)",
        "JSON (pretty)",
        "TOON (comma)",
        "TOON (tab)",
        "TOON (pipe)",
    ];
    let base_tokens = tower_terse::tokens::exact(&value.to_string()) as f64;
    let written = value.to_string();
    let rows = renderings(&value, &written);
    for ((label, (_, text)), line) in labels.iter().zip(rows).zip(&lines[1..]) {
        assert!(
            line.starts_with(label),
            "{line:?} should start with {label:?}"
        );
        let cells: Vec<&str> = line[label.len()..].split_whitespace().collect();
        assert_eq!(cells[0], text.len().to_string(), "bytes in {line:?}");
        assert_eq!(
            cells[2],
            tower_terse::tokens::estimate(text.as_bytes()).to_string(),
            "estimate in {line:?}"
        );
        let exact = tower_terse::tokens::exact(&text);
        assert_eq!(cells[3], exact.to_string(), "exact tokens in {line:?}");
        if *label == "JSON (minified)" {
            assert_eq!((cells[1], cells[4]), ("-", "-"));
        } else {
            let saved = (base_tokens - exact as f64) / base_tokens * 100.0;
            assert_eq!(
                cells[4],
                format!("{saved:.1}%"),
                "token savings in {line:?}"
            );
        }
    }
    // A uniform list is the case TOON exists for: it must show a saving.
    let toon_saved = lines[4].split_whitespace().last().unwrap();
    assert!(
        !toon_saved.starts_with('-'),
        "TOON should save tokens here: {}",
        lines[4]
    );
    assert_eq!(lines.len(), 8, "header, six rows and a legend: {out}");
}

#[test]
fn stats_rejects_invalid_json() {
    failure(&terse(&["stats"], b"{\"a\":}"), "error: invalid JSON: ");
    failure(
        &terse(&["stats", "--json"], b"nope"),
        "error: invalid JSON: ",
    );
}

#[test]
fn stats_reports_a_missing_file() {
    let missing = "/nonexistent-terse-dir/x.json";
    failure(
        &terse(&["stats", missing], b""),
        &format!("error: cannot read {missing}: "),
    );
}
