//! Contacts.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tower_terse::CompactLine;

use crate::store::{Col, Record};

/// A contact, as an address book stores it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, CompactLine)]
#[compact(noun = "contact", line = "{display_name}{? — {company}}{? — {email}}")]
pub struct Contact {
    /// UUID.
    pub id: String,
    /// The name to show.
    pub display_name: String,
    /// Given name.
    pub first_name: String,
    /// Family name.
    pub last_name: Option<String>,
    /// Employer.
    pub company: Option<String>,
    /// Role.
    pub job_title: Option<String>,
    /// Primary email address.
    pub email: Option<String>,
    /// `[{"label","address"}]`.
    pub emails: Value,
    /// `[{"label","number"}]`.
    pub phones: Value,
    /// `{"street","city","postal_code","country"}`.
    pub address: Option<Value>,
    /// `YYYY-MM-DD`.
    pub birthday: Option<String>,
    /// Free text.
    pub notes: Option<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// Picture URL.
    pub avatar_url: Option<String>,
    /// Whether it is a favourite.
    pub favorite: bool,
    /// `google`, `icloud`, `local`.
    pub source: String,
    /// Its id at the source.
    pub source_id: Option<String>,
    /// Last email or meeting with them.
    pub last_contacted_at: Option<String>,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// When it was deleted, if it was.
    pub deleted_at: Option<String>,
}

impl Record for Contact {
    const TABLE: &'static str = "contacts";
    const KIND: &'static str = "contact";
    const ORDER_BY: &'static str = "display_name, id";
    const COLUMNS: &'static [(&'static str, Col)] = &[
        ("id", Col::Text),
        ("display_name", Col::Text),
        ("first_name", Col::Text),
        ("last_name", Col::Text),
        ("company", Col::Text),
        ("job_title", Col::Text),
        ("email", Col::Text),
        ("emails", Col::Json),
        ("phones", Col::Json),
        ("address", Col::Json),
        ("birthday", Col::Text),
        ("notes", Col::Text),
        ("tags", Col::Json),
        ("avatar_url", Col::Text),
        ("favorite", Col::Bool),
        ("source", Col::Text),
        ("source_id", Col::Text),
        ("last_contacted_at", Col::Text),
        ("created_at", Col::Text),
        ("updated_at", Col::Text),
        ("deleted_at", Col::Text),
    ];
}
