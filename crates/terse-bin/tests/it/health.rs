//! `terse gateway` as an orchestrator runs it: `/healthz` and `/readyz` on
//! the metrics listener follow the upstream (down, up, down), and SIGTERM
//! or SIGINT stop accepting at once, let the request in flight finish and
//! exit 0.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::support::{addresses, gateway_logging, json_upstream, read_head, stop_and_read_log};

/// A `terse gateway` process with a metrics listener; killed when dropped.
struct Gateway {
    child: Child,
    addr: String,
    metrics: String,
    dir: PathBuf,
}

impl Gateway {
    /// Starts the gateway in front of `upstream` with `[gateway]` settings
    /// `extra`, and reads both addresses it prints.
    fn start(name: &str, upstream: SocketAddr, extra: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("terse-health-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("terse.toml");
        std::fs::write(
            &config,
            format!("[gateway]\nupstream = \"http://{upstream}\"\nlisten = \"127.0.0.1:0\"\nmetrics_listen = \"127.0.0.1:0\"\n{extra}"),
        )
        .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_terse"))
            .args(["gateway", "--config"])
            .arg(&config)
            .env("RUST_LOG", "off")
            .stdout(Stdio::piped())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let [addr, metrics]: [String; 2] = addresses(&mut child, 2).try_into().unwrap();
        Gateway {
            child,
            addr,
            metrics,
            dir,
        }
    }

    fn signal(&self, signal: rustix::process::Signal) {
        let pid = rustix::process::Pid::from_raw(i32::try_from(self.child.id()).unwrap()).unwrap();
        rustix::process::kill_process(pid, signal).unwrap();
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// GET `path` over a connection of its own: the status code and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut client = TcpStream::connect(addr).unwrap();
    write!(
        client,
        "GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    client.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_owned())
}

#[test]
fn readiness_follows_the_upstream_and_liveness_does_not() {
    // A port with nothing behind it: the upstream is down.
    let upstream = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let gateway = Gateway::start("follows", upstream, "");
    assert_eq!(get(&gateway.metrics, "/healthz"), (200, "ok\n".to_owned()));
    assert_eq!(
        get(&gateway.metrics, "/readyz"),
        (503, "not ready: upstream unreachable\n".to_owned())
    );

    // The upstream comes up: a listening socket takes connections into its
    // backlog, which is all the probe asks.
    let listening = TcpListener::bind(upstream).unwrap();
    assert_eq!(
        get(&gateway.metrics, "/readyz"),
        (200, "ready\n".to_owned())
    );
    assert_eq!(get(&gateway.metrics, "/healthz"), (200, "ok\n".to_owned()));

    // And goes down again.
    drop(listening);
    assert_eq!(get(&gateway.metrics, "/readyz").0, 503);
    assert_eq!(get(&gateway.metrics, "/healthz").0, 200);
    // The probes are the metrics listener's only other paths.
    assert_eq!(get(&gateway.metrics, "/readyz/x").0, 404);
}

/// An upstream that answers its one request only when told to; says when
/// the request has arrived.
fn held_upstream() -> (SocketAddr, mpsc::Receiver<()>, mpsc::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (arrived_tx, arrived) = mpsc::channel();
    let (release, release_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        read_head(&mut stream);
        arrived_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{\"ok\":true}")
            .unwrap();
    });
    (addr, arrived, release)
}

#[test]
fn a_stop_signal_refuses_new_clients_finishes_the_request_in_flight_and_exits_0() {
    use rustix::process::Signal;
    for (name, signal) in [("term", Signal::TERM), ("int", Signal::INT)] {
        let (upstream, arrived, release) = held_upstream();
        let mut gateway = Gateway::start(name, upstream, "shutdown_timeout = \"5m\"\n");
        let mut client = TcpStream::connect(&gateway.addr).unwrap();
        client
            .write_all(b"GET /slow?format=toon HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .unwrap();
        arrived.recv().unwrap();

        gateway.signal(signal);
        // New clients are refused while the request is still in flight.
        let mut attempts = 0;
        while TcpStream::connect(&gateway.addr).is_ok() {
            attempts += 1;
            assert!(attempts < 1000, "{name}: still accepting");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(
            get(&gateway.metrics, "/readyz"),
            (503, "not ready: shutting down\n".to_owned()),
            "{name}"
        );
        assert_eq!(get(&gateway.metrics, "/healthz").0, 200, "{name}");
        assert!(
            gateway.child.try_wait().unwrap().is_none(),
            "{name}: it waits for the request"
        );

        release.send(()).unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{name}: {answer}");
        // Rewritten as asked: the layer saw the whole body.
        assert!(answer.ends_with("\r\n\r\nok: true"), "{name}: {answer}");
        // Then it exits 0 on its own, long before the 5-minute timeout.
        let status = gateway.child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{name}: {status}");
    }
}

#[test]
fn a_stop_signal_writes_out_the_request_lines_still_held() {
    let upstream = json_upstream(r#"{"ok":true}"#.to_owned());
    let mut child = gateway_logging(upstream, "terse_gateway=info");
    let [addr]: [String; 1] = addresses(&mut child, 1).try_into().unwrap();
    let paths = ["/first", "/second", "/last"];
    for path in paths {
        assert_eq!(get(&addr, path).0, 200, "{path}");
    }
    // At once, well before the next periodic flush.
    let log = stop_and_read_log(child);
    // Every request's line, each whole and in the order they were answered.
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(" request ")).collect();
    assert_eq!(lines.len(), paths.len(), "{log}");
    for (line, path) in lines.iter().zip(paths) {
        assert!(line.contains(&format!("path={path} ")), "{line}");
        assert!(line.contains("status=200"), "{line}");
        assert!(line.ends_with("complete=true"), "{line}");
    }
}
