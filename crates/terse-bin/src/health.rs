//! `GET /healthz` and `GET /readyz` on the metrics listener, for the probes
//! of an orchestrator: on a listener of their own, they never shadow a path
//! of the upstream.
//!
//! `/healthz` answers 200 as long as the process serves at all. `/readyz`
//! answers 200 while the gateway accepts connections and the upstream takes
//! a TCP connection within [`PROBE_TIMEOUT`], else 503: traffic should go
//! to another replica then. The config was loaded before either exists.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http::StatusCode;
use terse_gateway::Upstream;

/// How long `/readyz` waits for the upstream to take a connection: well
/// inside a probe's usual one-second budget on a healthy network.
const PROBE_TIMEOUT: Duration = Duration::from_millis(800);

/// What `/readyz` looks at; clones share the accepting flag.
#[derive(Debug, Clone)]
pub struct Health {
    upstream: Upstream,
    accepting: Arc<AtomicBool>,
}

impl Health {
    /// The health of a gateway in front of `upstream` whose listener is
    /// bound and accepting.
    pub fn new(upstream: Upstream) -> Self {
        Health {
            upstream,
            accepting: Arc::new(AtomicBool::new(true)),
        }
    }

    /// The gateway stops accepting (a shutdown began): not ready from now on.
    pub fn stopping(&self) {
        self.accepting.store(false, Ordering::Relaxed);
    }

    /// The answer to `path`, when it is one of the probes.
    pub async fn answer(&self, path: &str) -> Option<(StatusCode, &'static str)> {
        match path {
            "/healthz" => Some((StatusCode::OK, "ok\n")),
            "/readyz" => Some(self.readiness().await),
            _ => None,
        }
    }

    async fn readiness(&self) -> (StatusCode, &'static str) {
        if !self.accepting.load(Ordering::Relaxed) {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "not ready: shutting down\n",
            )
        } else if self.upstream.reachable(PROBE_TIMEOUT).await {
            (StatusCode::OK, "ready\n")
        } else {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "not ready: upstream unreachable\n",
            )
        }
    }
}
