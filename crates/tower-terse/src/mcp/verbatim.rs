//! Tools whose results are a file's content (or a fetched page, a diff):
//! the model may quote that text back verbatim (an edit's "old text"), so
//! it is never rewritten unless configured otherwise; see
//! [`McpLayer::verbatim_tools`](super::McpLayer::verbatim_tools).

/// Whether any of `patterns` matches `name` whole.
pub(crate) fn matches_any(patterns: &[String], name: &str) -> bool {
    patterns.iter().any(|pattern| glob(pattern, name))
}

/// `*`-only glob matching, whole name: the classic two-pointer walk that
/// backtracks to the last `*` only, so its work is at most the product of
/// the two lengths (patterns are configuration, short) and never recurses.
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ni));
            pi += 1;
        } else if pi < p.len() && p[pi] == n[ni] {
            pi += 1;
            ni += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&b| b == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_names() {
        assert!(glob("read_file", "read_file"));
        assert!(!glob("read_file", "read_files"));
        assert!(glob("git_diff*", "git_diff_staged"));
        assert!(glob("git_diff*", "git_diff"));
        assert!(glob("*_file_contents", "get_file_contents"));
        assert!(!glob("*_file_contents", "get_file_contents_x"));
        assert!(glob("*a*b*", "xxaxxbxx"));
        assert!(!glob("*a*b*", "xxbxxaxx"));
        assert!(glob("*", ""));
        assert!(!glob("", "x"));
    }

    #[test]
    fn the_defaults_cover_the_reference_servers_reads() {
        let defaults: Vec<String> = crate::defaults::MCP_VERBATIM_TOOLS
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        for name in [
            "read_file",
            "read_text_file",
            "read_multiple_files",
            "git_show",
            "git_diff_unstaged",
            "fetch",
        ] {
            assert!(matches_any(&defaults, name), "{name}");
        }
        for name in [
            "list_directory",
            "directory_tree",
            "git_log",
            "search_files",
        ] {
            assert!(!matches_any(&defaults, name), "{name}");
        }
    }
}
