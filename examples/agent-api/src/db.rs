//! The SQLite database: opening, schema, first-start seeding, and the clock.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::Connection;
use rusqlite::functions::FunctionFlags;
use tower_terse::Timestamp;

pub use crate::db_error::DbError;
use crate::{schema, store};

/// A shared handle on the service's database.
///
/// One connection behind a mutex: every query here takes well under a
/// millisecond, and one lock gives writes and change stamps a single order
/// (see `Db::write`).
#[derive(Clone)]
pub struct Db {
    state: Arc<Mutex<State>>,
}

struct State {
    conn: Connection,
    last_stamp: Timestamp,
}

impl Db {
    /// Opens the database file at `path`, creating and seeding it on first use.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("agent-api-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let db = agent_api::Db::open(dir.join("doc.db")).unwrap();
    /// assert!(db.record_count().unwrap() > 300);
    /// # std::fs::remove_dir_all(&dir).ok();
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, DbError> {
        Self::init(Connection::open(path)?)
    }

    /// A seeded database that lives in memory only.
    pub fn open_in_memory() -> Result<Self, DbError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Self, DbError> {
        // Stored timestamps are RFC 3339 text with or without a fraction, which
        // does not sort as text; `ts_us` compares them as instants.
        conn.create_scalar_function(
            "ts_us",
            1,
            FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
            |ctx| {
                let text: Option<String> = ctx.get(0)?;
                Ok(text.and_then(|t| Timestamp::parse(&t).ok().map(Timestamp::unix_micros)))
            },
        )?;
        schema::prepare(&conn)?;
        Ok(Self {
            state: Arc::new(Mutex::new(State {
                conn,
                last_stamp: Timestamp::now(),
            })),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave SQLite half-written
        // (each statement is atomic), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs a read.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Connection) -> T) -> T {
        f(&self.lock().conn)
    }

    /// Runs `f` with a fresh stamp, under the same lock as every write.
    ///
    /// Stamps strictly increase (the wall clock, nudged forward by a
    /// microsecond when it has not moved), so a write stamped before a change
    /// query's `response_timestamp` was committed before that query, and one
    /// committed after it carries a later stamp: with an inclusive `since`,
    /// each change is reported exactly once.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Connection, Timestamp) -> T) -> T {
        let mut state = self.lock();
        let stamp = Timestamp::now().max(state.last_stamp.add_micros(1));
        state.last_stamp = stamp;
        f(&state.conn, stamp)
    }

    /// One page of the records of `R` that are not deleted, and how many there are.
    pub fn list_page<R: store::Record>(
        &self,
        page: crate::paging::Page,
    ) -> Result<(Vec<R>, u64), DbError> {
        self.read(|conn| store::list::<R>(conn, page))
    }

    /// How many records the database holds, deleted ones included.
    pub fn record_count(&self) -> Result<u64, DbError> {
        self.read(|conn| {
            let mut total = 0;
            for table in ["events", "notes", "emails", "contacts", "files", "diary"] {
                let n: i64 =
                    conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))?;
                total += n.unsigned_abs();
            }
            Ok(total)
        })
    }
}
