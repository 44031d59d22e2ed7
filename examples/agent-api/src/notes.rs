//! Notes.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tower_terse::CompactLine;

use crate::store::{Col, Record};

/// A note, as a notes app stores it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, CompactLine)]
#[compact(
    noun = "note",
    line = "{?{pinned|flag(📌)} }\"{title}\"{? ({tags|join(, )})} [{updated_at|ago}]"
)]
pub struct Note {
    /// UUID.
    pub id: String,
    /// Title.
    pub title: String,
    /// Markdown body.
    pub body: String,
    /// The start of the body, as list views show it.
    pub excerpt: String,
    /// `en` or `es`, as detected.
    pub language: String,
    /// Tags, without `#`.
    pub tags: Vec<String>,
    /// Whether it is pinned to the top.
    pub pinned: bool,
    /// Whether it is archived.
    pub archived: bool,
    /// Colour name, if any.
    pub color: Option<String>,
    /// Folder.
    pub folder: Option<String>,
    /// `[{"text","done"}]` for a checklist note.
    pub checklist: Option<Value>,
    /// `[{"filename","mime","size_bytes"}]`.
    pub attachments: Option<Value>,
    /// Words in the body.
    pub word_count: i64,
    /// `app`, `web`, `voice`, `import`.
    pub source: String,
    /// Emails it is shared with.
    pub shared_with: Vec<String>,
    /// When to remind, if ever.
    pub reminder_at: Option<String>,
    /// URLs found in the body.
    pub links: Vec<String>,
    /// Edit count.
    pub revision: i64,
    /// Who edited it last.
    pub last_edited_by: String,
    /// The device of the last edit.
    pub device: String,
    /// Whether the body is end-to-end encrypted.
    pub encrypted: bool,
    /// `synced`, `pending` or `conflict`.
    pub sync_state: String,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// When it was deleted, if it was.
    pub deleted_at: Option<String>,
}

impl Record for Note {
    const TABLE: &'static str = "notes";
    const KIND: &'static str = "note";
    const ORDER_BY: &'static str = "pinned DESC, ts_us(updated_at) DESC, id";
    const COLUMNS: &'static [(&'static str, Col)] = &[
        ("id", Col::Text),
        ("title", Col::Text),
        ("body", Col::Text),
        ("excerpt", Col::Text),
        ("language", Col::Text),
        ("tags", Col::Json),
        ("pinned", Col::Bool),
        ("archived", Col::Bool),
        ("color", Col::Text),
        ("folder", Col::Text),
        ("checklist", Col::Json),
        ("attachments", Col::Json),
        ("word_count", Col::Int),
        ("source", Col::Text),
        ("shared_with", Col::Json),
        ("reminder_at", Col::Text),
        ("links", Col::Json),
        ("revision", Col::Int),
        ("last_edited_by", Col::Text),
        ("device", Col::Text),
        ("encrypted", Col::Bool),
        ("sync_state", Col::Text),
        ("created_at", Col::Text),
        ("updated_at", Col::Text),
        ("deleted_at", Col::Text),
    ];
}
