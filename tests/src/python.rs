//! Real upstreams for the gateway tests, installed once and started as
//! child processes: FastAPI on uvicorn (`tests/python/upstream.py`), Django
//! REST framework, Python's `http.server` and Express
//! (`tests/frameworks/`), all Python ones from one virtual environment, and
//! an MCP server on the official Python SDK (`tests/python/mcp_server.py`),
//! whose environment also runs the SDK's client.
//!
//! The environment is built at most once per machine: in a folder of this
//! process first, then renamed into place, so test binaries that race each
//! other never see a half-installed one. Without `python3`, its `venv`
//! module or PyPI, [`PythonUpstream::start`] reports a missing prerequisite
//! ([`crate::prerequisite`]) and gives `None`.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// What pip installs for the Python upstreams: FastAPI, Django REST
/// framework, and uvicorn to serve both.
pub const PACKAGES: [&str; 4] = [
    "fastapi>=0.110,<1",
    "uvicorn>=0.29,<1",
    "django>=5.0,<6",
    "djangorestframework>=3.15,<4",
];

/// The Express version the Express upstream runs.
pub const EXPRESS: &str = "express@4.21.2";

/// The scripts of `tests/frameworks/`, by file name.
pub fn framework_script(name: &str) -> String {
    format!("{}/frameworks/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The FastAPI upstream's script.
pub const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/upstream.py");

/// The MCP SDK the MCP server and its client run (it brings uvicorn).
pub const MCP_SDK: &str = "mcp==1.30.0";

/// The MCP server's script.
pub const MCP_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/mcp_server.py");

/// The SDK's client: calls tools and prints what it got (see the script).
pub const MCP_CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python/mcp_client.py");

const HOW: &str =
    "install python3 with its venv module (Debian: python3-venv), with access to PyPI";

/// The interpreter of the environment with [`PACKAGES`], installing it on
/// first use.
fn python() -> Result<PathBuf, String> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| install("terse-gateway-python-venv-2", &PACKAGES))
        .clone()
}

/// The interpreter of the environment with [`PACKAGES`]; `None` when it
/// cannot be had (see [`crate::prerequisite`]).
pub fn frameworks_python() -> Option<PathBuf> {
    crate::prerequisite::require(python())
}

/// The `node_modules` folder with [`EXPRESS`], installing it from the npm
/// registry on first use; `None` when node, npm or the registry cannot be
/// had (see [`crate::prerequisite`]).
pub fn express_modules() -> Option<PathBuf> {
    static MODULES: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = MODULES.get_or_init(|| {
        let how = "install Node.js 18 or later and npm, with access to the npm registry";
        let home = cached("terse-gateway-express-1", |dir| {
            let _ = std::fs::remove_dir_all(dir);
            std::fs::create_dir_all(dir).map_err(|err| err.to_string())?;
            run(
                Command::new("npm")
                    .args(["install", "--prefix"])
                    .arg(dir)
                    .args(["--no-audit", "--no-fund", "--loglevel=error", EXPRESS]),
                &format!("`npm install {EXPRESS}`"),
                how,
            )
        })?;
        Command::new("node")
            .arg("--version")
            .output()
            .map_err(|err| format!("cannot run node ({err}); {how}"))?;
        Ok(home.join("node_modules"))
    });
    crate::prerequisite::require(found.clone())
}

/// The interpreter of the environment with [`MCP_SDK`], installing it on
/// first use; `None` when it cannot be had (see [`crate::prerequisite`]).
pub fn mcp_python() -> Option<PathBuf> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    crate::prerequisite::require(
        PYTHON
            .get_or_init(|| install("terse-gateway-mcp-venv-1", &[MCP_SDK]))
            .clone(),
    )
}

/// What the official SDK's client got from the MCP endpoint at `url`:
/// `{"session", "tools", "calls": [{"tool", "result"}]}`, sending
/// `X-Prefer-Format: prefer` unless `prefer` is empty, making `calls`
/// (`[[tool, arguments], ...]`) or, when `None`, the script's own. Blocks
/// until the client exits; a client that fails fails the test.
pub fn mcp_session(
    python: &Path,
    url: &str,
    prefer: &str,
    calls: Option<&serde_json::Value>,
) -> serde_json::Value {
    let mut command = Command::new(python);
    command.args([MCP_CLIENT, url, prefer]);
    if let Some(calls) = calls {
        command.arg(calls.to_string());
    }
    client_answer(&mut command)
}

/// The `calls` of what an MCP client script printed.
pub fn session_calls(session: &serde_json::Value) -> &[serde_json::Value] {
    session["calls"].as_array().expect("calls")
}

/// The first text block of a call's result.
pub fn text_of(call: &serde_json::Value) -> &str {
    call["result"]["content"][0]["text"]
        .as_str()
        .expect("a text block")
}

/// Runs a client script (`command`) to its end and gives the JSON document
/// it printed last; a client that fails fails the test.
pub fn client_answer(command: &mut Command) -> serde_json::Value {
    let output = command
        .stdin(Stdio::null())
        .output()
        .expect("run the MCP client");
    assert!(
        output.status.success(),
        "the MCP client {command:?} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or("");
    serde_json::from_str(last).unwrap_or_else(|err| panic!("{err}: {stdout}"))
}

/// The FastMCP server on stdio (see the script).
pub const MCP_STDIO_SCRIPT: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/python/mcp_stdio_server.py");

/// The SDK's stdio client (see the script).
pub const MCP_STDIO_CLIENT: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/python/mcp_stdio_client.py");

/// What the SDK's stdio client got from the server it starts with
/// `command`: `{"instructions", "tools", "calls": [{"tool", "arguments",
/// "result", "progress"}]}`, making `calls` (`[[tool, arguments], ...]`),
/// with `env` added to the environment. Blocks until the client exits; a
/// client that fails fails the test.
pub fn mcp_stdio_session(
    python: &Path,
    calls: &serde_json::Value,
    command: &[&std::ffi::OsStr],
    env: &[(&str, &std::ffi::OsStr)],
) -> serde_json::Value {
    client_answer(
        Command::new(python)
            .arg(MCP_STDIO_CLIENT)
            .arg(calls.to_string())
            .args(command)
            .envs(env.iter().copied()),
    )
}

/// The environment `name` in the temporary folder, with `packages`.
fn install(name: &str, packages: &[&str]) -> Result<PathBuf, String> {
    // A venv's scripts name its folder; the interpreter (`bin/python`) does
    // not depend on it, and that is all the tests run.
    let home = cached(name, |dir| install_venv(dir, packages).map(drop))?;
    Ok(home.join("bin").join("python"))
}

/// The folder `name` in the temporary folder, made by `build` once per
/// machine: in a folder of this process first, then renamed into place, so
/// test binaries that race each other never see a half-made one.
pub(crate) fn cached(
    name: &str,
    build: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<PathBuf, String> {
    let home = std::env::temp_dir().join(name);
    if home.join("ready").exists() {
        return Ok(home);
    }
    let building = std::env::temp_dir().join(format!("{name}-build-{}", std::process::id()));
    build(&building)?;
    std::fs::write(building.join("ready"), b"").map_err(|err| err.to_string())?;
    if std::fs::rename(&building, &home).is_err() {
        // Another process got there first.
        let _ = std::fs::remove_dir_all(&building);
        if !home.join("ready").exists() {
            return Err(format!("cannot move {} into place", home.display()));
        }
    }
    Ok(home)
}

/// Runs an install step; the error says what failed (the last line it
/// wrote) and `how` to provide what is missing.
pub(crate) fn run(command: &mut Command, what: &str, how: &str) -> Result<(), String> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot run {what} ({err}); {how}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
    Err(format!("{what} failed ({}: {last}); {how}", output.status))
}

/// Makes a fresh virtual environment at `dir` (`python3 -m venv`) with
/// `packages` installed from PyPI, and gives its interpreter. The error
/// says what failed and what to install, for
/// [`prerequisite::require`](crate::prerequisite::require).
pub fn install_venv(dir: &Path, packages: &[&str]) -> Result<PathBuf, String> {
    let _ = std::fs::remove_dir_all(dir);
    let run = |command: &mut Command, what: &str| run(command, what, HOW);
    run(
        Command::new("python3").args(["-m", "venv"]).arg(dir),
        "`python3 -m venv`",
    )?;
    let python = dir.join("bin").join("python");
    run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(packages),
        &format!("`pip install {}`", packages.join(" ")),
    )?;
    Ok(python)
}

/// A script of `tests/python/` running under uvicorn; stopped when dropped
/// (and, should the test process die, when its standard input closes).
pub struct PythonUpstream {
    child: Child,
    stdin: Option<ChildStdin>,
    addr: SocketAddr,
}

impl PythonUpstream {
    /// Starts the upstream on a free port, or on `port`. `None` when the
    /// environment cannot be installed (see [`crate::prerequisite`]).
    pub fn start(port: Option<u16>) -> Option<PythonUpstream> {
        let python = crate::prerequisite::require(python())?;
        let port = port.map(|port| port.to_string());
        Some(Self::spawn(&python, SCRIPT, port.as_slice()))
    }

    /// Starts the MCP server on a free port, its endpoint at `/mcp`:
    /// answering with event streams, or with plain JSON when
    /// `json_response`. `None` as [`mcp_python`].
    pub fn start_mcp(json_response: bool) -> Option<PythonUpstream> {
        let python = mcp_python()?;
        let args: &[&str] = if json_response {
            &["--json-response"]
        } else {
            &[]
        };
        Some(Self::spawn(&python, MCP_SCRIPT, args))
    }

    fn spawn(python: &Path, script: &str, args: &[impl AsRef<std::ffi::OsStr>]) -> PythonUpstream {
        let mut command = Command::new(python);
        command.arg(script).args(args);
        Self::spawn_command(command)
    }

    /// Starts the script `name` of `tests/frameworks/` under `program`
    /// (the frameworks' Python, or `node`) with `env` set. The script binds
    /// a free port, prints `port N` and exits when its standard input
    /// closes.
    pub fn start_framework(program: &Path, name: &str, env: &[(&str, &Path)]) -> PythonUpstream {
        let mut command = Command::new(program);
        command.arg(framework_script(name));
        for (key, value) in env {
            command.env(key, value);
        }
        Self::spawn_command(command)
    }

    fn spawn_command(mut command: Command) -> PythonUpstream {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the Python upstream");
        let stdin = child.stdin.take();
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("upstream stdout"))
            .read_line(&mut line)
            .expect("read the upstream's port");
        let port: u16 = line
            .trim()
            .strip_prefix("port ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("the Python upstream did not start: {line:?}"));
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        // The socket is bound before uvicorn listens on it.
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the Python upstream does not accept connections on {addr}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        PythonUpstream { child, stdin, addr }
    }

    /// Its address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for PythonUpstream {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The gateway of `config` (TOML) in front of `upstream`, served in the
/// background on a free loopback port until the returned handle is
/// aborted (or the runtime ends). Gives its base URL.
pub async fn spawn_gateway(config: &str, upstream: &str) -> (String, tokio::task::JoinHandle<()>) {
    let config = terse_gateway::Config::parse("test.toml", config).expect("test config");
    let service = config.gateway(config.upstream(upstream).expect("upstream URL"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let url = format!("http://{}", listener.local_addr().expect("local address"));
    let options = config.server_options();
    let task = tokio::spawn(terse_gateway::serve(
        listener,
        service,
        options,
        std::future::pending(),
    ));
    (url, task)
}
