//! The schema the migrations leave is exactly the one `agentctl_store::TABLES` describes: the
//! same session tables, columns (type, nullability, default, identity, key), foreign keys and
//! indexes, read from `information_schema` and `pg_indexes`. Besides them the database holds
//! only long-term memory's table (`memories`, agentctl-memory's) and the migration log.

use super::support::{Sql, scratch};
use agentctl_store::{Backend, ColumnType, DefaultValue, TABLES, Table};
use agentctl_store_postgres::PgStore;
use std::collections::BTreeSet;

/// The tables that are not the session store's.
const OTHERS: &[&str] = &["agentctl_schema_migrations", "memories"];

fn pg_type(ty: ColumnType) -> (&'static str, &'static str) {
    match ty {
        ColumnType::Id => ("bigint", "BY DEFAULT"),
        ColumnType::Sequence => ("bigint", "ALWAYS"),
        ColumnType::Integer => ("bigint", "-"),
        ColumnType::Int32 => ("integer", "-"),
        ColumnType::Flag => ("smallint", "-"),
        ColumnType::Text | ColumnType::Json => ("text", "-"),
    }
}

/// One line per column, key, foreign key and index of `table` as described for PostgreSQL.
fn described(table: &Table) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    let mut order = Vec::new();
    for column in table.columns_in(Backend::Postgres) {
        order.push(column.name);
        let default = match column.default_in(Backend::Postgres) {
            Some(DefaultValue::Text(text)) => format!("'{text}'::text"),
            Some(DefaultValue::Integer(number)) => number.to_string(),
            None => "-".to_owned(),
        };
        let (ty, identity) = pg_type(column.ty);
        lines.insert(format!(
            "column {} {ty} null={} default={default} identity={identity}",
            column.name, column.nullable
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
    lines.insert(format!("order {}", order.join(", ")));
    lines.insert(format!("key {}", table.primary_key.join(", ")));
    // A flag is checked to be 0 or 1.
    let checked = table
        .columns_in(Backend::Postgres)
        .filter(|column| column.check.is_some() || column.ty == ColumnType::Flag);
    lines.extend(checked.map(|column| format!("check on {}", column.name)));
    for index in table.indexes_in(Backend::Postgres) {
        lines.insert(format!(
            "index {} ({}) unique={}",
            index.name.unwrap_or("(constraint)"),
            index.columns.join(", "),
            index.unique
        ));
    }
    lines
}

/// The same lines, read from the database's catalogue.
fn found(sql: &Sql, table: &str) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    let columns = sql.column(
        "SELECT format('column %s %s null=%s default=%s identity=%s', column_name, data_type,
                 (is_nullable = 'YES')::text, COALESCE(column_default, '-'),
                 COALESCE(identity_generation, '-'))
         FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1
         ORDER BY ordinal_position",
        &[&table],
    );
    lines.extend(columns);
    let order = sql.column(
        "SELECT 'order ' || string_agg(column_name, ', ' ORDER BY ordinal_position)
         FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1",
        &[&table],
    );
    lines.extend(order);
    let constraints = sql.column(
        "SELECT CASE c.contype
                    WHEN 'c' THEN 'check on ' || a.attname
                    WHEN 'p' THEN 'key ' || (
                        SELECT string_agg(a.attname, ', ' ORDER BY k.at)
                        FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, at)
                        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum)
                    ELSE format('foreign %s -> %s.%s on delete %s',
                        a.attname, c.confrelid::regclass::text, f.attname,
                        CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL'
                            ELSE c.confdeltype::text END)
                END
         FROM pg_constraint c
         LEFT JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
         LEFT JOIN pg_attribute f ON f.attrelid = c.confrelid AND f.attnum = c.confkey[1]
         WHERE c.conrelid = $1::text::regclass AND c.contype IN ('p', 'f', 'c')",
        &[&table],
    );
    lines.extend(constraints);
    let indexes = sql.column(
        "SELECT format('index %s (%s) unique=%s',
                    CASE WHEN c.contype = 'u' THEN '(constraint)' ELSE i.relname END,
                    (SELECT string_agg(pg_get_indexdef(x.indexrelid, k.at::int, true)
                            || CASE WHEN x.indoption[k.at - 1] & 1 = 1 THEN ' DESC' ELSE '' END,
                        ', ' ORDER BY k.at)
                     FROM generate_subscripts(x.indkey, 1) AS s(sub),
                          LATERAL (SELECT s.sub + 1 AS at) AS k),
                    x.indisunique::text)
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.contype IN ('p', 'u')
         WHERE x.indrelid = $1::text::regclass AND NOT x.indisprimary",
        &[&table],
    );
    lines.extend(indexes);
    lines
}

#[test]
fn a_new_database_has_exactly_the_described_schema() {
    let Some(database) = scratch() else { return };
    drop(PgStore::connect(database.url()).unwrap());
    let sql = Sql::connect(database.url());
    let tables: BTreeSet<String> = sql
        .column(
            "SELECT table_name::text FROM information_schema.tables
             WHERE table_schema = current_schema()",
            &[],
        )
        .into_iter()
        .collect();
    let expected: BTreeSet<String> = TABLES
        .iter()
        .map(|table| table.name)
        .chain(OTHERS.iter().copied())
        .map(str::to_owned)
        .collect();
    assert_eq!(tables, expected, "the database's tables");
    for table in TABLES {
        assert_eq!(
            found(&sql, table.name),
            described(table),
            "table {} as migrated (left) and as described (right)",
            table.name
        );
    }
}
