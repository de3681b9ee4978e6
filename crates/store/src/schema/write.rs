//! Rows to write, in neutral values, and the SQL each backend runs for them.

use super::{Column, ColumnType, Table};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// What names a rendered statement: the dialect, the table and the column list (their
/// addresses and length: both are `'static`), the kind.
type Rendering = (Dialect, usize, usize, usize, WriteKind);

/// The statements [`Dialect::render`] rendered.
static RENDERED: Mutex<BTreeMap<Rendering, Arc<str>>> = Mutex::new(BTreeMap::new());

/// A value of a row, before a store binds it to its driver's parameter type (by the
/// [`ColumnType`] of its column: PostgreSQL wants a `SMALLINT` for a [`ColumnType::Flag`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// SQL `NULL`.
    Null,
    /// An integer.
    Integer(i64),
    /// Text (JSON included).
    Text(String),
}

impl From<i64> for Value {
    fn from(value: i64) -> Self {
        Value::Integer(value)
    }
}

impl From<u32> for Value {
    fn from(value: u32) -> Self {
        Value::Integer(i64::from(value))
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Self {
        Value::Integer(i64::from(value))
    }
}

impl From<String> for Value {
    fn from(value: String) -> Self {
        Value::Text(value)
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Self {
        Value::Text(value.to_owned())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Self {
        value.map_or(Value::Null, Into::into)
    }
}

/// How a [`Write`] changes its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WriteKind {
    /// A new row.
    Insert,
    /// A new row whose database-assigned id the writer wants back.
    InsertReturningId,
    /// A new row, or the row with the same primary key replaced.
    Upsert,
    /// The row whose primary key is the last value(s) gets the other columns' values.
    Update,
    /// The row whose primary key is the values goes (no columns are set).
    Delete,
}

/// One row to write: its table, the columns it sets and their values, in order. For
/// [`WriteKind::Update`] the primary key's values follow the set columns' values; for
/// [`WriteKind::Delete`] they are the only values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// The table.
    pub table: &'static Table,
    /// How the table changes.
    pub kind: WriteKind,
    /// The columns set.
    pub columns: &'static [&'static str],
    /// The values: one per column, then (update) one per primary key column.
    pub values: Vec<Value>,
}

impl Write {
    /// Each value with its column (the key's columns last, for an update). A column the
    /// description lacks is a bug of the caller, reported as `None`.
    pub fn typed_values(&self) -> impl Iterator<Item = (&Value, Option<&'static Column>)> {
        let key = match self.kind {
            WriteKind::Update | WriteKind::Delete => self.table.primary_key,
            _ => &[],
        };
        self.columns
            .iter()
            .chain(key)
            .map(|name| self.table.column(name))
            .zip(&self.values)
            .map(|(column, value)| (value, column))
    }

    /// The column type of each value ([`ColumnType::Text`] for a column the description
    /// lacks).
    pub fn value_types(&self) -> impl Iterator<Item = (&Value, ColumnType)> {
        self.typed_values()
            .map(|(value, column)| (value, column.map_or(ColumnType::Text, |column| column.ty)))
    }
}

/// The SQL dialect of a store: how its statements spell placeholders and returned ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dialect {
    /// SQLite: `?1`, the id read from the connection.
    Sqlite,
    /// PostgreSQL: `$1`, `ON CONFLICT (key) DO UPDATE`, `RETURNING id`.
    Postgres,
}

impl Dialect {
    /// The placeholder of the `n`th parameter, from 1.
    pub fn placeholder(self, n: usize) -> String {
        match self {
            Dialect::Sqlite => format!("?{n}"),
            Dialect::Postgres => format!("${n}"),
        }
    }

    /// The statement that performs `write`, its parameters in the order of
    /// [`Write::values`]. Rendered once per dialect and description (its table and column
    /// list, both `'static`), then shared: a store runs the same few dozen statements at
    /// every turn.
    ///
    /// ```
    /// use agentctl_store::{Dialect, Write, WriteKind, table};
    ///
    /// let write = Write {
    ///     table: table("session_sync").expect("described"),
    ///     kind: WriteKind::Upsert,
    ///     columns: &["session_id", "mine", "theirs", "marked_at"],
    ///     values: Vec::new(),
    /// };
    /// assert_eq!(
    ///     &*Dialect::Sqlite.render(&write),
    ///     "INSERT INTO session_sync (session_id, mine, theirs, marked_at) VALUES (?1, ?2, ?3, ?4) \
    ///      ON CONFLICT (session_id) DO UPDATE SET mine = excluded.mine, \
    ///      theirs = excluded.theirs, marked_at = excluded.marked_at"
    /// );
    /// assert_eq!(
    ///     &*Dialect::Postgres.render(&write),
    ///     "INSERT INTO session_sync (session_id, mine, theirs, marked_at) VALUES ($1, $2, $3, $4) \
    ///      ON CONFLICT (session_id) DO UPDATE SET mine = excluded.mine, \
    ///      theirs = excluded.theirs, marked_at = excluded.marked_at"
    /// );
    /// ```
    pub fn render(self, write: &Write) -> Arc<str> {
        let key = (
            self,
            std::ptr::from_ref(write.table).addr(),
            write.columns.as_ptr().addr(),
            write.columns.len(),
            write.kind,
        );
        let mut rendered = RENDERED.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(
            rendered
                .entry(key)
                .or_insert_with(|| self.render_anew(write).into()),
        )
    }

    fn render_anew(self, write: &Write) -> String {
        let table = write.table.name;
        let columns = write.columns;
        let key = write.table.primary_key;
        let assign = |names: &[&str], from: usize| -> Vec<String> {
            (from..)
                .zip(names)
                .map(|(n, name)| format!("{name} = {}", self.placeholder(n)))
                .collect()
        };
        match write.kind {
            WriteKind::Update => {
                return format!(
                    "UPDATE {table} SET {} WHERE {}",
                    assign(columns, 1).join(", "),
                    assign(key, columns.len() + 1).join(" AND ")
                );
            }
            WriteKind::Delete => {
                return format!("DELETE FROM {table} WHERE {}", assign(key, 1).join(" AND "));
            }
            WriteKind::Insert | WriteKind::InsertReturningId | WriteKind::Upsert => {}
        }
        let placeholders: Vec<String> = (1..=columns.len()).map(|n| self.placeholder(n)).collect();
        let mut sql = format!(
            "INSERT INTO {table} ({}) VALUES ({})",
            Table::insert_columns(columns),
            placeholders.join(", ")
        );
        match write.kind {
            WriteKind::Upsert => {
                let set: Vec<String> = columns
                    .iter()
                    .filter(|column| !key.contains(column))
                    .map(|column| format!("{column} = excluded.{column}"))
                    .collect();
                sql.push_str(&format!(
                    " ON CONFLICT ({}) DO UPDATE SET {}",
                    key.join(", "),
                    set.join(", ")
                ));
            }
            WriteKind::InsertReturningId if self == Dialect::Postgres => {
                sql.push_str(" RETURNING id");
            }
            _ => {}
        }
        sql
    }
}
