//! The router.

use axum::Router;
use axum::routing::get;
use tower_terse::TerseLayer;

use crate::contacts::Contact;
use crate::db::Db;
use crate::diary::DiaryEntry;
use crate::emails::Email;
use crate::error::ApiError;
use crate::events::{self, Event};
use crate::files::File;
use crate::handlers::{detail, list};
use crate::notes::Note;
use crate::search::{SearchResult, search};

/// The whole service over `db`, with the terse layer.
///
/// ```
/// let app = agent_api::app(agent_api::Db::open_in_memory().unwrap());
/// # drop(app);
/// ```
pub fn app(db: Db) -> Router {
    plain_app(db).layer(terse_layer())
}

/// The service without the terse layer: plain JSON, as a service in any
/// language would answer, for `terse gateway` to stand in front of
/// (`examples/gateway/agent-api.toml` holds the same templates).
///
/// ```
/// let app = agent_api::routes::plain_app(agent_api::Db::open_in_memory().unwrap());
/// # drop(app);
/// ```
pub fn plain_app(db: Db) -> Router {
    Router::new()
        .route("/api/v1/events", get(list::<Event>))
        .route(
            "/api/v1/events/{id}",
            get(detail::<Event>).patch(events::patch),
        )
        .route("/api/v1/notes", get(list::<Note>))
        .route("/api/v1/notes/{id}", get(detail::<Note>))
        .route("/api/v1/emails", get(list::<Email>))
        .route("/api/v1/emails/{id}", get(detail::<Email>))
        .route("/api/v1/contacts", get(list::<Contact>))
        .route("/api/v1/contacts/{id}", get(detail::<Contact>))
        .route("/api/v1/files", get(list::<File>))
        .route("/api/v1/files/{id}", get(detail::<File>))
        .route("/api/v1/diary", get(list::<DiaryEntry>))
        .route("/api/v1/diary/{id}", get(detail::<DiaryEntry>))
        .route("/api/v1/search", get(search))
        .fallback(not_found)
        .with_state(db)
}

/// The terse layer: which line each list route's records read as.
pub fn terse_layer() -> TerseLayer {
    TerseLayer::new()
        .resource::<Event>("/api/v1/events")
        .resource::<Note>("/api/v1/notes")
        .resource::<Email>("/api/v1/emails")
        .resource::<Contact>("/api/v1/contacts")
        .resource::<File>("/api/v1/files")
        .resource::<DiaryEntry>("/api/v1/diary")
        .resource::<SearchResult>("/api/v1/search")
}

async fn not_found() -> ApiError {
    ApiError::new(axum::http::StatusCode::NOT_FOUND, "no_route", "no such endpoint").with_hint(
        "the resources are /api/v1/{events,notes,emails,contacts,files,diary} and /api/v1/search?q=",
    )
}
