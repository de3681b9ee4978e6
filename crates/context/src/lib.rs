//! Context scoping and persistence for agentctl.
//!
//! * [`ContextScope`]: the workspaces of a session — `main`, `agent:{name}`, `run:{id}`,
//!   `sub:{agent}:{run}` — apart from the timeline, which is what the user sees.
//! * [`resolve_mode`]: which [`ContextMode`](agentctl_core::ContextMode) an agent runs in, with
//!   the precedence flag > session override > agent file > settings > `isolated`.
//! * [`SessionStore`] and its SQLite implementation [`SqliteStore`]: sessions, messages, runs,
//!   steps, summaries and per-session mode overrides.

mod capability;
mod compaction;
mod error;
mod file_refs;
mod mode;
mod record;
mod scope;
mod session;
mod sqlite;
mod store;
mod tokens;
mod view;

pub use capability::{
    AgentCapabilityContext, CAPABILITY_TOOLS, CapabilityRow, Executor, ExecutorStatus,
    ResourcePool, StopReport, TaskSpec,
};
pub use compaction::{
    CompactionPolicy, ProviderSummarizer, Summarizer, SummaryRequest, compact_scope,
    compact_session,
};
pub use error::{ContextError, Result};
pub use file_refs::{
    Expansion, FileRefLimits, expand_file_references, expand_file_references_with, file_references,
};
pub use mode::{ModeInputs, ModeSource, ResolvedMode, parse_mode, resolve_mode};
pub use record::{
    ContextSummary, HandoffSummary, MAIN_TIMELINE, MessageId, MessageQuery, NewMessage, NewRun,
    NewStep, RunId, RunRecord, RunStatus, SessionInfo, StepRecord, StoredMessage, utc_timestamp,
};
pub use scope::ContextScope;
pub use session::{SessionChoice, open_session};
pub use sqlite::{SCHEMA_VERSION, SqliteStore};
pub use store::{MessageLog, RunLog, SessionLog, SessionStore};
pub use tokens::estimate_tokens;
pub use view::{HistoryView, ScopeHistory, ScopedMessage, load_history};
