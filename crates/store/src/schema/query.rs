//! Reads and filtered changes described once ([`Query`], [`Sql`]) and rendered per
//! [`Dialect`] into a [`Statement`] a store runs.

use super::{Dialect, Write};
use super::{FromRow, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The statements [`Dialect::query`] rendered, by dialect and [`Shape`]: a read is described
/// afresh each time it runs (its values differ), its text is made once. Shapes are spelled
/// in the code (their names and conditions are `'static`), so the map stays as small.
static RENDERED: Mutex<[BTreeMap<Shape, Arc<str>>; 2]> =
    Mutex::new([BTreeMap::new(), BTreeMap::new()]);

/// A condition of a [`Query`]'s `WHERE`: on a column and the query's next value, or a literal
/// condition (SQL text only, never a value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Filter {
    /// `column = value`.
    Eq(&'static str),
    /// `column > value`.
    After(&'static str),
    /// `column <= value`.
    AtMost(&'static str),
    /// A condition without a value, the same text in both dialects (`visible = 1`).
    Literal(&'static str),
}

/// One key of a [`Query`]'s `ORDER BY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Order {
    /// The column or expression.
    pub by: &'static str,
    /// Newest (largest) first.
    pub descending: bool,
    /// Text compared byte by byte, whatever the database's collation (SQLite's default;
    /// PostgreSQL `COLLATE "C"`).
    pub bytes: bool,
}

/// What a [`Query`] does with the rows its filters pick.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Action {
    /// Reads these columns, or an expression (constant SQL), under these names.
    Select {
        list: List,
        names: &'static [&'static str],
    },
    /// Deletes them.
    Delete,
}

/// What a [`Query`] selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum List {
    /// Columns, by name.
    Columns(&'static [&'static str]),
    /// A column, an aggregate or a list of them.
    Expression(&'static str),
}

/// All a [`Query`]'s text depends on: everything but its values.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Shape {
    table: &'static str,
    action: Action,
    filters: Vec<Filter>,
    group_by: Option<&'static str>,
    order: Vec<Order>,
    limit: bool,
    lock: bool,
}

/// A read (or a delete) of one table: columns, filters, grouping, order, limit and lock,
/// with its values in the order of the filters (the limit last).
///
/// ```
/// use agentctl_store::{Dialect, GraphCheckpoint, Query};
///
/// let query = Query::records::<GraphCheckpoint>()
///     .eq("session_id", "s")
///     .eq("branch", 2_i64)
///     .order_desc("step")
///     .limit(1);
/// let sqlite = Dialect::Sqlite.query(&query);
/// assert!(sqlite.sql.ends_with(
///     "FROM graph_checkpoints WHERE session_id = ?1 AND branch = ?2 ORDER BY step DESC LIMIT ?3"
/// ));
/// assert!(Dialect::Postgres.query(&query).sql.ends_with("ORDER BY step DESC LIMIT $3"));
/// assert_eq!(sqlite.values.len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    shape: Shape,
    values: Vec<Value>,
}

impl Query {
    /// Reads `T`'s columns from `T`'s table.
    pub fn records<T: FromRow>() -> Self {
        Self::new(
            T::TABLE,
            Action::Select {
                list: List::Columns(T::COLUMNS),
                names: T::COLUMNS,
            },
        )
    }

    /// Reads `expression` of `table`: a column, an aggregate (`COALESCE(MAX(step) + 1, 0)`)
    /// or a list of them (constant SQL), its columns called `names` in the rows read.
    pub fn value(
        table: &'static str,
        expression: &'static str,
        names: &'static [&'static str],
    ) -> Self {
        Self::new(
            table,
            Action::Select {
                list: List::Expression(expression),
                names,
            },
        )
    }

    /// Deletes the rows of `table` the filters pick.
    pub fn delete(table: &'static str) -> Self {
        Self::new(table, Action::Delete)
    }

    fn new(table: &'static str, action: Action) -> Self {
        Self {
            shape: Shape {
                table,
                action,
                filters: Vec::new(),
                group_by: None,
                order: Vec::new(),
                limit: false,
                lock: false,
            },
            values: Vec::new(),
        }
    }

    fn filter(mut self, filter: Filter, value: impl Into<Value>) -> Self {
        self.shape.filters.push(filter);
        self.values.push(value.into());
        self
    }

    /// Only rows whose `column` is `value`.
    pub fn eq(self, column: &'static str, value: impl Into<Value>) -> Self {
        self.filter(Filter::Eq(column), value)
    }

    /// Only rows whose `column` is larger than `value`.
    pub fn after(self, column: &'static str, value: impl Into<Value>) -> Self {
        self.filter(Filter::After(column), value)
    }

    /// Only rows whose `column` is at most `value`.
    pub fn at_most(self, column: &'static str, value: impl Into<Value>) -> Self {
        self.filter(Filter::AtMost(column), value)
    }

    /// Only rows that meet `condition` (constant SQL, the same in both dialects).
    pub fn when(mut self, condition: &'static str) -> Self {
        self.shape.filters.push(Filter::Literal(condition));
        self
    }

    /// Groups the rows by `column`.
    pub fn group_by(mut self, column: &'static str) -> Self {
        self.shape.group_by = Some(column);
        self
    }

    fn order(mut self, by: &'static str, descending: bool, bytes: bool) -> Self {
        self.shape.order.push(Order {
            by,
            descending,
            bytes,
        });
        self
    }

    /// Then by `by`, ascending.
    pub fn order_by(self, by: &'static str) -> Self {
        self.order(by, false, false)
    }

    /// Then by `by`, descending.
    pub fn order_desc(self, by: &'static str) -> Self {
        self.order(by, true, false)
    }

    /// Then by the text in `by`, byte by byte (see [`Order::bytes`]).
    pub fn order_bytes(self, by: &'static str) -> Self {
        self.order(by, false, true)
    }

    /// At most `limit` rows.
    pub fn limit(mut self, limit: i64) -> Self {
        self.shape.limit = true;
        self.values.push(Value::Integer(limit));
        self
    }

    /// Locks the rows read for the rest of the transaction where the backend locks rows
    /// (PostgreSQL `FOR UPDATE`; a SQLite write transaction holds the whole file already).
    pub fn for_update(mut self) -> Self {
        self.shape.lock = true;
        self
    }
}

/// A statement no [`Query`] describes (a join, a subquery, an `INSERT … SELECT`): constant
/// SQL text whose parameters are spelled `?1`, `?2`, …, rendered per [`Dialect`]. Values are
/// always parameters, never text of the statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sql {
    /// The table reported in errors about a row read.
    pub table: &'static str,
    /// The statement, SQL both dialects read alike, its parameters spelled `?1`, `?2`, …;
    /// no other `?` (PostgreSQL's are `$N`).
    pub text: &'static str,
    /// The names of the columns it returns, in order (empty for a change).
    pub names: &'static [&'static str],
    /// Its values, `?1` first.
    pub values: Vec<Value>,
}

/// A statement as a store runs it: its text in the store's dialect, its values in
/// placeholder order, and the table and column names of the rows it returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The SQL text (shared: the same read renders it once).
    pub sql: Arc<str>,
    /// The parameters, in order.
    pub values: Vec<Value>,
    /// The table the rows read come from (for errors).
    pub table: &'static str,
    /// The names of the columns read, in order.
    pub names: &'static [&'static str],
}

impl Dialect {
    /// The statement that runs `query`.
    pub fn query(self, query: &Query) -> Statement {
        let shape = &query.shape;
        let names = match shape.action {
            Action::Select { names, .. } => names,
            Action::Delete => &[],
        };
        let slot = usize::from(self == Dialect::Postgres);
        let mut rendered = RENDERED.lock().unwrap_or_else(PoisonError::into_inner);
        let sql = match rendered[slot].get(shape) {
            Some(sql) => Arc::clone(sql),
            None => {
                let sql: Arc<str> = self.render_query(shape).into();
                rendered[slot].insert(shape.clone(), Arc::clone(&sql));
                sql
            }
        };
        Statement {
            sql,
            values: query.values.clone(),
            table: shape.table,
            names,
        }
    }

    fn render_query(self, query: &Shape) -> String {
        let mut n = 0;
        let mut next = || {
            n += 1;
            self.placeholder(n)
        };
        let table = query.table;
        let mut sql = match query.action {
            Action::Select {
                list: List::Columns(columns),
                ..
            } => format!("SELECT {} FROM {table}", columns.join(", ")),
            Action::Select {
                list: List::Expression(expression),
                ..
            } => format!("SELECT {expression} FROM {table}"),
            Action::Delete => format!("DELETE FROM {table}"),
        };
        let conditions: Vec<String> = query
            .filters
            .iter()
            .map(|filter| match filter {
                Filter::Eq(column) => format!("{column} = {}", next()),
                Filter::After(column) => format!("{column} > {}", next()),
                Filter::AtMost(column) => format!("{column} <= {}", next()),
                Filter::Literal(condition) => (*condition).to_owned(),
            })
            .collect();
        if !conditions.is_empty() {
            sql.push_str(" WHERE ");
            sql.push_str(&conditions.join(" AND "));
        }
        if let Some(column) = query.group_by {
            sql.push_str(&format!(" GROUP BY {column}"));
        }
        if !query.order.is_empty() {
            let keys: Vec<String> = query
                .order
                .iter()
                .map(|order| {
                    let collate = match self {
                        Dialect::Postgres if order.bytes => " COLLATE \"C\"",
                        _ => "",
                    };
                    let direction = if order.descending { " DESC" } else { "" };
                    format!("{}{collate}{direction}", order.by)
                })
                .collect();
            sql.push_str(&format!(" ORDER BY {}", keys.join(", ")));
        }
        if query.limit {
            sql.push_str(&format!(" LIMIT {}", next()));
        }
        if query.lock && self == Dialect::Postgres {
            sql.push_str(" FOR UPDATE");
        }
        sql
    }

    /// The statement that runs `sql`: its `?N` placeholders in this dialect.
    ///
    /// ```
    /// use agentctl_store::{Dialect, Sql};
    ///
    /// let sql = Sql {
    ///     table: "sessions",
    ///     text: "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
    ///     names: &[],
    ///     values: vec!["s".into(), 7_i64.into()],
    /// };
    /// assert_eq!(
    ///     &*Dialect::Postgres.sql(&sql).sql,
    ///     "UPDATE sessions SET updated_at = $2 WHERE id = $1"
    /// );
    /// ```
    pub fn sql(self, sql: &Sql) -> Statement {
        let text = match self {
            Dialect::Sqlite => sql.text.to_owned(),
            Dialect::Postgres => sql.text.replace('?', "$"),
        };
        Statement {
            sql: text.into(),
            values: sql.values.clone(),
            table: sql.table,
            names: sql.names,
        }
    }

    /// The statement that performs `write` (see [`render`](Self::render)).
    pub fn write(self, write: &Write) -> Statement {
        Statement {
            sql: self.render(write),
            values: write.values.clone(),
            table: write.table.name,
            names: &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::StoredMessage;

    #[test]
    fn a_read_is_rendered_once_whatever_its_values() {
        let read = |session: &str| Query::records::<StoredMessage>().eq("session_id", session);
        let first = Dialect::Sqlite.query(&read("a"));
        let again = Dialect::Sqlite.query(&read("b"));
        assert!(Arc::ptr_eq(&first.sql, &again.sql));
        assert_eq!(again.values, [Value::from("b")]);
        // Another shape, or another dialect, is another text.
        let limited = Dialect::Sqlite.query(&read("a").limit(3));
        assert!(
            limited.sql.ends_with("WHERE session_id = ?1 LIMIT ?2"),
            "{}",
            limited.sql
        );
        let postgres = Dialect::Postgres.query(&read("a"));
        assert!(
            postgres.sql.ends_with("WHERE session_id = $1"),
            "{}",
            postgres.sql
        );
    }

    #[test]
    fn queries_render_alike_but_for_placeholders_collation_and_locks() {
        let query = Query::records::<StoredMessage>()
            .eq("session_id", "s")
            .when("visible = 1")
            .after("id", 3_i64)
            .order_bytes("agent_id")
            .for_update();
        let sqlite = Dialect::Sqlite.query(&query);
        let postgres = Dialect::Postgres.query(&query);
        assert!(
            sqlite
                .sql
                .ends_with("WHERE session_id = ?1 AND visible = 1 AND id > ?2 ORDER BY agent_id"),
            "{}",
            sqlite.sql
        );
        assert!(
            postgres.sql.ends_with(
                "WHERE session_id = $1 AND visible = 1 AND id > $2 ORDER BY agent_id COLLATE \"C\" FOR UPDATE"
            ),
            "{}",
            postgres.sql
        );
        let delete = Dialect::Sqlite.query(&Query::delete("chat_messages").eq("session_id", "s"));
        assert_eq!(
            &*delete.sql,
            "DELETE FROM chat_messages WHERE session_id = ?1"
        );
        let grouped = Query::value("chat_messages", "context_scope", &["context_scope"])
            .eq("session_id", "s")
            .group_by("context_scope")
            .order_by("MIN(id)");
        assert_eq!(
            &*Dialect::Postgres.query(&grouped).sql,
            "SELECT context_scope FROM chat_messages WHERE session_id = $1 \
             GROUP BY context_scope ORDER BY MIN(id)"
        );
    }
}
