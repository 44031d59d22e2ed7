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
//! With `format=compact`, the answer to a `?since=` request renders one line
//! per change, prefixed by its kind ([`ChangeKind::prefix`]); [`entries`]
//! reads that shape from a response body and [`compact_changes`] builds the
//! compact envelope. The layer reads a body as a change set only when the
//! request has a `since` parameter ([`SINCE_PARAM`]): a plain list whose
//! `data` happens to hold `created`, `updated` and `deleted` stays a list.

#[cfg(feature = "axum")]
mod since;
mod timestamp;

use serde::Serialize;
use serde::ser::SerializeMap;

// The compact rendering of a change set lives beside the envelope it renders
// into; `changes` depends on `compact`, never the other way round.
pub use crate::compact::change_set::{ChangeKind, compact_changes, entries};

#[cfg(feature = "axum")]
pub use since::{Since, SinceRejection};
pub use timestamp::{Timestamp, TimestampError};

/// The query parameter of a diff-aware list request (`?since=`): what
/// [`Since`] reads, and what tells the layer that a body is a change set.
pub const SINCE_PARAM: &str = "since";

// `ChangeKind` is defined beside its compact rendering
// (`compact::change_set`); classifying by stamps needs `Timestamp`, so it is
// here.
impl ChangeKind {
    /// Which kind of change a record with these stamps is after `since`, if any.
    ///
    /// A deletion wins over everything (the client must drop the record); a
    /// record created after `since` is `Created` even if it was edited since.
    ///
    /// ```
    /// use tower_terse::changes::{ChangeKind, Timestamp};
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
/// use tower_terse::changes::{ChangeKind, Changes, Timestamp};
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

/// The `meta` object of a change set's JSON.
#[derive(Serialize)]
struct ChangeSetMeta {
    response_timestamp: Timestamp,
    total_changes: usize,
}

impl<T: Serialize> Serialize for Changes<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("data", &Data(self))?;
        let meta = ChangeSetMeta {
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
                crate::ErrorEnvelope::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "the change set could not be serialised",
                )
                .with_hint("this is a bug in the service")
                .into_response()
            }
        }
    }
}
