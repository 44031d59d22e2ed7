//! Dot-segment removal (RFC 3986 §5.2.4) on a request path before the
//! upstream's prefix is joined to it.
//!
//! An upstream decodes `%2e` to `.` and often `%2f` to `/`, so
//! `/api/v1/..%2f..%2fadmin` would leave the prefix the gateway was told
//! to forward under. Segments are split on `/` and on `%2f`, a segment that
//! reads `.` or `..` once `%2e` is decoded is a dot segment, and a `..`
//! that would climb above the root is refused. Every other segment, and
//! the separator before it, is sent exactly as the client wrote it.

use std::borrow::Cow;

/// `path` (no query) with its dot segments resolved, or `None` when a `..`
/// would climb above `/`. A path without dot segments comes back as it is.
pub(crate) fn resolve(path: &str) -> Option<Cow<'_, str>> {
    // Most paths have none: they are looked at without allocating, and one
    // that starts with `/` and has neither `%` nor a `.` after a `/` (a
    // plain path, `/api/tasks.json`) has none without splitting it.
    if path.starts_with('/') && !has_dot_after_slash_or_escape(path.as_bytes()) {
        return Some(Cow::Borrowed(path));
    }
    if !split(path).any(|p| dot(p.segment).is_some()) {
        return Some(Cow::Borrowed(path));
    }
    let pieces: Vec<Piece<'_>> = split(path).collect();
    // Explicit stack of the segments kept: work and memory linear in the path.
    let mut kept: Vec<Piece<'_>> = Vec::with_capacity(pieces.len());
    let last = pieces.len().saturating_sub(1);
    for (i, piece) in pieces.into_iter().enumerate() {
        match dot(piece.segment) {
            Some(Dot::Parent) => {
                // The first piece is the empty segment before the leading `/`.
                if kept.len() <= 1 {
                    return None;
                }
                kept.pop();
            }
            Some(Dot::Current) => {}
            None => kept.push(piece),
        }
        // `/a/..` and `/a/.` end in a directory: `/`.
        if i == last && dot(piece.segment).is_some() {
            kept.push(Piece {
                separator: "/",
                segment: "",
            });
        }
    }
    let mut out = String::with_capacity(path.len());
    for piece in &kept {
        out.push_str(piece.separator);
        out.push_str(piece.segment);
    }
    if out.is_empty() {
        out.push('/');
    }
    Some(Cow::Owned(out))
}

#[derive(Clone, Copy)]
struct Piece<'a> {
    /// `""` for the first piece, else `/` or `%2f` as written.
    separator: &'a str,
    segment: &'a str,
}

enum Dot {
    Current,
    Parent,
}

/// The pieces of `path`, split on `/` and on `%2f` (any case).
fn split(path: &str) -> Pieces<'_> {
    Pieces {
        path,
        start: 0,
        separator: "",
        i: 0,
        done: false,
    }
}

/// The iterator [`split`] gives.
struct Pieces<'a> {
    path: &'a str,
    /// Where the current segment starts.
    start: usize,
    /// The separator before it.
    separator: &'a str,
    /// Where the search for the next separator is.
    i: usize,
    done: bool,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        if self.done {
            return None;
        }
        let (path, bytes) = (self.path, self.path.as_bytes());
        while self.i < bytes.len() {
            let i = self.i;
            let width = if bytes[i] == b'/' {
                1
            } else if bytes[i] == b'%'
                && bytes.get(i + 1) == Some(&b'2')
                && matches!(bytes.get(i + 2), Some(b'f' | b'F'))
            {
                3
            } else {
                self.i += 1;
                continue;
            };
            let piece = Piece {
                separator: self.separator,
                segment: &path[self.start..i],
            };
            self.separator = &path[i..i + width];
            self.i = i + width;
            self.start = self.i;
            return Some(piece);
        }
        self.done = true;
        Some(Piece {
            separator: self.separator,
            segment: &path[self.start..],
        })
    }
}

/// Whether `path` has a `%` (an escaped separator or dot may follow) or a
/// `.` right after a `/`: where a dot segment of a path that starts with
/// `/` must show.
fn has_dot_after_slash_or_escape(path: &[u8]) -> bool {
    let mut after_slash = false;
    for &b in path {
        if b == b'%' || (after_slash && b == b'.') {
            return true;
        }
        after_slash = b == b'/';
    }
    false
}

/// Whether `segment` is `.` or `..`, with any dot written as `%2e`.
fn dot(segment: &str) -> Option<Dot> {
    let mut rest = segment.as_bytes();
    let mut dots = 0;
    while !rest.is_empty() {
        if rest[0] == b'.' {
            rest = &rest[1..];
        } else if rest.len() >= 3
            && rest[0] == b'%'
            && rest[1] == b'2'
            && matches!(rest[2], b'e' | b'E')
        {
            rest = &rest[3..];
        } else {
            return None;
        }
        dots += 1;
    }
    match dots {
        1 => Some(Dot::Current),
        2 => Some(Dot::Parent),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn plain_paths_stay_as_written() {
        for path in ["/", "/api/tasks", "/a%2Fb", "/a/.../b", "/a/.b/c..", "//x"] {
            assert_eq!(resolve(path).as_deref(), Some(path));
        }
    }

    #[test]
    fn dot_segments_resolve() {
        let cases = [
            ("/a/../b", "/b"),
            ("/a/./b", "/a/b"),
            ("/a/b/..", "/a/"),
            ("/a/.", "/a/"),
            ("/a/%2e%2E/b", "/b"),
            ("/a/b%2f..%2fc", "/a%2fc"),
            ("/a/%2E/b", "/a/b"),
            ("/..", ""),
        ];
        for (path, want) in cases {
            if want.is_empty() {
                assert_eq!(resolve(path), None, "{path}");
            } else {
                assert_eq!(resolve(path).as_deref(), Some(want), "{path}");
            }
        }
    }

    #[test]
    fn climbing_above_the_root_is_refused() {
        for path in [
            "/../echo",
            "/a/../../echo",
            "/%2e%2e/echo",
            "/..%2f..%2fecho",
            "/a%2F..%2F..%2Fecho",
            "/.%2e/x",
        ] {
            assert_eq!(resolve(path), None, "{path}");
        }
    }

    /// The quick look at a plain path answers as splitting it does.
    #[test]
    fn the_quick_look_agrees_with_the_split() {
        let pieces = ["/", ".", "..", "a", "%2e", "%2f", "%2E", "x.y", "%", "b."];
        let mut paths = vec![String::new()];
        for _ in 0..4 {
            paths = paths
                .iter()
                .flat_map(|path| pieces.iter().map(move |piece| format!("{path}{piece}")))
                .collect();
            for path in &paths {
                let split = super::split(path).any(|p| super::dot(p.segment).is_some());
                if path.starts_with('/') && !super::has_dot_after_slash_or_escape(path.as_bytes()) {
                    assert!(!split, "{path}");
                }
            }
        }
    }

    #[test]
    fn long_paths_take_linear_work() {
        let path = "/a".repeat(50_000) + &"/..".repeat(50_000);
        assert_eq!(resolve(&path).as_deref(), Some("/"));
    }
}
