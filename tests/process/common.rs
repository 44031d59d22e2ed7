//! What the process tests share: a gateway in the background, and the
//! process's resident size.

use std::net::SocketAddr;

use terse_gateway::Config;
use tokio::net::TcpListener;

/// A gateway in the background and the config it was made from; stopped
/// when dropped.
pub(crate) struct Gateway {
    pub(crate) addr: SocketAddr,
    pub(crate) config: Config,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Gateway {
    /// A gateway of `config` (a file's text) in front of `upstream`.
    pub(crate) async fn start(config: &str, upstream: &str) -> Gateway {
        let config = Config::parse("test.toml", config).expect("test config");
        let service = config.gateway(config.upstream(upstream).expect("upstream URL"));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local address");
        let task = tokio::spawn(terse_gateway::serve(
            listener,
            service,
            config.server_options(),
            std::future::pending(),
        ));
        Gateway { addr, config, task }
    }

    /// The URL of `path` on this gateway.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// The process's resident size, in bytes (Linux's `VmRSS`).
pub(crate) fn rss_bytes() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
