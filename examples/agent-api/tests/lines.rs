//! Each resource's compact line, rendered from the seeded database.

use agent_api::contacts::Contact;
use agent_api::diary::DiaryEntry;
use agent_api::emails::Email;
use agent_api::events::Event;
use agent_api::files::File;
use agent_api::notes::Note;
use agent_api::paging::Page;
use agent_api::store::Record;
use agent_api::{Db, DbError};
use serde::Serialize;
use tower_terse::CompactLine;
use tower_terse::compact::RenderContext;

/// Every record of `R` with its line, as the layer renders them.
fn lines<R: Record + CompactLine + Serialize>(db: &Db) -> Result<Vec<(R, String)>, DbError> {
    let (records, total) = db.list_page::<R>(Page {
        limit: 100,
        offset: 0,
    })?;
    assert_eq!(
        records.len() as u64,
        total,
        "{}: all records fit one page",
        R::TABLE
    );
    let cx = RenderContext::now();
    Ok(records
        .into_iter()
        .map(|r| {
            let json = serde_json::to_value(&r).expect("serialise");
            let line = R::line_from_json(&json, &cx).expect("render");
            assert!(!line.contains('\n') && !line.is_empty(), "{line:?}");
            (r, line)
        })
        .collect())
}

#[test]
fn every_record_reads_as_one_line() -> Result<(), DbError> {
    let db = Db::open_in_memory()?;
    for (e, line) in lines::<Event>(&db)? {
        let (date, time) = (&e.start_at[..10], &e.start_at[11..16]);
        assert!(line.starts_with(&format!("{date} {time}-")), "{line}");
        assert!(line.contains(&e.title), "{line}");
        assert_eq!(
            line.ends_with(" 🔁") || line.contains(" 🔁 "),
            e.recurrence.is_some(),
            "{line}"
        );
        if let Some(location) = &e.location {
            assert!(line.contains(&format!("[{location}]")), "{line}");
        }
    }
    for (n, line) in lines::<Note>(&db)? {
        assert_eq!(line.starts_with("📌 "), n.pinned, "{line}");
        assert!(
            line.contains(&format!("\"{}\"", n.title)) && line.ends_with(" ago]"),
            "{line}"
        );
    }
    for (e, line) in lines::<Email>(&db)? {
        let head = format!(
            "{} {}: \"{}\" [{}]",
            &e.received_at[..10],
            e.from_name,
            e.subject,
            e.folder
        );
        assert!(line.starts_with(&head), "{line}");
        assert_eq!(line.contains(" unread"), !e.is_read, "{line}");
        assert_eq!(line.ends_with(" 📎"), e.has_attachments, "{line}");
    }
    for (c, line) in lines::<Contact>(&db)? {
        let mut want = c.display_name.clone();
        for part in [&c.company, &c.email].into_iter().flatten() {
            want = format!("{want} — {part}");
        }
        assert_eq!(line, want);
    }
    for (f, line) in lines::<File>(&db)? {
        assert!(
            line.starts_with(&format!("{} (", f.name))
                && line.ends_with(&format!(") [{}]", f.kind)),
            "{line}"
        );
    }
    for (d, line) in lines::<DiaryEntry>(&db)? {
        assert!(
            line.starts_with(&format!("{} {} \"", d.date, d.mood)),
            "{line}"
        );
        assert!(line.chars().count() <= 10 + 1 + 2 + 1 + 32 + 2, "{line}");
    }
    Ok(())
}

#[test]
fn the_seed_is_the_same_every_time() -> Result<(), DbError> {
    let a = Db::open_in_memory()?;
    let b = Db::open_in_memory()?;
    let page = Page {
        limit: 100,
        offset: 0,
    };
    assert_eq!(a.list_page::<Email>(page)?, b.list_page::<Email>(page)?);
    assert_eq!(a.list_page::<Event>(page)?, b.list_page::<Event>(page)?);
    assert_eq!(a.record_count()?, b.record_count()?);
    assert!((300..=500).contains(&a.record_count()?));
    Ok(())
}

#[test]
fn emails_are_wide_and_mostly_null() -> Result<(), DbError> {
    let db = Db::open_in_memory()?;
    let (emails, _) = db.list_page::<Email>(Page {
        limit: 100,
        offset: 0,
    })?;
    let mut nulls = 0;
    let mut fields = 0;
    for e in &emails {
        let json = serde_json::to_value(e).expect("serialise");
        let object = json.as_object().expect("object");
        assert!(object.len() >= 30);
        fields += object.len();
        nulls += object.values().filter(|v| v.is_null()).count();
    }
    // Many columns are null for any one message, as in a real mail store.
    assert!(nulls * 4 > fields, "{nulls} nulls in {fields} fields");
    Ok(())
}
