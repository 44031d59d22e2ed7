//! Every default of the layers, in one place.
//!
//! Each builder method of [`TerseLayer`](crate::TerseLayer) (and of
//! `McpLayer`, with the `mcp` feature) says which of these it starts from;
//! a configuration file's key left out keeps the same value.
//!
//! ```
//! use std::time::Duration;
//! use tower_terse::defaults;
//!
//! assert_eq!(defaults::MAX_BODY_BYTES, 8 << 20);
//! assert_eq!(defaults::REWRITE_WAIT, Duration::from_millis(500));
//! assert_eq!(defaults::ID_KEY, "id");
//! ```

use std::time::Duration;

use http::HeaderName;

/// [`TerseLayer::max_body_bytes`](crate::TerseLayer::max_body_bytes): 8 MiB.
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// [`TerseLayer::offload_threshold`](crate::TerseLayer::offload_threshold): 256 KiB.
pub const OFFLOAD_THRESHOLD: usize = 256 * 1024;

/// [`TerseLayer::max_rewrite_wait`](crate::TerseLayer::max_rewrite_wait):
/// half a second.
pub const REWRITE_WAIT: Duration = Duration::from_millis(500);

/// [`TerseLayer::request_body_timeout`](crate::TerseLayer::request_body_timeout):
/// 20 seconds, as Apache's `RequestReadTimeout body=20`.
pub const REQUEST_BODY_TIMEOUT: Duration = Duration::from_secs(20);

/// [`TerseLayer::request_body_min_rate`](crate::TerseLayer::request_body_min_rate):
/// 500 bytes a second, as Apache's `MinRate=500`.
pub const REQUEST_BODY_MIN_RATE: u64 = 500;

/// The [`MemoryBudget`](crate::settings::MemoryBudget) of a configuration
/// file that sets none: 256 MiB, the default of `max_buffered_bytes` for
/// `terse gateway` and `terse mcp`
/// ([`BudgetSize::default`](crate::settings::BudgetSize)). A layer given
/// no budget has no bound.
pub const MEMORY_BUDGET_BYTES: usize = 256 << 20;

/// [`TerseLayer::rewrite_memo_bytes`](crate::TerseLayer::rewrite_memo_bytes): 4 MiB.
pub const REWRITE_MEMO_BYTES: usize = 4 << 20;

/// [`TerseLayer::max_fields`](crate::TerseLayer::max_fields): 64 paths.
pub const MAX_FIELDS: usize = 64;

/// [`TerseLayer::max_field_depth`](crate::TerseLayer::max_field_depth): 8 segments.
pub const MAX_FIELD_DEPTH: usize = 8;

/// [`TerseLayer::max_fields_length`](crate::TerseLayer::max_fields_length): 1 KiB.
pub const MAX_FIELDS_LENGTH: usize = 1024;

/// The keys a list is looked for under in an object body, in order:
/// [`TerseLayer::list_keys`](crate::TerseLayer::list_keys).
pub const LIST_KEYS: &[&str] = &["data", "results", "items", "records", "rows", "entries"];

/// The key a record's id is read from unless the type or resource names
/// another: [`TerseLayer::id_key`](crate::TerseLayer::id_key), the derive's
/// and [`CompactResource::new`](crate::compact::CompactResource::new)'s.
pub const ID_KEY: &str = terse_template::DEFAULT_ID_KEY;

/// [`TerseLayer::format_param`](crate::TerseLayer::format_param).
pub const FORMAT_PARAM: &str = "format";

/// [`TerseLayer::fields_param`](crate::TerseLayer::fields_param).
pub const FIELDS_PARAM: &str = "fields";

/// [`TerseLayer::prefer_header`](crate::TerseLayer::prefer_header), as
/// written in `Vary`.
pub const PREFER_HEADER: &str = "X-Prefer-Format";

/// [`PREFER_HEADER`] as the header name the layers look requests up by
/// (lowercase, as HTTP/2 writes it): `McpLayer`'s too, and what `terse
/// gateway` keeps from the upstream.
///
/// ```
/// use tower_terse::defaults::{PREFER_HEADER, PREFER_HEADER_NAME};
///
/// assert!(PREFER_HEADER_NAME.as_str().eq_ignore_ascii_case(PREFER_HEADER));
/// ```
pub const PREFER_HEADER_NAME: HeaderName = HeaderName::from_static("x-prefer-format");

/// `McpLayer::max_request_bytes` (the `mcp` feature): 1 MiB.
pub const MCP_MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// `McpLayer::max_message_bytes` (the `mcp` feature): 8 MiB.
pub const MCP_MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

/// `McpLayer::verbatim_tools` (the `mcp` feature): the tool name patterns
/// left verbatim, the read tools of the reference filesystem server, git's
/// `git_show` and diffs, fetch's `fetch`, and the common `*_file_contents`
/// (GitHub's `get_file_contents`). `*` matches any run of characters.
pub const MCP_VERBATIM_TOOLS: &[&str] = &[
    "read_file",
    "read_text_file",
    "read_multiple_files",
    "read_media_file",
    "*_file_contents",
    "git_show",
    "git_diff*",
    "fetch",
];
