//! Files in the user's drive.

use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

use crate::store::{Col, Record};

/// A file, as a cloud drive stores its metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, CompactLine)]
#[compact(noun = "file", line = "{name} ({size_bytes|bytes}) [{kind}]")]
pub struct File {
    /// UUID.
    pub id: String,
    /// File name.
    pub name: String,
    /// Full path.
    pub path: String,
    /// `pdf`, `image`, `spreadsheet`, `document`, `presentation`, `archive`, `audio`, `video`, `text`.
    pub kind: String,
    /// MIME type.
    pub mime: String,
    /// Size.
    pub size_bytes: i64,
    /// SHA-256 of the content, hex.
    pub checksum_sha256: String,
    /// Owner's email.
    pub owner_email: String,
    /// Whether it is shared with anyone.
    pub shared: bool,
    /// Whether it is starred.
    pub starred: bool,
    /// The folder's id.
    pub parent_id: Option<String>,
    /// Revision number.
    pub version: i64,
    /// Tags.
    pub tags: Vec<String>,
    /// Thumbnail URL for images and documents.
    pub thumbnail_url: Option<String>,
    /// When it was last opened.
    pub last_opened_at: Option<String>,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// When it was deleted, if it was.
    pub deleted_at: Option<String>,
}

impl Record for File {
    const TABLE: &'static str = "files";
    const KIND: &'static str = "file";
    const ORDER_BY: &'static str = "ts_us(updated_at) DESC, id";
    const COLUMNS: &'static [(&'static str, Col)] = &[
        ("id", Col::Text),
        ("name", Col::Text),
        ("path", Col::Text),
        ("kind", Col::Text),
        ("mime", Col::Text),
        ("size_bytes", Col::Int),
        ("checksum_sha256", Col::Text),
        ("owner_email", Col::Text),
        ("shared", Col::Bool),
        ("starred", Col::Bool),
        ("parent_id", Col::Text),
        ("version", Col::Int),
        ("tags", Col::Json),
        ("thumbnail_url", Col::Text),
        ("last_opened_at", Col::Text),
        ("created_at", Col::Text),
        ("updated_at", Col::Text),
        ("deleted_at", Col::Text),
    ];
}
