//! A session store that calls a hook before each write (and before and after a batch, once
//! the first session is created), then writes to an in-memory SQLite store: a slow store (the
//! hook sleeps), a failing one (the hook fails), a watched one.

use agentctl_core::{ContextMode, Span, Usage};
use agentctl_store::{
    ClearedContext, ContextError, ContextScope, ContextSummary, GraphBranch, GraphCheckpoint,
    GraphLog, HandoffSummary, MessageId, MessageLog, MessageQuery, NewCheckpoint, NewMessage,
    NewRun, NewStep, Result, RunId, RunLog, RunRecord, RunStatus, SessionInfo, SessionLog,
    StateEntry, StateLog, StepRecord, StoredMessage, TraceLog,
};
use agentctl_store_sqlite::SqliteStore;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Called with the write's name before it happens; an error fails the write.
pub type Hook = Box<dyn Fn(&str) -> Result<()> + Send + Sync>;

pub struct Hooked {
    inner: SqliteStore,
    hook: Hook,
    /// Called before a session is created.
    creating: Option<Hook>,
    /// A session was created: batches are hooked from the next one on (the batch that
    /// creates the first session, as a session is built, is not).
    created: AtomicBool,
}

impl Hooked {
    pub fn new(hook: Hook) -> Self {
        Self {
            inner: SqliteStore::open_in_memory().unwrap(),
            hook,
            creating: None,
            created: AtomicBool::new(false),
        }
    }

    /// The same store, calling `hook` (with `create_session`) before it creates a session.
    pub fn creating_with(mut self, hook: Hook) -> Self {
        self.creating = Some(hook);
        self
    }

    fn write(&self, what: &str) -> Result<()> {
        (self.hook)(what)
    }
}

/// The error a failing hook returns.
pub fn refused(what: &str) -> ContextError {
    ContextError::Backend {
        store: "hooked".into(),
        message: format!("{what} refused by the test"),
        retryable: false,
    }
}

impl SessionLog for Hooked {
    fn create_session(&self, title: Option<&str>) -> Result<SessionInfo> {
        if let Some(hook) = &self.creating {
            hook("create_session")?;
        }
        let created = self.inner.create_session(title);
        self.created.store(true, Ordering::SeqCst);
        created
    }
    fn session(&self, id: &str) -> Result<SessionInfo> {
        self.inner.session(id)
    }
    fn latest_session(&self) -> Result<Option<SessionInfo>> {
        self.inner.latest_session()
    }
    fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        self.inner.list_sessions()
    }
    fn delete_session(&self, id: &str) -> Result<bool> {
        self.inner.delete_session(id)
    }
    fn set_mode_override(&self, s: &str, a: &str, m: Option<ContextMode>) -> Result<()> {
        self.inner.set_mode_override(s, a, m)
    }
    fn mode_overrides(&self, session: &str) -> Result<BTreeMap<String, ContextMode>> {
        self.inner.mode_overrides(session)
    }
    fn batch(&self, work: &mut dyn FnMut()) -> Result<()> {
        if !self.created.load(Ordering::SeqCst) {
            return self.inner.batch(work);
        }
        self.write("batch")?;
        self.inner.batch(work)?;
        self.write("batch committed")
    }
    fn single_writer(&self) -> bool {
        self.inner.single_writer()
    }
}

impl MessageLog for Hooked {
    fn append_messages(
        &self,
        session: &str,
        run: Option<RunId>,
        messages: &[NewMessage],
    ) -> Result<Vec<MessageId>> {
        self.write("append_messages")?;
        self.inner.append_messages(session, run, messages)
    }
    fn messages(&self, session: &str, query: &MessageQuery) -> Result<Vec<StoredMessage>> {
        self.inner.messages(session, query)
    }
    fn scopes(&self, session: &str) -> Result<Vec<ContextScope>> {
        self.inner.scopes(session)
    }
    fn save_summary(
        &self,
        session: &str,
        scope: &ContextScope,
        until: MessageId,
        text: &str,
    ) -> Result<ContextSummary> {
        self.inner.save_summary(session, scope, until, text)
    }
    fn latest_summary(&self, s: &str, scope: &ContextScope) -> Result<Option<ContextSummary>> {
        self.inner.latest_summary(s, scope)
    }
    fn clear_agent_context(&self, agent: &str) -> Result<ClearedContext> {
        self.inner.clear_agent_context(agent)
    }
    fn clear_agent_context_in(&self, session: &str, agent: &str) -> Result<ClearedContext> {
        self.inner.clear_agent_context_in(session, agent)
    }
}

impl RunLog for Hooked {
    fn start_run(&self, session: &str, run: &NewRun) -> Result<RunRecord> {
        self.write("start_run")?;
        self.inner.start_run(session, run)
    }
    fn record_turn(
        &self,
        run: RunId,
        messages: &[NewMessage],
        steps: &[NewStep],
    ) -> Result<Vec<MessageId>> {
        self.write("record_turn")?;
        self.inner.record_turn(run, messages, steps)
    }
    fn finish_run(&self, run: RunId, status: RunStatus, usage: Usage) -> Result<()> {
        self.write("finish_run")?;
        self.inner.finish_run(run, status, usage)
    }
    fn write_handoff(&self, run: RunId, handoff: &HandoffSummary) -> Result<MessageId> {
        self.write("write_handoff")?;
        self.inner.write_handoff(run, handoff)
    }
    fn run(&self, run: RunId) -> Result<RunRecord> {
        self.inner.run(run)
    }
    fn runs(&self, session: &str) -> Result<Vec<RunRecord>> {
        self.inner.runs(session)
    }
    fn steps(&self, run: RunId) -> Result<Vec<StepRecord>> {
        self.inner.steps(run)
    }
    fn interrupt_stale_runs(&self, session: &str) -> Result<usize> {
        self.inner.interrupt_stale_runs(session)
    }
}

impl StateLog for Hooked {
    fn set_session_state(&self, s: &str, key: &str, value: &Value, agent: &str) -> Result<()> {
        self.inner.set_session_state(s, key, value, agent)
    }
    fn state_entries(&self, session: &str) -> Result<Vec<StateEntry>> {
        self.inner.state_entries(session)
    }
}

impl GraphLog for Hooked {
    fn start_graph(&self, s: &str, g: &str, state: &Value, entry: &str) -> Result<GraphCheckpoint> {
        self.inner.start_graph(s, g, state, entry)
    }
    fn write_checkpoint(&self, checkpoint: &NewCheckpoint<'_>) -> Result<GraphCheckpoint> {
        self.inner.write_checkpoint(checkpoint)
    }
    fn fork_graph(&self, session: &str, branch: u32, step: u32) -> Result<GraphCheckpoint> {
        self.inner.fork_graph(session, branch, step)
    }
    fn graph_checkpoints(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        self.inner.graph_checkpoints(session, branch)
    }
    fn latest_checkpoint(&self, session: &str, branch: u32) -> Result<Option<GraphCheckpoint>> {
        self.inner.latest_checkpoint(session, branch)
    }
    fn graph_branches(&self, session: &str) -> Result<Vec<GraphBranch>> {
        self.inner.graph_branches(session)
    }
    fn graph_history(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        self.inner.graph_history(session, branch)
    }
}

impl TraceLog for Hooked {
    fn record_span(&self, session: &str, span: &Span) -> Result<()> {
        self.inner.record_span(session, span)
    }
    fn for_each_span(&self, session: &str, visit: &mut dyn FnMut(Span)) -> Result<usize> {
        self.inner.for_each_span(session, visit)
    }
}
