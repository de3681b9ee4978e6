//! Rows of the shared schema description ([`Write`]) executed on a SQLite connection.

use super::FaultResult;
use agentctl_store::{Dialect, Value, Write};
use rusqlite::types::{ToSqlOutput, Value as SqlValue, ValueRef};
use rusqlite::{Connection, ToSql, params_from_iter};

/// A neutral value bound as a SQLite parameter.
struct Bound<'a>(&'a Value);

impl ToSql for Bound<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self.0 {
            Value::Null => ToSqlOutput::Owned(SqlValue::Null),
            Value::Integer(value) => ToSqlOutput::Owned(SqlValue::Integer(*value)),
            Value::Text(value) => ToSqlOutput::Borrowed(ValueRef::Text(value.as_bytes())),
        })
    }
}

/// Runs `write` (its statement cached by its text); the number of rows it changed.
pub(crate) fn execute(conn: &Connection, write: &Write) -> FaultResult<usize> {
    let sql = Dialect::Sqlite.render(write);
    Ok(conn
        .prepare_cached(&sql)?
        .execute(params_from_iter(write.values.iter().map(Bound)))?)
}
