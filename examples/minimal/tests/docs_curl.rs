//! Every `curl` console block of the README and the `docs/` pages that runs
//! against this example (those without `-s`; agent-api's use `curl -s`) is
//! what the example answers: the binary is started as `cargo run -p
//! minimal` starts it, on a free port, each command's request is sent as
//! curl sends it, and the status line, the headers (all of them, in order,
//! but `date`) for `curl -i`, and the body must be the block's, byte for
//! byte.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The address the documentation's commands name.
const DOCS_BASE: &str = "http://127.0.0.1:3000";

/// A `$ curl` command of a console block and the output the block shows.
struct Example {
    page: String,
    command: String,
    shown: String,
}

/// The README, then every `docs/*.md` page.
fn pages() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut names = vec!["README.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(root.join(&name)).expect("page");
            (name, text)
        })
        .collect()
}

/// The console blocks' `$ curl` commands against this example, each with
/// the lines after it up to the next command or the block's end.
fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    for (page, text) in pages() {
        let mut lines = text.lines().peekable();
        let mut in_console = false;
        while let Some(line) = lines.next() {
            if line.starts_with("```") {
                in_console = line == "```console";
                continue;
            }
            let Some(command) = line.strip_prefix("$ curl ") else {
                continue;
            };
            if !in_console || command.contains("-s ") || !command.contains(DOCS_BASE) {
                continue;
            }
            let mut shown = Vec::new();
            while let Some(next) = lines.peek() {
                if next.starts_with("```") || next.starts_with("$ ") {
                    break;
                }
                shown.push(lines.next().expect("peeked"));
            }
            out.push(Example {
                page: page.clone(),
                command: command.to_owned(),
                shown: shown.join("\n"),
            });
        }
    }
    out
}

/// The words of a shell command line, with single quotes removed.
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in command.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// The example, running on a free port; killed when dropped.
struct Minimal(Child, String);

impl Drop for Minimal {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start() -> Minimal {
    let mut child = Command::new(env!("CARGO_BIN_EXE_minimal"))
        .args(["--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start minimal");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the listening line");
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned();
    Minimal(child, addr)
}

/// What curl prints for `command`: the status line and headers (with `-i`,
/// `date` left out), a blank line, then the body.
fn run(addr: &str, command: &str) -> String {
    let words = words(command);
    let include = words.iter().any(|w| w == "-i");
    let mut headers = Vec::new();
    let mut url = None;
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        match word.as_str() {
            "-i" => {}
            "-H" => headers.push(iter.next().expect("a header").clone()),
            other if other.starts_with(DOCS_BASE) => url = Some(other.to_owned()),
            other => panic!("an option this test does not read: {other}"),
        }
    }
    let url = url.expect("a URL");
    let target = &url[DOCS_BASE.len()..];
    let mut stream = TcpStream::connect(addr).expect("connect");
    // What curl sends, keep-alive included: the body is read by its length.
    let mut request = format!(
        "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n"
    );
    for header in &headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("send");
    let mut reader = BufReader::new(stream);
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a head line");
        let line = line.trim_end_matches(['\r', '\n']).to_owned();
        if line.is_empty() {
            break;
        }
        head.push(line);
    }
    let length: usize = head
        .iter()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(str::to_owned)
        })
        .expect("a content-length")
        .parse()
        .expect("a length");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("the body");
    let body = String::from_utf8(body).expect("UTF-8");
    if !include {
        return body.to_owned();
    }
    let head: Vec<&str> = head
        .iter()
        .map(String::as_str)
        .filter(|line| !line.to_ascii_lowercase().starts_with("date:"))
        .collect();
    format!("{}\n\n{body}", head.join("\n"))
}

#[test]
fn the_documented_curl_commands_answer_what_the_docs_show() {
    let examples = examples();
    // The quick start's, and the formats page's three with headers.
    assert!(
        examples
            .iter()
            .filter(|e| e.command.contains("-i "))
            .count()
            >= 3,
        "curl -i examples: {}",
        examples.len()
    );
    let server = start();
    let mut wrong = Vec::new();
    for example in &examples {
        let got = run(&server.1, &example.command);
        if got.trim_end() != example.shown.trim_end() {
            wrong.push(format!(
                "{}: $ curl {}\n-- shown:\n{}\n-- answered:\n{}",
                example.page, example.command, example.shown, got
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
