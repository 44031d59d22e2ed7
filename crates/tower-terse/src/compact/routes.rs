//! Route patterns in axum syntax, and the table that maps a request to what
//! was registered for its route.

use std::fmt;
use std::str::FromStr;

/// A route pattern as axum writes it: `/api/v1/events`, `/users/{id}/events`,
/// `/files/{*rest}`. Parameters are whole segments; `{*name}` (last only)
/// matches the rest of the path; `{{` and `}}` are literal braces.
///
/// A trailing slash is not significant: `/api/tickets/` and `/api/tickets`
/// are one pattern, which matches both paths (axum routes them apart, but a
/// resource registered with the slash would otherwise never match the route
/// without it, and compact would silently serve JSON).
///
/// ```text
/// let pattern = RoutePattern::parse("/users/{id}/events")?;
/// assert!(pattern.matches("/users/42/events"));
/// assert!(!pattern.matches("/users/42"));
/// assert!(!pattern.matches("/users//events"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoutePattern {
    source: String,
    segments: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Static(String),
    Param,
    CatchAll,
}

impl Part {
    /// Lower is more specific: axum prefers static segments to parameters,
    /// and parameters to catch-alls.
    fn rank(&self) -> u8 {
        match self {
            Part::Static(_) => 0,
            Part::Param => 1,
            Part::CatchAll => 2,
        }
    }
}

/// Why a route pattern is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteError {
    pattern: String,
    reason: &'static str,
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid route pattern `{}`: {}",
            self.pattern, self.reason
        )
    }
}

impl std::error::Error for RouteError {}

impl RoutePattern {
    /// Parses a pattern.
    ///
    /// # Errors
    ///
    /// A [`RouteError`] when the pattern does not start with `/`, a parameter
    /// is not a whole segment or has no name, or a catch-all is not last.
    pub fn parse(pattern: &str) -> Result<Self, RouteError> {
        let fail = |reason| RouteError {
            pattern: pattern.to_owned(),
            reason,
        };
        let Some(rest) = pattern.strip_prefix('/') else {
            return Err(fail("it must start with `/`"));
        };
        let rest = without_trailing_slash(rest);
        let raw: Vec<&str> = rest.split('/').collect();
        let mut segments = Vec::with_capacity(raw.len());
        for (i, segment) in raw.iter().enumerate() {
            let part = classify(segment).ok_or_else(|| {
                fail("a parameter must be a whole segment, `{name}` or `{*name}`, with a name")
            })?;
            if part == Part::CatchAll && i + 1 != raw.len() {
                return Err(fail("a catch-all `{*name}` must be the last segment"));
            }
            segments.push(part);
        }
        Ok(RoutePattern {
            source: pattern.to_owned(),
            segments,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether a request path (no query string) matches. A parameter matches
    /// one non-empty segment, a catch-all one or more characters.
    pub fn matches(&self, path: &str) -> bool {
        let Some(rest) = path.strip_prefix('/') else {
            return false;
        };
        let mut rest = without_trailing_slash(rest);
        let last = self.segments.len().saturating_sub(1);
        for (i, part) in self.segments.iter().enumerate() {
            let (segment, tail) = match (rest.split_once('/'), i == last) {
                _ if *part == Part::CatchAll => return !rest.is_empty(),
                (Some(split), false) => split,
                (None, true) => (rest, ""),
                _ => return false,
            };
            let ok = match part {
                Part::Static(text) => segment == text,
                _ => !segment.is_empty(),
            };
            if !ok {
                return false;
            }
            rest = tail;
        }
        true
    }

    /// Whether `other` (a pattern string such as axum's `MatchedPath`) has
    /// the same shape: the same static segments, and parameters where this
    /// one has parameters, whatever their names.
    pub fn same_shape(&self, other: &str) -> bool {
        let Some(rest) = other.strip_prefix('/') else {
            return false;
        };
        let mut theirs = without_trailing_slash(rest).split('/');
        for part in &self.segments {
            match theirs.next().and_then(classify) {
                Some(p) if p == *part => {}
                _ => return false,
            }
        }
        theirs.next().is_none()
    }

    fn ranks(&self) -> impl Iterator<Item = u8> + '_ {
        self.segments.iter().map(Part::rank)
    }
}

/// A path or pattern after its leading `/`, without one trailing `/`: the
/// root (`/`, empty here) stays as it is.
fn without_trailing_slash(rest: &str) -> &str {
    rest.strip_suffix('/').unwrap_or(rest)
}

fn classify(segment: &str) -> Option<Part> {
    let unescaped = segment.replace("{{", "").replace("}}", "");
    if !unescaped.contains(['{', '}']) {
        return Some(Part::Static(segment.replace("{{", "{").replace("}}", "}")));
    }
    let inner = segment.strip_prefix('{')?.strip_suffix('}')?;
    let (part, name) = match inner.strip_prefix('*') {
        Some(name) => (Part::CatchAll, name),
        None => (Part::Param, inner),
    };
    (!name.is_empty() && !name.contains(['{', '}', '*'])).then_some(part)
}

impl FromStr for RoutePattern {
    type Err = RouteError;

    fn from_str(pattern: &str) -> Result<Self, Self::Err> {
        RoutePattern::parse(pattern)
    }
}

impl fmt::Display for RoutePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Route patterns mapped to values (for the layer: a
/// [`CompactResource`](super::CompactResource) per route).
///
/// ```text
/// let mut routes = RouteTable::new();
/// routes.insert("/users/{id}/events", "events")?;
/// routes.insert("/users/me/events", "my events")?;
///
/// // By request path: the most specific pattern wins, as in axum.
/// assert_eq!(routes.lookup(None, "/users/42/events"), Some(&"events"));
/// assert_eq!(routes.lookup(None, "/users/me/events"), Some(&"my events"));
/// // By axum's `MatchedPath`: parameter names need not agree.
/// assert_eq!(routes.lookup(Some("/users/{user}/events"), "/users/me/events"), Some(&"events"));
/// assert_eq!(routes.lookup(None, "/users"), None);
/// ```
#[derive(Debug, Clone)]
pub(crate) struct RouteTable<T> {
    routes: Vec<(RoutePattern, T)>,
}

impl<T> Default for RouteTable<T> {
    fn default() -> Self {
        RouteTable { routes: Vec::new() }
    }
}

impl<T> RouteTable<T> {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `value` for `pattern`, replacing what a pattern of the same
    /// shape held before.
    ///
    /// # Errors
    ///
    /// A [`RouteError`] when the pattern is invalid.
    pub fn insert(&mut self, pattern: &str, value: T) -> Result<(), RouteError> {
        let pattern = RoutePattern::parse(pattern)?;
        match self
            .routes
            .iter_mut()
            .find(|(existing, _)| existing.same_shape(pattern.as_str()))
        {
            Some(slot) => *slot = (pattern, value),
            None => self.routes.push((pattern, value)),
        }
        Ok(())
    }

    /// What was registered for a request. `matched` is axum's `MatchedPath`
    /// when the router set one: a registered pattern of the same shape wins.
    /// Otherwise (or when none has that shape) `path` is matched against
    /// every pattern and the most specific match wins (static segments before
    /// parameters before catch-alls, left to right).
    #[cfg(test)]
    pub fn lookup(&self, matched: Option<&str>, path: &str) -> Option<&T> {
        self.lookup_route(matched, path).map(|(_, value)| value)
    }

    /// As [`lookup`](Self::lookup), with the registered pattern that won
    /// (for logs that name the route).
    ///
    /// ```text
    ///
    /// let mut routes = RouteTable::new();
    /// routes.insert("/users/{id}/events", "events")?;
    /// let (pattern, value) = routes.lookup_route(None, "/users/7/events").unwrap();
    /// assert_eq!((pattern.as_str(), *value), ("/users/{id}/events", "events"));
    /// ```
    pub fn lookup_route(&self, matched: Option<&str>, path: &str) -> Option<(&RoutePattern, &T)> {
        let found = matched
            .and_then(|matched| self.routes.iter().find(|(p, _)| p.same_shape(matched)))
            .or_else(|| {
                self.routes
                    .iter()
                    .filter(|(p, _)| p.matches(path))
                    .min_by(|(a, _), (b, _)| a.ranks().cmp(b.ranks()))
            });
        found.map(|(pattern, value)| (pattern, value))
    }

    /// The registered patterns and values, in registration order.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (&RoutePattern, &T)> {
        self.routes.iter().map(|(p, v)| (p, v))
    }

    /// How many patterns are registered.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    /// Whether no pattern is registered.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trailing_slash_is_not_significant() {
        for pattern in ["/api/tickets", "/api/tickets/"] {
            let p = RoutePattern::parse(pattern).unwrap();
            assert!(p.matches("/api/tickets"), "{pattern}");
            assert!(p.matches("/api/tickets/"), "{pattern}");
            assert!(!p.matches("/api/tickets//"), "{pattern}");
            assert!(p.same_shape("/api/tickets"), "{pattern}");
            assert!(p.same_shape("/api/tickets/"), "{pattern}");
            assert!(!p.same_shape("/api/tickets/{id}"), "{pattern}");
        }
        let p = RoutePattern::parse("/users/{id}/").unwrap();
        assert!(p.matches("/users/7") && p.matches("/users/7/"));
        assert!(!p.matches("/users/"));
        let mut routes = RouteTable::new();
        routes.insert("/api/tickets/", "tickets").unwrap();
        routes.insert("/api/tickets", "again").unwrap();
        assert_eq!(
            routes.lookup(Some("/api/tickets"), "/api/tickets"),
            Some(&"again")
        );
        assert_eq!(routes.routes.len(), 1, "one pattern, written two ways");
    }

    #[test]
    fn static_and_parameter_segments() {
        let p = RoutePattern::parse("/api/v1/events").unwrap();
        assert!(p.matches("/api/v1/events"));
        assert!(!p.matches("/api/v1/events/x"));
        assert!(!p.matches("/api/v1"));
        assert!(!p.matches("api/v1/events"));
        let p = RoutePattern::parse("/users/{id}/events").unwrap();
        assert!(p.matches("/users/a%20b/events"));
        assert!(!p.matches("/users//events"));
        assert!(!p.matches("/users/1/events/2"));
        let root = RoutePattern::parse("/").unwrap();
        assert!(root.matches("/"));
        assert!(!root.matches("/x"));
    }

    #[test]
    fn catch_all_takes_the_rest() {
        let p = RoutePattern::parse("/files/{*rest}").unwrap();
        assert!(p.matches("/files/a"));
        assert!(p.matches("/files/a/b/c"));
        assert!(!p.matches("/files/"));
        assert!(!p.matches("/files"));
    }

    #[test]
    fn escaped_braces_are_literal() {
        let p = RoutePattern::parse("/a/{{x}}").unwrap();
        assert!(p.matches("/a/{x}"));
        assert!(!p.matches("/a/x"));
    }

    #[test]
    fn invalid_patterns() {
        for bad in [
            "",
            "users",
            "/users/{}",
            "/users/{id",
            "/users/id}",
            "/a/x{id}",
            "/{*rest}/x",
            "/{*}",
        ] {
            let err = RoutePattern::parse(bad).unwrap_err();
            assert!(
                err.to_string().starts_with("invalid route pattern"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn shapes_ignore_parameter_names() {
        let p = RoutePattern::parse("/users/{id}/events").unwrap();
        assert!(p.same_shape("/users/{user_id}/events"));
        assert!(!p.same_shape("/users/{id}"));
        assert!(!p.same_shape("/users/{*id}/events"));
        assert!(!p.same_shape("/users/me/events"));
        assert!(!p.same_shape("/users/{id}/events/x"));
    }

    #[test]
    fn most_specific_match_wins() {
        let mut table = RouteTable::new();
        table.insert("/{*any}", "catch-all").unwrap();
        table.insert("/users/{id}", "user").unwrap();
        table.insert("/users/me", "me").unwrap();
        table.insert("/users/{id}/{tab}", "tab").unwrap();
        assert_eq!(table.lookup(None, "/users/me"), Some(&"me"));
        assert_eq!(table.lookup(None, "/users/7"), Some(&"user"));
        assert_eq!(table.lookup(None, "/users/7/events"), Some(&"tab"));
        assert_eq!(table.lookup(None, "/other"), Some(&"catch-all"));
        assert_eq!(table.len(), 4);
    }

    #[test]
    fn matched_path_first_then_request_path() {
        let mut table = RouteTable::new();
        table.insert("/users/{id}/events", 1).unwrap();
        table.insert("/api/v1/events", 2).unwrap();
        assert_eq!(
            table.lookup(Some("/users/{uid}/events"), "/users/9/events"),
            Some(&1)
        );
        // A router pattern nothing was registered for falls back to the path.
        assert_eq!(
            table.lookup(Some("/api/v1/{kind}"), "/api/v1/events"),
            Some(&2)
        );
        assert_eq!(table.lookup(Some("/api/v1/{kind}"), "/api/v1/notes"), None);
    }

    #[test]
    fn same_shape_replaces() {
        let mut table = RouteTable::new();
        table.insert("/users/{id}", "old").unwrap();
        table.insert("/users/{user}", "new").unwrap();
        assert_eq!(table.len(), 1);
        assert_eq!(table.lookup(None, "/users/1"), Some(&"new"));
        let patterns: Vec<&str> = table.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(patterns, ["/users/{user}"]);
        assert!(RouteTable::<()>::new().is_empty());
        assert!(table.insert("nope", "x").is_err());
    }
}
