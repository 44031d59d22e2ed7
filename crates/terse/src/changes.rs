//! Diff-aware listing: `?since=` and the created/updated/deleted answer.
//!
//! An agent that polls a list pays for every record on every poll. With
//! `?since=<RFC 3339>` it asks only for what changed, and the answer names
//! the kind of each change:
//!
//! ```json
//! {"data":{"created":[...],"updated":[...],"deleted":[...]},
//!  "meta":{"response_timestamp":"2026-02-18T09:00:00.123456Z","total_changes":2}}
//! ```
//!
//! The next poll passes `meta.response_timestamp` back as `since`. That stamp
//! is taken **before** the query runs, and `since` is inclusive: a change
//! stamped while the query was running (too late for it) carries a stamp at or
//! after `response_timestamp`, so the next poll reports it. A change can be
//! reported twice when it races with a query, never zero times; clients
//! de-duplicate by id. Stamping after the query would open a gap between the
//! query's snapshot and the stamp in which changes are lost for good.
//!
//! With `format=compact`, a change set renders one line per change, prefixed
//! by its kind ([`ChangeKind::prefix`]); [`entries`] reads that shape from a
//! response body and [`compact_changes`] builds the compact envelope.

#[cfg(feature = "axum")]
mod since;
mod timestamp;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;
use terse_toon::document::{Document, Kind, Node};

use crate::compact::envelope::{self, Envelope};
use crate::compact::{CompactResource, NotCompact, RenderContext};

#[cfg(feature = "axum")]
pub use since::{SINCE_PARAM, Since, SinceRejection};
pub use timestamp::{Timestamp, TimestampError};

/// What happened to a record after `since`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// Created at or after `since` (and not deleted since).
    Created,
    /// Created before `since`, changed at or after it.
    Updated,
    /// Deleted at or after `since`.
    Deleted,
}

impl ChangeKind {
    /// All kinds, in the order they appear in a response.
    pub const ALL: [ChangeKind; 3] = [Self::Created, Self::Updated, Self::Deleted];

    /// The key under `data` that holds this kind: `created`, `updated`, `deleted`.
    pub const fn key(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Updated => "updated",
            Self::Deleted => "deleted",
        }
    }

    /// The prefix of a compact line for this kind: `+ `, `~ `, `- `.
    pub const fn prefix(self) -> &'static str {
        match self {
            Self::Created => "+ ",
            Self::Updated => "~ ",
            Self::Deleted => "- ",
        }
    }

    /// Which kind of change a record with these stamps is after `since`, if any.
    ///
    /// A deletion wins over everything (the client must drop the record); a
    /// record created after `since` is `Created` even if it was edited since.
    ///
    /// ```
    /// use terse::changes::{ChangeKind, Timestamp};
    ///
    /// let t = |s: &str| s.parse::<Timestamp>().unwrap();
    /// let since = t("2026-02-18T00:00:00Z");
    /// let old = t("2026-02-01T00:00:00Z");
    /// let new = t("2026-02-19T00:00:00Z");
    /// assert_eq!(ChangeKind::classify(since, old, old, None), None);
    /// assert_eq!(ChangeKind::classify(since, old, new, None), Some(ChangeKind::Updated));
    /// assert_eq!(ChangeKind::classify(since, new, new, None), Some(ChangeKind::Created));
    /// assert_eq!(ChangeKind::classify(since, old, old, Some(new)), Some(ChangeKind::Deleted));
    /// ```
    pub fn classify(
        since: Timestamp,
        created_at: Timestamp,
        updated_at: Timestamp,
        deleted_at: Option<Timestamp>,
    ) -> Option<Self> {
        match deleted_at {
            Some(d) if d >= since => Some(Self::Deleted),
            // Deleted before `since`: the client already heard about it.
            Some(_) => None,
            None if created_at >= since => Some(Self::Created),
            None if updated_at >= since => Some(Self::Updated),
            None => None,
        }
    }
}

/// The answer to a `?since=` list request.
///
/// Serialises to `{"data":{"created":[],"updated":[],"deleted":[]},
/// "meta":{"response_timestamp":...,"total_changes":N}}`. Take the stamp
/// before querying (see the [module docs](self) for why):
///
/// ```
/// use terse::changes::{ChangeKind, Changes, Timestamp};
///
/// let stamp = Timestamp::now(); // before the query
/// let mut changes = Changes::new(stamp);
/// changes.push(ChangeKind::Updated, serde_json::json!({"id": 7, "title": "Standup"}));
/// let body = serde_json::to_value(&changes).unwrap();
/// assert_eq!(body["data"]["updated"][0]["id"], 7);
/// assert_eq!(body["meta"]["total_changes"], 1);
/// assert_eq!(body["meta"]["response_timestamp"], stamp.to_string());
/// ```
///
/// With the `axum` feature it is a response (200, `application/json`).
#[derive(Clone, Debug, PartialEq)]
pub struct Changes<T> {
    /// Records created at or after `since`.
    pub created: Vec<T>,
    /// Records created before `since` and changed at or after it.
    pub updated: Vec<T>,
    /// Records deleted at or after `since`.
    pub deleted: Vec<T>,
    /// When this answer was stamped, before its query ran: the next `since`.
    pub response_timestamp: Timestamp,
}

impl<T> Changes<T> {
    /// An empty change set stamped `response_timestamp`.
    pub fn new(response_timestamp: Timestamp) -> Self {
        Self {
            created: Vec::new(),
            updated: Vec::new(),
            deleted: Vec::new(),
            response_timestamp,
        }
    }

    /// Adds one changed record.
    pub fn push(&mut self, kind: ChangeKind, record: T) {
        self.list_mut(kind).push(record);
    }

    /// The records of one kind.
    pub fn list(&self, kind: ChangeKind) -> &[T] {
        match kind {
            ChangeKind::Created => &self.created,
            ChangeKind::Updated => &self.updated,
            ChangeKind::Deleted => &self.deleted,
        }
    }

    fn list_mut(&mut self, kind: ChangeKind) -> &mut Vec<T> {
        match kind {
            ChangeKind::Created => &mut self.created,
            ChangeKind::Updated => &mut self.updated,
            ChangeKind::Deleted => &mut self.deleted,
        }
    }

    /// How many changes in all.
    pub fn total(&self) -> usize {
        self.created.len() + self.updated.len() + self.deleted.len()
    }
}

struct Data<'a, T>(&'a Changes<T>);

impl<T: Serialize> Serialize for Data<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        for kind in ChangeKind::ALL {
            map.serialize_entry(kind.key(), self.0.list(kind))?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct Meta {
    response_timestamp: Timestamp,
    total_changes: usize,
}

impl<T: Serialize> Serialize for Changes<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("data", &Data(self))?;
        let meta = Meta {
            response_timestamp: self.response_timestamp,
            total_changes: self.total(),
        };
        map.serialize_entry("meta", &meta)?;
        map.end()
    }
}

#[cfg(feature = "axum")]
impl<T: Serialize> axum::response::IntoResponse for Changes<T> {
    fn into_response(self) -> axum::response::Response {
        use http::{HeaderValue, StatusCode, header};
        match serde_json::to_vec(&self) {
            Ok(body) => {
                let mut response = (StatusCode::OK, body).into_response();
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                response
            }
            Err(e) => {
                tracing::error!("a change set could not be serialised: {e}");
                let body = serde_json::json!({"error": {
                    "code": "internal",
                    "message": "the change set could not be serialised",
                    "hint": "this is a bug in the service",
                }});
                let mut response =
                    (StatusCode::INTERNAL_SERVER_ERROR, body.to_string()).into_response();
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                response
            }
        }
    }
}

/// The changes in a response body shaped like [`Changes`], in order
/// (created, updated, deleted), each with its kind; `None` for any other shape.
///
/// This is how a renderer recognises a change set: `data` is an object whose
/// keys are exactly `created`, `updated` and `deleted`, each an array.
///
/// ```
/// use terse::changes::{ChangeKind, entries};
/// use terse::toon::document::Document;
///
/// let body = Document::parse(r#"{
///     "data": {"created": [{"id": 1}], "updated": [], "deleted": [{"id": 2}]},
///     "meta": {"response_timestamp": "2026-02-18T09:00:00Z", "total_changes": 2}
/// }"#)?;
/// let kinds: Vec<_> = entries(body.root()).unwrap().into_iter().map(|(k, _)| k).collect();
/// assert_eq!(kinds, [ChangeKind::Created, ChangeKind::Deleted]);
/// assert!(entries(Document::parse(r#"{"data": []}"#)?.root()).is_none());
/// # Ok::<(), terse::toon::Error>(())
/// ```
pub fn entries(body: Node<'_>) -> Option<Vec<(ChangeKind, Node<'_>)>> {
    let data = body.get("data")?;
    if !matches!(data.kind(), Kind::Object(3)) {
        return None;
    }
    let mut out = Vec::new();
    for kind in ChangeKind::ALL {
        let list = data.get(kind.key())?;
        if !list.is_array() {
            return None;
        }
        out.extend(list.items().map(|record| (kind, record)));
    }
    Some(out)
}

/// The compact envelope of a change-set body, or `None` when `body` is not
/// shaped like [`Changes`] (then it is an ordinary list, or not a list).
///
/// One line per change, prefixed by its kind (`+ ` created, `~ ` updated,
/// `- ` deleted), with `ids[i]` beside `lines[i]`; `meta` is the body's own
/// (`response_timestamp`, `total_changes`).
///
/// # Errors
///
/// [`NotCompact::Record`] for the first record that does not fit the
/// resource or has no id; the JSON should then be served unchanged.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use terse::changes::compact_changes;
/// use terse::compact::{CompactResource, RenderContext, Template};
///
/// let events = CompactResource::new("event", Template::parse("{title}")?);
/// let body = json!({
///     "data": {"created": [{"id": 1, "title": "Retro"}], "updated": [{"id": 2, "title": "Standup"}], "deleted": []},
///     "meta": {"response_timestamp": "2026-02-18T09:00:00Z", "total_changes": 2}
/// });
/// let envelope = compact_changes(&body, &events, &RenderContext::now()).unwrap().unwrap();
/// assert_eq!(envelope["summary"], "2 events changed: 1 created, 1 updated, 0 deleted");
/// assert_eq!(envelope["lines"], json!(["+ Retro", "~ Standup"]));
/// assert_eq!(envelope["ids"], json!([1, 2]));
/// assert_eq!(envelope["meta"]["total_changes"], 2);
/// # Ok::<(), terse::compact::TemplateError>(())
/// ```
pub fn compact_changes(
    body: &Value,
    resource: &CompactResource,
    cx: &RenderContext,
) -> Option<Result<Value, NotCompact>> {
    let document = Document::from_value(body);
    compact_change_set(document.root(), resource, cx)
        .map(|envelope| envelope.map(|envelope| envelope.into_value()))
}

/// [`compact_changes`] on a body of a parsed document.
pub(crate) fn compact_change_set<'t>(
    body: Node<'t>,
    resource: &CompactResource,
    cx: &RenderContext,
) -> Option<Result<Envelope<'t>, NotCompact>> {
    let changes = entries(body)?;
    Some(render_changes(body, &changes, resource, cx))
}

fn render_changes<'t>(
    body: Node<'t>,
    changes: &[(ChangeKind, Node<'t>)],
    resource: &CompactResource,
    cx: &RenderContext,
) -> Result<Envelope<'t>, NotCompact> {
    let mut counts = [0usize; 3];
    for (kind, _) in changes {
        counts[*kind as usize] += 1;
    }
    let noun = resource.noun();
    let summary = format!(
        "{} changed: {} created, {} updated, {} deleted",
        noun.count(changes.len()),
        counts[ChangeKind::Created as usize],
        counts[ChangeKind::Updated as usize],
        counts[ChangeKind::Deleted as usize],
    );
    let meta = match body.get("meta") {
        Some(meta) if meta.is_object() => envelope::Meta::of(meta),
        _ => envelope::Meta::NONE,
    };
    let records = changes
        .iter()
        .map(|&(kind, record)| (kind.prefix(), record));
    Envelope::render(&summary, records, resource, cx, meta)
}
