//! Generic storage for record types: one table per type, one column per field.
//!
//! A record is written by serialising it to JSON and mapping each field to
//! its column (objects and arrays as JSON text), and read back the same way,
//! so a resource module only declares its struct and its columns.

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, Row, params_from_iter};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tower_terse::changes::ChangeKind;
use tower_terse::{Changes, Timestamp};

use crate::db_error::DbError;
use crate::paging::Page;

/// How a field is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Col {
    /// TEXT.
    Text,
    /// INTEGER.
    Int,
    /// REAL.
    Real,
    /// INTEGER 0/1, a JSON boolean.
    Bool,
    /// TEXT holding a JSON object or array.
    Json,
}

/// A resource stored in its own table.
///
/// The first column is `id`; every table has `created_at`, `updated_at` and
/// `deleted_at` (a deleted record stays, stamped, so `?since=` can report it).
pub trait Record: Serialize + DeserializeOwned + Send + 'static {
    /// The table name, also the path segment under `/api/v1/`.
    const TABLE: &'static str;
    /// The singular noun, as in error messages.
    const KIND: &'static str;
    /// The columns, in field order.
    const COLUMNS: &'static [(&'static str, Col)];
    /// The SQL `ORDER BY` of the list.
    const ORDER_BY: &'static str;
}

/// Creates the table of `R` if it does not exist.
pub fn create_table<R: Record>(conn: &Connection) -> rusqlite::Result<()> {
    let cols: Vec<String> = R::COLUMNS
        .iter()
        .map(|(name, col)| {
            let ty = match col {
                Col::Text | Col::Json => "TEXT",
                Col::Int | Col::Bool => "INTEGER",
                Col::Real => "REAL",
            };
            if *name == "id" {
                format!("\"{name}\" {ty} PRIMARY KEY")
            } else {
                format!("\"{name}\" {ty}")
            }
        })
        .collect();
    conn.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS {} ({});",
        R::TABLE,
        cols.join(", ")
    ))
}

/// The columns, quoted: some names (`to`, `references`) are SQL keywords.
fn column_list<R: Record>() -> String {
    R::COLUMNS
        .iter()
        .map(|(n, _)| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Inserts `record`, replacing the row with the same id.
pub fn save<R: Record>(conn: &Connection, record: &R) -> Result<(), DbError> {
    let value = serde_json::to_value(record).map_err(|e| DbError::Corrupt(e.to_string()))?;
    let Value::Object(map) = value else {
        return Err(DbError::Corrupt(format!(
            "a {} is not a JSON object",
            R::KIND
        )));
    };
    let params = R::COLUMNS
        .iter()
        .map(|(name, col)| to_sql(map.get(*name), *col));
    let marks = vec!["?"; R::COLUMNS.len()].join(", ");
    let sql = format!(
        "INSERT OR REPLACE INTO {} ({}) VALUES ({marks})",
        R::TABLE,
        column_list::<R>()
    );
    conn.execute(&sql, params_from_iter(params))?;
    Ok(())
}

fn to_sql(value: Option<&Value>, col: Col) -> Sql {
    match (value, col) {
        (None | Some(Value::Null), _) => Sql::Null,
        (Some(Value::Bool(b)), _) => Sql::Integer(i64::from(*b)),
        (Some(v), Col::Json) => Sql::Text(v.to_string()),
        (Some(Value::String(s)), _) => Sql::Text(s.clone()),
        (Some(Value::Number(n)), _) => match n.as_i64() {
            Some(i) if col != Col::Real => Sql::Integer(i),
            _ => Sql::Real(n.as_f64().unwrap_or(0.0)),
        },
        (Some(v), _) => Sql::Text(v.to_string()),
    }
}

fn from_row<R: Record>(row: &Row<'_>) -> Result<R, DbError> {
    let mut map = Map::with_capacity(R::COLUMNS.len());
    for (i, (name, col)) in R::COLUMNS.iter().enumerate() {
        let sql: Sql = row.get(i)?;
        let value = match (sql, col) {
            (Sql::Null, _) => Value::Null,
            (Sql::Integer(n), Col::Bool) => Value::Bool(n != 0),
            (Sql::Integer(n), _) => Value::from(n),
            (Sql::Real(x), _) => Value::from(x),
            (Sql::Text(t), Col::Json) => serde_json::from_str(&t)
                .map_err(|e| DbError::Corrupt(format!("{}.{name}: {e}", R::TABLE)))?,
            (Sql::Text(t), _) => Value::String(t),
            (Sql::Blob(_), _) => {
                return Err(DbError::Corrupt(format!("{}.{name} is a blob", R::TABLE)));
            }
        };
        map.insert((*name).to_owned(), value);
    }
    serde_json::from_value(Value::Object(map))
        .map_err(|e| DbError::Corrupt(format!("{}: {e}", R::TABLE)))
}

fn query<R: Record>(
    conn: &Connection,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
) -> Result<Vec<R>, DbError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(params)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(from_row(row)?);
    }
    Ok(out)
}

/// One page of the records that are not deleted, and how many there are.
pub fn list<R: Record>(conn: &Connection, page: Page) -> Result<(Vec<R>, u64), DbError> {
    let total: i64 = conn.query_row(
        &format!("SELECT COUNT(*) FROM {} WHERE deleted_at IS NULL", R::TABLE),
        [],
        |r| r.get(0),
    )?;
    let sql = format!(
        "SELECT {} FROM {} WHERE deleted_at IS NULL ORDER BY {} LIMIT ?1 OFFSET ?2",
        column_list::<R>(),
        R::TABLE,
        R::ORDER_BY
    );
    let records = query(conn, &sql, &[&page.limit, &page.offset])?;
    Ok((records, total.unsigned_abs()))
}

/// The record with this id, unless it does not exist or is deleted.
pub fn get<R: Record>(conn: &Connection, id: &str) -> Result<Option<R>, DbError> {
    let sql = format!(
        "SELECT {} FROM {} WHERE id = ?1 AND deleted_at IS NULL",
        column_list::<R>(),
        R::TABLE
    );
    Ok(query(conn, &sql, &[&id])?.pop())
}

/// Every record created, updated or deleted at or after `since`, stamped `stamp`.
pub fn changes<R: Record>(
    conn: &Connection,
    since: Timestamp,
    stamp: Timestamp,
) -> Result<Changes<R>, DbError> {
    let sql = format!(
        "SELECT {cols}, ts_us(created_at), ts_us(updated_at), ts_us(deleted_at) FROM {table} \
         WHERE ts_us(created_at) >= ?1 OR ts_us(updated_at) >= ?1 OR ts_us(deleted_at) >= ?1 \
         ORDER BY {order}",
        cols = column_list::<R>(),
        table = R::TABLE,
        order = R::ORDER_BY
    );
    let n = R::COLUMNS.len();
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query([since.unix_micros()])?;
    let mut out = Changes::new(stamp);
    while let Some(row) = rows.next()? {
        if let Some(kind) = change_kind(row, n, since)? {
            out.push(kind, from_row(row)?);
        }
    }
    Ok(out)
}

/// What happened to a row since `since`, read from its `created_at`,
/// `updated_at` and `deleted_at` microseconds in the columns from `first`.
pub fn change_kind(
    row: &rusqlite::Row<'_>,
    first: usize,
    since: Timestamp,
) -> rusqlite::Result<Option<ChangeKind>> {
    let at = |i: usize| -> rusqlite::Result<Option<Timestamp>> {
        Ok(row
            .get::<_, Option<i64>>(i)?
            .map(Timestamp::from_unix_micros))
    };
    let created = at(first)?.unwrap_or(Timestamp::from_unix_micros(i64::MIN));
    let updated = at(first + 1)?.unwrap_or(created);
    Ok(ChangeKind::classify(
        since,
        created,
        updated,
        at(first + 2)?,
    ))
}
