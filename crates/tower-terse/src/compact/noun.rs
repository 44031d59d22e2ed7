//! The noun a summary counts records with.

use std::borrow::Cow;
use std::fmt;

/// The noun of a resource, singular and plural, for summaries like
/// `1 event`, `3 events` or `20 of 57 people`.
///
/// [`Noun::new`] forms the plural by the regular English rules (`event` →
/// `events`, `address` → `addresses`, `activity` → `activities`); give
/// irregular ones with [`Noun::with_plural`].
///
/// ```
/// use tower_terse::compact::Noun;
///
/// assert_eq!(Noun::new("event").count(1), "1 event");
/// assert_eq!(Noun::new("event").count(3), "3 events");
/// assert_eq!(Noun::new("activity").plural(), "activities");
/// assert_eq!(Noun::new("person").with_plural("people").count(2), "2 people");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noun {
    singular: Cow<'static, str>,
    plural: Cow<'static, str>,
}

impl Noun {
    /// A noun with its regular plural.
    pub fn new(singular: impl Into<Cow<'static, str>>) -> Self {
        let singular = singular.into();
        let plural = Cow::Owned(regular_plural(&singular));
        Noun { singular, plural }
    }

    /// The same noun with an irregular plural.
    pub fn with_plural(mut self, plural: impl Into<Cow<'static, str>>) -> Self {
        self.plural = plural.into();
        self
    }

    /// The singular form.
    pub fn singular(&self) -> &str {
        &self.singular
    }

    /// The plural form.
    pub fn plural(&self) -> &str {
        &self.plural
    }

    /// `n` and the noun in the form `n` calls for: `1 event`, `0 events`.
    pub fn count(&self, n: usize) -> String {
        let noun = if n == 1 {
            self.singular()
        } else {
            self.plural()
        };
        summary(n as u64, None, noun)
    }

    /// `count of total` and the plural (`20 of 57 events`) when `total`
    /// is more than `count`, else [`count`](Self::count).
    pub(crate) fn count_of(&self, count: usize, total: Option<u64>) -> String {
        match total {
            Some(total) if total > count as u64 => {
                summary(count as u64, Some(total), self.plural())
            }
            _ => self.count(count),
        }
    }
}

/// `n noun` or `n of total noun`, written without the formatting
/// machinery, which costs as much as the rest of a short envelope's head.
fn summary(n: u64, total: Option<u64>, noun: &str) -> String {
    let mut digits = itoa::Buffer::new();
    let mut text = String::with_capacity(48 + noun.len());
    text.push_str(digits.format(n));
    if let Some(total) = total {
        text.push_str(" of ");
        text.push_str(digits.format(total));
    }
    text.push(' ');
    text.push_str(noun);
    text
}

impl fmt::Display for Noun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.singular)
    }
}

fn regular_plural(singular: &str) -> String {
    let lower = singular.to_ascii_lowercase();
    let ends_consonant_y = lower.ends_with('y')
        && lower
            .chars()
            .rev()
            .nth(1)
            .is_some_and(|c| c.is_ascii_alphabetic() && !"aeiou".contains(c));
    if ends_consonant_y {
        format!("{}ies", &singular[..singular.len() - 1])
    } else if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| lower.ends_with(end))
    {
        format!("{singular}es")
    } else {
        format!("{singular}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_plurals() {
        for (one, many) in [
            ("event", "events"),
            ("note", "notes"),
            ("address", "addresses"),
            ("box", "boxes"),
            ("match", "matches"),
            ("wish", "wishes"),
            ("activity", "activities"),
            ("day", "days"),
            ("key", "keys"),
            ("y", "ys"),
        ] {
            assert_eq!(Noun::new(one).plural(), many, "{one}");
        }
    }

    #[test]
    fn counts() {
        let noun = Noun::new("mouse").with_plural("mice");
        assert_eq!(noun.count(0), "0 mice");
        assert_eq!(noun.count(1), "1 mouse");
        assert_eq!(noun.count(2), "2 mice");
        assert_eq!(noun.to_string(), "mouse");
    }

    proptest::proptest! {
        #[test]
        fn summaries_are_what_formatting_writes(
            count in proptest::prop_oneof![0usize..3, proptest::num::usize::ANY],
            total in proptest::option::of(proptest::prop_oneof![0u64..5, proptest::num::u64::ANY]),
        ) {
            let noun = Noun::new("event");
            let formatted = match total {
                Some(total) if total > count as u64 => format!("{count} of {total} events"),
                _ => format!("{count} {}", if count == 1 { "event" } else { "events" }),
            };
            proptest::prop_assert_eq!(noun.count_of(count, total), formatted);
        }
    }
}
