//! `limit`/`offset` pagination and the list body.

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use serde::Serialize;

use crate::error::{self, ApiError};

/// Records per page when the request does not say.
pub const DEFAULT_LIMIT: i64 = 20;
/// The most records one page holds; a larger `limit` is lowered to it.
pub const MAX_LIMIT: i64 = 100;

/// The page a list request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    /// Records on this page, 1..=100.
    pub limit: i64,
    /// Records skipped before it.
    pub offset: i64,
}

impl Default for Page {
    fn default() -> Self {
        Self {
            limit: DEFAULT_LIMIT,
            offset: 0,
        }
    }
}

/// All query parameters of a request, decoded, in order.
pub(crate) fn query_pairs(parts: &Parts) -> Result<Vec<(String, String)>, ApiError> {
    Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
        .map(|Query(pairs)| pairs)
        .map_err(|e| {
            error::bad_request(
                "invalid_query",
                e.body_text(),
                "percent-encode the query string",
            )
        })
}

fn number(name: &str, value: &str) -> Result<i64, ApiError> {
    value.parse::<i64>().map_err(|_| {
        error::bad_request(
            "invalid_pagination",
            format!("`{name}={value}` is not a whole number"),
            if name == "limit" {
                "use limit=1 to 100".to_owned()
            } else {
                "use offset=0 or more".to_owned()
            },
        )
    })
}

impl<S: Send + Sync> FromRequestParts<S> for Page {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let mut page = Page::default();
        for (key, value) in query_pairs(parts)? {
            match key.as_str() {
                "limit" => page.limit = number("limit", &value)?.min(MAX_LIMIT),
                "offset" => page.offset = number("offset", &value)?,
                _ => {}
            }
        }
        if page.limit < 1 || page.offset < 0 {
            return Err(error::bad_request(
                "invalid_pagination",
                format!("limit={} offset={} is not a page", page.limit, page.offset),
                format!("limit is 1..={MAX_LIMIT} (default {DEFAULT_LIMIT}), offset 0 or more"),
            ));
        }
        Ok(page)
    }
}

/// `meta` of a list: `{total, limit, offset}`.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct ListMeta {
    /// Records in the whole list.
    pub total: u64,
    /// Records per page.
    pub limit: i64,
    /// Records skipped before this page.
    pub offset: i64,
}

/// A list answer: `{"data":[...],"meta":{"total","limit","offset"}}`.
#[derive(Clone, Debug, Serialize)]
pub struct ListBody<T> {
    /// The records of this page.
    pub data: Vec<T>,
    /// Where this page is in the list.
    pub meta: ListMeta,
}

impl<T> ListBody<T> {
    /// A page of `data` out of `total` records.
    pub fn new(data: Vec<T>, total: u64, page: Page) -> Self {
        Self {
            data,
            meta: ListMeta {
                total,
                limit: page.limit,
                offset: page.offset,
            },
        }
    }
}
