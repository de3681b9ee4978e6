//! The session store as a front end reads it: the store contract, the records it keeps
//! (sessions, messages, runs, state, summaries) and how a session is chosen and copied.

pub use crate::migrate::{MigrateError, Migration};
pub use crate::record::{GuardrailCheck, ModelCall, SessionRecord};
pub use crate::store_location::in_memory_store;
pub use agentctl_store::{
    ClearedContext, Conflict, ContextScope, ContextSummary, CopyOutcome, CopyReport, MessageQuery,
    PromptBudget, RunRecord, RunStatus, SessionChoice, SessionInfo, SessionStore, Source,
    StateEntry, StoredMessage, utc_timestamp,
};
