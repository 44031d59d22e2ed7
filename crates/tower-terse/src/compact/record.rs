//! [`Record`]: one record of a response body, as the layer hands it to a
//! [`CompactLine`](super::CompactLine) type.

use std::fmt;

use serde::Deserialize;
use serde_json::Value;
use terse_toon::document::Node;

use super::RecordError;

/// One record of a list body, borrowed from the layer's parse of the
/// response: what [`CompactLine::write_line`](super::CompactLine::write_line)
/// renders a line from.
///
/// The layer parses each body once and never builds a `serde_json::Value`
/// for it; a `Record` reads a record of that parse into a type
/// ([`deserialize`](Self::deserialize), borrowing strings where the type
/// does) or copies it out ([`to_value`](Self::to_value)).
///
/// ```
/// use serde::Deserialize;
/// use tower_terse::compact::{CompactLine, Noun, Record, RecordError, RenderContext};
///
/// #[derive(Deserialize)]
/// struct Person {
///     login: String,
///     name: String,
/// }
///
/// impl CompactLine for Person {
///     fn noun() -> Noun {
///         Noun::new("person").with_plural("people")
///     }
///     fn line(&self, _cx: &RenderContext) -> String {
///         format!("{} {}", self.login, self.name)
///     }
///     // Borrow the name instead of reading the whole record.
///     fn write_line(record: Record<'_>, _cx: &RenderContext, out: &mut String) -> Result<(), RecordError> {
///         #[derive(Deserialize)]
///         struct Name<'a> {
///             login: &'a str,
///         }
///         let Name { login } = record.deserialize()?;
///         out.push_str(login);
///         Ok(())
///     }
/// }
///
/// let line = Person::line_from_json(&serde_json::json!({"login": "ada"}), &RenderContext::now());
/// assert_eq!(line.unwrap(), "ada");
/// ```
#[derive(Clone, Copy)]
pub struct Record<'a> {
    node: Node<'a>,
}

impl<'a> Record<'a> {
    pub(crate) fn new(node: Node<'a>) -> Self {
        Record { node }
    }

    pub(crate) fn node(self) -> Node<'a> {
        self.node
    }

    /// Reads the record into `T`.
    ///
    /// # Errors
    ///
    /// A [`RecordError`] such as ``field `attendees`: expected u32, found a
    /// string`` when the record does not have the shape of `T`. The message
    /// names the field path, the type expected and the kind of value found,
    /// never the value itself, so it is safe to log.
    pub fn deserialize<T: Deserialize<'a>>(self) -> Result<T, RecordError> {
        super::shape_error::deserialize_record(self.node)
    }

    /// The record as a `serde_json::Value` (a copy).
    pub fn to_value(self) -> Value {
        self.node.to_value()
    }
}

impl fmt::Debug for Record<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The record's values are response data: not for logs.
        f.debug_struct("Record").finish_non_exhaustive()
    }
}
