//! How agentctl prepares each of its SQLite files (the session store, the memory store): busy
//! timeout, WAL, `synchronous = NORMAL`, temporary files in memory, foreign keys, and versioned
//! migrations counted in `PRAGMA user_version`. One copy, because the two hard parts —
//! switching a new file to WAL while another process does the same, and two processes
//! migrating one file at once — must behave alike for every file.

use super::BUSY_TIMEOUT;
use rusqlite::{Connection, TransactionBehavior};
use std::time::{Duration, Instant};

/// Why a database file could not be brought up to date.
#[derive(Debug)]
pub enum SchemaError {
    /// SQLite refused a statement.
    Sql(rusqlite::Error),
    /// The file was written by a newer agentctl: its schema version is past the last known.
    TooNew {
        /// The file's version.
        found: i64,
    },
}

impl From<rusqlite::Error> for SchemaError {
    fn from(error: rusqlite::Error) -> Self {
        Self::Sql(error)
    }
}

/// Busy timeout ([`BUSY_TIMEOUT`](crate::BUSY_TIMEOUT)), WAL, `synchronous = NORMAL` (durable
/// against process crashes in WAL mode; only a power loss can drop the last transactions,
/// never corrupt the file), temporary files in memory (a statement journal, which SQLite
/// needs for a statement that may fail halfway inside a transaction, is otherwise a file
/// created and deleted in the temporary folder) and foreign keys on.
pub fn prepare_sqlite(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    use_wal(conn)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "foreign_keys", "ON")
}

/// Applies the `migrations` the file lacks (`migrations[i]` takes version `i` to `i + 1`),
/// each in its own `BEGIN IMMEDIATE` transaction with the version bump. The version is read
/// again inside each transaction: when two processes open an old file at once, the second
/// waits for the first and then finds the migration done.
pub fn migrate_sqlite(conn: &mut Connection, migrations: &[&str]) -> Result<(), SchemaError> {
    let latest = i64::try_from(migrations.len()).unwrap_or(i64::MAX);
    let found = user_version(conn)?;
    if found > latest {
        return Err(SchemaError::TooNew { found });
    }
    for (version, sql) in (1..)
        .zip(migrations)
        .skip(usize::try_from(found).unwrap_or(0))
    {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found = user_version(&tx)?;
        if found > latest {
            return Err(SchemaError::TooNew { found });
        }
        if version > found {
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", version)?;
        }
        tx.commit()?;
    }
    Ok(())
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Switches a file database to WAL unless it is already (in-memory databases stay `memory`).
/// Asking first matters when several processes open the file at once: the mode is persistent,
/// and only the first open of a new file has to change it. Switching needs the file to itself,
/// and SQLite answers "busy" at once, without its busy handler, while another process does the
/// same: retry until the busy timeout.
fn use_wal(conn: &Connection) -> rusqlite::Result<()> {
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |row| row.get(0))?;
    if mode.eq_ignore_ascii_case("wal") || mode.eq_ignore_ascii_case("memory") {
        return Ok(());
    }
    let deadline = Instant::now() + BUSY_TIMEOUT;
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
            Err(error) => return Err(error),
        }
    }
}
