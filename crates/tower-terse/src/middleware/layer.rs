//! [`TerseLayer`] and its builder methods.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use tower_layer::Layer;

use super::headers::VaryNames;
use super::route_resource::RouteResource;
use super::{LayerConfig, Terse};
use crate::compact::{CompactLine, CompactResource, RouteError};
use crate::format::Format;
use crate::settings::{RouteSettings, Settings};

use crate::toon::EncodeOptions;

/// A tower layer that serves JSON responses as TOON or compact lines when a
/// client asks for it, with an `X-Token-Count` header.
///
/// ```
/// use axum::{Json, Router, routing::get};
/// use tower_terse::{Format, TerseLayer};
///
/// let app: Router = Router::new()
///     .route("/users", get(|| async { Json(serde_json::json!([{"id": 1}])) }))
///     .layer(TerseLayer::new().default_format(Format::Json).max_body_bytes(1 << 20));
/// ```
///
/// Cloning is cheap: the configuration sits behind an `Arc`.
#[derive(Debug, Clone, Default)]
pub struct TerseLayer {
    config: Arc<LayerConfig>,
    /// The configuration services are made with, resolved once: axum's
    /// `Router::layer` wraps every route, and they share one rewrite memo.
    /// A builder call starts a new one.
    resolved: Arc<OnceLock<Arc<LayerConfig>>>,
}

impl TerseLayer {
    /// A layer with the defaults: JSON unless asked, 8 MiB limit, TOON with
    /// commas and two-space indent, smart fallback on, list keys `data`,
    /// `results`, `items`, `records`, `rows`, `entries`, id key `id`, `?format=`, `?fields=`, `X-Prefer-Format`.
    pub fn new() -> Self {
        Self::default()
    }

    fn config(&mut self) -> &mut LayerConfig {
        self.resolved = Arc::default();
        Arc::make_mut(&mut self.config)
    }

    /// Lays `settings` over the layer's: each setting given replaces the
    /// layer's, each `None` leaves it. How a configuration file sets the
    /// layer up ([`Settings`] deserializes with serde).
    ///
    /// ```
    /// use tower_terse::{Settings, TerseLayer};
    ///
    /// let layer = TerseLayer::new().settings(&Settings::new().smart_fallback(false));
    /// # drop(layer);
    /// ```
    pub fn settings(mut self, settings: &Settings) -> Self {
        self.config().apply(settings);
        self
    }

    /// The format served when a request asks for none.
    pub fn default_format(mut self, format: Format) -> Self {
        self.config().default_format = format;
        self
    }

    /// The largest body the layer reads to rewrite; larger bodies stream
    /// through unchanged. Default: 8 MiB.
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.config().max_body_bytes = limit;
        self
    }

    /// The largest body the layer writes when it rewrites: a TOON text or a
    /// compact envelope that would be larger is not finished, and the JSON
    /// goes out unchanged. Default: the same as
    /// [`max_body_bytes`](Self::max_body_bytes).
    ///
    /// TOON indents every level of nesting, so a deeply nested body can grow
    /// many times over as TOON; this keeps the memory of a rewrite within a
    /// known bound whatever the handler returns.
    ///
    /// ```
    /// let layer = tower_terse::TerseLayer::new().max_body_bytes(1 << 20).max_output_bytes(2 << 20);
    /// ```
    pub fn max_output_bytes(mut self, limit: usize) -> Self {
        self.config().max_output_bytes = Some(limit);
        self
    }

    /// Rewrites whose work comes to at least this many bytes run on
    /// tokio's blocking thread pool rather than on the async worker that
    /// polls the response, so a few costly rewrites cannot stall every
    /// other request on a small runtime. Default: 256 KiB.
    ///
    /// The work is counted before the rewrite starts, in one pass over the
    /// body: the body and the output it may write (TOON indents each line
    /// by its depth, so 80 KB nested 60 levels writes a megabyte), and,
    /// with [`exact_token_count`](Self::exact_token_count), the bytes it
    /// counts, weighted by what exact counting costs. A near tie of the
    /// smart fallback, which counts both renderings exactly, is weighed
    /// when it is met, on both texts' lengths: if its counts would take
    /// the work to this threshold, they run on the blocking pool. A body
    /// read past this many bytes in one go is read where the runtime lets
    /// it block, too.
    ///
    /// Needs the `tokio` feature (on by default) and a tokio runtime; without
    /// either, every rewrite runs in place. `usize::MAX` keeps every rewrite
    /// in place.
    ///
    /// ```
    /// let layer = tower_terse::TerseLayer::new().offload_threshold(64 * 1024);
    /// ```
    pub fn offload_threshold(mut self, bytes: usize) -> Self {
        self.config().offload_threshold = bytes;
        self
    }

    /// How many rewrites run off the async workers at once (see
    /// [`offload_threshold`](Self::offload_threshold)); a rewrite past
    /// them waits for one to finish, holding no thread, up to
    /// [`max_rewrite_wait`](Self::max_rewrite_wait). Default: the
    /// number of cores. This gives the layer a limit of its own; to share
    /// one with other layers, see [`blocking_limit`](Self::blocking_limit).
    ///
    /// Each rewrite of an 8 MiB body holds the body, its parse and its
    /// output, some tens of MiB, and takes a core: this caps what a flood
    /// of costly requests can hold and take at once.
    ///
    /// ```
    /// let layer = tower_terse::TerseLayer::new().max_concurrent_rewrites(4);
    /// ```
    pub fn max_concurrent_rewrites(mut self, rewrites: usize) -> Self {
        let config = self.config();
        config.limit = crate::blocking::BlockingLimit::new(rewrites).with_wait(config.limit.wait());
        self
    }

    /// How long a rewrite waits for one of the
    /// [`max_concurrent_rewrites`](Self::max_concurrent_rewrites) slots.
    /// Past it the body goes out unchanged (complete, counted, with its
    /// usual headers), [`Outcome::fallback`](crate::Outcome::fallback) says
    /// [`Fallback::Busy`](crate::outcome::Fallback::Busy), and
    /// [`BlockingLimit::busy`](crate::settings::BlockingLimit::busy) (and
    /// `terse_rewrites_busy_total` with the `metrics` feature) counts it.
    /// Default: [`defaults::REWRITE_WAIT`](crate::defaults::REWRITE_WAIT),
    /// 500 ms.
    ///
    /// The wait is timed on a timer thread of its own (futures-timer's),
    /// so it needs neither tokio's `time` feature nor a runtime built with
    /// its time driver.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let layer = tower_terse::TerseLayer::new().max_rewrite_wait(Duration::from_millis(100));
    /// ```
    pub fn max_rewrite_wait(mut self, wait: Duration) -> Self {
        let config = self.config();
        config.limit = config.limit.clone().with_wait(wait);
        self
    }

    /// The [`BlockingLimit`](crate::settings::BlockingLimit) this layer's rewrites
    /// take their slots from, in place of one of its own: give the same
    /// one to every layer (and `McpLayer` (the `mcp` feature)) of a
    /// process so that together they run at most its slots at once.
    ///
    /// ```
    /// use tower_terse::TerseLayer;
    /// use tower_terse::settings::BlockingLimit;
    ///
    /// let limit = BlockingLimit::per_core();
    /// let api = TerseLayer::new().blocking_limit(limit.clone());
    /// let admin = TerseLayer::new().blocking_limit(limit);
    /// # drop((api, admin));
    /// ```
    pub fn blocking_limit(mut self, limit: crate::blocking::BlockingLimit) -> Self {
        self.config().limit = limit;
        self
    }

    /// The [`BlockingLimit`](crate::settings::BlockingLimit) this layer's rewrites
    /// take their slots from: for work of a service inside the layer (a
    /// proxy inflating its upstream's answers) to share it.
    ///
    /// ```
    /// use tower_terse::TerseLayer;
    /// use tower_terse::settings::BlockingLimit;
    ///
    /// let layer = TerseLayer::new().blocking_limit(BlockingLimit::new(3));
    /// assert_eq!(layer.limit().slots(), 3);
    /// ```
    pub fn limit(&self) -> &crate::blocking::BlockingLimit {
        &self.config.limit
    }

    /// The bound on the bytes all rewrites in flight hold together: each
    /// body read, with what rendering it may take (its parsed document and
    /// output: an upper bound counted from the body's values and depth
    /// before it starts, up to hundreds of bytes per value where a
    /// `?fields=` projection or compact lines build a `serde_json` tree),
    /// then each rewritten body until the client has taken it. A rewrite
    /// that would pass it is not started (or, for a body of unknown length,
    /// given up on mid-read): the response goes out unchanged, and the
    /// refusal is counted ([`MemoryBudget::refused`],
    /// and `terse_budget_refusals_total` with the `metrics` feature) and
    /// logged. Share one budget between layers (and an `McpLayer`, with
    /// the `mcp` feature) to bound them together.
    /// Default: none.
    ///
    /// ```
    /// use tower_terse::TerseLayer;
    /// use tower_terse::settings::MemoryBudget;
    ///
    /// let budget = MemoryBudget::new(256 << 20);
    /// let layer = TerseLayer::new().memory_budget(budget.clone());
    /// assert_eq!(budget.in_use(), 0);
    /// ```
    ///
    /// [`MemoryBudget::refused`]: crate::settings::MemoryBudget::refused
    pub fn memory_budget(mut self, budget: crate::budget::MemoryBudget) -> Self {
        self.config().budget = Some(budget);
        self
    }

    /// The memory budget set with [`memory_budget`](Self::memory_budget),
    /// for the services inside the layer that buffer too (a proxy keeping
    /// its upstream's compressed bytes).
    ///
    /// ```
    /// use tower_terse::{TerseLayer, settings::MemoryBudget};
    ///
    /// assert!(TerseLayer::new().budget().is_none());
    /// let layer = TerseLayer::new().memory_budget(MemoryBudget::new(1 << 20));
    /// assert_eq!(layer.budget().map(MemoryBudget::limit), Some(1 << 20));
    /// ```
    pub fn budget(&self) -> Option<&crate::budget::MemoryBudget> {
        self.config.budget.as_ref()
    }

    /// How many bytes the rewrite memo may hold; `0` turns it off.
    /// Default: [`defaults::REWRITE_MEMO_BYTES`](crate::defaults::REWRITE_MEMO_BYTES), 4 MiB.
    ///
    /// Agents read the same lists again and again (polling, retries,
    /// several agents on one resource). The memo keeps recent rewrites
    /// (`?format=toon`, `?format=compact`, `?fields=`, near ties counted
    /// exactly) so that a response whose body bytes and rendering inputs
    /// equal a recent one's gets the same body and headers at the cost of
    /// a lookup: no parse, no render, no count, no blocking-pool slot.
    /// Only deterministic outcomes are kept (rewritten, or JSON kept by the
    /// smart fallback or a limit); never an answer that was busy, refused
    /// by the budget or otherwise depends on load. A plain JSON body read
    /// only to be counted keeps its count the same way.
    ///
    /// - The key is every input the rendering reads, and the body bytes
    ///   are compared in full on each hit: a hash collision never serves
    ///   another body's rendering. `HEAD` shares `GET`'s entry.
    /// - Entries are partitioned by the request's `Authorization`,
    ///   `Proxy-Authorization` and `Cookie` (as a shared HTTP cache is,
    ///   RFC 9111 §3.5): one credential's hit never comes from another's
    ///   rewrite, so how fast an answer comes tells no client what another
    ///   read.
    /// - The bound counts each entry's body, output and key; an entry over
    ///   a sixteenth of it is not kept. With a
    ///   [`memory_budget`](Self::memory_budget), the memo holds its bytes
    ///   against the budget only while they fit, and gives them back
    ///   whenever a rewrite needs them: it never causes a refusal.
    ///
    /// Counted, with the `metrics` feature, as
    /// `terse_rewrite_memo_hits_total` and `terse_rewrite_memo_misses_total`.
    /// All services a layer makes (every route of an axum `Router`) share
    /// one memo.
    ///
    /// ```
    /// use tower_terse::TerseLayer;
    ///
    /// let smaller = TerseLayer::new().rewrite_memo_bytes(1 << 20);
    /// let off = TerseLayer::new().rewrite_memo_bytes(0);
    /// # drop((smaller, off));
    /// ```
    pub fn rewrite_memo_bytes(mut self, bytes: usize) -> Self {
        self.config().rewrite_memo_bytes = bytes;
        self
    }

    /// Whether the layer reads `?fields=` (sparse fieldsets). Default: on.
    ///
    /// Off, the parameter is the handler's: the layer neither projects nor
    /// refuses anything for it.
    ///
    /// ```
    /// let layer = tower_terse::TerseLayer::new().fields_enabled(false);
    /// ```
    pub fn fields_enabled(mut self, enabled: bool) -> Self {
        self.config().fields_enabled = enabled;
        self
    }

    /// The most paths a `?fields=` list may name (`a,b.c` names two).
    /// A longer list is refused with a 400 `fields_too_complex`. Default: 64.
    ///
    /// ```
    /// let layer = tower_terse::TerseLayer::new().max_fields(16).max_field_depth(4).max_fields_length(512);
    /// ```
    pub fn max_fields(mut self, paths: usize) -> Self {
        self.config().fields_limits.max_paths = paths;
        self
    }

    /// The most segments a path of `?fields=` may have (`a.b.c` has three).
    /// A deeper path is refused with a 400 `fields_too_complex`. Default: 8.
    pub fn max_field_depth(mut self, segments: usize) -> Self {
        self.config().fields_limits.max_depth = segments;
        self
    }

    /// The longest `?fields=` value, in bytes once percent-decoded. A longer
    /// one is refused with a 400 `fields_too_complex`. Default: 1024.
    pub fn max_fields_length(mut self, bytes: usize) -> Self {
        self.config().fields_limits.max_length = bytes;
        self
    }

    /// Read and count plain JSON responses that nobody asked to rewrite, so
    /// that every 2xx JSON response known to be complete and small carries
    /// `X-Token-Count`: one with an exact size (a declared
    /// `Content-Length`, a body held whole such as axum's `Json`) of at
    /// most 1 MiB and at most [`max_body_bytes`](Self::max_body_bytes).
    /// Default: on.
    ///
    /// The body is sent as the handler made it, byte for byte, once read
    /// (it is counted as sent, without checking that it parses). Any other
    /// plain body (chunked, larger) is sent on as it comes, never held back,
    /// and carries no count: it may be a stream (NDJSON or a long poll
    /// served as `application/json`). Turn this off for services that want
    /// plain JSON streamed straight through always; streams (SSE, NDJSON),
    /// non-JSON, compressed and over-limit bodies always are.
    ///
    /// ```
    /// let streaming = tower_terse::TerseLayer::new().count_plain_responses(false);
    /// ```
    pub fn count_plain_responses(mut self, enabled: bool) -> Self {
        self.config().count_plain = enabled;
        self
    }

    /// Whether a request body sent as TOON (`Content-Type: text/toon` or
    /// `application/toon`, any parameters) is decoded into JSON before the
    /// service sees it. Default: on.
    ///
    /// The service gets `Content-Type: application/json` and a
    /// `Content-Length` for the JSON; TOON that does not decode (strictly)
    /// is a 400 in the error envelope with its line and column, a body over
    /// `max_body_bytes` (or decoding to more JSON than `max_output_bytes`)
    /// a 413, a compressed one a 415; the service is not called. Requests
    /// of any other type, and those without a body, pass untouched. The
    /// tokens before and after are left in the response's extensions as
    /// [`RequestTokens`](crate::RequestTokens).
    ///
    /// ```
    /// let layer = tower_terse::TerseLayer::new().decode_toon_requests(false);
    /// ```
    pub fn decode_toon_requests(mut self, enabled: bool) -> Self {
        self.config().decode_toon_requests = enabled;
        self
    }

    /// The longest the layer waits between two reads of a TOON request
    /// body it decodes, and the grace before
    /// [`request_body_min_rate`](Self::request_body_min_rate) applies.
    /// Default: 20 seconds (as Apache's `RequestReadTimeout body=20`); zero for no deadline. A body that is late is answered
    /// 408 and gives back what it held of the memory budget. The wait is
    /// ended by tokio's timer (the `tokio` feature, in a runtime with its
    /// time driver); without one a late body is refused only when it next
    /// sends bytes, and one that stops for good is left to the server's
    /// own timeouts (it holds only the bytes it sent).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let layer = tower_terse::TerseLayer::new().request_body_timeout(Duration::from_secs(5));
    /// ```
    pub fn request_body_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.config().request_body_timeout = timeout;
        self
    }

    /// The slowest a TOON request body may arrive, in bytes a second: after
    /// the first [`request_body_timeout`](Self::request_body_timeout), each
    /// `rate` bytes received buy one more second. Default: 500 (as Apache's
    /// `MinRate=500`); 0 for no minimum.
    ///
    /// ```
    /// let layer = tower_terse::TerseLayer::new().request_body_min_rate(4096);
    /// ```
    pub fn request_body_min_rate(mut self, rate: u64) -> Self {
        self.config().request_body_min_rate = rate;
        self
    }

    /// How TOON is written (delimiter, indent).
    ///
    /// ```
    /// use tower_terse::{TerseLayer, toon::{Delimiter, EncodeOptions}};
    ///
    /// let layer = TerseLayer::new()
    ///     .toon_options(EncodeOptions::new().with_delimiter(Delimiter::Tab));
    /// ```
    pub fn toon_options(mut self, options: EncodeOptions) -> Self {
        self.config().render.toon_options = options;
        self
    }

    /// Serve the original JSON when TOON would not take fewer tokens. Default: on.
    pub fn smart_fallback(mut self, enabled: bool) -> Self {
        self.config().render.smart_fallback = enabled;
        self
    }

    /// Count `X-Token-Count` (and weigh the smart fallback) with the
    /// o200k_base tokenizer instead of the built-in estimate. Default: off.
    ///
    /// Exact counting runs at tens of MB/s against the estimate's GB/s, so
    /// it suits services whose agents budget by the header; the estimate is
    /// within a few percent on typical API text (see [`crate::tokens`]).
    /// Needs the `exact-tokens` feature.
    ///
    /// ```
    /// let layer = tower_terse::TerseLayer::new().exact_token_count(true);
    /// ```
    #[cfg(feature = "exact-tokens")]
    pub fn exact_token_count(mut self, enabled: bool) -> Self {
        self.config().render.exact_tokens = enabled;
        self
    }

    /// The keys under which an object body holds its list of records, tried
    /// in order. Default: `data`, `results`, `items`, `records`, `rows`, `entries`
    /// ([`defaults::LIST_KEYS`](crate::defaults::LIST_KEYS)).
    pub fn list_keys<I, K>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = K>,
        K: Into<String>,
    {
        self.config().list_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// The key that identifies a record; `?fields=` always keeps it. Default:
    /// `id` ([`defaults::ID_KEY`](crate::defaults::ID_KEY)).
    pub fn id_key(mut self, key: impl Into<String>) -> Self {
        self.config().id_key = key.into();
        self
    }

    /// The query parameter that names a format. Default: `format`.
    pub fn format_param(mut self, name: impl Into<String>) -> Self {
        self.config().format_param = name.into();
        self
    }

    /// The query parameter that lists fields to keep. Default: `fields`.
    pub fn fields_param(mut self, name: impl Into<String>) -> Self {
        self.config().fields_param = name.into();
        self
    }

    /// The request header that names a format. Default: `X-Prefer-Format`.
    ///
    /// ```
    /// use http::HeaderName;
    /// use tower_terse::TerseLayer;
    ///
    /// let layer = TerseLayer::new().prefer_header(HeaderName::from_static("x-agent-format"));
    /// ```
    pub fn prefer_header(mut self, name: HeaderName) -> Self {
        let config = self.config();
        config.vary = VaryNames::new(HeaderValue::from(name.clone()));
        config.prefer_header = name;
        self
    }

    /// Serves `format=compact` on the routes matching `pattern` as lines of
    /// the [`CompactLine`] type `T`: one line per record, plus their ids.
    ///
    /// ```
    /// use axum::{Json, Router, body::Body, routing::get};
    /// use http_body_util::BodyExt;
    /// use serde::{Deserialize, Serialize};
    /// use serde_json::json;
    /// use tower_terse::{CompactLine, TerseLayer};
    /// use tower::ServiceExt;
    ///
    /// #[derive(Serialize, Deserialize, CompactLine)]
    /// #[compact(noun = "event", line = "{start_at|time} {title}{? @ {room}}")]
    /// struct Event {
    ///     id: u32,
    ///     title: String,
    ///     start_at: String,
    ///     room: Option<String>,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let app = Router::new()
    ///     .route("/users/{user}/events", get(|| async {
    ///         Json(json!({
    ///             "data": [
    ///                 {"id": 7, "title": "Standup", "start_at": "2026-03-02T09:00:00Z", "room": "4.12"},
    ///                 {"id": 9, "title": "Review", "start_at": "2026-03-02T14:30:00Z", "room": null},
    ///             ],
    ///             "meta": {"total": 57, "offset": 0},
    ///         }))
    ///     }))
    ///     .layer(TerseLayer::new().resource::<Event>("/users/{id}/events"));
    ///
    /// let request = http::Request::get("/users/ada/events?format=compact")
    ///     .body(Body::empty())
    ///     .unwrap();
    /// let response = app.oneshot(request).await.unwrap();
    /// assert_eq!(response.headers()["content-type"], "application/json");
    /// let body = response.into_body().collect().await.unwrap().to_bytes();
    /// let envelope: serde_json::Value = serde_json::from_slice(&body).unwrap();
    /// assert_eq!(envelope, json!({
    ///     "format": "compact",
    ///     "summary": "2 of 57 events",
    ///     "lines": ["09:00 Standup @ 4.12", "14:30 Review"],
    ///     "ids": [7, 9],
    ///     "meta": {"total": 57, "offset": 0, "has_more": true},
    /// }));
    /// # }
    /// ```
    ///
    /// # Routes
    ///
    /// `pattern` is in axum syntax (`/api/v1/events`, `/users/{id}/events`,
    /// `/files/{*rest}`); parameter names need not match the router's. Under
    /// axum (the `axum` feature) the route the router matched
    /// (`MatchedPath`) is looked up first; otherwise, or when nothing was
    /// registered for that route (a layer inside `nest`, on a plain tower
    /// service), the request path is matched and the most specific pattern
    /// wins (static segments before parameters before catch-alls). A second
    /// registration for a pattern of the same shape replaces the first.
    ///
    /// # What a compact request gets
    ///
    /// - A registered route, a 2xx JSON body that is a list (a root array,
    ///   or an object holding the list under one of the
    ///   [`list_keys`](Self::list_keys)): the envelope
    ///   `{"format":"compact","summary":"20 of 57 events","lines":[...],"ids":[...],"meta":{...}}`
    ///   as compact JSON with `Content-Type: application/json`, and an
    ///   `X-Token-Count` that counts the envelope. `ids[i]` is the full id of
    ///   `lines[i]`, read from the type's id key as written (string or
    ///   number).
    /// - `summary`: the count and the noun, `1 event`, `3 events`, or
    ///   `20 of 57 events` when the body gives a larger total (`total`,
    ///   `total_count` or `totalCount`, in `meta` or beside the list).
    /// - `meta`: the body's `meta` object, or else its other top-level keys;
    ///   left out when there is nothing to carry. `has_more` is added (unless
    ///   the body has one) when a total is known: `offset + count < total`,
    ///   the offset read from `offset` or from `page` (1-based) times
    ///   `per_page` / `page_size` / `limit`; no offset counts as 0.
    /// - A change set ([`Changes`](crate::changes::Changes)) answering a
    ///   request with a `since` query parameter: one line per change
    ///   prefixed `+ ` (created), `~ ` (updated) or `- ` (deleted), in that
    ///   order. Without `since` the body is read as any other.
    /// - A body that is not a list (a single-object route): the JSON,
    ///   silently. An unregistered route: the JSON, silently.
    /// - A record that does not fit `T` (a field of the wrong type, no id,
    ///   not an object): the JSON unchanged, and a `tracing` warning naming
    ///   the registered route, the request path and the reason (`record 3:
    ///   field `attendees`: expected u32, found a string`), never the
    ///   record's values, at most once a minute per route. One bad record
    ///   never breaks a response.
    /// - Errors, non-JSON, compressed, streamed or oversized bodies: untouched,
    ///   as for every format. `fields` with compact: a 400 error envelope.
    ///
    /// Filters render in fixed units: `bytes` is decimal (1 KB = 1000 B:
    /// `512B`, `2.3MB`), `ago` is measured from the time the response is
    /// rendered and rounds down (seconds under a minute, minutes under an
    /// hour, hours under a day, days under a week, weeks under 30 days,
    /// months of 30 days under 365 days, then years; `in 2d` ahead). See
    /// [`Template`](crate::compact::Template) for the whole language.
    ///
    /// # Panics
    ///
    /// When `pattern` is not a valid route pattern (it must start with `/`,
    /// a parameter must be a whole segment with a name, a catch-all must be
    /// last), like axum's `Router::route`: it is a mistake in the program,
    /// found when the layer is built.
    #[track_caller]
    pub fn resource<T: CompactLine>(self, pattern: &str) -> Self {
        self.compact_resource(pattern, CompactResource::of::<T>())
    }

    /// Serves `format=compact` on the routes matching `pattern` with a
    /// run-time resource: a [`Template`](crate::compact::Template) and a noun,
    /// for services without Rust types (templates from configuration). It
    /// behaves as [`resource`](Self::resource) does, except that a record
    /// only has to be an object with an id: fields a template names are
    /// allowed to be missing.
    ///
    /// ```
    /// use tower_terse::TerseLayer;
    /// use tower_terse::compact::{CompactResource, Template};
    ///
    /// let notes = CompactResource::new("note", Template::parse("{title}{? ({tags|join(/)})}")?)
    ///     .with_id_key("slug");
    /// let layer = TerseLayer::new().compact_resource("/api/v1/notes", notes);
    /// # Ok::<(), tower_terse::compact::TemplateError>(())
    /// ```
    ///
    /// # Panics
    ///
    /// When `pattern` is not a valid route pattern, as for
    /// [`resource`](Self::resource).
    #[track_caller]
    pub fn compact_resource(mut self, pattern: &str, resource: CompactResource) -> Self {
        match self.try_compact_resource(pattern, resource) {
            Ok(_) => self,
            #[allow(
                clippy::panic,
                reason = "documented: a bad pattern in code is a bug, like axum's"
            )]
            Err(err) => panic!("TerseLayer: {err}"),
        }
    }

    /// [`compact_resource`](Self::compact_resource) for a pattern that comes from
    /// configuration: an invalid pattern is an error, not a panic.
    ///
    /// ```
    /// use tower_terse::TerseLayer;
    /// use tower_terse::compact::{CompactResource, Template};
    ///
    /// let mut layer = TerseLayer::new();
    /// let notes = CompactResource::new("note", Template::parse("{title}")?);
    /// let err = layer.try_compact_resource("notes/{", notes.clone()).unwrap_err();
    /// assert!(err.to_string().contains("notes/{"));
    /// // The layer is still there, unchanged by the refused call.
    /// layer.try_compact_resource("/notes", notes).unwrap();
    /// # Ok::<(), tower_terse::compact::TemplateError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`RouteError`] when `pattern` is not a valid route pattern.
    pub fn try_compact_resource(
        &mut self,
        pattern: &str,
        resource: CompactResource,
    ) -> Result<&mut Self, RouteError> {
        let resource = RouteResource {
            pattern: pattern.to_owned(),
            resource,
        };
        self.config()
            .resources
            .insert(pattern, Arc::new(resource))?;
        Ok(self)
    }

    /// Settings of their own for the routes matching `pattern` (axum
    /// syntax, matched as for [`resource`](Self::resource)): a default
    /// format, `fields` on or off, limits, plain counting, the smart
    /// fallback, TOON options, or the layer turned off there. What
    /// [`RouteSettings`] leaves unset follows the layer's settings, whatever
    /// the order of the builder calls; a request matching no such pattern
    /// gets the layer's. A second registration for a pattern of the same
    /// shape replaces the first.
    ///
    /// ```
    /// use axum::{Json, Router, body::Body, routing::get};
    /// use tower_terse::{Format, TerseLayer};
    /// use tower_terse::settings::RouteSettings;
    /// use tower::ServiceExt;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let app = Router::new()
    ///     .route("/stats", get(|| async {
    ///         let days: Vec<_> = (1..=30).map(|day| serde_json::json!({"day": day, "hits": day * 7})).collect();
    ///         Json(days)
    ///     }))
    ///     .layer(TerseLayer::new().route("/stats", RouteSettings::new().default_format(Format::Toon)));
    ///
    /// let response = app.oneshot(http::Request::get("/stats").body(Body::empty()).unwrap()).await.unwrap();
    /// assert_eq!(response.headers()["content-type"], "text/toon; charset=utf-8");
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// When `pattern` is not a valid route pattern, as for
    /// [`resource`](Self::resource); [`try_route`](Self::try_route) answers
    /// an error instead.
    #[track_caller]
    pub fn route(mut self, pattern: &str, settings: RouteSettings) -> Self {
        match self.try_route(pattern, settings) {
            Ok(_) => self,
            #[allow(
                clippy::panic,
                reason = "documented: a bad pattern in code is a bug, like axum's"
            )]
            Err(err) => panic!("TerseLayer: {err}"),
        }
    }

    /// [`route`](Self::route) for a pattern that comes from configuration:
    /// an invalid pattern is an error, and the layer stays as it was.
    ///
    /// ```
    /// use tower_terse::TerseLayer;
    /// use tower_terse::settings::RouteSettings;
    ///
    /// let mut layer = TerseLayer::new();
    /// for pattern in ["/api/logs", "/api/{"] {
    ///     if let Err(err) = layer.try_route(pattern, RouteSettings::new().enabled(false)) {
    ///         assert!(err.to_string().contains("/api/{"));
    ///     }
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// A [`RouteError`] when `pattern` is not a valid route pattern.
    pub fn try_route(
        &mut self,
        pattern: &str,
        settings: RouteSettings,
    ) -> Result<&mut Self, RouteError> {
        self.config().routes.register(pattern, settings)?;
        Ok(self)
    }
}

impl<S> Layer<S> for TerseLayer {
    type Service = Terse<S>;

    fn layer(&self, inner: S) -> Self::Service {
        // Route settings are laid over the layer's only now, so that the
        // order of the builder calls does not matter.
        let config = self
            .resolved
            .get_or_init(|| Arc::new(self.config.resolve()))
            .clone();
        Terse::from_parts(inner, config)
    }
}
