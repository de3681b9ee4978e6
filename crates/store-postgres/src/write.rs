//! Rows of the shared schema description in PostgreSQL: [`Write`]s executed in a transaction,
//! records read ([`FromRow`]).

use crate::fault::FaultResult;
use crate::store::text;
use agentctl_store::{
    ColumnType, Dialect, Field, FromRow, RowRef, Value, Write, WriteKind, column_types,
};
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

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

/// Runs `write` (its statement prepared once per connection); the id the database gave the
/// row for a [`WriteKind::InsertReturningId`].
pub(crate) async fn execute(
    tx: &deadpool_postgres::Transaction<'_>,
    write: &Write,
) -> FaultResult<Option<i64>> {
    let sql = tx.prepare_cached(&Dialect::Postgres.render(write)).await?;
    let parameters: Vec<_> = write
        .value_types()
        .map(|(value, ty)| parameter(value, ty))
        .collect();
    let parameters: Vec<&(dyn ToSql + Sync)> = parameters
        .iter()
        .map(|parameter| &**parameter as &(dyn ToSql + Sync))
        .collect();
    if write.kind == WriteKind::InsertReturningId {
        let row = tx.query_one(&sql, &parameters).await?;
        return Ok(Some(row.try_get(0)?));
    }
    tx.execute(&sql, &parameters).await?;
    Ok(None)
}

/// The record `T` in `row`, which holds `T`'s columns ([`select_list`](agentctl_store::select_list))
/// in order, each read as the driver's type for its [`ColumnType`].
pub(crate) fn read<T: FromRow>(row: &Row) -> FaultResult<T> {
    let mut fields = Vec::with_capacity(T::COLUMNS.len());
    for (at, ty) in column_types::<T>().enumerate() {
        let integer = |value: Option<i64>| value.map_or(Field::Null, Field::Integer);
        fields.push(match ty {
            ColumnType::Text | ColumnType::Json => row
                .try_get::<_, Option<&str>>(at)?
                .map_or(Field::Null, Field::Text),
            ColumnType::Flag => integer(row.try_get::<_, Option<i16>>(at)?.map(i64::from)),
            ColumnType::Int32 => integer(row.try_get::<_, Option<i32>>(at)?.map(i64::from)),
            ColumnType::Id | ColumnType::Sequence | ColumnType::Integer => {
                integer(row.try_get::<_, Option<i64>>(at)?)
            }
        });
    }
    Ok(T::from_row(&RowRef::new(T::TABLE, T::COLUMNS, fields))?)
}
