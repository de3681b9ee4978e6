//! Rows read back, in neutral fields, and the records read from them ([`FromRow`]).

use super::RowError;
use super::{ColumnType, table};

/// One field of a row read back, borrowed from the driver's row where it can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field<'a> {
    /// SQL `NULL`.
    Null,
    /// An integer.
    Integer(i64),
    /// Text (JSON included).
    Text(&'a str),
}

/// A row read back from a described table: the fields of the columns a [`FromRow`] record
/// names, in that order.
#[derive(Debug, Clone)]
pub struct RowRef<'a> {
    table: &'static str,
    columns: &'static [&'static str],
    fields: Vec<Field<'a>>,
}

impl<'a> RowRef<'a> {
    /// The row of `table` whose `columns` hold `fields`, one for one.
    pub fn new(
        table: &'static str,
        columns: &'static [&'static str],
        fields: Vec<Field<'a>>,
    ) -> Self {
        Self {
            table,
            columns,
            fields,
        }
    }

    /// A [`RowError`] about this row's table.
    pub fn corrupt(&self, reason: impl Into<String>) -> RowError {
        RowError {
            table: self.table,
            reason: reason.into(),
        }
    }

    fn field(&self, column: &str) -> Result<Field<'a>, RowError> {
        self.columns
            .iter()
            .position(|name| *name == column)
            .and_then(|at| self.fields.get(at).copied())
            .ok_or_else(|| self.corrupt(format!("column {column} was not read")))
    }

    /// The integer in `column`, or `None` for NULL.
    pub fn opt_integer(&self, column: &str) -> Result<Option<i64>, RowError> {
        match self.field(column)? {
            Field::Null => Ok(None),
            Field::Integer(value) => Ok(Some(value)),
            Field::Text(_) => Err(self.corrupt(format!("{column}: text where a number belongs"))),
        }
    }

    /// The integer in `column`.
    pub fn integer(&self, column: &str) -> Result<i64, RowError> {
        self.opt_integer(column)?
            .ok_or_else(|| self.corrupt(format!("{column}: NULL where a number belongs")))
    }

    /// The text in `column`, or `None` for NULL.
    pub fn opt_text(&self, column: &str) -> Result<Option<&'a str>, RowError> {
        match self.field(column)? {
            Field::Null => Ok(None),
            Field::Text(value) => Ok(Some(value)),
            Field::Integer(_) => {
                Err(self.corrupt(format!("{column}: a number where text belongs")))
            }
        }
    }

    /// The text in `column`.
    pub fn text(&self, column: &str) -> Result<&'a str, RowError> {
        self.opt_text(column)?
            .ok_or_else(|| self.corrupt(format!("{column}: NULL where text belongs")))
    }
}

/// A record read from one row of a described table, the same way by every store: a store
/// selects [`COLUMNS`](Self::COLUMNS) ([`select_list`]), turns each row into a [`RowRef`] and
/// calls [`from_row`](Self::from_row).
pub trait FromRow: Sized {
    /// The table read.
    const TABLE: &'static str;
    /// The columns read, in the order the store selects them.
    const COLUMNS: &'static [&'static str];
    /// The record in `row`; a [`RowError`] naming the row when a value is not what the
    /// record holds.
    fn from_row(row: &RowRef<'_>) -> Result<Self, RowError>;
}

/// `T`'s column list, for a `SELECT`.
pub fn select_list<T: FromRow>() -> String {
    T::COLUMNS.join(", ")
}

/// The [`ColumnType`] of each of `T`'s columns, as the store reads them ([`ColumnType::Text`]
/// for a column the description lacks, which the store's test of the description finds).
pub fn column_types<T: FromRow>() -> impl Iterator<Item = ColumnType> {
    let described = table(T::TABLE);
    T::COLUMNS.iter().map(move |name| {
        described
            .and_then(|table| table.column(name))
            .map_or(ColumnType::Text, |column| column.ty)
    })
}
