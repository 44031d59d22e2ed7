//! The server process: started with piped stdin and stdout, relayed both
//! ways, stopped when the client leaves, its exit status passed on.

use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::{Child, Command};
use tower_terse::mcp::Session;

use super::relay::{Direction, relay};

/// How long the server's last output may take to reach the client after
/// it exited (a grandchild can hold its stdout open for ever).
const DRAIN: Duration = Duration::from_secs(2);

/// Runs `command` behind the proxy until it exits; its exit code, or why
/// it could not start.
pub async fn run(command: &[OsString], session: Session, grace: Duration) -> Result<u8, String> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| "no command: give it after `--`".to_owned())?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|err| format!("cannot start {}: {err}", program.to_string_lossy()))?;
    let limit = session.max_message_bytes();
    let session = Arc::new(Mutex::new(session));
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("the server's stdio is not piped".to_owned());
    };
    let mut to_server = tokio::spawn(relay(
        tokio::io::stdin(),
        child_in,
        session.clone(),
        Direction::ToServer,
        limit,
    ));
    let mut to_client = tokio::spawn(relay(
        child_out,
        tokio::io::stdout(),
        session,
        Direction::ToClient,
        limit,
    ));
    let mut signals = Signals::new();
    let mut client_open = true;
    let status = loop {
        tokio::select! {
            status = child.wait() => break status.map_err(|err| err.to_string())?,
            // The relay closed the server's stdin: the client is done.
            _ = &mut to_server, if client_open => {
                client_open = false;
                break stop(&mut child, grace).await?;
            }
            signal = signals.next() => forward(&child, signal),
        }
    };
    if client_open {
        to_server.abort();
    }
    // What the server wrote before it exited still goes to the client.
    if tokio::time::timeout(DRAIN, &mut to_client).await.is_err() {
        to_client.abort();
    }
    Ok(exit_code(status))
}

/// The client left and the server's stdin is closed: it gets `grace` to
/// exit, then SIGTERM and `grace` again, then SIGKILL.
async fn stop(child: &mut Child, grace: Duration) -> Result<ExitStatus, String> {
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status.map_err(|err| err.to_string());
    }
    terminate(child);
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status.map_err(|err| err.to_string());
    }
    let _ = child.start_kill();
    child.wait().await.map_err(|err| err.to_string())
}

/// The proxy's exit code for the server's status: its code, or 128 plus
/// the signal that killed it.
fn exit_code(status: ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code & 0xff).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return u8::try_from(128 + (signal & 0x7f)).unwrap_or(1);
        }
    }
    1
}

#[cfg(unix)]
fn terminate(child: &mut Child) {
    forward(child, rustix::process::Signal::TERM);
}

#[cfg(not(unix))]
fn terminate(child: &mut Child) {
    let _ = child.start_kill();
}

#[cfg(unix)]
fn forward(child: &Child, signal: rustix::process::Signal) {
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        // The server may have exited in the meantime: nothing to do.
        let _ = rustix::process::kill_process(pid, signal);
    }
}

/// SIGINT, SIGTERM and SIGHUP received by the proxy, to forward.
#[cfg(unix)]
struct Signals {
    interrupt: Option<tokio::signal::unix::Signal>,
    terminate: Option<tokio::signal::unix::Signal>,
    hangup: Option<tokio::signal::unix::Signal>,
}

#[cfg(unix)]
impl Signals {
    fn new() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        Signals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
            hangup: signal(SignalKind::hangup()).ok(),
        }
    }

    async fn next(&mut self) -> rustix::process::Signal {
        use rustix::process::Signal;
        tokio::select! {
            () = received(&mut self.interrupt) => Signal::INT,
            () = received(&mut self.terminate) => Signal::TERM,
            () = received(&mut self.hangup) => Signal::HUP,
        }
    }
}

/// Waits for the signal; for ever when it could not be listened to.
#[cfg(unix)]
async fn received(signal: &mut Option<tokio::signal::unix::Signal>) {
    if let Some(signal) = signal {
        if signal.recv().await.is_some() {
            return;
        }
    }
    std::future::pending().await
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new() -> Self {
        Signals
    }

    async fn next(&mut self) -> () {
        std::future::pending().await
    }
}

#[cfg(not(unix))]
fn forward(_: &Child, (): ()) {}
