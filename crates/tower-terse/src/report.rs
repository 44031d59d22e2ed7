//! What the layers tell an operator about each response they counted (and
//! each MCP tool result they rewrote): one `tracing` event, and with the
//! `metrics` feature three counters.

use crate::format::Format;

/// Whether the counters are recorded ([`record_metrics`]).
#[cfg(feature = "metrics")]
static RECORDED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Whether the layers record their `metrics` counters: on unless turned
/// off. The `metrics` facade cannot tell whether a recorder is installed,
/// and without one each counted response still builds three labelled
/// keys; a process that installs no recorder turns the counters off, and
/// the work done only for them (the keys, the JSON's token count on a
/// rewrite) is skipped. Process-wide, like the recorder itself.
///
/// ```
/// // No `--metrics-listen`: nothing would read the counters.
/// tower_terse::proxy::record_metrics(false);
/// # tower_terse::proxy::record_metrics(true);
/// ```
#[cfg(feature = "metrics")]
pub fn record_metrics(recorded: bool) {
    RECORDED.store(recorded, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the counters are recorded: the `metrics` feature is on and
/// [`record_metrics`] did not turn them off.
fn metrics_recorded() -> bool {
    #[cfg(feature = "metrics")]
    return RECORDED.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(feature = "metrics"))]
    false
}

/// Whether a report would reach anyone: the `metrics` counters are
/// recorded, or a `tracing` subscriber wants the event. Work done only for
/// reports (the route label, the JSON's token count) waits on this.
pub(crate) fn wanted() -> bool {
    metrics_recorded() || tracing::enabled!(target: "terse", tracing::Level::DEBUG)
}

/// One counted response.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Report<'a> {
    /// The route pattern, `other` when there is none; never the raw path.
    /// For an MCP tool result, `mcp:` and the registered tool's name, or
    /// `mcp:other` (tool names come from requests: only registered ones
    /// become labels, so that their number stays bounded).
    pub(crate) route: &'a str,
    /// The format the client named, if it named one.
    pub(crate) asked: Option<Format>,
    /// The format the plan chose (asked, or the layer's default).
    pub(crate) planned: Format,
    /// The format sent.
    pub(crate) served: Format,
    pub(crate) bytes: usize,
    pub(crate) tokens: usize,
    /// What the handler's JSON costs, for the savings.
    pub(crate) json_tokens: usize,
}

impl<'a> Report<'a> {
    /// Emits the event (target `terse`, level debug) and, with the `metrics`
    /// feature, `terse_responses_total{route,format}`,
    /// `terse_tokens_total{route,format}` and `terse_json_tokens_total{route}`.
    pub(crate) fn emit(&self) {
        tracing::debug!(
            target: "terse",
            route = self.route,
            asked = self.asked.map_or("none", Format::as_str),
            served = self.served.as_str(),
            fallback = self.planned != self.served,
            bytes = self.bytes,
            tokens = self.tokens,
            json_tokens = self.json_tokens,
            "response counted"
        );
        #[cfg(feature = "metrics")]
        if metrics_recorded() {
            let route = metrics::SharedString::from(self.route.to_owned());
            let format = self.served.as_str();
            metrics::counter!("terse_responses_total", "route" => route.clone(), "format" => format)
                .increment(1);
            metrics::counter!("terse_tokens_total", "route" => route.clone(), "format" => format)
                .increment(self.tokens as u64);
            metrics::counter!("terse_json_tokens_total", "route" => route)
                .increment(self.json_tokens as u64);
        }
    }
}
