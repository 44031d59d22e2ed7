//! A template path that names a key the record's object does not have is
//! most likely a typo the compiler could not see: a path into a nested type
//! whose serde renames are its own, a `serde_json::Value` field, or a
//! run-time template. It renders empty, as a missing value does; the first
//! time it happens for a template (the resource's) and path, one `tracing`
//! warning names the path and, when one is close, the key meant. It never
//! lists the object's keys: a map's keys can be data (emails, names).

use std::sync::Mutex;

use terse_toon::document::Node;

/// Paths of one template that were already reported. At most one entry per
/// placeholder of the template, so it is bounded by the template's length.
#[derive(Debug, Default)]
pub(super) struct Missing {
    /// The first segment of a path is checked at compile time for templates
    /// of `#[derive(CompactLine)]`: only deeper segments are reported there.
    pub(super) checked: bool,
    reported: Mutex<Vec<Vec<String>>>,
}

impl Missing {
    /// For a template of `source`; `checked` when its first segments were
    /// checked against the type at compile time.
    pub(super) fn new(checked: bool) -> Self {
        Missing {
            checked,
            reported: Mutex::new(Vec::new()),
        }
    }

    /// The paths reported so far, in order.
    #[cfg(test)]
    pub(super) fn reported(&self) -> Vec<Vec<String>> {
        self.reported
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// `object`, reached by `path[..at]`, has no key `path[at]`: warns, unless
    /// this path was reported before (or is checked at compile time).
    #[cold]
    pub(super) fn report(&self, source: &str, path: &[String], at: usize, object: Node<'_>) {
        if self.checked && at == 0 {
            return;
        }
        // A poisoned lock only means another thread panicked mid-push; the
        // list is still a list.
        let mut reported = self
            .reported
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if reported.iter().any(|seen| seen.as_slice() == path) {
            return;
        }
        reported.push(path.to_vec());
        drop(reported);
        let parent = if at == 0 {
            "the record".to_owned()
        } else {
            format!("`{}`", path[..at].join("."))
        };
        let key = &path[at];
        let hint = terse_template::closest(key, object.entries().map(|(key, _)| key))
            .map(|near| format!("; did you mean `{near}`?"))
            .unwrap_or_default();
        tracing::warn!(
            template = source,
            path = %path.join("."),
            "compact template `{source}`: {parent} has no key `{key}`, so `{{{}}}` renders empty \
             (a misspelt field, or a serde rename the template does not follow){hint}; \
             reported once per path",
            path.join("."),
        );
    }
}
