//! Calendar events, and the one write: `PATCH /api/v1/events/{id}`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use tower_terse::{CompactLine, Timestamp};

use crate::db::Db;
use crate::error::{self, ApiError};
use crate::store::{self, Col, Record};

/// A calendar event, as a calendar sync service stores it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, CompactLine)]
#[compact(
    noun = "event",
    line = "{start_at|date} {start_at|time}-{end_at|time} {title}{? [{location}]}{? {recurrence|flag(🔁)}}{? {all_day|flag(all day)}}"
)]
pub struct Event {
    /// UUID.
    pub id: String,
    /// What it is.
    pub title: String,
    /// Free text, often empty.
    pub description: Option<String>,
    /// A room, an address or a call link name (`Discord`, `Zoom`).
    pub location: Option<String>,
    /// Start, RFC 3339 UTC.
    pub start_at: String,
    /// End, RFC 3339 UTC.
    pub end_at: String,
    /// Whether it fills whole days.
    pub all_day: bool,
    /// `{"freq","interval","by_day","until"}` for a repeating event.
    pub recurrence: Option<Value>,
    /// `confirmed`, `tentative` or `cancelled`.
    pub status: String,
    /// Where it was synced from (`google`, `outlook`, `ical`, `local`).
    pub source: String,
    /// Its id at the source.
    pub source_id: Option<String>,
    /// The calendar it belongs to.
    pub calendar_name: String,
    /// `[{"method","minutes_before"}]`.
    pub reminders: Value,
    /// `[{"name","email","response"}]`.
    pub attendees: Value,
    /// Whatever the source adds.
    pub custom_fields: Value,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// When it was last synced.
    pub synced_at: Option<String>,
    /// When it was deleted, if it was.
    pub deleted_at: Option<String>,
}

impl Record for Event {
    const TABLE: &'static str = "events";
    const KIND: &'static str = "event";
    const ORDER_BY: &'static str = "ts_us(start_at), id";
    const COLUMNS: &'static [(&'static str, Col)] = &[
        ("id", Col::Text),
        ("title", Col::Text),
        ("description", Col::Text),
        ("location", Col::Text),
        ("start_at", Col::Text),
        ("end_at", Col::Text),
        ("all_day", Col::Bool),
        ("recurrence", Col::Json),
        ("status", Col::Text),
        ("source", Col::Text),
        ("source_id", Col::Text),
        ("calendar_name", Col::Text),
        ("reminders", Col::Json),
        ("attendees", Col::Json),
        ("custom_fields", Col::Json),
        ("created_at", Col::Text),
        ("updated_at", Col::Text),
        ("synced_at", Col::Text),
        ("deleted_at", Col::Text),
    ];
}

/// The fields `PATCH` may change; absent fields stay as they are.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventPatch {
    /// New title.
    pub title: Option<String>,
    /// New location; `null` clears it.
    #[serde(default, deserialize_with = "present")]
    pub location: Option<Option<String>>,
    /// New status.
    pub status: Option<String>,
    /// New start, RFC 3339.
    pub start_at: Option<Timestamp>,
    /// New end, RFC 3339.
    pub end_at: Option<Timestamp>,
}

/// Tells `"location": null` (clear it) from no `location` at all (keep it).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

const STATUSES: [&str; 3] = ["confirmed", "tentative", "cancelled"];

impl EventPatch {
    fn apply(self, event: &mut Event) -> Result<(), ApiError> {
        if let Some(status) = &self.status
            && !STATUSES.contains(&status.as_str())
        {
            return Err(error::bad_request(
                "invalid_field",
                format!("status `{status}` is not one of {}", STATUSES.join(", ")),
                "send status as confirmed, tentative or cancelled",
            ));
        }
        if let Some(title) = &self.title
            && title.trim().is_empty()
        {
            return Err(error::bad_request(
                "invalid_field",
                "title is empty",
                "send a title with some text",
            ));
        }
        let start = match self.start_at {
            Some(t) => t,
            None => parse_stored(&event.start_at)?,
        };
        let end = match self.end_at {
            Some(t) => t,
            None => parse_stored(&event.end_at)?,
        };
        if end < start {
            return Err(error::bad_request(
                "invalid_field",
                format!("end_at {end} is before start_at {start}"),
                "move start_at and end_at together",
            ));
        }
        if let Some(title) = self.title {
            event.title = title;
        }
        if let Some(location) = self.location {
            event.location = location;
        }
        if let Some(status) = self.status {
            event.status = status;
        }
        event.start_at = start.to_string();
        event.end_at = end.to_string();
        Ok(())
    }
}

fn parse_stored(text: &str) -> Result<Timestamp, ApiError> {
    Timestamp::parse(text).map_err(error::internal)
}

/// `PATCH /api/v1/events/{id}`: changes some fields and bumps `updated_at`.
pub async fn patch(
    State(db): State<Db>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Event>, ApiError> {
    let patch: EventPatch = serde_json::from_slice(&body).map_err(|e| {
        error::bad_request(
            "invalid_body",
            format!("the body is not an event patch: {e}"),
            "send a JSON object with any of title, location, status, start_at, end_at",
        )
    })?;
    db.write(|conn, stamp| {
        let mut event = store::get::<Event>(conn, &id)
            .map_err(error::internal)?
            .ok_or_else(|| error::not_found(Event::KIND, &id))?;
        patch.apply(&mut event)?;
        event.updated_at = stamp.to_string();
        store::save(conn, &event).map_err(error::internal)?;
        Ok(Json(event))
    })
}
