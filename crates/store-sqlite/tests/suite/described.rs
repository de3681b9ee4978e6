//! The schema the migrations leave is exactly the one `agentctl_store::TABLES` describes:
//! the same tables, columns (type, nullability, default, key), foreign keys and indexes, in a
//! new file and in a file an old version wrote. A migration that forgets the description, or
//! a description that forgets a migration, fails here.

use super::support::{temp_store, v5_file};
use agentctl_store::{Backend, ColumnType, DefaultValue, TABLES, Table};
use agentctl_store_sqlite::SqliteStore;
use rusqlite::Connection;
use std::collections::BTreeSet;
use std::path::Path;

fn sqlite_type(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::Text | ColumnType::Json => "TEXT",
        ColumnType::Id
        | ColumnType::Sequence
        | ColumnType::Integer
        | ColumnType::Int32
        | ColumnType::Flag => "INTEGER",
    }
}

/// One line per column, key, foreign key and index of `table` as described for SQLite.
fn described(table: &Table) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    for column in table.columns_in(Backend::Sqlite) {
        let default = match column.default_in(Backend::Sqlite) {
            Some(DefaultValue::Text(text)) => format!("'{text}'"),
            Some(DefaultValue::Integer(number)) => number.to_string(),
            None => "-".to_owned(),
        };
        let key = table
            .primary_key
            .iter()
            .position(|name| *name == column.name)
            .map_or(0, |at| at + 1);
        let key = i64::try_from(key).unwrap();
        lines.insert(format!(
            "column {} {} null={} default={default} key={key}",
            column.name,
            sqlite_type(column.ty),
            column.nullable
        ));
        if let Some(foreign) = column.references {
            lines.insert(format!(
                "foreign {} -> {}.{} on delete {}",
                column.name,
                foreign.table,
                foreign.column,
                foreign.on_delete.sql()
            ));
        }
    }
    let order: Vec<&str> = table.columns_in(Backend::Sqlite).map(|c| c.name).collect();
    lines.insert(format!("order {}", order.join(", ")));
    for index in table.indexes_in(Backend::Sqlite) {
        lines.insert(format!(
            "index {} ({}) unique={}",
            index.name.unwrap_or("(constraint)"),
            index.columns.join(", "),
            index.unique
        ));
    }
    lines.insert(format!("without rowid={}", table.without_rowid));
    lines
}

/// The same lines, read from the file's catalogue.
fn found(conn: &Connection, table: &str) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    let mut columns = conn
        .prepare(&format!("PRAGMA table_info({table})"))
        .unwrap();
    let rows = columns
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, bool>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, i64>(5)?,
            ))
        })
        .unwrap();
    let mut order = Vec::new();
    for row in rows {
        let (name, ty, not_null, default, key) = row.unwrap();
        order.push(name.clone());
        // A key column is never NULL: SQLite lets `TEXT PRIMARY KEY` hold one only as a
        // compatibility quirk no row of the store has.
        let null = !not_null && key == 0;
        let default = default.unwrap_or_else(|| "-".to_owned());
        lines.insert(format!(
            "column {name} {ty} null={null} default={default} key={key}"
        ));
    }
    lines.insert(format!("order {}", order.join(", ")));
    let mut foreign = conn
        .prepare(&format!("PRAGMA foreign_key_list({table})"))
        .unwrap();
    let rows = foreign
        .query_map([], |row| {
            Ok(format!(
                "foreign {} -> {}.{} on delete {}",
                row.get::<_, String>(3)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(4)?,
                row.get::<_, String>(6)?
            ))
        })
        .unwrap();
    lines.extend(rows.map(Result::unwrap));
    let mut indexes = conn
        .prepare(&format!("PRAGMA index_list({table})"))
        .unwrap();
    let rows = indexes
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(1)?,
                row.get::<_, bool>(2)?,
                row.get::<_, String>(3)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (name, unique, origin) = row.unwrap();
        if origin == "pk" {
            continue;
        }
        let label = if origin == "c" {
            name.as_str()
        } else {
            "(constraint)"
        };
        lines.insert(format!(
            "index {label} ({}) unique={unique}",
            index_columns(conn, &name).join(", ")
        ));
    }
    let sql: String = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |row| row.get(0),
        )
        .unwrap();
    let without_rowid = sql.trim_end().to_uppercase().ends_with("WITHOUT ROWID");
    lines.insert(format!("without rowid={without_rowid}"));
    // SQLite keeps no catalogue of checks: each described one must stand in the table's SQL.
    for column in TABLES
        .iter()
        .filter(|t| t.name == table)
        .flat_map(|t| t.columns)
    {
        if let Some(check) = column.check {
            assert!(
                sql.contains(&format!("CHECK ({check})")),
                "{table}.{}: CHECK ({check}) missing from {sql}",
                column.name
            );
        }
    }
    lines
}

/// The key columns of index `name`, `col DESC` where descending.
fn index_columns(conn: &Connection, name: &str) -> Vec<String> {
    let mut info = conn
        .prepare(&format!("PRAGMA index_xinfo({name})"))
        .unwrap();
    info.query_map([], |row| {
        Ok((
            row.get::<_, Option<String>>(2)?,
            row.get::<_, bool>(3)?,
            row.get::<_, bool>(5)?,
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .filter(|(_, _, key)| *key)
    .map(|(column, descending, _)| {
        let column = column.unwrap_or_default();
        if descending {
            format!("{column} DESC")
        } else {
            column
        }
    })
    .collect()
}

fn assert_described(path: &Path) {
    let conn = Connection::open(path).unwrap();
    let mut tables = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY name",
        )
        .unwrap();
    let names: BTreeSet<String> = tables
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let expected: BTreeSet<String> = TABLES.iter().map(|table| table.name.to_owned()).collect();
    assert_eq!(names, expected, "the file's tables");
    for table in TABLES {
        assert_eq!(
            found(&conn, table.name),
            described(table),
            "table {} as migrated (left) and as described (right)",
            table.name
        );
    }
}

#[test]
fn a_new_file_has_exactly_the_described_schema() {
    let temp = temp_store();
    assert_described(&temp.path);
}

#[test]
fn a_migrated_version_5_file_has_exactly_the_described_schema() {
    let (_dir, path) = v5_file();
    drop(SqliteStore::open(&path).unwrap());
    assert_described(&path);
}
