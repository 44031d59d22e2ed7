//! The database's error, a leaf of its own: the stores and the seeding
//! return it, and the handle that calls them does too.

/// Why the database could not be opened or read.
#[derive(Debug)]
pub enum DbError {
    /// SQLite refused.
    Sql(rusqlite::Error),
    /// A stored row does not match its record type.
    Corrupt(String),
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Sql(e) => write!(f, "database error: {e}"),
            Self::Corrupt(e) => write!(f, "stored record does not match its type: {e}"),
        }
    }
}

impl std::error::Error for DbError {}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        Self::Sql(e)
    }
}
