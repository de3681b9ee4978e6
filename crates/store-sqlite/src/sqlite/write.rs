//! Rows of the shared schema description on a SQLite connection: [`Write`]s executed, records
//! read ([`FromRow`]).

use super::{Fault, FaultResult};
use agentctl_store::{Dialect, Field, FromRow, RowRef, Value, Write};
use rusqlite::types::{ToSqlOutput, Value as SqlValue, ValueRef};
use rusqlite::{Connection, Params, Row, Statement, ToSql, params_from_iter};

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

/// The record `T` in `row`, which holds `T`'s columns ([`select_list`](agentctl_store::select_list))
/// in order.
pub(crate) fn read<T: FromRow>(row: &Row<'_>) -> FaultResult<T> {
    let mut fields = Vec::with_capacity(T::COLUMNS.len());
    for (at, column) in T::COLUMNS.iter().enumerate() {
        fields.push(match row.get_ref(at)? {
            ValueRef::Null => Field::Null,
            ValueRef::Integer(value) => Field::Integer(value),
            // Borrowed from the row: JSON is decoded without copying it first.
            ValueRef::Text(bytes) => Field::Text(
                std::str::from_utf8(bytes)
                    .map_err(|error| Fault::Corrupt(T::TABLE, format!("{column}: {error}")))?,
            ),
            ValueRef::Real(_) | ValueRef::Blob(_) => {
                return Err(Fault::Corrupt(
                    T::TABLE,
                    format!("{column}: neither a number nor text"),
                ));
            }
        });
    }
    Ok(T::from_row(&RowRef::new(T::TABLE, T::COLUMNS, fields))?)
}

/// Every row `statement` returns for `params`, as `T`s.
pub(crate) fn read_all<T: FromRow>(
    statement: &mut Statement<'_>,
    params: impl Params,
) -> FaultResult<Vec<T>> {
    let mut rows = statement.query(params)?;
    let mut records = Vec::new();
    while let Some(row) = rows.next()? {
        records.push(read(row)?);
    }
    Ok(records)
}

/// The first row `statement` returns for `params`, as a `T`; `None` when there is none.
pub(crate) fn read_first<T: FromRow>(
    statement: &mut Statement<'_>,
    params: impl Params,
) -> FaultResult<Option<T>> {
    let mut rows = statement.query(params)?;
    rows.next()?.map(read).transpose()
}
