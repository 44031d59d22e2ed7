//! The `CompactLine` trait.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;
use terse_toon::document::Document;

use super::template::escape_from;
use super::{Noun, Record, RenderContext, Template};

/// What a resource type says about itself for compact list responses: the
/// one line an agent reads per record, the key of its id, and the noun that
/// counts records in summaries.
///
/// Derive it with `#[derive(CompactLine)]` and a template, or implement it by
/// hand. The layer holds response bodies as JSON text, parsed once; for each
/// record it calls [`write_line`](CompactLine::write_line) with a borrowed
/// [`Record`], which by
/// default reads the record into `Self` (a record of the wrong shape is an
/// error, and the layer then serves the JSON unchanged) and writes
/// [`line`](CompactLine::line). The derive renders its template straight from
/// the record instead, after the same check.
///
/// By hand:
///
/// ```
/// use serde::Deserialize;
/// use serde_json::json;
/// use tower_terse::compact::{CompactLine, Noun, RenderContext};
///
/// #[derive(Deserialize)]
/// struct Person {
///     login: String,
///     name: String,
///     admin: bool,
/// }
///
/// impl CompactLine for Person {
///     fn noun() -> Noun {
///         Noun::new("person").with_plural("people")
///     }
///     fn id_key() -> &'static str {
///         "login"
///     }
///     fn line(&self, _cx: &RenderContext) -> String {
///         let role = if self.admin { " (admin)" } else { "" };
///         format!("{} {}{role}", self.login, self.name)
///     }
/// }
///
/// let cx = RenderContext::now();
/// let record = json!({"login": "ada", "name": "Ada Lovelace", "admin": true});
/// assert_eq!(Person::line_from_json(&record, &cx).unwrap(), "ada Ada Lovelace (admin)");
/// assert!(Person::line_from_json(&json!({"login": 7}), &cx).is_err());
/// ```
///
/// Derived (the type needs `Serialize` and `Deserialize`; see the derive's
/// attributes in the [module docs](crate::compact)):
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use tower_terse::CompactLine;
/// use tower_terse::compact::RenderContext;
///
/// #[derive(Serialize, Deserialize, CompactLine)]
/// #[serde(rename_all = "camelCase")]
/// #[compact(noun = "event", line = "{startAt|time} {title}{? [{location}]}")]
/// struct Event {
///     #[compact(id)]
///     id: u64,
///     title: String,
///     start_at: String,
///     location: Option<String>,
/// }
///
/// let cx = RenderContext::now();
/// let record = json!({"id": 1, "title": "Standup", "startAt": "2025-03-01T09:30:00Z", "location": null});
/// assert_eq!(Event::line_from_json(&record, &cx).unwrap(), "09:30 Standup");
/// assert_eq!(Event::noun().count(3), "3 events");
/// assert_eq!(Event::id_key(), "id");
/// ```
pub trait CompactLine: DeserializeOwned {
    /// The noun summaries count records with (`3 events`).
    fn noun() -> Noun;

    /// The JSON key holding a record's id; the envelope's `ids` are read from
    /// it. Defaults to [`defaults::ID_KEY`](crate::defaults::ID_KEY) (`"id"`).
    fn id_key() -> &'static str {
        crate::defaults::ID_KEY
    }

    /// The one key the records of an object body sit under
    /// (`{"tickets": [...]}`), instead of the layer's list keys; the
    /// derive's `#[compact(list = "tickets")]`. `None` (the default) looks
    /// under the layer's list keys. See [`CompactResource::with_list_key`].
    ///
    /// [`CompactResource::with_list_key`]: super::CompactResource::with_list_key
    fn list_key() -> Option<&'static str> {
        None
    }

    /// The template this type's lines are rendered from, when it has one:
    /// the derive's `line`. `None` (the default) for lines written by hand.
    ///
    /// Lines from a template are one line already (values are escaped as
    /// they are inserted), so the layer does not scan them again.
    fn template() -> Option<&'static Template> {
        None
    }

    /// The line for this record. When the layer renders it, control
    /// characters in it are escaped (`\n`, `\t`, `\u{1b}`) so a record stays
    /// one line.
    fn line(&self, cx: &RenderContext) -> String;

    /// Appends the line for one record of a response to `out`; this is what
    /// the layer calls, once per record.
    ///
    /// By default it reads the record into `Self` and writes
    /// [`line`](Self::line). The derive renders its template straight from
    /// the record instead, after the same check. The layer escapes control
    /// characters in what is written here.
    ///
    /// # Errors
    ///
    /// A [`RecordError`] when the record does not have the shape of `Self`;
    /// `out` may then hold part of a line.
    fn write_line(
        record: Record<'_>,
        cx: &RenderContext,
        out: &mut String,
    ) -> Result<(), RecordError> {
        let typed: Self = record.deserialize()?;
        out.push_str(&typed.line(cx));
        Ok(())
    }

    /// The line for one JSON record, as the layer writes it: for tests and
    /// callers that hold a `Value` (it copies `record` into the layer's
    /// parsed form first).
    ///
    /// # Errors
    ///
    /// A [`RecordError`] when the record does not have the shape of `Self`.
    fn line_from_json(record: &Value, cx: &RenderContext) -> Result<String, RecordError> {
        let mut line = String::new();
        Self::write_line(
            Record::new(Document::from_value(record).root()),
            cx,
            &mut line,
        )?;
        escape_from(0, &mut line);
        Ok(line)
    }
}

/// Why a record could not be rendered as a line: it does not have the shape
/// of the resource (a field of the wrong type, a missing id, not an object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    message: String,
}

impl RecordError {
    /// An error with the given reason.
    pub fn new(reason: impl fmt::Display) -> Self {
        RecordError {
            message: reason.to_string(),
        }
    }

    /// The reason.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RecordError {}
