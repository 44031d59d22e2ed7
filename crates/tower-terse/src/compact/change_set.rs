//! A change set (the answer to a `?since=` request) to the compact envelope:
//! one line per change, prefixed by its kind.
//!
//! Here, beside the envelope it renders into, rather than in
//! [`changes`](crate::changes): `changes` builds change sets and depends on
//! `compact` to render them, never the other way round. A body is read as a
//! change set only when the request asked `?since=`; the layer knows that
//! from the request, and [`compact_envelope`](super::compact_envelope)
//! (which has no request) reads every body as a list.

use serde_json::Value;
use terse_toon::document::{Document, Kind, Node};

use super::envelope::{Envelope, Meta};
use super::{CompactResource, NotCompact, RenderContext};

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
}

/// The changes in a response body shaped like
/// [`Changes`](crate::changes::Changes), in order (created, updated,
/// deleted), each with its kind; `None` for any other shape.
///
/// This is how a renderer recognises a change set: `data` is an object whose
/// keys are exactly `created`, `updated` and `deleted`, each an array.
///
/// ```
/// use serde_json::json;
/// use tower_terse::changes::{ChangeKind, entries};
///
/// let body = json!({
///     "data": {"created": [{"id": 1}], "updated": [], "deleted": [{"id": 2}]},
///     "meta": {"response_timestamp": "2026-02-18T09:00:00Z", "total_changes": 2}
/// });
/// let changes = entries(&body).unwrap();
/// let kinds: Vec<_> = changes.iter().map(|(kind, _)| *kind).collect();
/// assert_eq!(kinds, [ChangeKind::Created, ChangeKind::Deleted]);
/// assert_eq!(changes[1].1, &json!({"id": 2}));
/// assert!(entries(&json!({"data": []})).is_none());
/// ```
pub fn entries(body: &Value) -> Option<Vec<(ChangeKind, &Value)>> {
    let data = body.get("data")?.as_object()?;
    if data.len() != 3 {
        return None;
    }
    let mut out = Vec::new();
    for kind in ChangeKind::ALL {
        out.extend(
            data.get(kind.key())?
                .as_array()?
                .iter()
                .map(|record| (kind, record)),
        );
    }
    Some(out)
}

/// [`entries`] over a parsed document, for the layer's one pass over a body.
pub(crate) fn entries_of(body: Node<'_>) -> Option<Vec<(ChangeKind, Node<'_>)>> {
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
/// shaped like [`Changes`](crate::changes::Changes) (then it is an ordinary
/// list, or not a list).
///
/// One line per change, prefixed by its kind (`+ ` created, `~ ` updated,
/// `- ` deleted), with `ids[i]` beside `lines[i]`; `meta` is the body's own
/// (`response_timestamp`, `total_changes`). The layer calls this only for a
/// `?since=` request; [`compact_envelope`](super::compact_envelope) never
/// reads a body as a change set.
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
/// use tower_terse::changes::compact_changes;
/// use tower_terse::compact::{CompactResource, RenderContext, Template};
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
/// # Ok::<(), tower_terse::compact::TemplateError>(())
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
    let changes = entries_of(body)?;
    let mut counts = [0usize; 3];
    for (kind, _) in &changes {
        counts[*kind as usize] += 1;
    }
    let summary = format!(
        "{} changed: {} created, {} updated, {} deleted",
        resource.noun().count(changes.len()),
        counts[ChangeKind::Created as usize],
        counts[ChangeKind::Updated as usize],
        counts[ChangeKind::Deleted as usize],
    );
    let meta = match body.get("meta") {
        Some(meta) if meta.is_object() => Meta::of(meta),
        _ => Meta::NONE,
    };
    let records = changes
        .iter()
        .map(|&(kind, record)| (kind.prefix(), record));
    Some(Envelope::render(&summary, records, resource, cx, meta))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::compact::{Template, compact_envelope};

    fn events() -> CompactResource {
        CompactResource::new("event", Template::parse("{title}").unwrap())
    }

    fn changes(body: Value) -> Option<Result<Value, NotCompact>> {
        compact_changes(&body, &events(), &RenderContext::at_unix(0))
    }

    #[test]
    fn change_sets_read_one_line_per_change() {
        let body = json!({
            "data": {
                "created": [{"id": 3, "title": "Retro"}],
                "updated": [{"id": 1, "title": "Standup"}, {"id": 9, "title": "Review"}],
                "deleted": [{"id": 4, "title": "Lunch"}],
            },
            "meta": {"response_timestamp": "2026-02-18T09:00:00Z", "total_changes": 4},
        });
        let out = changes(body.clone()).unwrap().unwrap();
        assert_eq!(
            out,
            json!({
                "format": "compact",
                "summary": "4 events changed: 1 created, 2 updated, 1 deleted",
                "lines": ["+ Retro", "~ Standup", "~ Review", "- Lunch"],
                "ids": [3, 1, 9, 4],
                "meta": {"response_timestamp": "2026-02-18T09:00:00Z", "total_changes": 4},
            })
        );
        let err = changes(json!({"data": {"created": [], "updated": ["x"], "deleted": []}}))
            .unwrap()
            .unwrap_err();
        assert!(err.should_log(), "{err}");
        // `data` with other keys is not a change set.
        assert_eq!(
            changes(json!({"data": {"created": [], "updated": []}})),
            None
        );
        // Nor is any body to `compact_envelope`, which has no request to
        // tell it that `since` was asked: there `data` is not a list.
        let err = compact_envelope(
            &body,
            crate::defaults::LIST_KEYS,
            &events(),
            &RenderContext::at_unix(0),
        )
        .unwrap_err();
        assert_eq!(err, NotCompact::NotAList);
    }
}
