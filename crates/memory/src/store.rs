//! The embedded long-term memory store: one SQLite file per project, `memory.db` beside the
//! session database (`<project>/.agentctl/memory.db`, or `$AGENTCTL_HOME/memory.db` outside a
//! project).
//!
//! Entries are `{id, agent, content, metadata, created_at}`, plus an optional embedding (a BLOB
//! of little-endian `f32`s and the `provider:model` that made it). An external-content FTS5
//! table indexes `content` with the `porter unicode61` tokenizer (English stemming, accents
//! folded), kept in step by triggers, so search works offline with no model at all.
//!
//! Every write is one `BEGIN IMMEDIATE` transaction in WAL mode with a busy timeout, so two
//! agentctl processes remembering at once both succeed, one after the other. Content and
//! metadata are masked with the store's [`Redactor`] before they are written: a model that
//! tries to remember an API key stores `[REDACTED]`.

mod schema;
mod search;
mod transfer;

use crate::entry::{
    Embedding, MAX_ENTRIES_PER_AGENT, MemoryEntry, NewMemory, Remembered, check_entry,
};
use crate::error::{MemoryError, Result};
use agentctl_core::Redactor;
use agentctl_private_files::{Tightened, create_private_dir_all, prepare_private_database};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, Transaction, TransactionBehavior};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

/// The long-term memory of a project's agents, in a SQLite file.
///
/// ```
/// use agentctl_core::Redactor;
/// use agentctl_memory::{MemoryQuery, MemoryStore, NewMemory};
///
/// let store = MemoryStore::open_in_memory()?.with_redactor(Redactor::new(["sk-live-0123456789"]));
/// store.remember(NewMemory::new("debugger", "The flaky login test needs REDIS_URL set"))?;
/// store.remember(NewMemory::new("debugger", "Deploy key is sk-live-0123456789"))?;
/// store.remember(NewMemory::new("reviewer", "Login reviews need two approvals"))?;
///
/// let hits = store.search(&MemoryQuery::new("login flaky").agent("debugger"))?;
/// assert_eq!(hits.len(), 1);
/// assert!(hits[0].entry.content.starts_with("The flaky login test"));
/// let masked = store.search(&MemoryQuery::new("deploy key").agent("debugger"))?;
/// assert_eq!(masked[0].entry.content, "Deploy key is [REDACTED]");
/// # Ok::<(), agentctl_memory::MemoryError>(())
/// ```
#[derive(Debug)]
pub struct MemoryStore {
    conn: Mutex<Connection>,
    path: String,
    redactor: Redactor,
    /// The files made private as the store opened.
    tightened: Vec<Tightened>,
}

impl MemoryStore {
    /// The file name, beside the session database.
    pub const FILE_NAME: &'static str = "memory.db";

    /// Where the memory store of a project lives: `memory.db` in the folder of its session
    /// database (`<project>/.agentctl/sessions.db` → `<project>/.agentctl/memory.db`).
    ///
    /// ```
    /// use agentctl_memory::MemoryStore;
    /// use std::path::Path;
    /// assert_eq!(
    ///     MemoryStore::path_beside(Path::new("/work/app/.agentctl/sessions.db")),
    ///     Path::new("/work/app/.agentctl/memory.db"),
    /// );
    /// ```
    pub fn path_beside(session_database: &Path) -> PathBuf {
        session_database
            .parent()
            .unwrap_or_else(|| Path::new(""))
            .join(Self::FILE_NAME)
    }

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    ///
    /// Memories hold what agents learned about the project: a missing folder is created
    /// `0700` and a missing file `0600`, whatever the umask; an existing database (or its WAL,
    /// shared-memory or journal file) that others could read is made private, and
    /// [`tightened`](Self::tightened) says which.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_private_dir_all(parent).map_err(|source| MemoryError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let tightened = prepare_private_database(path).map_err(|source| MemoryError::File {
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
        .map_err(|source| MemoryError::Database {
            path: label.clone(),
            source: source.into(),
        })?;
        let mut store = Self::init(conn, label)?;
        store.tightened = tightened;
        Ok(store)
    }

    /// The files that were readable by others and made private when the store opened; empty
    /// when they already were (and for a store in memory).
    pub fn tightened(&self) -> &[Tightened] {
        &self.tightened
    }

    /// An in-memory store, for tests and embedders without a project.
    pub fn open_in_memory() -> Result<Self> {
        let conn = Connection::open_in_memory().map_err(|source| MemoryError::Database {
            path: ":memory:".into(),
            source: source.into(),
        })?;
        Self::init(conn, ":memory:".into())
    }

    fn init(mut conn: Connection, path: String) -> Result<Self> {
        schema::prepare(&mut conn, &path)?;
        Ok(Self {
            conn: Mutex::new(conn),
            path,
            redactor: Redactor::default(),
            tightened: Vec::new(),
        })
    }

    /// The same store, masking the secrets `redactor` knows in every entry it writes.
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// `text` with the secrets this store masks masked: what an embedding model may be sent.
    pub fn mask(&self, text: &str) -> String {
        self.redactor.redact(text).into_owned()
    }

    /// The database file (`:memory:` for in-memory stores).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Stores an entry (content and metadata masked), unless the agent already keeps exactly
    /// this content; refuses empty or oversized entries and an agent past
    /// [`MAX_ENTRIES_PER_AGENT`](MAX_ENTRIES_PER_AGENT).
    pub fn remember(&self, new: NewMemory) -> Result<Remembered> {
        self.remember_at(new, None)
    }

    /// [`remember`](Self::remember), stamped `created_at` when given (a copied entry keeps its
    /// time), else now.
    fn remember_at(&self, new: NewMemory, created_at: Option<i64>) -> Result<Remembered> {
        check_entry(&new.content, &new.metadata)?;
        if new.agent.trim().is_empty() {
            return Err(MemoryError::Invalid(
                "a memory belongs to an agent: the agent name is empty".into(),
            ));
        }
        let content = self.mask(&new.content);
        let mut masked = Value::Object(new.metadata);
        self.redactor.redact_json(&mut masked);
        let metadata = match masked {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let embedding = match new.embedding {
            Some(embedding) => {
                crate::vector::check(&embedding.vector).map_err(MemoryError::Invalid)?;
                Some(embedding)
            }
            None => None,
        };
        let agent = new.agent;
        self.write(|tx| {
            let existing = tx
                .query_row(
                    &format!(
                        "SELECT {COLUMNS} FROM memories
                         WHERE agent = ?1 AND content_hash = ?2 AND content = ?3"
                    ),
                    (&agent, content_hash(&content), &content),
                    read_row,
                )
                .optional()?;
            if let Some(row) = existing {
                return Ok(Remembered::Existing(row.decode(&self.path)?));
            }
            let count: i64 = tx.query_row(
                "SELECT COUNT(*) FROM memories WHERE agent = ?1",
                [&agent],
                |row| row.get(0),
            )?;
            if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_ENTRIES_PER_AGENT {
                return Err(Fault::Memory(MemoryError::Full {
                    agent: agent.clone(),
                    max: MAX_ENTRIES_PER_AGENT,
                }));
            }
            let created_at = created_at.unwrap_or_else(now_ms);
            let (blob, model) = match &embedding {
                Some(embedding) => (
                    Some(crate::vector::to_blob(&embedding.vector)),
                    Some(embedding.model.clone()),
                ),
                None => (None, None),
            };
            tx.execute(
                "INSERT INTO memories
                   (agent, content, metadata, created_at, embedding, embedding_model, content_hash)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                (
                    &agent,
                    &content,
                    Value::Object(metadata.clone()).to_string(),
                    created_at,
                    blob,
                    &model,
                    content_hash(&content),
                ),
            )?;
            let id = tx.last_insert_rowid();
            Ok(Remembered::Stored(MemoryEntry {
                id,
                agent: agent.clone(),
                content: content.clone(),
                metadata: metadata.clone(),
                created_at,
                embedding_model: model,
            }))
        })
    }

    /// The entry `id`, if there is one.
    pub fn get(&self, id: i64) -> Result<Option<MemoryEntry>> {
        self.with(|conn| {
            conn.query_row(
                &format!("SELECT {COLUMNS} FROM memories WHERE id = ?1"),
                [id],
                read_row,
            )
            .optional()?
            .map(|row| row.decode(&self.path))
            .transpose()
            .map_err(Fault::Memory)
        })
    }

    /// Entries, newest first: every agent's, or `agent`'s only.
    pub fn list(&self, agent: Option<&str>) -> Result<Vec<MemoryEntry>> {
        self.with(|conn| {
            let mut statement = conn.prepare(&format!(
                "SELECT {COLUMNS} FROM memories WHERE ?1 IS NULL OR agent = ?1 ORDER BY id DESC"
            ))?;
            let rows = statement.query_map([agent], read_row)?;
            let mut entries = Vec::new();
            for row in rows {
                entries.push(row?.decode(&self.path)?);
            }
            Ok(entries)
        })
    }

    /// Deletes entry `id` (only if it belongs to `agent`, when given) and returns it; an
    /// unknown id is [`MemoryError::NotFound`].
    pub fn forget(&self, id: i64, agent: Option<&str>) -> Result<MemoryEntry> {
        self.write(|tx| {
            let row = tx
                .query_row(
                    &format!(
                        "SELECT {COLUMNS} FROM memories WHERE id = ?1 AND (?2 IS NULL OR agent = ?2)"
                    ),
                    (id, agent),
                    read_row,
                )
                .optional()?;
            let Some(row) = row else {
                return Err(Fault::Memory(MemoryError::NotFound {
                    id,
                    agent: agent.map(str::to_owned),
                }));
            };
            tx.execute("DELETE FROM memories WHERE id = ?1", [id])?;
            row.decode(&self.path).map_err(Fault::Memory)
        })
    }

    /// Runs `f` on the connection and attaches the file path to its errors.
    fn with<T>(&self, f: impl FnOnce(&mut Connection) -> FaultResult<T>) -> Result<T> {
        // A panic inside `f` drops its transaction (rolled back), so the connection is sound.
        let mut conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut conn).map_err(|fault| fault.into_error(&self.path))
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction and commits it: the write lock is taken
    /// before `f` reads, so what it reads (a duplicate, the count) is still true when it writes.
    fn write<T>(&self, f: impl FnOnce(&Transaction<'_>) -> FaultResult<T>) -> Result<T> {
        self.with(|conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = f(&tx)?;
            tx.commit()?;
            Ok(value)
        })
    }
}

/// The columns every entry query selects, in [`read_row`]'s order.
const COLUMNS: &str = "id, agent, content, metadata, created_at, embedding_model";

/// A row as read, before its metadata is decoded.
struct RawRow {
    id: i64,
    agent: String,
    content: String,
    metadata: String,
    created_at: i64,
    embedding_model: Option<String>,
}

fn read_row(row: &Row<'_>) -> rusqlite::Result<RawRow> {
    Ok(RawRow {
        id: row.get(0)?,
        agent: row.get(1)?,
        content: row.get(2)?,
        metadata: row.get(3)?,
        created_at: row.get(4)?,
        embedding_model: row.get(5)?,
    })
}

impl RawRow {
    fn decode(self, path: &str) -> Result<MemoryEntry> {
        let metadata = match serde_json::from_str::<Value>(&self.metadata) {
            Ok(Value::Object(map)) => map,
            Ok(_) | Err(_) => {
                return Err(MemoryError::CorruptRow {
                    path: path.to_owned(),
                    id: self.id,
                    detail: "metadata is not a JSON object".into(),
                });
            }
        };
        Ok(MemoryEntry {
            id: self.id,
            agent: self.agent,
            content: self.content,
            metadata,
            created_at: self.created_at,
            embedding_model: self.embedding_model,
        })
    }
}

/// An error inside a store operation, before the file path is attached.
#[derive(Debug)]
pub(crate) enum Fault {
    Sql(rusqlite::Error),
    Memory(MemoryError),
}

impl From<rusqlite::Error> for Fault {
    fn from(error: rusqlite::Error) -> Self {
        Fault::Sql(error)
    }
}

impl From<MemoryError> for Fault {
    fn from(error: MemoryError) -> Self {
        Fault::Memory(error)
    }
}

impl Fault {
    fn into_error(self, path: &str) -> MemoryError {
        match self {
            Fault::Sql(source) => MemoryError::Database {
                path: path.to_owned(),
                source: source.into(),
            },
            Fault::Memory(error) => error,
        }
    }
}

pub(crate) type FaultResult<T> = std::result::Result<T, Fault>;

/// FNV-1a of the content, as SQLite's signed integer: finds a duplicate through an index
/// (the content itself is compared too, so a collision is harmless).
fn content_hash(content: &str) -> i64 {
    let hash = content
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    i64::from_ne_bytes(hash.to_ne_bytes())
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}
