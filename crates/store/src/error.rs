//! The error type of the store contracts and of what uses them.

use agentctl_core::ContextMode;
use std::path::PathBuf;

/// Result of the store contracts (and of the context crate).
pub type Result<T, E = ContextError> = std::result::Result<T, E>;

/// What went wrong while scoping, storing or compacting context.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// An agent asked for the shared context but the settings forbid it.
    #[error(
        "agent `{agent}` asks for the shared context ({source_layer}) but agents.allowSharedContext \
         is false: use the isolated or run mode, or set agents.allowSharedContext to true"
    )]
    SharedContextDisabled {
        /// The agent.
        agent: String,
        /// Which layer asked for shared mode (`--context flag`, `agent file`, …).
        source_layer: String,
    },
    /// A context scope string could not be parsed.
    #[error("invalid context scope `{0}`: expected main, agent:NAME, run:ID or sub:AGENT:RUN")]
    InvalidScope(String),
    /// A message or run source name is not a lowercase identifier.
    #[error(
        "invalid source `{0}`: expected 1-32 lowercase ASCII letters, digits, `-` or `_`, \
         starting with a letter (e.g. cli, repl, mcp, web)"
    )]
    InvalidSource(String),
    /// A context mode string could not be parsed.
    #[error("invalid context mode `{0}`: expected isolated, shared or run")]
    InvalidMode(String),
    /// No session has this id.
    #[error("no session `{0}` in the session store")]
    SessionNotFound(String),
    /// No run has this id.
    #[error("no agent run {0} in the session store")]
    RunNotFound(i64),
    /// The embedded database failed.
    #[error("session store {path}: {source}")]
    Database {
        /// The database file (`:memory:` for in-memory stores).
        path: String,
        /// The database's error (SQLite's, for the embedded store).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
        /// Whether trying again may succeed (the database was busy or locked by another
        /// process).
        retryable: bool,
    },
    /// A database server (PostgreSQL) refused an operation or could not be reached. The
    /// store is named by its URL with the password masked; so is everything in `message`.
    #[error("session store {store}: {message}")]
    Backend {
        /// The store, as a URL without its password.
        store: String,
        /// What failed, with the server's own words.
        message: String,
        /// Whether trying again may succeed (a lost connection, a serialisation failure, a
        /// deadlock the server broke, a server starting up).
        retryable: bool,
    },
    /// A session cannot be copied into a store (`agentctl sessions migrate`): the target
    /// holds a different session under the same id.
    #[error("cannot copy session {session} into {store}: {reason}")]
    Transfer {
        /// The session.
        session: String,
        /// The target store (password masked).
        store: String,
        /// Why, and what to do.
        reason: String,
    },
    /// The database was written by a newer agentctl.
    #[error(
        "session store {path} has schema version {found}, newer than this agentctl supports \
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
    #[error("session store {path}: corrupt row in {table}: {detail}")]
    CorruptRow {
        /// The database file.
        path: String,
        /// The table.
        table: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// The folder of the database could not be created.
    #[error("cannot create {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The summariser failed.
    #[error("summarising scope {scope} failed: {message}")]
    Summarizer {
        /// The scope being compacted.
        scope: String,
        /// The model's or provider's error.
        message: String,
    },
    /// A mode that the operation does not accept.
    #[error("context mode {0} is not valid here")]
    UnexpectedMode(ContextMode),
    /// The session has no graph branch with this number.
    #[error("session {session} has no graph branch {branch} ({known})")]
    GraphBranchNotFound {
        /// The session.
        session: String,
        /// The branch asked for.
        branch: u32,
        /// The branches it has, in words (`its branches are 0, 1` or `it has no graph
        /// checkpoints`).
        known: String,
    },
    /// The branch has no checkpoint at this step.
    #[error("session {session}, graph branch {branch} has no checkpoint at step {step}: {known}")]
    CheckpointNotFound {
        /// The session.
        session: String,
        /// The branch.
        branch: u32,
        /// The step asked for.
        step: u32,
        /// The steps it has, and where earlier steps live for a forked branch.
        known: String,
    },
    /// A checkpoint for a step the branch already has: another writer advanced the graph
    /// since this one read its latest checkpoint.
    #[error(
        "session {session}, graph branch {branch}: step {step} is already written (the branch \
         is at step {last}): another process advanced the graph; read its latest checkpoint \
         instead of writing this one"
    )]
    CheckpointConflict {
        /// The session.
        session: String,
        /// The branch.
        branch: u32,
        /// The step that was to be written.
        step: u32,
        /// The branch's latest step.
        last: u32,
    },
    /// A checkpoint that skips steps.
    #[error(
        "session {session}, graph branch {branch}: cannot write step {step}, the branch is at \
         step {last} and its next step is {}", u64::from(*last) + 1
    )]
    CheckpointGap {
        /// The session.
        session: String,
        /// The branch.
        branch: u32,
        /// The step that was to be written.
        step: u32,
        /// The branch's latest step.
        last: u32,
    },
    /// A checkpoint for a branch whose graph already ended.
    #[error(
        "session {session}, graph branch {branch} ended at step {last} ({reason}): no step can \
         follow it; fork an earlier step to run the graph again"
    )]
    GraphEnded {
        /// The session.
        session: String,
        /// The branch.
        branch: u32,
        /// The step where it ended.
        last: u32,
        /// Why it ended, as recorded (`no reason recorded` when none was).
        reason: String,
    },
    /// A checkpoint that cannot be stored as given (state not a JSON object or too large, a
    /// run of another session, an end reason with a next node).
    #[error("session {session}, graph branch {branch}, step {step}: {reason}")]
    InvalidCheckpoint {
        /// The session.
        session: String,
        /// The branch.
        branch: u32,
        /// The step.
        step: u32,
        /// What is wrong and what to do.
        reason: String,
    },
}

impl ContextError {
    /// True for failures that may succeed when tried again (a busy or locked database, a
    /// provider error while summarising).
    pub fn is_retryable(&self) -> bool {
        match self {
            ContextError::Database { retryable, .. } | ContextError::Backend { retryable, .. } => {
                *retryable
            }
            ContextError::Summarizer { .. } => true,
            _ => false,
        }
    }
}
