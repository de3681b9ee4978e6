//! The memory store's schema, applied the way every agentctl database is opened.

use super::{Fault, FaultResult};
use crate::error::{MemoryError, Result};
use agentctl_store_sqlite::{SchemaError, migrate_sqlite, prepare_sqlite};
use rusqlite::Connection;

/// The migrations, in order; version N is the first N applied.
const MIGRATIONS: &[&str] = &[
    // 1: entries, their FTS5 index (external content, kept in step by triggers).
    "CREATE TABLE memories (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent TEXT NOT NULL,
        content TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        embedding BLOB,
        embedding_model TEXT,
        content_hash INTEGER NOT NULL
    );
    CREATE INDEX memories_by_agent ON memories (agent, id);
    CREATE INDEX memories_by_content ON memories (agent, content_hash);
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        content,
        content = 'memories',
        content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
    END;
    CREATE TRIGGER memories_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
    END;
    CREATE TRIGGER memories_update AFTER UPDATE OF content ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
    END;",
];

/// The newest schema version this build writes.
const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Busy timeout, WAL, `synchronous = NORMAL`, then the migrations: the way every agentctl
/// database is opened ([`prepare_sqlite`], [`migrate_sqlite`]).
pub(super) fn prepare(conn: &mut Connection, path: &str) -> Result<()> {
    let setup = |conn: &mut Connection| -> FaultResult<()> {
        prepare_sqlite(conn)?;
        migrate_sqlite(conn, MIGRATIONS).map_err(|error| match error {
            SchemaError::Sql(error) => Fault::from(error),
            SchemaError::TooNew { found } => Fault::Memory(MemoryError::SchemaTooNew {
                path: path.to_owned(),
                found,
                supported: SCHEMA_VERSION,
            }),
        })
    };
    setup(conn).map_err(|fault| fault.into_error(path))
}
