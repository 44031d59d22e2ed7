//! The bounds a config file's values are checked against.

/// The largest config file read: a config of every key with hundreds of
/// resources fits many times over.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

/// Most `[[route]]` tables a config may declare, and most `[[resource]]`
/// tables ([`MAX_MCP_ENTRIES`](tower_terse::mcp::MAX_MCP_ENTRIES) bounds
/// `[[mcp.tool]]`).
pub const MAX_RESOURCES: usize = 1024;

/// The largest byte limit a config may set for one body (`[layer]`,
/// `[[route]]` and `[mcp]` alike).
pub const MAX_BODY_BYTES: usize = tower_terse::settings::MAX_BODY_BYTES;

/// The default of `[gateway] max_buffered_bytes`, the memory budget of all
/// rewrites in flight: 256 MiB, tower-terse's
/// [`MEMORY_BUDGET_BYTES`](tower_terse::defaults::MEMORY_BUDGET_BYTES).
pub const DEFAULT_BUFFERED_BYTES: usize = tower_terse::defaults::MEMORY_BUDGET_BYTES;

/// The range of `[gateway] max_buffered_bytes`: 1 MiB to 64 GiB (on
/// 64-bit), tower-terse's [`BudgetSize`](tower_terse::settings::BudgetSize)'s.
pub const MIN_BUFFERED_BYTES: usize = tower_terse::settings::BudgetSize::MIN.get();
/// See [`MIN_BUFFERED_BYTES`].
pub const MAX_BUFFERED_BYTES: usize = tower_terse::settings::BudgetSize::MAX.get();
