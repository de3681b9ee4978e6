//! The shared operations of `agentctl-store` ([`Statements`]) on a SQLite connection:
//! described statements run, rows read.

use super::owner::Owner;
use super::{Fault, FaultResult};
use agentctl_store::ops::{Statements, Visit};
use agentctl_store::{ContextError, Dialect, Field, RowRef, Statement, Value, Write};
use rusqlite::types::{ToSqlOutput, Value as SqlValue, ValueRef};
use rusqlite::{Connection, OptionalExtension, Row, ToSql, params, params_from_iter};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

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

/// The fields of `row`, one per name in `names`, borrowed from the row.
fn fields<'r>(
    row: &'r Row<'_>,
    table: &'static str,
    names: &[&str],
) -> FaultResult<Vec<Field<'r>>> {
    let mut fields = Vec::with_capacity(names.len());
    for (at, column) in names.iter().enumerate() {
        fields.push(match row.get_ref(at)? {
            ValueRef::Null => Field::Null,
            ValueRef::Integer(value) => Field::Integer(value),
            // Borrowed from the row: JSON is decoded without copying it first.
            ValueRef::Text(bytes) => Field::Text(
                std::str::from_utf8(bytes)
                    .map_err(|error| Fault::Corrupt(table, format!("{column}: {error}")))?,
            ),
            ValueRef::Real(_) | ValueRef::Blob(_) => {
                return Err(Fault::Corrupt(
                    table,
                    format!("{column}: neither a number nor text"),
                ));
            }
        });
    }
    Ok(fields)
}

/// Fails with [`ContextError::SessionNotFound`] unless the session exists.
pub(crate) fn require_session(conn: &Connection, id: &str) -> FaultResult<()> {
    let found: Option<i64> = conn
        .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()?;
    match found {
        Some(_) => Ok(()),
        None => Err(Fault::Context(ContextError::SessionNotFound(id.to_owned()))),
    }
}

/// Runs a shared operation on a SQLite connection. Its statements never wait (rusqlite
/// answers before it returns), so the future is ready on its first poll: no runtime.
pub(crate) fn ready<T>(operation: impl Future<Output = FaultResult<T>>) -> FaultResult<T> {
    let mut operation = pin!(operation);
    match operation
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(result) => result,
        // Only an operation that awaits something other than this connection gets here.
        Poll::Pending => Err(Fault::Corrupt(
            "sessions",
            "a store operation waited for something other than SQLite".into(),
        )),
    }
}

/// A SQLite connection (inside the store's transaction, where it writes) running the shared
/// operations.
pub(crate) struct Sqlite<'c>(pub(crate) &'c Connection);

impl Statements for Sqlite<'_> {
    type Fault = Fault;
    const DIALECT: Dialect = Dialect::Sqlite;
    // `BEGIN IMMEDIATE` holds the whole file.
    const LOCKS_SESSIONS: bool = false;
    const RUN_STARTED: &'static [&'static str] =
        &["context_scope", "owner_pid", "owner_start", "owner_boot"];
    // The counts are columns (schema v7): reading a session never counts its messages.
    const SESSION_COLUMNS: &'static str =
        "id, title, created_at, updated_at, message_count, run_count";
    const SESSION_TIEBREAK: &'static str = "rowid";

    async fn write(&self, write: &Write) -> FaultResult<u64> {
        Ok(u64::try_from(execute(self.0, write)?).unwrap_or(u64::MAX))
    }

    async fn insert(&self, write: &Write) -> FaultResult<i64> {
        execute(self.0, write)?;
        Ok(self.0.last_insert_rowid())
    }

    async fn execute(&self, statement: &Statement) -> FaultResult<u64> {
        let changed = self
            .0
            .prepare_cached(&statement.sql)?
            .execute(params_from_iter(statement.values.iter().map(Bound)))?;
        Ok(u64::try_from(changed).unwrap_or(u64::MAX))
    }

    async fn visit(&self, statement: &Statement, visit: &mut Visit<'_>) -> FaultResult<()> {
        let mut prepared = self.0.prepare_cached(&statement.sql)?;
        let mut rows = prepared.query(params_from_iter(statement.values.iter().map(Bound)))?;
        while let Some(row) = rows.next()? {
            let fields = fields(row, statement.table, statement.names)?;
            if !visit(&RowRef::new(statement.table, statement.names, fields))? {
                break;
            }
        }
        Ok(())
    }

    async fn lock_session(&self, session: &str) -> FaultResult<()> {
        require_session(self.0, session)
    }

    async fn touch(&self, session: &str, now: i64, messages: usize) -> FaultResult<()> {
        if messages == 0 {
            self.0
                .prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1")?
                .execute(params![session, now])?;
            return Ok(());
        }
        // The count of the session's messages (schema v7) is kept here, not by a trigger per
        // row.
        self.0
            .prepare_cached(
                "UPDATE sessions SET updated_at = ?2, message_count = message_count + ?3 \
                 WHERE id = ?1",
            )?
            .execute(params![
                session,
                now,
                i64::try_from(messages).unwrap_or(i64::MAX)
            ])?;
        Ok(())
    }

    fn run_owner(&self) -> Vec<Value> {
        let owner = Owner::current();
        vec![
            i64::from(owner.pid).into(),
            owner.start_column().into(),
            owner.boot.as_deref().into(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_that_waits_is_an_error_not_a_hang() {
        let waits = std::future::pending::<FaultResult<()>>();
        assert!(matches!(ready(waits), Err(Fault::Corrupt("sessions", _))));
        assert!(matches!(ready(async { Ok(7) }), Ok(7)));
    }
}
