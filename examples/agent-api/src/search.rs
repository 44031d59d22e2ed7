//! `GET /api/v1/search?q=...`: one search across every resource.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use tower_terse::{Changes, CompactLine, Since, Timestamp};

use crate::db::Db;
use crate::db_error::DbError;
use crate::error::{self, ApiError};
use crate::paging::{ListBody, Page, query_pairs};
use crate::store;

/// One hit, of any kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, CompactLine)]
#[compact(noun = "result", line = "{kind} {updated_at|date}: {title}")]
pub struct SearchResult {
    /// `event`, `note`, `email`, `contact`, `file` or `diary`.
    pub kind: String,
    /// The record's id.
    pub id: String,
    /// Its title, subject or name.
    pub title: String,
    /// The start of its text.
    pub snippet: String,
    /// 3 when the title matches and the text too, 2 title only, 1 text only.
    pub score: i64,
    /// Which of `title` and `text` matched.
    pub matched_fields: Vec<String>,
    /// `[{"field","fragment"}]`: the words around each match, the match in `**`.
    pub highlights: Vec<Highlight>,
    /// Where its detail is.
    pub url: String,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
}

/// The words around one match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Highlight {
    /// `title` or `text`.
    pub field: String,
    /// The match in `**`, with some context each side.
    pub fragment: String,
}

/// Context kept each side of a highlighted match, in characters.
const CONTEXT_CHARS: usize = 30;

/// The words around the first case-insensitive match of `q` in `text`.
fn highlight(text: &str, q: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let needle: Vec<char> = q.chars().flat_map(char::to_lowercase).collect();
    let lower: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let at = lower
        .windows(needle.len().max(1))
        .position(|w| w == needle.as_slice())?;
    let end = at + needle.len();
    let from = at.saturating_sub(CONTEXT_CHARS);
    let to = (end + CONTEXT_CHARS).min(chars.len());
    let piece = |a: usize, b: usize| chars[a..b].iter().collect::<String>();
    let text = format!(
        "{}{}**{}**{}{}",
        if from > 0 { "…" } else { "" },
        piece(from, at),
        piece(at, end),
        piece(end, to),
        if to < chars.len() { "…" } else { "" }
    );
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Per kind: table, path segment, title expression, text expression.
const SOURCES: [(&str, &str, &str, &str); 6] = [
    (
        "event",
        "events",
        "title",
        "coalesce(description, '') || ' ' || coalesce(location, '')",
    ),
    ("note", "notes", "title", "body"),
    (
        "email",
        "emails",
        "subject",
        "from_name || ': ' || body_text",
    ),
    (
        "contact",
        "contacts",
        "display_name",
        "coalesce(company, '') || ' ' || coalesce(job_title, '') || ' ' || coalesce(email, '')",
    ),
    ("file", "files", "name", "path"),
    ("diary", "diary", "date || ' ' || mood", "text"),
];

const SNIPPET_CHARS: usize = 80;

/// The `q` of a search request.
pub struct SearchQuery(pub String);

impl<S: Send + Sync> FromRequestParts<S> for SearchQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let q = query_pairs(parts)?
            .into_iter()
            .find(|(k, _)| k == "q")
            .map(|(_, v)| v);
        match q.map(|q| q.trim().to_owned()) {
            Some(q) if !q.is_empty() => Ok(Self(q)),
            _ => Err(error::bad_request(
                "missing_query",
                "search needs a non-empty `q`",
                "add ?q=words, e.g. /api/v1/search?q=budget",
            )),
        }
    }
}

/// `SELECT kind, id, title, snippet, score, url, created_at, updated_at, deleted_at` over every kind.
fn union_sql() -> String {
    SOURCES
        .iter()
        .map(|(kind, table, title, text)| {
            format!(
                "SELECT '{kind}' AS kind, id, {title} AS title, \
                 {text} AS text, \
                 (({title}) LIKE ?1 ESCAPE '\\') * 2 + (({text}) LIKE ?1 ESCAPE '\\') AS score, \
                 '/api/v1/{table}/' || id AS url, created_at, updated_at, deleted_at FROM {table}"
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
}

fn like_pattern(q: &str) -> String {
    let mut p = String::from("%");
    for c in q.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

fn read(row: &rusqlite::Row<'_>, q: &str) -> rusqlite::Result<SearchResult> {
    let title: String = row.get(2)?;
    let text: String = row.get(3)?;
    let mut highlights = Vec::new();
    for (field, value) in [("title", &title), ("text", &text)] {
        if let Some(fragment) = highlight(value, q) {
            highlights.push(Highlight {
                field: field.to_owned(),
                fragment,
            });
        }
    }
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Ok(SearchResult {
        kind: row.get(0)?,
        id: row.get(1)?,
        title,
        snippet: words
            .chars()
            .take(SNIPPET_CHARS)
            .collect::<String>()
            .trim_end()
            .to_owned(),
        score: row.get(4)?,
        matched_fields: highlights.iter().map(|h| h.field.clone()).collect(),
        highlights,
        url: row.get(5)?,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
    })
}

fn page(conn: &Connection, q: &str, page: Page) -> Result<(Vec<SearchResult>, u64), DbError> {
    let hits = format!(
        "SELECT * FROM ({}) WHERE score > 0 AND deleted_at IS NULL",
        union_sql()
    );
    let pattern = like_pattern(q);
    let total: i64 =
        conn.query_row(&format!("SELECT COUNT(*) FROM ({hits})"), [&pattern], |r| {
            r.get(0)
        })?;
    let sql = format!("{hits} ORDER BY score DESC, ts_us(updated_at) DESC, id LIMIT ?2 OFFSET ?3");
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(rusqlite::params![pattern, page.limit, page.offset], |row| {
        read(row, q)
    })?;
    let results = rows.collect::<Result<Vec<_>, _>>()?;
    Ok((results, total.unsigned_abs()))
}

fn changes(
    conn: &Connection,
    q: &str,
    since: Timestamp,
    stamp: Timestamp,
) -> Result<Changes<SearchResult>, DbError> {
    let sql = format!(
        "SELECT *, ts_us(created_at), ts_us(updated_at), ts_us(deleted_at) FROM ({}) \
         WHERE score > 0 AND (ts_us(created_at) >= ?2 OR ts_us(updated_at) >= ?2 OR ts_us(deleted_at) >= ?2) \
         ORDER BY score DESC, ts_us(updated_at) DESC, id",
        union_sql()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(rusqlite::params![like_pattern(q), since.unix_micros()])?;
    let mut out = Changes::new(stamp);
    while let Some(row) = rows.next()? {
        // The nine columns of `union_sql`, then the three timestamps.
        if let Some(kind) = store::change_kind(row, 9, since)? {
            out.push(kind, read(row, q)?);
        }
    }
    Ok(out)
}

/// `GET /api/v1/search?q=...`: hits across every kind, best first.
pub async fn search(
    State(db): State<Db>,
    SearchQuery(q): SearchQuery,
    Since(since): Since,
    pagination: Page,
) -> Result<Response, ApiError> {
    match since {
        Some(since) => db
            .write(|conn, stamp| changes(conn, &q, since, stamp))
            .map(IntoResponse::into_response)
            .map_err(error::internal),
        None => {
            let (results, total) = db
                .read(|conn| page(conn, &q, pagination))
                .map_err(error::internal)?;
            Ok(Json(ListBody::new(results, total, pagination)).into_response())
        }
    }
}
