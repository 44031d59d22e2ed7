//! A list body to the compact envelope.

use std::fmt;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use terse_toon::document::{Document, Kind, Node};

use super::lines::{LineArray, find_json_special, push_short, write_json_string};
use super::resource::kind_of;
use super::{CompactResource, RecordError, RenderContext};

/// Why a body was not turned into a compact envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotCompact {
    /// The body is not list-shaped: neither a root array nor an object with
    /// an array under one of the list keys. Expected on single-object routes;
    /// the layer serves JSON without a word.
    NotAList,
    /// A record does not fit the resource; the layer serves the JSON
    /// unchanged and logs this.
    Record {
        /// Position of the record in the list.
        index: usize,
        /// What is wrong with it.
        error: RecordError,
    },
    /// The envelope would be larger than
    /// [`RenderContext::max_output_bytes`]; the layer serves the JSON
    /// unchanged.
    TooLarge {
        /// The bound, in bytes.
        limit: usize,
    },
}

impl NotCompact {
    /// Whether this is worth a log line: a record of the wrong shape is; a
    /// body that is not a list is not.
    pub fn should_log(&self) -> bool {
        matches!(self, NotCompact::Record { .. })
    }
}

impl fmt::Display for NotCompact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotCompact::NotAList => f.write_str("the body is not a list"),
            NotCompact::Record { index, error } => write!(f, "record {index}: {error}"),
            NotCompact::TooLarge { limit } => {
                write!(f, "the envelope would be larger than {limit} bytes")
            }
        }
    }
}

impl std::error::Error for NotCompact {}

/// Builds the compact envelope for a list body:
///
/// ```json
/// {"format":"compact","summary":"20 of 57 events","lines":["..."],"ids":[1],"meta":{"total":57,"has_more":true}}
/// ```
///
/// - The list is the root array, or in an object body the array under the
///   resource's [list key](CompactResource::with_list_key) when it names
///   one, otherwise under the first of `list_keys` that holds an array.
/// - `lines[i]` and `ids[i]` describe the `i`-th record; an id is the
///   record's value under the resource's id key, as written (string or
///   number).
/// - `summary` counts the records with the resource's noun (`1 event`,
///   `3 events`), as `20 of 57 events` when a total larger than the count is
///   known.
/// - `meta` is the body's own `meta` object when it has one, otherwise the
///   body's other top-level keys (so `total` or `next_cursor` written beside
///   the list are kept). `has_more` is added, unless already there: `true`
///   when a `next`, `next_cursor`, `nextCursor`, `next_page`, `nextPage` or
///   `next_page_token` holds a URL, cursor or page number, `false` when it
///   is `null` or empty; without one, when a total is known,
///   `offset + count < total`. The total is read from the resource's
///   [total key](CompactResource::with_total_key) when it names one,
///   otherwise from `total`, `count`, `total_count` or `totalCount`, or
///   json-server's `items` beside `pages`; the offset from `offset`, or
///   from `page` (1-based) and `per_page`, `page_size`, `perPage`,
///   `pageSize` or `limit`; each looked for in `meta`, `pagination` and
///   `links` first, then beside the list. When there is nothing to carry
///   (a root array, a body with only the list), `meta` is left out.
/// - A change set (the answer to a `?since=` request) is not read here: this
///   function has no request to tell it that `since` was asked, and a list
///   route may well hold `created`, `updated` and `deleted` under `data`.
///   Use `tower_terse::changes::compact_changes` for one (feature `changes`).
///
/// # Errors
///
/// [`NotCompact::NotAList`] when the body is not list-shaped;
/// [`NotCompact::Record`] for the first record that is not an object, has no
/// id (null counts as none), or does not fit the resource.
///
/// # Example
///
/// ```
/// use serde_json::json;
/// use tower_terse::compact::{
///     compact_envelope, CompactResource, RenderContext, Template,
/// };
///
/// let events = CompactResource::new("event", Template::parse("{title}")?);
/// let body = json!({
///     "data": [{"id": 7, "title": "Standup"}, {"id": 9, "title": "Review"}],
///     "meta": {"total": 57, "offset": 0, "limit": 2},
/// });
/// let envelope = compact_envelope(&body, tower_terse::defaults::LIST_KEYS, &events, &RenderContext::now()).unwrap();
/// assert_eq!(
///     envelope,
///     json!({
///         "format": "compact",
///         "summary": "2 of 57 events",
///         "lines": ["Standup", "Review"],
///         "ids": [7, 9],
///         "meta": {"total": 57, "offset": 0, "limit": 2, "has_more": true},
///     })
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compact_envelope<K: AsRef<str>>(
    body: &Value,
    list_keys: &[K],
    resource: &CompactResource,
    cx: &RenderContext,
) -> Result<Value, NotCompact> {
    let document = Document::from_value(body);
    Envelope::build(document.root(), list_keys, resource, cx).map(|envelope| envelope.into_value())
}

/// The compact envelope of one body, borrowing its ids and meta from the
/// body's [`Document`]. Its text is written up to the end of `lines` while
/// the records render; [`into_json`](Self::into_json) writes the rest.
#[derive(Debug)]
pub(crate) struct Envelope<'t> {
    lines: LineArray,
    /// The `ids` array's items as JSON text, comma-separated: written as
    /// each record renders, while its id is at hand, rather than read
    /// back from the document in a second pass.
    ids: String,
    meta: Meta<'t>,
}

impl<'t> Envelope<'t> {
    /// The envelope for `body`, as [`compact_envelope`] describes.
    pub(crate) fn build<K: AsRef<str>>(
        body: Node<'t>,
        list_keys: &'t [K],
        resource: &CompactResource,
        cx: &RenderContext,
    ) -> Result<Self, NotCompact> {
        let (records, outer, list_key) = match body.kind() {
            Kind::Array(_) => (body, None, None),
            Kind::Object(_) => {
                let (key, records) = match resource.list_key() {
                    Some(key) => list_under(body, key),
                    None => list_key(list_keys, |key| body.get(key).is_some_and(Node::is_array))
                        .and_then(|key| list_under(body, key)),
                }
                .ok_or(NotCompact::NotAList)?;
                (records, Some(body), Some(key))
            }
            _ => return Err(NotCompact::NotAList),
        };

        // The summary comes before the lines in the text, so it is written
        // from the record count before they render.
        let count = records.items().len();
        let pagination = outer.map(|outer| Pagination::read(outer, resource.total_key()));
        let total = pagination.and_then(|p| p.total);
        let has_more = pagination.and_then(|p| {
            // A `next` link or cursor says it outright; otherwise the
            // records seen so far are weighed against the total.
            p.next.or_else(|| {
                let seen = p.offset.unwrap_or(0).saturating_add(count as u64);
                Some(seen < p.total?)
            })
        });
        let meta = match outer {
            None => Meta::NONE,
            Some(object) => match object.get("meta") {
                Some(meta) if meta.is_object() => Meta {
                    source: Some(meta),
                    skip: None,
                    has_more,
                },
                _ => Meta {
                    source: Some(object),
                    skip: list_key,
                    has_more,
                },
            },
        };
        let noun = resource.noun();
        let summary = noun.count_of(count, total);
        Self::render(
            &summary,
            records.items().map(|record| ("", record)),
            resource,
            cx,
            meta,
        )
    }

    /// Renders the envelope of `records` (each line starting with its
    /// record's prefix) under `summary`.
    ///
    /// # Errors
    ///
    /// [`NotCompact::Record`] for the first record that is not an object,
    /// has no id (null counts as none), or does not fit the resource.
    pub(crate) fn render(
        summary: &str,
        records: impl ExactSizeIterator<Item = (&'static str, Node<'t>)>,
        resource: &CompactResource,
        cx: &RenderContext,
        meta: Meta<'t>,
    ) -> Result<Self, NotCompact> {
        let count = records.len();
        let mut json = LineArray::buffer(summary.len() + 64, count);
        json.push_str("{\"format\":\"compact\",\"summary\":");
        write_json_string(&mut json, summary);
        json.push_str(",\"lines\":");
        let limit = cx.max_output_bytes();
        let mut lines = LineArray::open(json, limit);
        // Grown as records render: a body of many records that fails at the
        // first does not pay for them all up front.
        let mut ids = String::with_capacity(count.min(1024) * 8);
        // Where the id stood in the last record: records of a list mostly
        // hold their keys in one order, so it is looked at first.
        let mut id_at = 0;
        let in_place = resource.writes_in_place();
        for (index, (prefix, record)) in records.enumerate() {
            let fail = |error| NotCompact::Record { index, error };
            let line = lines.start(in_place);
            line.push_str(prefix);
            let verbatim = resource.write_line(record, cx, line).map_err(fail)?
                && (prefix.is_empty() || find_json_special(prefix.as_bytes()).is_none());
            let found = record
                .find_hinted(resource.id_key(), id_at)
                .map(|(at, id)| {
                    id_at = at;
                    id
                });
            // Null counts as no id; it is neither of the kinds read first,
            // so it is looked for only when they are not found.
            let no_id = || {
                fail(RecordError::new(format_args!(
                    "no id under `{}`",
                    resource.id_key()
                )))
            };
            let Some(id) = found else {
                return Err(no_id());
            };
            // Most string ids needed no escape in the body: read once,
            // without resolving the node's kind, and written as they stand
            // between quotes.
            if let Some(text) = id.as_unescaped_str() {
                lines
                    .finish(verbatim, count - index - 1, text.len() + 3)
                    .map_err(|_| NotCompact::TooLarge { limit })?;
                push_plain_id(text, index > 0, &mut ids);
                continue;
            }
            // Integer ids are their own JSON text too.
            if let Some(text) = id.as_integer_text() {
                lines
                    .finish(verbatim, count - index - 1, text.len() + 1)
                    .map_err(|_| NotCompact::TooLarge { limit })?;
                if index > 0 {
                    ids.push(',');
                }
                push_short(&mut ids, text);
                continue;
            }
            if id.is_null() {
                return Err(no_id());
            }
            let kind = id.kind();
            let room = match kind {
                Kind::String(text) => text.len() + 3,
                Kind::Number(_) => 24,
                _ => {
                    return Err(fail(RecordError::new(format_args!(
                        "the id under `{}` is {}, not a string or number",
                        resource.id_key(),
                        kind_of(id)
                    ))));
                }
            };
            lines
                .finish(verbatim, count - index - 1, room)
                .map_err(|_| NotCompact::TooLarge { limit })?;
            if index > 0 {
                ids.push(',');
            }
            write_id(kind, &mut ids);
        }
        Ok(Envelope { lines, ids, meta })
    }

    /// The envelope as a `serde_json::Value`.
    pub(crate) fn into_value(self) -> Value {
        // Cannot fail: the text is JSON written by `into_json`.
        serde_json::from_str(&self.into_json()).unwrap_or(Value::Null)
    }

    /// The envelope as compact JSON text.
    pub(crate) fn into_json(self) -> String {
        let mut out = self.lines.close();
        out.reserve(self.ids.len() + 64);
        out.push_str(",\"ids\":[");
        out.push_str(&self.ids);
        out.push(']');
        if !self.meta.is_empty() {
            out.push_str(",\"meta\":");
            // As above; meta holds only JSON read from a document.
            out.push_str(&serde_json::to_string(&self.meta).unwrap_or_default());
        }
        out.push('}');
        out
    }
}

/// Where the records of an object body are: the first of `list_keys` whose
/// value is an array (`is_array` says). The one rule for finding the list
/// in a body, used by the envelope and by `?fields=` projection.
pub(crate) fn list_key<K: AsRef<str>>(
    list_keys: &[K],
    is_array: impl Fn(&str) -> bool,
) -> Option<&str> {
    list_keys
        .iter()
        .map(AsRef::as_ref)
        .find(|key| is_array(key))
}

/// Writes a string id that needed no escape in the body onto `out`, after
/// a comma when `comma` says. Inlined into the records' loop now that
/// integer ids have a path of their own (a call cost the nested orders
/// some 1.2k instructions a rendering).
#[inline(always)]
fn push_plain_id(text: &str, comma: bool, out: &mut String) {
    if comma {
        out.push(',');
    }
    out.push('"');
    push_short(out, text);
    out.push('"');
}

/// Writes an id (a string or a number, whose `kind` was read already) as
/// JSON onto `out`.
fn write_id(kind: Kind<'_>, out: &mut String) {
    match kind {
        // One that needed no escape in the body was written before.
        Kind::String(text) => write_json_string(out, text),
        // `serde_json`'s text for the number, written in place.
        Kind::Number(number) => number.push_json_text(out),
        _ => {}
    }
}

/// The envelope's `meta`: the entries of an object of the body (less the
/// list's own key), then `has_more` unless the object has it.
#[derive(Debug)]
pub(crate) struct Meta<'t> {
    source: Option<Node<'t>>,
    skip: Option<&'t str>,
    has_more: Option<bool>,
}

impl<'t> Meta<'t> {
    /// No meta at all.
    pub(crate) const NONE: Meta<'static> = Meta {
        source: None,
        skip: None,
        has_more: None,
    };

    /// The entries of `object`, as they are.
    #[cfg(feature = "changes")]
    pub(crate) fn of(object: Node<'t>) -> Self {
        Meta {
            source: Some(object),
            skip: None,
            has_more: None,
        }
    }

    fn entries(&self) -> impl Iterator<Item = (&'t str, Node<'t>)> + '_ {
        self.source
            .into_iter()
            .flat_map(Node::entries)
            .filter(|(key, _)| Some(*key) != self.skip)
    }

    /// `has_more`, when it is to be added.
    fn added_has_more(&self) -> Option<bool> {
        self.has_more
            .filter(|_| !self.entries().any(|(key, _)| key == "has_more"))
    }

    fn is_empty(&self) -> bool {
        self.entries().next().is_none() && self.added_has_more().is_none()
    }
}

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.entries() {
            map.serialize_entry(key, &value)?;
        }
        if let Some(has_more) = self.added_has_more() {
            map.serialize_entry("has_more", &has_more)?;
        }
        map.end()
    }
}

/// The array under `key` of `object`, with the key as the document holds it.
fn list_under<'t>(object: Node<'t>, key: &str) -> Option<(&'t str, Node<'t>)> {
    let (position, records) = object.find(key)?;
    let (key, _) = object.entry(position)?;
    records.is_array().then_some((key, records))
}

/// The objects pagination is looked for in, before the body itself.
const PAGINATION_OBJECTS: [&str; 3] = ["meta", "pagination", "links"];

/// The most segments of a resource's dotted `total_key` walked.
const MAX_TOTAL_KEY_DEPTH: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pagination {
    total: Option<u64>,
    offset: Option<u64>,
    /// Whether a next page is announced, when the body says.
    next: Option<bool>,
}

/// The keys [`Pagination::read`] looks for, in one table: every key of
/// every place is matched against them once, rather than each place
/// searched once for each of them.
const PAGE_KEYS: [&str; 19] = [
    "total",
    "count",
    "total_count",
    "totalCount",
    "pages",
    "items",
    "offset",
    "page",
    "per_page",
    "page_size",
    "perPage",
    "pageSize",
    "limit",
    "next",
    "next_cursor",
    "nextCursor",
    "next_page",
    "nextPage",
    "next_page_token",
];

/// Where each group of keys stands in [`PAGE_KEYS`]: the keys a total is
/// read from, in order, in each place looked in (then json-server's pages
/// and items); the offset's, the page's and the page size's; the keys of a
/// link or cursor to the next page.
const TOTALS: std::ops::Range<usize> = 0..4;
const PAGES: usize = 4;
const ITEMS: usize = 5;
const OFFSET: usize = 6;
const PAGE: usize = 7;
const SIZES: std::ops::Range<usize> = 8..13;
const NEXTS: std::ops::Range<usize> = 13..19;

/// The position of `key` in [`PAGE_KEYS`]: one comparison of lengths and
/// bytes per candidate of the key's length, through the compiler's match.
fn page_key(key: &str) -> Option<usize> {
    Some(match key {
        "total" => 0,
        "count" => 1,
        "total_count" => 2,
        "totalCount" => 3,
        "pages" => 4,
        "items" => 5,
        "offset" => 6,
        "page" => 7,
        "per_page" => 8,
        "page_size" => 9,
        "perPage" => 10,
        "pageSize" => 11,
        "limit" => 12,
        "next" => 13,
        "next_cursor" => 14,
        "nextCursor" => 15,
        "next_page" => 16,
        "nextPage" => 17,
        "next_page_token" => 18,
        _ => return None,
    })
}

/// The first value under each of [`PAGE_KEYS`] in each place pagination is
/// looked for in (`meta`, `pagination`, `links` when they are objects,
/// then the body), read in one pass over each place's entries.
struct PageKeys<'t> {
    /// `found[place][key]`: what `place.get(PAGE_KEYS[key])` gives.
    found: [[Option<Node<'t>>; PAGE_KEYS.len()]; PAGINATION_OBJECTS.len() + 1],
    places: usize,
}

impl<'t> PageKeys<'t> {
    fn read(body: Node<'t>) -> Self {
        let mut keys = PageKeys {
            found: [[None; PAGE_KEYS.len()]; PAGINATION_OBJECTS.len() + 1],
            places: 0,
        };
        let places = PAGINATION_OBJECTS
            .iter()
            .filter_map(|key| body.get(key).filter(|o| o.is_object()))
            .chain([body]);
        for (found, place) in keys.found.iter_mut().zip(places) {
            for (key, value) in place.entries() {
                // The first entry of a key is the one `get` finds.
                if let Some(slot) = page_key(key).and_then(|i| found.get_mut(i)) {
                    slot.get_or_insert(value);
                }
            }
            keys.places += 1;
        }
        keys
    }

    /// The value under `PAGE_KEYS[key]` in each place, in order.
    fn values(&self, key: usize) -> impl Iterator<Item = Option<Node<'t>>> + '_ {
        self.found
            .iter()
            .take(self.places)
            .map(move |found| found.get(key).copied().flatten())
    }
}

impl Pagination {
    /// Reads `body`: in `meta`, `pagination` and `links` first, then beside
    /// the list. `total_key`, when a resource names one, is the only place
    /// a total is read from.
    fn read(body: Node<'_>, total_key: Option<&str>) -> Self {
        let keys = PageKeys::read(body);
        let as_u64 = |node: Node<'_>| node.as_number()?.as_u64();
        let number = |names: std::ops::Range<usize>| {
            names
                .into_iter()
                .find_map(|key| keys.values(key).find_map(|value| value.and_then(as_u64)))
        };
        let total = match total_key {
            Some(path) => path
                .split('.')
                .take(MAX_TOTAL_KEY_DEPTH)
                .try_fold(body, |node, key| node.get(key))
                .and_then(as_u64),
            // json-server writes the total as `items` beside `pages`.
            None => number(TOTALS).or_else(|| {
                keys.values(PAGES)
                    .zip(keys.values(ITEMS))
                    .find(|(pages, _)| pages.and_then(as_u64).is_some())
                    .and_then(|(_, items)| items.and_then(as_u64))
            }),
        };
        let offset = number(OFFSET..OFFSET + 1).or_else(|| {
            let page = number(PAGE..PAGE + 1)?;
            let size = number(SIZES)?;
            Some(page.saturating_sub(1).saturating_mul(size))
        });
        let next = NEXTS
            .into_iter()
            .find_map(|key| keys.values(key).flatten().next().and_then(announces_more));
        Pagination {
            total,
            offset,
            next,
        }
    }

    /// [`read`](Self::read) as it was written first, a search of each
    /// place for each key: what the one pass is held to.
    #[cfg(test)]
    fn read_by_search(body: Node<'_>, total_key: Option<&str>) -> Self {
        let places: Vec<Node<'_>> = PAGINATION_OBJECTS
            .iter()
            .filter_map(|key| body.get(key).filter(|o| o.is_object()))
            .chain([body])
            .collect();
        let as_u64 = |node: Node<'_>| node.as_number()?.as_u64();
        let number = |keys: &[&str]| {
            keys.iter().find_map(|key| {
                places
                    .iter()
                    .find_map(|place| place.get(key).and_then(as_u64))
            })
        };
        let total = match total_key {
            Some(path) => path
                .split('.')
                .take(MAX_TOTAL_KEY_DEPTH)
                .try_fold(body, |node, key| node.get(key))
                .and_then(as_u64),
            None => number(&["total", "count", "total_count", "totalCount"]).or_else(|| {
                places
                    .iter()
                    .find(|place| place.get("pages").and_then(as_u64).is_some())
                    .and_then(|place| place.get("items").and_then(as_u64))
            }),
        };
        let offset = number(&["offset"]).or_else(|| {
            let page = number(&["page"])?;
            let size = number(&["per_page", "page_size", "perPage", "pageSize", "limit"])?;
            Some(page.saturating_sub(1).saturating_mul(size))
        });
        let next = [
            "next",
            "next_cursor",
            "nextCursor",
            "next_page",
            "nextPage",
            "next_page_token",
        ]
        .iter()
        .find_map(|key| {
            places
                .iter()
                .find_map(|place| place.get(key))
                .and_then(announces_more)
        });
        Pagination {
            total,
            offset,
            next,
        }
    }
}

/// Whether a `next` value announces another page: a URL, a cursor or a
/// page number does; `null`, `false` and `""` do not; anything else says
/// nothing.
fn announces_more(next: Node<'_>) -> Option<bool> {
    match next.kind() {
        Kind::Null => Some(false),
        Kind::Bool(more) => Some(more),
        Kind::String(text) => Some(!text.is_empty()),
        Kind::Number(_) => Some(true),
        Kind::Array(_) | Kind::Object(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::compact::Template;

    fn events() -> CompactResource {
        CompactResource::new("event", Template::parse("{title}").unwrap())
    }

    fn envelope(body: Value) -> Result<Value, NotCompact> {
        compact_envelope(
            &body,
            crate::defaults::LIST_KEYS,
            &events(),
            &RenderContext::at_unix(0),
        )
    }

    /// The layer's own way in: text parsed into a document, the envelope
    /// written as text.
    fn envelope_of_text(body: &str) -> String {
        let document = Document::parse(body).unwrap();
        let envelope = Envelope::build(
            document.root(),
            crate::defaults::LIST_KEYS,
            &events(),
            &RenderContext::at_unix(0),
        )
        .unwrap();
        envelope.into_json()
    }

    #[test]
    fn text_with_and_without_escapes_is_written_as_serde_json_writes_it() {
        let body = r#"[
            {"id": "plain-1", "title": "Plain"},
            {"id": "quo\"te", "title": "say \"hi\" \\ \u0001 caf\u00e9 \ud83d\ude00"},
            {"id": "caf\u00e9", "title": "two\nlines"},
            {"id": 17, "title": "é 😀 \u2028"},
            {"id": 1.5e3, "title": ""}
        ]"#;
        let text = envelope_of_text(body);
        let value: Value = serde_json::from_str(&text).unwrap();
        // Written exactly as serde_json writes the same envelope.
        assert_eq!(text, value.to_string());
        assert_eq!(
            value,
            json!({
                "format": "compact",
                "summary": "5 events",
                "lines": ["Plain", "say \"hi\" \\ \\u{1} café 😀", "two\\nlines", "é 😀 \\u{2028}", ""],
                "ids": ["plain-1", "quo\"te", "café", 17, 1500.0],
            })
        );
    }

    #[test]
    fn every_page_key_is_matched_where_it_stands() {
        for (i, key) in PAGE_KEYS.iter().enumerate() {
            assert_eq!(page_key(key), Some(i), "{key}");
        }
        assert_eq!(page_key("data"), None);
        assert_eq!(page_key("Total"), None);
        assert_eq!(page_key(""), None);
    }

    proptest::proptest! {
        /// One pass over each place's entries reads what searching each
        /// place for each key reads: keys in any place, in any order,
        /// twice over, of any kind of value, places that are not objects.
        #[test]
        fn pagination_read_in_one_pass_is_the_search(
            places in proptest::collection::vec(0usize..5, 4),
            entries in proptest::collection::vec((0usize..4, 0usize..24, 0usize..12), 0..40),
            total_key in 0usize..3,
        ) {
            const VALUES: [&str; 12] =
                ["null", "true", "false", "\"\"", "\"c1\"", "0", "5", "2.5", "-1", "[]", "{}", "18446744073709551616"];
            let key = |k: usize| match PAGE_KEYS.get(k) {
                Some(key) => *key,
                None => ["id", "data", "meta", "links", "x"][k - PAGE_KEYS.len()],
            };
            let object = |place: usize| {
                let inner: Vec<String> = entries
                    .iter()
                    .filter(|(p, _, _)| *p == place)
                    .map(|&(_, k, v)| format!("\"{}\":{}", key(k), VALUES[v]))
                    .collect();
                format!("{{{}}}", inner.join(","))
            };
            // Each of meta, pagination and links is an object, a number,
            // null or missing.
            let mut body = vec!["\"data\":[]".to_owned()];
            for (i, name) in PAGINATION_OBJECTS.iter().enumerate() {
                match places[i] {
                    0 | 1 => body.push(format!("\"{name}\":{}", object(i))),
                    2 => body.push(format!("\"{name}\":7")),
                    3 => body.push(format!("\"{name}\":null")),
                    _ => {}
                }
            }
            let top = object(3);
            let top = &top[1..top.len() - 1];
            if !top.is_empty() {
                body.push(top.to_owned());
            }
            let text = format!("{{{}}}", body.join(","));
            let document = Document::parse(&text).unwrap();
            let total_key = [None, Some("meta.total"), Some("count")][total_key];
            proptest::prop_assert_eq!(
                Pagination::read(document.root(), total_key),
                Pagination::read_by_search(document.root(), total_key),
                "{}", text
            );
        }
    }

    #[test]
    fn root_array_has_no_meta() {
        let out = envelope(json!([{"id": "b", "title": "B"}, {"id": 1, "title": "A"}])).unwrap();
        assert_eq!(
            out,
            json!({"format": "compact", "summary": "2 events", "lines": ["B", "A"], "ids": ["b", 1]})
        );
        let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["format", "summary", "lines", "ids"]);
    }

    #[test]
    fn summaries() {
        let one = envelope(json!([{"id": 1, "title": "A"}])).unwrap();
        assert_eq!(one["summary"], "1 event");
        let none = envelope(json!({"items": []})).unwrap();
        assert_eq!(none["summary"], "0 events");
        assert_eq!(none.get("meta"), None);
        let people =
            CompactResource::new("person", Template::parse("{n}").unwrap()).with_plural("people");
        let out = compact_envelope(
            &json!({"results": [{"id": 1, "n": "x"}], "total": 3}),
            crate::defaults::LIST_KEYS,
            &people,
            &RenderContext::at_unix(0),
        )
        .unwrap();
        assert_eq!(out["summary"], "1 of 3 people");
    }

    #[test]
    fn has_more_from_total_and_offset() {
        let list = json!([{"id": 1, "title": "A"}, {"id": 2, "title": "B"}]);
        let cases = [
            (
                json!({"total": 57, "offset": 0, "limit": 2}),
                Some(true),
                "2 of 57 events",
            ),
            (
                json!({"total": 57, "offset": 55, "limit": 2}),
                Some(false),
                "2 of 57 events",
            ),
            (json!({"total": 2}), Some(false), "2 events"),
            (json!({"total_count": 5}), Some(true), "2 of 5 events"),
            (
                json!({"totalCount": 5, "offset": 3}),
                Some(false),
                "2 of 5 events",
            ),
            (
                json!({"total": 6, "page": 2, "per_page": 2}),
                Some(true),
                "2 of 6 events",
            ),
            (
                json!({"total": 6, "page": 3, "page_size": 2}),
                Some(false),
                "2 of 6 events",
            ),
            (json!({"limit": 2, "offset": 0}), None, "2 events"),
            (
                json!({"total": 57, "has_more": false}),
                Some(false),
                "2 of 57 events",
            ),
            (json!({"next_cursor": "abc"}), Some(true), "2 events"),
        ];
        for (meta, has_more, summary) in cases {
            let out = envelope(json!({"data": list, "meta": meta})).unwrap();
            assert_eq!(out["summary"], summary, "{meta}");
            assert_eq!(
                out["meta"].get("has_more").and_then(Value::as_bool),
                has_more,
                "{meta}"
            );
            for (key, value) in meta.as_object().unwrap() {
                assert_eq!(&out["meta"][key], value, "{meta} keeps {key}");
            }
        }
    }

    #[test]
    fn pagination_beside_the_list_becomes_meta() {
        let out = envelope(json!({"total": 3, "data": [{"id": 1, "title": "A"}], "next": "/p2"}))
            .unwrap();
        assert_eq!(
            out["meta"],
            json!({"total": 3, "next": "/p2", "has_more": true})
        );
        // With a `meta` object, that object is what is carried.
        let out = envelope(json!({"data": [], "meta": {"total": 0}, "links": {}})).unwrap();
        assert_eq!(out["meta"], json!({"total": 0, "has_more": false}));
    }

    #[test]
    fn totals_and_next_pages_of_common_frameworks() {
        let rows = json!([{"id": 1, "title": "A"}, {"id": 2, "title": "B"}]);
        let cases = [
            // Django REST framework's page.
            (
                json!({"count": 57, "next": "http://x/?page=2", "previous": null, "results": rows}),
                "2 of 57 events",
                Some(true),
            ),
            (
                json!({"count": 57, "next": null, "previous": "http://x/?page=28", "results": rows}),
                "2 of 57 events",
                Some(false),
            ),
            (
                json!({"total_count": 9, "records": rows}),
                "2 of 9 events",
                Some(true),
            ),
            (
                json!({"totalCount": 9, "rows": rows}),
                "2 of 9 events",
                Some(true),
            ),
            (
                json!({"entries": rows, "meta": {"total": 4}}),
                "2 of 4 events",
                Some(true),
            ),
            (
                json!({"data": rows, "pagination": {"total": 40, "next_cursor": null}}),
                "2 of 40 events",
                Some(false),
            ),
            // json-server: `items` is the total when `pages` is beside it.
            (
                json!({"first": 1, "prev": null, "next": 2, "last": 29, "pages": 29, "items": 57, "data": rows}),
                "2 of 57 events",
                Some(true),
            ),
            (
                json!({"data": rows, "links": {"next": "/p?cursor=abc"}}),
                "2 events",
                Some(true),
            ),
            (
                json!({"data": rows, "nextCursor": ""}),
                "2 events",
                Some(false),
            ),
            (json!({"data": rows, "next": {"odd": 1}}), "2 events", None),
        ];
        for (body, summary, has_more) in cases {
            let out = envelope(body.clone()).unwrap();
            assert_eq!(out["lines"], json!(["A", "B"]), "{body}");
            assert_eq!(out["summary"], summary, "{body}");
            assert_eq!(
                out.get("meta")
                    .and_then(|m| m.get("has_more"))
                    .and_then(Value::as_bool),
                has_more,
                "{body}"
            );
        }
    }

    #[test]
    fn a_resource_names_its_list_and_total() {
        let tasks = CompactResource::new("task", Template::parse("{t}").unwrap())
            .with_list_key("tasks")
            .with_total_key("hits.total.value");
        let body = json!({
            "data": [{"id": 9, "t": "not these"}],
            "tasks": [{"id": 1, "t": "these"}],
            "total": 99,
            "hits": {"total": {"value": 12}},
        });
        let out = compact_envelope(
            &body,
            crate::defaults::LIST_KEYS,
            &tasks,
            &RenderContext::at_unix(0),
        )
        .unwrap();
        assert_eq!(out["lines"], json!(["these"]));
        assert_eq!(out["summary"], "1 of 12 tasks");
        // The named list only: no fallback to the layer's keys.
        let err = compact_envelope(
            &json!({"data": [{"id": 1, "t": "x"}]}),
            crate::defaults::LIST_KEYS,
            &tasks,
            &RenderContext::at_unix(0),
        )
        .unwrap_err();
        assert_eq!(err, NotCompact::NotAList);
        // A total key that leads nowhere gives no total.
        let out = compact_envelope(
            &json!({"tasks": [{"id": 1, "t": "x"}], "hits": 3}),
            crate::defaults::LIST_KEYS,
            &tasks,
            &RenderContext::at_unix(0),
        )
        .unwrap();
        assert_eq!(out["summary"], "1 task");
    }

    #[test]
    fn list_keys_in_order_and_configurable() {
        let body = json!({"items": [{"id": 1, "title": "I"}], "data": [{"id": 2, "title": "D"}]});
        assert_eq!(envelope(body.clone()).unwrap()["lines"], json!(["D"]));
        let out = compact_envelope(
            &body,
            &["items".to_owned()],
            &events(),
            &RenderContext::at_unix(0),
        )
        .unwrap();
        assert_eq!(out["lines"], json!(["I"]));
        assert_eq!(out["meta"], json!({"data": [{"id": 2, "title": "D"}]}));
    }

    #[test]
    fn not_a_list() {
        for body in [
            json!({"id": 1, "title": "A"}),
            json!({"data": {"id": 1}}),
            json!("x"),
            json!(null),
            json!(3),
        ] {
            let err = envelope(body.clone()).unwrap_err();
            assert_eq!(err, NotCompact::NotAList, "{body}");
            assert!(!err.should_log());
        }
    }

    #[test]
    fn records_that_do_not_fit() {
        let err = envelope(json!([{"id": 1, "title": "A"}, "oops"])).unwrap_err();
        assert!(err.should_log());
        assert_eq!(
            err.to_string(),
            "record 1: expected an object, found a string"
        );
        let err = envelope(json!([{"title": "A"}])).unwrap_err();
        assert_eq!(err.to_string(), "record 0: no id under `id`");
        let err = envelope(json!([{"id": null, "title": "A"}])).unwrap_err();
        assert_eq!(err.to_string(), "record 0: no id under `id`");
        let err = envelope(json!([{"id": [1], "title": "A"}])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "record 0: the id under `id` is an array, not a string or number"
        );
    }

    #[test]
    fn ids_follow_lines_with_a_custom_key() {
        let notes = CompactResource::new("note", Template::parse("{title|upper}").unwrap())
            .with_id_key("slug");
        let body = json!({"data": [
            {"slug": "c", "title": "c"}, {"slug": "a", "title": "a"}, {"slug": "b", "title": "b"},
        ]});
        let out = compact_envelope(
            &body,
            crate::defaults::LIST_KEYS,
            &notes,
            &RenderContext::at_unix(0),
        )
        .unwrap();
        assert_eq!(out["lines"], json!(["C", "A", "B"]));
        assert_eq!(out["ids"], json!(["c", "a", "b"]));
        assert_eq!(
            format!("{notes:?}"),
            r#"CompactResource { noun: Noun { singular: "note", plural: "notes" }, id_key: "slug", template: "{title|upper}" }"#
        );
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// The ids as the envelope writes them from the body's text are
        /// the ids as `serde_json` writes them: integers (written as read),
        /// floats, strings with and without escapes.
        #[test]
        fn ids_are_serde_json_text(
            ids in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::num::i64::ANY.prop_map(Value::from),
                    proptest::num::u64::ANY.prop_map(Value::from),
                    proptest::num::f64::NORMAL.prop_map(Value::from),
                    "(\\PC|[\\x00-\\x1f\"\\\\]){0,8}".prop_map(Value::from),
                ],
                1..8,
            ),
        ) {
            let records: Vec<Value> = ids.iter().map(|id| json!({"id": id, "t": "x"})).collect();
            let body = serde_json::to_string(&records).unwrap();
            let document = Document::parse(&body).unwrap();
            let resource = CompactResource::new("item", Template::parse("{t}").unwrap());
            let cx = RenderContext::at_unix(0);
            let text = Envelope::build(document.root(), &["data"], &resource, &cx)
                .unwrap()
                .into_json();
            let expected = format!(",\"ids\":{}}}", serde_json::to_string(&ids).unwrap());
            proptest::prop_assert!(text.ends_with(&expected), "{} / {}", text, expected);
        }
    }
}
