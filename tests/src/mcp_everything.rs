//! `@modelcontextprotocol/server-everything`, the MCP reference servers'
//! test server (every feature of the protocol, over stdio), installed from
//! the npm registry once per machine and run under Node.js.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The npm package.
pub const PACKAGE: &str = "@modelcontextprotocol/server-everything";
/// The version the tests run.
pub const VERSION: &str = "2026.8.31";

/// The SDK client that calls everything it lists (see the script).
pub const CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/python/mcp_everything_client.py"
);

/// The command that starts the server on stdio (`node .../index.js
/// stdio`), installing it on first use: in a folder of this process, then
/// renamed into place, so racing test binaries never see half an install.
/// `None` (after reporting the missing prerequisite) without node, npm or
/// the registry.
pub fn command() -> Option<Vec<String>> {
    let home = installed(PACKAGE, VERSION)?;
    Some(vec![
        "node".to_owned(),
        script(&home, PACKAGE).to_string_lossy().into_owned(),
        "stdio".to_owned(),
    ])
}

/// The entry script of `package` installed in `home`.
pub fn script(home: &std::path::Path, package: &str) -> PathBuf {
    home.join("node_modules")
        .join(package)
        .join("dist")
        .join("index.js")
}

/// The folder where the npm `package` at `version` is installed, installing
/// it on first use: in a folder of this process, then renamed into place,
/// so racing test binaries never see half an install. `None` (after
/// reporting the missing prerequisite) without node, npm or the registry.
pub fn installed(package: &str, version: &str) -> Option<PathBuf> {
    let name = package.replace(['@', '/'], "-");
    let home = std::env::temp_dir().join(format!("terse-{name}-{version}"));
    if !home.join("ready").exists() {
        let building = std::env::temp_dir().join(format!(
            "terse-{name}-{version}-build-{}",
            std::process::id()
        ));
        crate::prerequisite::require(install(&building, &format!("{package}@{version}")))?;
        let _ = std::fs::write(building.join("ready"), b"");
        if std::fs::rename(&building, &home).is_err() {
            let _ = std::fs::remove_dir_all(&building);
        }
    }
    let node_works = Command::new("node").arg("--version").output().is_ok();
    if !node_works {
        crate::prerequisite::missing("cannot run `node`; install Node.js 18 or later");
        return None;
    }
    Some(home)
}

fn install(dir: &PathBuf, spec: &str) -> Result<(), String> {
    let how = "install Node.js 18 or later and npm, with access to the npm registry";
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|err| err.to_string())?;
    let output = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(dir)
        .arg(spec)
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot run `npm` ({err}); {how}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    Err(format!(
        "`npm install {spec}` failed ({}: {first}); {how}",
        output.status
    ))
}
