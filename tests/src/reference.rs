//! The reference TOON implementation, `@toon-format/toon`, run under Node.js.
//!
//! [`Reference::install`] installs the pinned version from the npm registry
//! into a temporary folder of this process; [`Reference::run`] runs one
//! driver script there with a request on stdin and returns what it prints.
//! Tests send every case in one request, so one node process serves a whole
//! test run. Without node, npm or the registry, `install` reports a missing
//! prerequisite ([`crate::prerequisite`]) and gives `None`.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The npm package of the reference implementation.
pub const PACKAGE: &str = "@toon-format/toon";
/// The version the tests compare against.
pub const VERSION: &str = "4.4.0";
const CHILD_TIMEOUT: Duration = Duration::from_secs(300);
use terse_toon::{Delimiter, EncodeOptions};

/// The delimiters both sides encode with, by the key the driver uses.
pub const DELIMITERS: [(&str, Delimiter); 3] = [
    ("comma", Delimiter::Comma),
    ("tab", Delimiter::Tab),
    ("pipe", Delimiter::Pipe),
];

/// [`Reference::run`] it with `{"cases":[{"name"?,"value","ours":{comma,tab,pipe}}]}`:
/// reads the request on stdin and
/// prints, per case and delimiter, the reference's encoding of `value` and its
/// decoding of our text, each as `{"ok":..}` or `{"error":..}`.
pub const ROUND_TRIP_DRIVER: &str = r#"
import { readFileSync } from 'node:fs';
import { encode, decode } from '@toon-format/toon';

const DELIMITERS = { comma: ',', tab: '\t', pipe: '|' };
const attempt = (f) => {
  try {
    return { ok: f() };
  } catch (error) {
    return { error: String((error && error.message) || error) };
  }
};

const request = JSON.parse(readFileSync(0, 'utf8'));
const results = request.cases.map((item) => {
  const result = { name: item.name, encoded: {}, decoded: {} };
  for (const [key, delimiter] of Object.entries(DELIMITERS)) {
    result.encoded[key] = attempt(() => encode(item.value, { delimiter }));
    result.decoded[key] = attempt(() => decode(item.ours[key]));
  }
  return result;
});
process.stdout.write(JSON.stringify({ results }));
"#;

/// What [`ROUND_TRIP_DRIVER`] prints: one result per case, in order.
#[derive(Debug, Deserialize)]
pub struct RoundTrips {
    /// The results, in the order of the cases.
    pub results: Vec<CaseResult>,
}

/// The reference's answers for one case, by delimiter key.
#[derive(Debug, Deserialize)]
pub struct CaseResult {
    /// The case's name, when the request gave one.
    #[serde(default)]
    pub name: Option<String>,
    /// The reference's encoding of the value.
    pub encoded: BTreeMap<String, Outcome>,
    /// The reference's decoding of our text.
    pub decoded: BTreeMap<String, Outcome>,
}

/// A value, or the message of what the reference threw.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// What the call returned.
    Ok(Value),
    /// What it threw.
    Error(String),
}

/// Our encodings of `value`, by delimiter key.
pub fn ours(value: &Value) -> BTreeMap<&'static str, String> {
    DELIMITERS
        .iter()
        .map(|&(key, delimiter)| {
            let options = EncodeOptions::new().with_delimiter(delimiter);
            (key, terse_toon::encode(value, &options))
        })
        .collect()
}

/// An installed reference implementation; the folder goes when it drops.
pub struct Reference {
    dir: TempDir,
}

impl Reference {
    /// Installs `@toon-format/toon@4.4.0` into a fresh temporary folder
    /// named after `purpose` and this process. `None` (after reporting the
    /// missing prerequisite) when node or npm cannot run or the install fails.
    pub fn install(purpose: &str) -> Option<Reference> {
        let how = "install Node.js 18 or later and npm, with access to the npm registry";
        for program in ["node", "npm"] {
            if let Err(err) = Command::new(program).arg("--version").output() {
                crate::prerequisite::missing(&format!(
                    "cannot run `{program}` ({err}); the reference TOON tests need it: {how}"
                ));
                return None;
            }
        }
        let dir = TempDir::new(purpose);
        let spec = format!("{PACKAGE}@{VERSION}");
        let output = run_with_input(
            Command::new("npm").args([
                "install",
                "--prefix",
                dir.path().to_str().expect("temp dir is UTF-8"),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                &spec,
            ]),
            b"",
            "npm",
        );
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr
                .lines()
                .find(|line| !line.trim().is_empty())
                .unwrap_or("");
            crate::prerequisite::missing(&format!(
                "`npm install {spec}` failed ({}: {first}); {how}",
                output.status
            ));
            return None;
        }
        let manifest = dir
            .path()
            .join("node_modules")
            .join(PACKAGE)
            .join("package.json");
        let manifest: Value = serde_json::from_slice(
            &std::fs::read(&manifest).unwrap_or_else(|err| panic!("{}: {err}", manifest.display())),
        )
        .expect("package.json is JSON");
        assert_eq!(manifest["version"], VERSION, "installed reference version");
        Some(Reference { dir })
    }

    /// Runs `driver`, an ES module that imports `@toon-format/toon`, with
    /// `input` on stdin, and returns its stdout. A driver that fails or runs
    /// past five minutes fails the test.
    /// Runs [`ROUND_TRIP_DRIVER`] on `request` (`{"cases":[...]}`) and
    /// gives its results, after checking there is one per case.
    pub fn round_trips(&self, request: &Value, cases: usize) -> Vec<CaseResult> {
        let output = self.run(ROUND_TRIP_DRIVER, request.to_string().as_bytes());
        let response: RoundTrips = serde_json::from_slice(&output).unwrap_or_else(|err| {
            panic!(
                "the node driver printed something that is not its answer: {err}\n{}",
                String::from_utf8_lossy(&output)
            )
        });
        assert_eq!(response.results.len(), cases, "one answer per case");
        response.results
    }

    /// The reference's decoding of each TOON text, in order; a text it
    /// refuses fails the test.
    pub fn decode_all(&self, texts: &[&str]) -> Vec<Value> {
        let output = self.run(
            r#"
import { readFileSync } from 'node:fs';
import { decode } from '@toon-format/toon';
const texts = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(texts.map((text) => decode(text))));
"#,
            serde_json::to_string(texts).expect("strings").as_bytes(),
        );
        let decoded: Vec<Value> = serde_json::from_slice(&output).expect("the driver's answer");
        assert_eq!(decoded.len(), texts.len(), "one value per text");
        decoded
    }

    pub fn run(&self, driver: &str, input: &[u8]) -> Vec<u8> {
        let path = self.dir.path().join("driver.mjs");
        std::fs::write(&path, driver).expect("write the node driver");
        let output = run_with_input(
            Command::new("node").arg(&path).current_dir(self.dir.path()),
            input,
            "node",
        );
        assert!(
            output.status.success(),
            "the node driver failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    }
}

/// Runs `command` with `input` on stdin and a time limit.
fn run_with_input(command: &mut Command, input: &[u8], program: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot run `{program}`: {err}"));
    let mut stdin = child.stdin.take().expect("child stdin");
    let input = input.to_vec();
    // Feeding stdin and draining stdout and stderr from threads keeps a child
    // that writes a large answer from blocking on a full pipe.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let stdout = drain(child.stdout.take().expect("child stdout"));
    let stderr = drain(child.stderr.take().expect("child stderr"));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for child") {
            break status;
        }
        if started.elapsed() > CHILD_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{program}` did not finish within {CHILD_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    writer
        .join()
        .expect("stdin writer")
        .unwrap_or_else(|err| panic!("writing to `{program}`: {err}"));
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// A temporary folder of this process, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(purpose: &str) -> Self {
        let path = std::env::temp_dir().join(format!("terse-{purpose}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
