//! Emails: wide rows, most columns null for any one message.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use tower_terse::compact::{CompactLine, Noun, RenderContext};

use crate::store::{Col, Record};

/// An email, as a mail sync service stores it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Email {
    /// UUID.
    pub id: String,
    /// The RFC 5322 Message-ID.
    pub message_id: String,
    /// Conversation id.
    pub thread_id: String,
    /// Message-ID this one answers.
    pub in_reply_to: Option<String>,
    /// Earlier Message-IDs of the thread.
    pub references: Option<Value>,
    /// Sender's name.
    pub from_name: String,
    /// Sender's address.
    pub from_address: String,
    /// Recipients.
    pub to: Value,
    /// Copied recipients.
    pub cc: Option<Value>,
    /// Blind-copied recipients (own sent mail only).
    pub bcc: Option<Value>,
    /// Reply-To, when it differs from the sender.
    pub reply_to: Option<String>,
    /// Subject.
    pub subject: String,
    /// The first words of the body.
    pub snippet: String,
    /// Plain-text body.
    pub body_text: String,
    /// HTML body, when the message has one.
    pub body_html: Option<String>,
    /// `INBOX`, `Sent`, `Archive`, `Drafts`, `Spam`.
    pub folder: String,
    /// Labels.
    pub labels: Value,
    /// Whether it has been read.
    pub is_read: bool,
    /// Whether it is starred.
    pub is_starred: bool,
    /// Whether it is a draft.
    pub is_draft: bool,
    /// Whether the provider marked it important.
    pub is_important: bool,
    /// Whether it carries files.
    pub has_attachments: bool,
    /// `[{"filename","mime","size_bytes"}]`.
    pub attachments: Option<Value>,
    /// Headers worth keeping (`List-Unsubscribe`, `X-Mailer`).
    pub headers: Option<Value>,
    /// Raw size.
    pub size_bytes: i64,
    /// When it arrived.
    pub received_at: String,
    /// When it was sent, if known.
    pub sent_at: Option<String>,
    /// Snoozed until, if snoozed.
    pub snoozed_until: Option<String>,
    /// Provider category (`primary`, `promotions`, `updates`).
    pub category: Option<String>,
    /// `high` or `low` when the sender set one.
    pub priority: Option<String>,
    /// Spam filter score.
    pub spam_score: Option<f64>,
    /// `gmail`, `outlook`, `imap`.
    pub provider: String,
    /// Mail account.
    pub account_id: String,
    /// Incremental sync token.
    pub sync_token: Option<String>,
    /// Provider history id.
    pub history_id: Option<String>,
    /// Provider ETag.
    pub etag: Option<String>,
    /// When it was stored.
    pub created_at: String,
    /// When it last changed (read, moved, labelled).
    pub updated_at: String,
    /// When it was last synced.
    pub synced_at: Option<String>,
    /// When it was deleted, if it was.
    pub deleted_at: Option<String>,
}

impl Record for Email {
    const TABLE: &'static str = "emails";
    const KIND: &'static str = "email";
    const ORDER_BY: &'static str = "ts_us(received_at) DESC, id";
    const COLUMNS: &'static [(&'static str, Col)] = &[
        ("id", Col::Text),
        ("message_id", Col::Text),
        ("thread_id", Col::Text),
        ("in_reply_to", Col::Text),
        ("references", Col::Json),
        ("from_name", Col::Text),
        ("from_address", Col::Text),
        ("to", Col::Json),
        ("cc", Col::Json),
        ("bcc", Col::Json),
        ("reply_to", Col::Text),
        ("subject", Col::Text),
        ("snippet", Col::Text),
        ("body_text", Col::Text),
        ("body_html", Col::Text),
        ("folder", Col::Text),
        ("labels", Col::Json),
        ("is_read", Col::Bool),
        ("is_starred", Col::Bool),
        ("is_draft", Col::Bool),
        ("is_important", Col::Bool),
        ("has_attachments", Col::Bool),
        ("attachments", Col::Json),
        ("headers", Col::Json),
        ("size_bytes", Col::Int),
        ("received_at", Col::Text),
        ("sent_at", Col::Text),
        ("snoozed_until", Col::Text),
        ("category", Col::Text),
        ("priority", Col::Text),
        ("spam_score", Col::Real),
        ("provider", Col::Text),
        ("account_id", Col::Text),
        ("sync_token", Col::Text),
        ("history_id", Col::Text),
        ("etag", Col::Text),
        ("created_at", Col::Text),
        ("updated_at", Col::Text),
        ("synced_at", Col::Text),
        ("deleted_at", Col::Text),
    ];
}

/// Written by hand rather than derived: the line says `unread` when
/// `is_read` is false, and a template can only show a flag for a true value.
impl CompactLine for Email {
    fn noun() -> Noun {
        Noun::new("email")
    }

    /// `2026-02-17 Juan: "Budget Q3" [INBOX] unread 📎`
    fn line(&self, _cx: &RenderContext) -> String {
        let date = self.received_at.get(..10).unwrap_or(&self.received_at);
        let unread = if self.is_read { "" } else { " unread" };
        let clip = if self.has_attachments { " 📎" } else { "" };
        let line = format!(
            "{date} {}: \"{}\" [{}]{unread}{clip}",
            self.from_name, self.subject, self.folder
        );
        // One record, one line, whatever the sender put in the subject.
        line.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    }
}
