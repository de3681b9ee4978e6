//! [`SqliteStore`]: opening, the connection, write transactions and the error of a store
//! operation.

mod batch;
mod checkpoint;
mod graph;
mod import;
mod messages;
mod owner;
mod runs;
mod schema;
mod sessions;
mod setup;
mod state;
mod summaries;
mod trace;
mod write;

use agentctl_core::Redactor;
use agentctl_private_files::{Tightened, create_private_dir_all, prepare_private_database};
use agentctl_store::{ContextError, Result};
use batch::BatchedConnection;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use setup::{SchemaError, migrate_sqlite, prepare_sqlite};

/// Latest schema version this build writes.
pub const SCHEMA_VERSION: i64 = schema::MIGRATIONS.len() as i64;

/// How long a write waits for another process's write transaction before it fails with
/// "database is locked". Writers hold the lock for milliseconds (one turn's rows); 30 s leaves
/// room for many processes, a slow disk or a checkpoint, while a process that truly hangs with
/// the lock still turns into an error instead of a stalled run.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Compiled statements kept per connection. A turn's writes and a run's start and end use
/// about 40 different statements; rusqlite's default of 16 would compile most of them again
/// on every turn.
const STATEMENT_CACHE: usize = 128;

/// A [`SessionStore`](agentctl_store::SessionStore) in a SQLite file.
///
/// ```
/// use agentctl_store::{ContextScope, MessageLog, MessageQuery, NewMessage, SessionLog};
/// use agentctl_store_sqlite::SqliteStore;
/// use agentctl_core::Message;
///
/// let store = SqliteStore::open_in_memory()?;
/// let session = store.create_session(Some("demo"))?;
/// store.append_messages(&session.id, None, &[
///     NewMessage::new(ContextScope::Main, None, Message::user("hello")),
///     NewMessage::new(ContextScope::Main, Some("helper"), Message::assistant("hi")),
/// ])?;
/// let timeline = store.messages(&session.id, &MessageQuery::timeline())?;
/// assert_eq!(timeline.len(), 2);
/// assert_eq!(timeline[1].agent.as_deref(), Some("helper"));
/// # Ok::<(), agentctl_store::ContextError>(())
/// ```
#[derive(Debug)]
pub struct SqliteStore {
    /// The one connection, with the batch a thread may hold open on it.
    conn: BatchedConnection,
    /// The file, for the checkpoint thread; `None` in memory.
    file: Option<PathBuf>,
    /// Write transactions committed, for the checkpoint thread.
    commits: AtomicU32,
    /// Checkpoints the log off the write path; started at the
    /// [`EVERY`](checkpoint::EVERY)th write transaction.
    checkpointer: OnceLock<Option<checkpoint::Checkpointer>>,
    path: String,
    /// Masks secrets in everything written: messages, steps, summaries, titles, state, graph
    /// checkpoints.
    redactor: Redactor,
    /// The files made private as the store opened.
    tightened: Vec<Tightened>,
}

/// Errors inside a store operation, before the file path is attached.
#[derive(Debug)]
pub(crate) enum Fault {
    Sql(rusqlite::Error),
    Context(ContextError),
    Corrupt(&'static str, String),
    /// The batch the write was part of could not be committed: why.
    BatchFailed(String),
}

impl From<rusqlite::Error> for Fault {
    fn from(error: rusqlite::Error) -> Self {
        Fault::Sql(error)
    }
}

impl From<agentctl_store::RowError> for Fault {
    fn from(error: agentctl_store::RowError) -> Self {
        Fault::Corrupt(error.table, error.reason)
    }
}

impl From<ContextError> for Fault {
    fn from(error: ContextError) -> Self {
        Fault::Context(error)
    }
}

pub(crate) type FaultResult<T> = std::result::Result<T, Fault>;

impl SqliteStore {
    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    ///
    /// The database holds prompts, file excerpts and tool output: a missing folder is created
    /// `0700` and a missing file `0600`, whatever the umask (SQLite gives its WAL and
    /// shared-memory files the database's mode); an existing database, WAL, shared-memory or
    /// journal file that others could read is made private, and [`tightened`](Self::tightened)
    /// says which, for the front end to report.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_private_dir_all(parent).map_err(|source| ContextError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let tightened = prepare_private_database(path).map_err(|source| ContextError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let label = path.display().to_string();
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| database_error(&label, source))?;
        let mut store = Self::init(conn, label)?;
        store.file = Some(path.to_path_buf());
        store.tightened = tightened;
        Ok(store)
    }

    /// The files that were readable by others and made private when the store opened
    /// ("tightened .agentctl/sessions.db from 0644 to 0600"); empty when they already were.
    pub fn tightened(&self) -> &[Tightened] {
        &self.tightened
    }

    /// An in-memory store, for tests and throwaway sessions.
    pub fn open_in_memory() -> Result<Self> {
        let conn =
            Connection::open_in_memory().map_err(|source| database_error(":memory:", source))?;
        Self::init(conn, ":memory:".into())
    }

    /// Where the sessions database lives: `<project>/.agentctl/sessions.db` inside a project,
    /// else `<agentctl home>/sessions.db`.
    ///
    /// ```
    /// use agentctl_store_sqlite::SqliteStore;
    /// use std::path::Path;
    /// let home = Path::new("/home/me/.agentctl");
    /// assert_eq!(
    ///     SqliteStore::default_path(Some(Path::new("/work/app")), home),
    ///     Path::new("/work/app/.agentctl/sessions.db"),
    /// );
    /// assert_eq!(SqliteStore::default_path(None, home), home.join("sessions.db"));
    /// ```
    pub fn default_path(project_root: Option<&Path>, agentctl_home: &Path) -> PathBuf {
        match project_root {
            Some(root) => root.join(".agentctl").join("sessions.db"),
            None => agentctl_home.join("sessions.db"),
        }
    }

    /// The database file (`:memory:` for in-memory stores).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The schema version of the open file (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64> {
        self.with(|conn| Ok(conn.pragma_query_value(None, "user_version", |row| row.get(0))?))
    }

    /// Checks the database with `PRAGMA integrity_check`; returns SQLite's report, `ok` when
    /// the file is sound.
    pub fn integrity_check(&self) -> Result<String> {
        self.with(|conn| Ok(conn.query_row("PRAGMA integrity_check", [], |row| row.get(0))?))
    }

    fn init(mut conn: Connection, path: String) -> Result<Self> {
        let setup = |conn: &mut Connection| -> FaultResult<()> {
            prepare_sqlite(conn)?;
            conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
            migrate_sqlite(conn, schema::MIGRATIONS).map_err(|error| match error {
                SchemaError::Sql(error) => Fault::Sql(error),
                SchemaError::TooNew { found } => Fault::Context(ContextError::SchemaTooNew {
                    path: path.clone(),
                    found,
                    supported: SCHEMA_VERSION,
                }),
            })
        };
        setup(&mut conn).map_err(|fault| into_error(fault, &path))?;
        Ok(Self {
            conn: BatchedConnection::new(conn),
            file: None,
            commits: AtomicU32::new(0),
            checkpointer: OnceLock::new(),
            path,
            redactor: Redactor::default(),
            tightened: Vec::new(),
        })
    }

    /// The same store, masking the secrets `redactor` knows in every message, step, summary
    /// and title it writes: what a tool or a model echoed never lands in the file.
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// The secrets masked on write.
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Runs `f` on the connection (once no other thread's batch is open) and attaches the
    /// file path to its errors. For reads: a write goes through [`SqliteStore::write`].
    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut Connection) -> FaultResult<T>) -> Result<T> {
        self.conn
            .read(f)
            .map_err(|fault| into_error(fault, &self.path))
    }

    /// Runs `f` as one write: in a `BEGIN IMMEDIATE` transaction committed before it returns
    /// (or in a savepoint of this thread's batch); an error rolls `f`'s changes back. The write lock is taken (waiting up to
    /// [`BUSY_TIMEOUT`] for other processes) before `f` reads anything, so what `f` reads is
    /// still true when it writes.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Connection) -> FaultResult<T>) -> Result<T> {
        self.conn
            .write(f, |conn| self.committed(conn))
            .map_err(|fault| into_error(fault, &self.path))
    }

    /// Runs `work` with its writes (on this thread) committed together when it returns.
    pub(crate) fn batch_writes(&self, work: &mut dyn FnMut()) -> Result<()> {
        self.conn
            .batch(work, |conn| self.committed(conn))
            .map_err(|fault| into_error(fault, &self.path))
    }

    /// Counts a commit and has the log checkpointed every [`checkpoint::EVERY`] commits.
    fn committed(&self, conn: &Connection) {
        let commits = self.commits.fetch_add(1, Ordering::Relaxed) + 1;
        if commits.is_multiple_of(checkpoint::EVERY) {
            let checkpointer = self
                .checkpointer
                .get_or_init(|| checkpoint::Checkpointer::start(conn, self.file.as_deref()?));
            if let Some(checkpointer) = checkpointer {
                checkpointer.nudge();
            }
        }
    }
}

/// A SQLite error of the store at `path`; retryable when the database was busy or locked.
fn database_error(path: &str, source: rusqlite::Error) -> ContextError {
    let retryable = matches!(
        source.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    );
    ContextError::Database {
        path: path.to_owned(),
        source: Box::new(source),
        retryable,
    }
}

fn into_error(fault: Fault, path: &str) -> ContextError {
    match fault {
        Fault::Sql(source) => database_error(path, source),
        Fault::Context(error) => error,
        Fault::Corrupt(table, detail) => ContextError::CorruptRow {
            path: path.to_owned(),
            table,
            detail,
        },
        Fault::BatchFailed(why) => ContextError::Database {
            path: path.to_owned(),
            source: format!("the write was not committed: {why}").into(),
            retryable: false,
        },
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}
