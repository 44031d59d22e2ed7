//! A personal-assistant API on SQLite, served to agents through the terse layer.
//!
//! Seven resources under `/api/v1/` (events, notes, emails, contacts, files,
//! diary, search), each a paginated list with `?since=` change polling and a
//! full JSON detail by id, plus `PATCH /api/v1/events/{id}`. The database is
//! created and filled with the same seed data on first start.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let db = agent_api::Db::open("agent-api.db")?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//! axum::serve(listener, agent_api::app(db)).await?;
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod contacts;
pub mod db;
mod db_error;
pub mod diary;
pub mod emails;
pub mod error;
pub mod events;
pub mod files;
pub mod handlers;
pub mod notes;
pub mod paging;
pub mod routes;
mod schema;
pub mod search;
pub mod seed;
pub mod store;

pub use db::Db;
pub use db_error::DbError;
pub use routes::app;
