//! The list and detail handlers, shared by every resource.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use tower_terse::Since;

use crate::db::Db;
use crate::error::{self, ApiError};
use crate::paging::{ListBody, Page};
use crate::store::{self, Record};

/// `GET /api/v1/<resource>`: a page of records, or with `?since=` the changes.
pub async fn list<R: Record>(
    State(db): State<Db>,
    Since(since): Since,
    page: Page,
) -> Result<Response, ApiError> {
    match since {
        // Stamped before the query, under the write lock: see `Db::write`.
        Some(since) => db
            .write(|conn, stamp| store::changes::<R>(conn, since, stamp))
            .map(IntoResponse::into_response)
            .map_err(error::internal),
        None => {
            let (records, total) = db
                .read(|conn| store::list::<R>(conn, page))
                .map_err(error::internal)?;
            Ok(Json(ListBody::new(records, total, page)).into_response())
        }
    }
}

/// `GET /api/v1/<resource>/{id}`: one record in full, or 404.
pub async fn detail<R: Record>(
    State(db): State<Db>,
    Path(id): Path<String>,
) -> Result<Json<R>, ApiError> {
    db.read(|conn| store::get::<R>(conn, &id))
        .map_err(error::internal)?
        .map(Json)
        .ok_or_else(|| error::not_found(R::KIND, &id))
}
