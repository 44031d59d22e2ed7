//! Reading a config file and placing its errors: what both readers of the
//! file share, the gateway's [`Config`](super::Config) and `terse mcp`
//! (which reads its `[mcp]`, `[layer]` and `[gateway] max_buffered_bytes`).
//!
//! These live with the gateway's config rather than in tower-terse: the
//! file, its size bound and its TOML are the gateway's format, and the
//! layer crate reads no files.

use std::io::Read as _;
use std::path::Path;

use super::bounds::MAX_CONFIG_BYTES;

/// The text of the file at `path`, reading at most one byte past
/// [`MAX_CONFIG_BYTES`], so that a huge file (or `/dev/zero`) is refused
/// without being read whole.
///
/// ```
/// use terse_gateway::config::file::read_capped;
///
/// let text = read_capped("../../examples/gateway/terse.toml".as_ref())?;
/// assert!(text.contains("[gateway]"));
/// assert!(read_capped("/no/such/file".as_ref()).unwrap_err().starts_with("cannot read: "));
/// # Ok::<(), String>(())
/// ```
///
/// # Errors
///
/// What is wrong, without the file's name: `cannot read: ...`,
/// `larger than 1048576 bytes` or `not UTF-8`.
pub fn read_capped(path: &Path) -> Result<String, String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| {
            file.take(MAX_CONFIG_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        })
        .map_err(|err| format!("cannot read: {err}"))?;
    if bytes.len() > MAX_CONFIG_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())
}

/// Why a text past [`MAX_CONFIG_BYTES`] is refused, read or given.
pub(super) fn too_large() -> String {
    format!("larger than {MAX_CONFIG_BYTES} bytes")
}

/// The 1-based line and column (in characters) of byte `offset` of
/// `source`, such as the start of a toml error's span. An offset past the
/// end is the end; one inside a character is that character.
///
/// ```
/// use terse_gateway::config::file::position;
///
/// assert_eq!(position("[layer]\nmax_fields = \"many\"\n", 21), (2, 14));
/// assert_eq!(position("é = 1", 2), (1, 2));
/// assert_eq!(position("a\n", 99), (2, 1));
/// ```
pub fn position(source: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(source.len());
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let start = source[..end].rfind('\n').map_or(0, |newline| newline + 1);
    let line = 1 + source[..start].matches('\n').count();
    (line, 1 + source[start..end].chars().count())
}
