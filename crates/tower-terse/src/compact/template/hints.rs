//! Where each step of a placeholder's path stood in the last record rendered.

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};

use terse_toon::document::Node;

/// For each step into an object of each placeholder's path, in the order
/// rendering meets them, the position of its key among the entries of the
/// last object that had it.
///
/// Records of one list mostly hold their keys in the same order, so trying
/// that position first finds a field in one step, where a search compares
/// the keys one by one. A hint is only a guess, checked against the key: a
/// wrong one costs that check before the search.
///
/// Hints live with the template, which threads and requests share: relaxed
/// atomics, written only when they change, so rendering a list of one shape
/// only reads them.
pub(super) struct Hints(Box<[Hint]>);

impl Hints {
    /// No hints yet for `count` steps.
    pub(super) fn new(count: usize) -> Self {
        Hints((0..count).map(|_| Hint::new()).collect())
    }

    /// The value under `key` in `record` (`None` unless it is an object),
    /// trying the position hint `index` holds first and remembering where
    /// it was found.
    #[inline(always)]
    pub(super) fn get<'t>(&self, index: usize, record: Node<'t>, key: &str) -> Option<Node<'t>> {
        match self.0.get(index) {
            Some(hint) => hint.get(record, key),
            None => record.get(key),
        }
    }
}

/// One step's hint kept beside what it is the hint of (a plain template's
/// placeholder of one key), rather than in a [`Hints`] looked up by the
/// step's number: the same guess, with no bounds check on the way to it.
pub(super) struct Hint(AtomicU32);

impl Hint {
    /// No hint yet.
    pub(super) fn new() -> Self {
        Hint(AtomicU32::new(0))
    }

    /// The value under `key` in `record` (`None` unless it is an object),
    /// trying the position this hint holds first and remembering where it
    /// was found.
    #[inline(always)]
    pub(super) fn get<'t>(&self, record: Node<'t>, key: &str) -> Option<Node<'t>> {
        let guess = self.0.load(Ordering::Relaxed);
        let (position, value) = record.find_hinted(key, guess as usize)?;
        // A record cannot hold 2^32 entries: its slots are counted in a u32.
        let position = u32::try_from(position).unwrap_or(u32::MAX);
        if position != guess {
            self.0.store(position, Ordering::Relaxed);
        }
        Some(value)
    }
}

impl Clone for Hint {
    /// A fresh hint.
    fn clone(&self) -> Self {
        Hint::new()
    }
}

/// A hint is a cache: two are equal whatever they hold.
impl PartialEq for Hint {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Hint {}

impl fmt::Debug for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Hint")
    }
}

impl Clone for Hints {
    /// Fresh hints for as many steps.
    fn clone(&self) -> Self {
        Hints::new(self.0.len())
    }
}

/// Hints are a cache: two templates are equal whatever their hints hold.
impl PartialEq for Hints {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Hints {}

impl fmt::Debug for Hints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hints({})", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use terse_toon::document::Document;

    use super::*;

    #[test]
    fn finds_fields_wherever_they_stand_and_follows_the_last_place() {
        let doc = Document::parse(
            r#"[{"a": 1, "b": 2}, {"b": 3, "a": 4}, {"x": {"b": 0}, "b": 5}, {"c": 6}]"#,
        )
        .unwrap();
        let hints = Hints::new(1);
        let b: Vec<_> = doc
            .root()
            .items()
            .map(|record| hints.get(0, record, "b").map(|v| v.to_value()))
            .collect();
        // The third record's nested `b` at the hinted position is not its own.
        assert_eq!(b, [Some(2.into()), Some(3.into()), Some(5.into()), None]);
        assert_eq!(hints.0[0].0.load(Ordering::Relaxed), 1);
        // Past the placeholders it has hints for, a plain search.
        let first = doc.root().item(0).unwrap();
        assert_eq!(
            hints.get(7, first, "a").map(|v| v.to_value()),
            Some(1.into())
        );
    }

    #[test]
    fn one_hint_finds_fields_as_the_hints_do() {
        let doc = Document::parse(
            r#"[{"a": 1, "b": 2}, {"b": 3, "a": 4}, {"x": {"b": 0}, "b": 5}, {"c": 6}, 7]"#,
        )
        .unwrap();
        let (hint, hints) = (Hint::new(), Hints::new(1));
        for record in doc.root().items() {
            assert_eq!(
                hint.get(record, "b").map(|v| v.to_value()),
                hints.get(0, record, "b").map(|v| v.to_value())
            );
            assert_eq!(
                hint.0.load(Ordering::Relaxed),
                hints.0[0].0.load(Ordering::Relaxed)
            );
        }
        assert_eq!(hint.clone().0.load(Ordering::Relaxed), 0);
    }
}
