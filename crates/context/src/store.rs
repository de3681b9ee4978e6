//! The store traits: what the rest of agentctl needs from a session database.
//!
//! Split by capability — sessions, messages, runs, state — so a test double or a server
//! backend can implement what it needs; [`SessionStore`] is all four, implemented
//! automatically.
//! The traits are synchronous: the embedded SQLite store answers in microseconds, and an
//! async front end calls it from `spawn_blocking` or simply inline between model calls.

use crate::error::Result;
use crate::record::{
    ContextSummary, HandoffSummary, MessageId, MessageQuery, NewMessage, NewRun, NewStep, RunId,
    RunRecord, RunStatus, SessionInfo, StepRecord, StoredMessage,
};
use crate::scope::ContextScope;
use agentctl_core::{ContextMode, Usage};
use serde_json::Value;
use std::collections::BTreeMap;

/// Sessions and their per-session settings.
pub trait SessionLog: Send + Sync {
    /// Creates an empty session.
    fn create_session(&self, title: Option<&str>) -> Result<SessionInfo>;
    /// One session; [`ContextError::SessionNotFound`](crate::ContextError) if there is none.
    fn session(&self, id: &str) -> Result<SessionInfo>;
    /// The most recently written session (for `--continue`).
    fn latest_session(&self) -> Result<Option<SessionInfo>>;
    /// All sessions, most recently written first.
    fn list_sessions(&self) -> Result<Vec<SessionInfo>>;
    /// Deletes a session with its messages, runs and summaries; false if there was none.
    fn delete_session(&self, id: &str) -> Result<bool>;
    /// Sets (or with `None` clears) an agent's context mode for this session.
    fn set_mode_override(
        &self,
        session: &str,
        agent: &str,
        mode: Option<ContextMode>,
    ) -> Result<()>;
    /// The session's mode overrides by agent name.
    fn mode_overrides(&self, session: &str) -> Result<BTreeMap<String, ContextMode>>;
}

/// Messages and compaction summaries.
pub trait MessageLog: Send + Sync {
    /// Appends messages in one transaction: all of them are stored, or none.
    fn append_messages(
        &self,
        session: &str,
        run: Option<RunId>,
        messages: &[NewMessage],
    ) -> Result<Vec<MessageId>>;
    /// Reads messages, oldest first.
    fn messages(&self, session: &str, query: &MessageQuery) -> Result<Vec<StoredMessage>>;
    /// The workspaces that hold messages, in order of first use.
    fn scopes(&self, session: &str) -> Result<Vec<ContextScope>>;
    /// Stores a summary of `scope` up to `until_message_id`.
    fn save_summary(
        &self,
        session: &str,
        scope: &ContextScope,
        until_message_id: MessageId,
        summary_text: &str,
    ) -> Result<ContextSummary>;
    /// The newest summary of a scope.
    fn latest_summary(&self, session: &str, scope: &ContextScope)
    -> Result<Option<ContextSummary>>;
}

/// Agent runs and their steps.
pub trait RunLog: Send + Sync {
    /// Starts a run; its workspace follows from the mode and the parent (see
    /// [`RunRecord::context_scope`]).
    fn start_run(&self, session: &str, run: &NewRun) -> Result<RunRecord>;
    /// Records one turn of a run — its messages and steps — in one transaction, so a killed
    /// process leaves either the whole turn or none of it.
    fn record_turn(
        &self,
        run: RunId,
        messages: &[NewMessage],
        steps: &[NewStep],
    ) -> Result<Vec<MessageId>>;
    /// Marks a run finished.
    fn finish_run(&self, run: RunId, status: RunStatus, usage: Usage) -> Result<()>;
    /// Writes a run's handoff to the `main` workspace (visible in the timeline) and as a
    /// `handoff` step, in one transaction; returns the message id.
    fn write_handoff(&self, run: RunId, handoff: &HandoffSummary) -> Result<MessageId>;
    /// One run.
    fn run(&self, run: RunId) -> Result<RunRecord>;
    /// The session's runs, oldest first.
    fn runs(&self, session: &str) -> Result<Vec<RunRecord>>;
    /// A run's steps in order.
    fn steps(&self, run: RunId) -> Result<Vec<StepRecord>>;
    /// Marks `interrupted` the session's `running` runs whose process is gone (call when
    /// resuming: such a run can never finish). Runs of live processes — another agentctl
    /// working in the same session right now — are left alone. Returns how many were marked.
    fn interrupt_stale_runs(&self, session: &str) -> Result<usize>;
}

/// Session state: named JSON values the agents of a session keep (`memory_set`), which `when`
/// conditions read.
///
/// Keys are whatever the caller allows (the memory tools allow an agent's declared
/// `memory.session` keys and the reserved `task`); the store only keeps them. Values are
/// stored whole: setting a key replaces its value, and setting it to JSON `null` deletes the
/// key, so a state never holds `null` and "not set" has one spelling.
pub trait StateLog: Send + Sync {
    /// The session's state, by key; empty when nothing was set.
    /// [`ContextError::SessionNotFound`](crate::ContextError) if there is no such session.
    fn session_state(&self, session: &str) -> Result<BTreeMap<String, Value>>;
    /// Sets `key` to `value` (JSON `null` deletes it), recording that `agent` wrote it.
    fn set_session_state(&self, session: &str, key: &str, value: &Value, agent: &str)
    -> Result<()>;
}

/// Everything a session store does.
pub trait SessionStore: SessionLog + MessageLog + RunLog + StateLog {}

impl<T: SessionLog + MessageLog + RunLog + StateLog + ?Sized> SessionStore for T {}
