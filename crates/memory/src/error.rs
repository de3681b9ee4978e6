//! The crate's error type.

use std::path::PathBuf;

/// Result of the memory crate.
pub type Result<T, E = MemoryError> = std::result::Result<T, E>;

/// What went wrong while storing or searching long-term memory.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The database failed.
    #[error("memory store {path}: {source}")]
    Database {
        /// The database file (`:memory:` for in-memory stores).
        path: String,
        /// The database's error (SQLite's, for the embedded store).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A database server (PostgreSQL) refused an operation or could not be reached.
    #[error("memory store {store}: {message}")]
    Backend {
        /// The store, as a URL without its password.
        store: String,
        /// What failed.
        message: String,
    },
    /// The folder of the database could not be created.
    #[error("cannot create the folder of the memory store {path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The database file could not be created or made private.
    #[error("cannot create or open the memory store {path}: {source}")]
    File {
        /// The database file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The database was written by a newer agentctl.
    #[error(
        "memory store {path} has schema version {found}, newer than this agentctl supports \
         ({supported}): upgrade agentctl"
    )]
    SchemaTooNew {
        /// The database file.
        path: String,
        /// `PRAGMA user_version` of the file.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
    /// A stored row could not be decoded.
    #[error("memory store {path}: corrupt entry #{id}: {detail}")]
    CorruptRow {
        /// The database file.
        path: String,
        /// The entry.
        id: i64,
        /// What was wrong.
        detail: String,
    },
    /// No entry has this id (for this agent, when one was named).
    #[error("no memory #{id}{}", agent.as_deref().map(|a| format!(" of agent `{a}`")).unwrap_or_default())]
    NotFound {
        /// The id asked for.
        id: i64,
        /// The agent the lookup was limited to.
        agent: Option<String>,
    },
    /// The content or metadata of a new entry is unusable.
    #[error("{0}")]
    Invalid(String),
    /// An agent has as many entries as one agent may keep.
    #[error(
        "agent `{agent}` already keeps {max} memories, the most one agent may: forget old ones"
    )]
    Full {
        /// The agent.
        agent: String,
        /// The limit.
        max: usize,
    },
}

impl MemoryError {
    /// What a front end can offer beyond the message: the ids to pick from, or forgetting some.
    pub fn hint(&self) -> Option<agentctl_core::Hint> {
        match self {
            Self::NotFound { agent, .. } => Some(agentctl_core::Hint::ListMemories {
                agent: agent.clone(),
            }),
            Self::Full { agent, .. } => Some(agentctl_core::Hint::ForgetMemories {
                agent: agent.clone(),
            }),
            _ => None,
        }
    }
}
