//! Opening the file: busy timeout, WAL, and versioned migrations (`PRAGMA user_version`).

use super::{Fault, FaultResult};
use crate::error::{MemoryError, Result};
use rusqlite::{Connection, TransactionBehavior};
use std::time::{Duration, Instant};

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

/// Busy timeout, WAL, `synchronous = NORMAL`, then the migrations.
pub(super) fn prepare(conn: &mut Connection, path: &str, busy: Duration) -> Result<()> {
    let setup = |conn: &mut Connection| -> FaultResult<()> {
        conn.busy_timeout(busy)?;
        use_wal(conn, busy)?;
        // NORMAL is durable against process crashes in WAL mode; only a power loss can drop
        // the last transactions, never corrupt the file.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        migrate(conn, path)
    };
    setup(conn).map_err(|fault| fault.into_error(path))
}

/// Switches a file database to WAL unless it is already. Switching a new file needs it to
/// itself, and SQLite answers "busy" at once (without its busy handler) while another process
/// does the same: retry until the busy timeout.
fn use_wal(conn: &Connection, busy: Duration) -> FaultResult<()> {
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |row| row.get(0))?;
    if mode.eq_ignore_ascii_case("wal") || mode.eq_ignore_ascii_case("memory") {
        return Ok(());
    }
    let deadline = Instant::now() + busy;
    let mut pause = Duration::from_millis(5);
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
            row.get::<_, String>(0)
        }) {
            Ok(_) => return Ok(()),
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == rusqlite::ErrorCode::DatabaseBusy && Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            Err(error) => return Err(error.into()),
        }
    }
}

/// Brings the schema up to [`SCHEMA_VERSION`], each migration in its own immediate
/// transaction that reads the version again: two processes opening a new file at once apply
/// each migration once.
fn migrate(conn: &mut Connection, path: &str) -> FaultResult<()> {
    let too_new = |found: i64| {
        Fault::Memory(MemoryError::SchemaTooNew {
            path: path.to_owned(),
            found,
            supported: SCHEMA_VERSION,
        })
    };
    let found = user_version(conn)?;
    if found > SCHEMA_VERSION {
        return Err(too_new(found));
    }
    for (index, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(found).unwrap_or(0))
    {
        let version = index as i64 + 1;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found = user_version(&tx)?;
        if found > SCHEMA_VERSION {
            return Err(too_new(found));
        }
        if version > found {
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", version)?;
        }
        tx.commit()?;
    }
    Ok(())
}

fn user_version(conn: &Connection) -> FaultResult<i64> {
    Ok(conn.pragma_query_value(None, "user_version", |row| row.get(0))?)
}
