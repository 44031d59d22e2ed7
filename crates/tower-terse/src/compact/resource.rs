//! A registered resource: how to render and count one route's records.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use terse_toon::document::{Document, Kind, Node};

use super::template::escape_from;
use super::{CompactLine, Noun, Record, RecordError, RenderContext, Template};

/// How the records of one route become lines: a [`CompactLine`] type, or a
/// run-time [`Template`] for services without Rust types. This is what a
/// route table holds and what [`compact_envelope`](super::compact_envelope)
/// renders with.
///
/// ```
/// use serde_json::json;
/// use tower_terse::compact::{CompactResource, RenderContext, Template};
///
/// let notes = CompactResource::new("note", Template::parse("{title} ({tags|join(/)})")?)
///     .with_id_key("slug");
/// let cx = RenderContext::now();
/// let line = notes.render(&json!({"slug": "a", "title": "Groceries", "tags": ["home", "todo"]}), &cx);
/// assert_eq!(line.unwrap(), "Groceries (home/todo)");
/// assert_eq!(notes.id_key(), "slug");
/// assert_eq!(notes.noun().plural(), "notes");
/// # Ok::<(), tower_terse::compact::TemplateError>(())
/// ```
#[derive(Clone)]
pub struct CompactResource {
    noun: Noun,
    id_key: Cow<'static, str>,
    /// The one key the list sits under, instead of the layer's list keys.
    list_key: Option<Cow<'static, str>>,
    /// Where the total is, instead of the common places.
    total_key: Option<Cow<'static, str>>,
    render: Render,
}

#[derive(Clone)]
enum Render {
    Template(Arc<Template>),
    Typed {
        type_name: &'static str,
        write_line: fn(Record<'_>, &RenderContext, &mut String) -> Result<(), RecordError>,
        /// Lines come from a template, so they are one line already.
        templated: bool,
    },
}

impl CompactResource {
    /// A run-time resource: `noun` for summaries (regular plural, see
    /// [`Noun::new`]), `template` for lines, and
    /// [`defaults::ID_KEY`](crate::defaults::ID_KEY) (`"id"`) as the id key.
    pub fn new(noun: impl Into<Cow<'static, str>>, template: Template) -> Self {
        CompactResource {
            noun: Noun::new(noun),
            id_key: Cow::Borrowed(crate::defaults::ID_KEY),
            list_key: None,
            total_key: None,
            render: Render::Template(Arc::new(template)),
        }
    }

    /// The resource a [`CompactLine`] type describes, with its id key and
    /// list key (`#[compact(id)]`, `#[compact(list = "...")]`).
    pub fn of<T: CompactLine>() -> Self {
        CompactResource {
            noun: T::noun(),
            id_key: Cow::Borrowed(T::id_key()),
            list_key: T::list_key().map(Cow::Borrowed),
            total_key: None,
            render: Render::Typed {
                type_name: std::any::type_name::<T>(),
                write_line: T::write_line,
                templated: T::template().is_some(),
            },
        }
    }

    /// Sets an irregular plural.
    pub fn with_plural(mut self, plural: impl Into<Cow<'static, str>>) -> Self {
        self.noun = self.noun.with_plural(plural);
        self
    }

    /// Sets the JSON key the ids are read from.
    pub fn with_id_key(mut self, key: impl Into<Cow<'static, str>>) -> Self {
        self.id_key = key.into();
        self
    }

    /// Reads the list of an object body from `key` only, instead of the
    /// layer's list keys (for a service that puts its rows under a key of
    /// its own, such as `tasks`).
    ///
    /// ```
    /// use serde_json::json;
    /// use tower_terse::compact::{compact_envelope, CompactResource, RenderContext, Template};
    ///
    /// let tasks = CompactResource::new("task", Template::parse("{title}")?).with_list_key("tasks");
    /// let body = json!({"tasks": [{"id": 1, "title": "Ship"}], "hits": 4});
    /// let out = compact_envelope(&body, &["data"], &tasks, &RenderContext::now()).unwrap();
    /// assert_eq!(out["lines"], json!(["Ship"]));
    /// assert_eq!(tasks.list_key(), Some("tasks"));
    /// # Ok::<(), tower_terse::compact::TemplateError>(())
    /// ```
    pub fn with_list_key(mut self, key: impl Into<Cow<'static, str>>) -> Self {
        self.list_key = Some(key.into());
        self
    }

    /// Reads the total number of records from `key` (a dotted path such as
    /// `hits.total` walks into objects), instead of the common places
    /// [`compact_envelope`](super::compact_envelope) looks in.
    ///
    /// ```
    /// use serde_json::json;
    /// use tower_terse::compact::{compact_envelope, CompactResource, RenderContext, Template};
    ///
    /// let tasks = CompactResource::new("task", Template::parse("{title}")?).with_total_key("hits.total");
    /// let body = json!({"data": [{"id": 1, "title": "Ship"}], "hits": {"total": 4}});
    /// let out = compact_envelope(&body, &["data"], &tasks, &RenderContext::now()).unwrap();
    /// assert_eq!(out["summary"], "1 of 4 tasks");
    /// # Ok::<(), tower_terse::compact::TemplateError>(())
    /// ```
    pub fn with_total_key(mut self, key: impl Into<Cow<'static, str>>) -> Self {
        self.total_key = Some(key.into());
        self
    }

    /// The key set by [`with_list_key`](Self::with_list_key).
    pub fn list_key(&self) -> Option<&str> {
        self.list_key.as_deref()
    }

    /// The key set by [`with_total_key`](Self::with_total_key).
    pub fn total_key(&self) -> Option<&str> {
        self.total_key.as_deref()
    }

    /// The noun summaries use.
    pub fn noun(&self) -> &Noun {
        &self.noun
    }

    /// The JSON key of a record's id.
    pub fn id_key(&self) -> &str {
        &self.id_key
    }

    /// The line for one record; control characters in a line a
    /// [`CompactLine`] type returns are escaped (`\n`), as templates do.
    ///
    /// This copies `record` into a [`Document`] first; see
    /// [`render_record`](Self::render_record) for a record held as a `Value`.
    ///
    /// # Errors
    ///
    /// A [`RecordError`] when the record is not an object, or (for a
    /// [`CompactLine`] type) does not deserialize into that type.
    pub fn render(&self, record: &Value, cx: &RenderContext) -> Result<String, RecordError> {
        self.render_record(Record::new(Document::from_value(record).root()), cx)
    }

    /// The line for one record of a response, as the layer renders it (for
    /// a [`CompactLine::write_line`] written by hand that delegates).
    ///
    /// # Errors
    ///
    /// As [`render`](Self::render).
    pub fn render_record(
        &self,
        record: Record<'_>,
        cx: &RenderContext,
    ) -> Result<String, RecordError> {
        let mut line = String::new();
        self.write_line(record.node(), cx, &mut line)?;
        Ok(line)
    }

    /// Whether [`write_line`](Self::write_line) only appends to its `out`,
    /// so the envelope may hand it its own text: true of templates, whose
    /// code is the layer's; a [`CompactLine`] type may write its lines
    /// with code of its own.
    pub(crate) fn writes_in_place(&self) -> bool {
        matches!(self.render, Render::Template(_))
    }

    /// Writes the line for one record to `out` (which may hold part of a
    /// line on error); returns whether the line is JSON string text as it
    /// stands (no `"`, `\` or control byte), which only a template tells.
    // Always inlined into the envelope's loop: a call per record, with its
    // result handed back through memory, cost some 2k instructions a
    // rendering of 50 records.
    #[inline(always)]
    pub(crate) fn write_line(
        &self,
        record: Node<'_>,
        cx: &RenderContext,
        out: &mut String,
    ) -> Result<bool, RecordError> {
        if !record.is_object() {
            return Err(RecordError::new(format_args!(
                "expected an object, found {}",
                kind_of(record)
            )));
        }
        match &self.render {
            Render::Template(template) => Ok(template.write_node(record, cx, out)),
            Render::Typed {
                write_line,
                templated,
                ..
            } => {
                let mark = out.len();
                write_line(Record::new(record), cx, out)?;
                // A hand-written `line` may hold a newline; the envelope
                // promises one line per record all the same.
                if !templated {
                    escape_from(mark, out);
                }
                Ok(false)
            }
        }
    }
}

impl fmt::Debug for CompactResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("CompactResource");
        s.field("noun", &self.noun).field("id_key", &self.id_key);
        if let Some(key) = &self.list_key {
            s.field("list_key", key);
        }
        if let Some(key) = &self.total_key {
            s.field("total_key", key);
        }
        match &self.render {
            Render::Template(template) => s.field("template", &template.source()),
            Render::Typed { type_name, .. } => s.field("type", type_name),
        };
        s.finish()
    }
}

/// What a node is, for messages: `a string`, `null`.
pub(super) fn kind_of(node: Node<'_>) -> &'static str {
    match node.kind() {
        Kind::Null => "null",
        Kind::Bool(_) => "a boolean",
        Kind::Number(_) => "a number",
        Kind::String(_) => "a string",
        Kind::Array(_) => "an array",
        Kind::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::RouteTable;

    #[test]
    fn shareable_across_threads() {
        fn assert_send_sync<T: Send + Sync + 'static>() {}
        assert_send_sync::<CompactResource>();
        assert_send_sync::<RouteTable<CompactResource>>();
    }
}
