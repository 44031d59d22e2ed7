//! The tables of every resource, created (and seeded on first start) when
//! the database opens. Kept apart from the handle (`db.rs`) because the
//! resources' modules hold the handle while this names each resource.

use rusqlite::Connection;

use crate::db_error::DbError;
use crate::{contacts, diary, emails, events, files, notes, seed, store};

/// Creates each resource's table where it is missing, and seeds an empty
/// database.
pub(crate) fn prepare(conn: &Connection) -> Result<(), DbError> {
    store::create_table::<events::Event>(conn)?;
    store::create_table::<notes::Note>(conn)?;
    store::create_table::<emails::Email>(conn)?;
    store::create_table::<contacts::Contact>(conn)?;
    store::create_table::<files::File>(conn)?;
    store::create_table::<diary::DiaryEntry>(conn)?;
    let empty: i64 = conn.query_row("SELECT COUNT(*) FROM events", [], |r| r.get(0))?;
    if empty == 0 {
        seed::fill(conn)?;
    }
    Ok(())
}
