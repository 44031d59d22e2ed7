//! The server process: started with piped stdin and stdout in a process
//! group of its own, relayed both ways, stopped when the client leaves,
//! its exit status passed on. Signals and the final kill reach the whole
//! group, so nothing the server started outlives the proxy.

use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tower_terse::mcp::Session;

use super::relay::{Busy, Direction, relay};

/// How long the server's output may stay quiet, once it exited, before
/// the proxy stops waiting for more (a grandchild can hold its stdout
/// open for ever). A rewrite in flight is waited for beyond it, up to the
/// `drain` bound.
const QUIET: Duration = Duration::from_secs(2);

/// How the proxy stops: the server's grace periods and the longest wait
/// for its last answers once it exited.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// After stdin closes, and again after SIGTERM, before the next step.
    pub grace: Duration,
    /// The most the proxy waits, once the server exited, for what it
    /// wrote to be rewritten and reach the client.
    pub drain: Duration,
}

/// Runs `command` behind the proxy until it exits; its exit code, or why
/// it could not start.
pub async fn run(command: &[OsString], session: Session, timing: Timing) -> Result<u8, String> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| "no command: give it after `--`".to_owned())?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    // Its own group, led by the server: every process it starts is in it
    // unless it leaves on purpose, and the whole group gets the signals.
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command
        .spawn()
        .map_err(|err| format!("cannot start {}: {err}", program.to_string_lossy()))?;
    let group = Group::of(&child);
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("the server's stdio is not piped".to_owned());
    };
    let mut to_server = tokio::spawn(relay(
        tokio::io::stdin(),
        child_in,
        session.clone(),
        Direction::ToServer,
        Busy::default(),
    ));
    let busy = Busy::default();
    let mut to_client = tokio::spawn(relay(
        child_out,
        tokio::io::stdout(),
        session,
        Direction::ToClient,
        busy.clone(),
    ));
    let mut signals = Signals::new();
    let mut client_open = true;
    let status = loop {
        tokio::select! {
            status = child.wait() => break status.map_err(|err| err.to_string())?,
            // The relay closed the server's stdin: the client is done.
            _ = &mut to_server, if client_open => {
                client_open = false;
                break stop(&mut child, &group, timing.grace).await?;
            }
            signal = signals.next() => group.signal(signal),
        }
    };
    if client_open {
        to_server.abort();
    }
    // What the server left running is asked to stop now; what it wrote
    // before it exited still goes to the client.
    group.terminate();
    drain(&mut to_client, &busy, timing.drain).await;
    group.gone_within(timing.grace).await;
    group.kill();
    Ok(exit_code(status))
}

/// Waits for the server's last output to reach the client: until its
/// stdout ends, or stays quiet for [`QUIET`] with no rewrite in flight, or
/// `bound` passed.
async fn drain(to_client: &mut JoinHandle<bool>, busy: &Busy, bound: Duration) {
    let deadline = tokio::time::Instant::now() + bound;
    loop {
        let wait = QUIET.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
        if tokio::time::timeout(wait, &mut *to_client).await.is_ok() {
            return;
        }
        if !busy.load(Ordering::SeqCst) || tokio::time::Instant::now() >= deadline {
            to_client.abort();
            return;
        }
    }
}

/// The client left and the server's stdin is closed: it gets `grace` to
/// exit, then SIGTERM (to its group) and `grace` again, then SIGKILL.
async fn stop(child: &mut Child, group: &Group, grace: Duration) -> Result<ExitStatus, String> {
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status.map_err(|err| err.to_string());
    }
    group.terminate();
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status.map_err(|err| err.to_string());
    }
    group.kill();
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

/// The server's process group (its id is the server's pid).
#[cfg(unix)]
struct Group(Option<rustix::process::Pid>);

#[cfg(unix)]
impl Group {
    fn of(child: &Child) -> Group {
        Group(
            child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .and_then(rustix::process::Pid::from_raw),
        )
    }

    /// Sends `signal` to every process of the group.
    fn signal(&self, signal: rustix::process::Signal) {
        if let Some(group) = self.0 {
            // The group may be gone already: nothing to do.
            let _ = rustix::process::kill_process_group(group, signal);
        }
    }

    fn terminate(&self) {
        self.signal(rustix::process::Signal::TERM);
    }

    fn kill(&self) {
        self.signal(rustix::process::Signal::KILL);
    }

    /// Waits, at most `grace`, for the group to have no process left.
    async fn gone_within(&self, grace: Duration) {
        let Some(group) = self.0 else {
            return;
        };
        let deadline = tokio::time::Instant::now() + grace;
        while rustix::process::test_kill_process_group(group).is_ok()
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[cfg(not(unix))]
struct Group;

#[cfg(not(unix))]
impl Group {
    fn of(_: &Child) -> Group {
        Group
    }
    fn signal(&self, (): ()) {}
    fn terminate(&self) {}
    fn kill(&self) {}
    async fn gone_within(&self, _: Duration) {}
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
