//! The shared operations of `agentctl-store` ([`Statements`]) in PostgreSQL: described
//! statements run on a pooled client or in a transaction, rows read.

use crate::fault::{Fault, FaultResult};
use crate::store::{Inner, text};
use agentctl_store::ops::{Statements, Touch, Visit};
use agentctl_store::{
    ColumnType, ContextError, Dialect, Field, RowRef, Statement, Value, Write, WriteKind,
};
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use tokio_postgres::types::{ToSql, Type};

/// A parameter of the driver's type for a value of a column of type `ty`: PostgreSQL checks
/// each parameter's type against its column (`SMALLINT` flags, `INTEGER` token counts), NULLs
/// included. Text becomes [`text`] (no NUL characters).
fn parameter(value: &Value, ty: ColumnType) -> Box<dyn ToSql + Sync + Send> {
    match (ty, value) {
        (ColumnType::Flag, Value::Integer(number)) => {
            Box::new(i16::try_from(*number).unwrap_or(i16::MAX))
        }
        (ColumnType::Flag, _) => Box::new(None::<i16>),
        (ColumnType::Int32, Value::Integer(number)) => {
            Box::new(i32::try_from(*number).unwrap_or(i32::MAX))
        }
        (ColumnType::Int32, _) => Box::new(None::<i32>),
        (ColumnType::Text | ColumnType::Json, Value::Text(value)) => {
            Box::new(text(value).into_owned())
        }
        (ColumnType::Text | ColumnType::Json, _) => Box::new(None::<String>),
        (_, Value::Integer(number)) => Box::new(*number),
        // A text in a numeric column is refused by the server, naming the column.
        (_, Value::Text(value)) => Box::new(value.clone()),
        (_, Value::Null) => Box::new(None::<i64>),
    }
}

/// The parameters as the driver takes them.
fn as_parameters(parameters: &[Box<dyn ToSql + Sync + Send>]) -> Vec<&(dyn ToSql + Sync)> {
    parameters
        .iter()
        .map(|parameter| &**parameter as &(dyn ToSql + Sync))
        .collect()
}

/// Runs `write` (its statement prepared once per connection): the rows it changed, and the id
/// the database gave the row for a [`WriteKind::InsertReturningId`].
async fn run_write(client: &impl GenericClient, write: &Write) -> FaultResult<(u64, Option<i64>)> {
    let sql = client
        .prepare_cached(&Dialect::Postgres.render(write))
        .await?;
    let parameters: Vec<_> = write
        .value_types()
        .map(|(value, ty)| parameter(value, ty))
        .collect();
    let parameters = as_parameters(&parameters);
    if write.kind == WriteKind::InsertReturningId {
        let row = client.query_one(&sql, &parameters).await?;
        return Ok((1, Some(row.try_get(0)?)));
    }
    Ok((client.execute(&sql, &parameters).await?, None))
}

/// Runs `write`; the id the database gave the row for a [`WriteKind::InsertReturningId`].
pub(crate) async fn execute(tx: &impl GenericClient, write: &Write) -> FaultResult<Option<i64>> {
    Ok(run_write(tx, write).await?.1)
}

/// A parameter of a described statement: an integer, or text as PostgreSQL takes it
/// ([`text`]). Statements compare columns with values, never with NULL.
fn statement_parameter(value: &Value) -> Box<dyn ToSql + Sync + Send> {
    match value {
        Value::Integer(number) => Box::new(*number),
        Value::Text(value) => Box::new(text(value).into_owned()),
        Value::Null => Box::new(None::<String>),
    }
}

/// The fields of `row`, each read as the driver's type for the column's server type.
fn fields<'r>(row: &'r Row, statement: &Statement) -> FaultResult<Vec<Field<'r>>> {
    let mut fields = Vec::with_capacity(statement.names.len());
    for (at, column) in row.columns().iter().enumerate() {
        let integer = |value: Option<i64>| value.map_or(Field::Null, Field::Integer);
        let ty = column.type_();
        fields.push(if *ty == Type::INT8 {
            integer(row.try_get::<_, Option<i64>>(at)?)
        } else if *ty == Type::INT4 {
            integer(row.try_get::<_, Option<i32>>(at)?.map(i64::from))
        } else if *ty == Type::INT2 {
            integer(row.try_get::<_, Option<i16>>(at)?.map(i64::from))
        } else if *ty == Type::BOOL {
            integer(row.try_get::<_, Option<bool>>(at)?.map(i64::from))
        } else {
            row.try_get::<_, Option<&str>>(at)?
                .map_or(Field::Null, Field::Text)
        });
    }
    Ok(fields)
}

/// Takes a session's lock for the rest of the transaction; no row if there is no session.
const LOCK_SESSION: &str = "SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE";

/// Marks a session written at `$2` (the counts of its messages and runs are counted when
/// read).
const TOUCH: &str = "UPDATE sessions SET updated_at = $2 WHERE id = $1";

/// A pooled client, or a transaction where the operation writes, running the shared
/// operations for the store whose state is `inner`.
pub(crate) struct Pg<'a, C> {
    pub(crate) client: &'a C,
    pub(crate) inner: &'a Inner,
}

impl Inner {
    /// This store's operations on `client` (a pooled client, or a transaction).
    pub(crate) fn on<'a, C>(&'a self, client: &'a C) -> Pg<'a, C> {
        Pg {
            client,
            inner: self,
        }
    }
}

impl<C: GenericClient> Statements for Pg<'_, C> {
    type Fault = Fault;
    const DIALECT: Dialect = Dialect::Postgres;
    const LOCKS_SESSIONS: bool = true;
    const RUN_STARTED: &'static [&'static str] =
        &["context_scope", "owner_client", "owner_pid", "owner_host"];
    const SESSION_COLUMNS: &'static str = "id, title, created_at, updated_at,
        (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = sessions.id),
        (SELECT COUNT(*) FROM agent_runs r WHERE r.session_id = sessions.id)";
    const SESSION_TIEBREAK: &'static str = "seq";

    async fn write(&self, write: &Write) -> FaultResult<u64> {
        Ok(run_write(self.client, write).await?.0)
    }

    async fn insert(&self, write: &Write) -> FaultResult<i64> {
        let id = run_write(self.client, write).await?.1;
        id.ok_or_else(|| Fault::Corrupt(write.table.name, "no id returned".into()))
    }

    async fn write_all(&self, writes: &[Write], touch: Touch<'_>) -> FaultResult<Vec<i64>> {
        // Prepared first, one after the other (cached after their first use); then every
        // write, and the touch after them, is sent before any answer is read: the driver
        // pipelines requests polled together on one connection, and the server runs them in
        // the order sent — so ids come in the writes' order. A write that fails aborts the
        // transaction; the first error in order is the one reported (the touch's is the
        // aborted transaction's, read after the writes' answers).
        let mut statements = Vec::with_capacity(writes.len());
        for write in writes {
            let sql = Dialect::Postgres.render(write);
            statements.push(self.client.prepare_cached(&sql).await?);
        }
        let touching = self.client.prepare_cached(TOUCH).await?;
        let parameters: Vec<Vec<_>> = writes
            .iter()
            .map(|write| {
                write
                    .value_types()
                    .map(|(value, ty)| parameter(value, ty))
                    .collect()
            })
            .collect();
        let sent = writes.iter().zip(&statements).zip(&parameters).map(
            |((write, statement), parameters)| async move {
                let parameters = as_parameters(parameters);
                if write.kind == WriteKind::InsertReturningId {
                    let row = self.client.query_one(statement, &parameters).await?;
                    return FaultResult::Ok(Some(row.try_get(0)?));
                }
                self.client.execute(statement, &parameters).await?;
                Ok(None)
            },
        );
        let session = text(touch.session);
        let touched = async {
            let parameters: [&(dyn ToSql + Sync); 2] = [&session, &touch.now];
            self.client.execute(&touching, &parameters).await?;
            FaultResult::Ok(())
        };
        let (ids, ()) =
            futures_util::future::try_join(futures_util::future::try_join_all(sent), touched)
                .await?;
        Ok(ids.into_iter().flatten().collect())
    }

    async fn execute(&self, statement: &Statement) -> FaultResult<u64> {
        let parameters: Vec<_> = statement.values.iter().map(statement_parameter).collect();
        let prepared = self.client.prepare_cached(&statement.sql).await?;
        Ok(self
            .client
            .execute(&prepared, &as_parameters(&parameters))
            .await?)
    }

    async fn visit(&self, statement: &Statement, visit: &mut Visit<'_>) -> FaultResult<()> {
        let parameters: Vec<_> = statement.values.iter().map(statement_parameter).collect();
        let prepared = self.client.prepare_cached(&statement.sql).await?;
        let rows = self
            .client
            .query(&prepared, &as_parameters(&parameters))
            .await?;
        for row in &rows {
            let fields = fields(row, statement)?;
            if !visit(&RowRef::new(statement.table, statement.names, fields))? {
                break;
            }
        }
        Ok(())
    }

    async fn lock_session(&self, session: &str) -> FaultResult<()> {
        let locking = self.client.prepare_cached(LOCK_SESSION).await?;
        match self.client.query_opt(&locking, &[&text(session)]).await? {
            Some(_) => Ok(()),
            None => Err(Fault::Context(ContextError::SessionNotFound(
                session.to_owned(),
            ))),
        }
    }

    async fn touch(&self, session: &str, now: i64, _messages: usize) -> FaultResult<()> {
        let touching = self.client.prepare_cached(TOUCH).await?;
        self.client
            .execute(&touching, &[&text(session), &now])
            .await?;
        Ok(())
    }

    fn run_owner(&self) -> Vec<Value> {
        vec![
            self.inner.presence.key.into(),
            self.inner.pid.into(),
            self.inner.host.as_deref().into(),
        ]
    }
}
