//! The store traits: what the rest of agentctl needs from a session database.
//!
//! Split by capability — sessions, messages, runs, state, graph checkpoints, trace spans — so a test double
//! or a server backend can implement what it needs; [`SessionStore`] is all six, implemented
//! automatically.
//! The traits are synchronous: the embedded SQLite store answers in microseconds, and an
//! async front end calls it from `spawn_blocking` or simply inline between model calls.

use crate::error::Result;
use crate::record::StateEntry;
use crate::record::{
    ClearedContext, ContextSummary, GraphBranch, GraphCheckpoint, HandoffSummary, MessageId,
    MessageQuery, NewCheckpoint, NewMessage, NewRun, NewStep, ReplacedSummary, RunClosing, RunId,
    RunRecord, RunStatus, SessionInfo, StepRecord, StoredMessage,
};
use crate::scope::ContextScope;
use agentctl_core::{ContextMode, Message, Span, Usage};
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
    /// Runs `work` and commits the writes it makes through this store, on this thread, together
    /// once it returns, where the backend can (the SQLite store makes them one transaction, so
    /// a handoff's closing and opening rows cost one commit); other threads' writes wait for
    /// it. An error means those writes were not committed, whatever `work` was told of them.
    /// By default each write is committed as it is made.
    fn batch(&self, work: &mut dyn FnMut()) -> Result<()> {
        work();
        Ok(())
    }
    /// Whether the store takes one writer at a time however many threads write (SQLite: one
    /// per file), so the sessions of a process are best written by one thread whose batches
    /// share their commits. False by default: each session writes on a thread of its own.
    fn single_writer(&self) -> bool {
        false
    }
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
    /// Estimated tokens of `scope`'s messages after `after_id` (a summary's cursor), counted
    /// newest first until the count passes `limit`: exact when it is at most `limit`, else
    /// some count above `limit`. Tells whether a workspace outgrew a budget without reading
    /// it whole.
    fn scope_tokens(
        &self,
        session: &str,
        scope: &ContextScope,
        after_id: Option<MessageId>,
        limit: u64,
    ) -> Result<u64> {
        // A store that cannot stop early counts the whole workspace: still exact.
        let _ = limit;
        let query = MessageQuery {
            after_id,
            ..MessageQuery::scope(scope.clone())
        };
        Ok(self
            .messages(session, &query)?
            .iter()
            .map(|message| u64::from(message.token_estimate))
            .sum())
    }

    /// The workspaces that hold messages, in order of first use.
    fn scopes(&self, session: &str) -> Result<Vec<ContextScope>>;
    /// Makes `summary_text` the current summary of `scope`, up to `until_message_id`; the
    /// summary it replaces is kept as history. Returns the scope's current summary: the one
    /// given, unless a summary with a further cursor was saved meanwhile (by another
    /// process), which then stays current while the given one goes to history.
    fn save_summary(
        &self,
        session: &str,
        scope: &ContextScope,
        until_message_id: MessageId,
        summary_text: &str,
    ) -> Result<ContextSummary>;
    /// The current summary of a scope: the one with the furthest cursor.
    fn latest_summary(&self, session: &str, scope: &ContextScope)
    -> Result<Option<ContextSummary>>;
    /// The summaries newer ones replaced, in the order they were written (oldest first): what
    /// `chat_context_summary_history` keeps for inspection, and what a copy of the session
    /// takes along. A store that keeps no history has none.
    fn replaced_summaries(&self, session: &str) -> Result<Vec<ReplacedSummary>> {
        let _ = session;
        Ok(Vec::new())
    }
    /// Forgets what `agent` remembers in isolated mode: deletes its `agent:{name}` workspace
    /// in every session — the workspace's messages and its summaries, current and replaced —
    /// in one transaction. The `main` workspace (the timeline's shared history, the handoffs
    /// the agent left there) and every other workspace stay, and so do the agent's runs with
    /// their steps (the audit of what ran; `delete_session` removes them). The agent's prompts
    /// and answers inside its workspace leave the timeline with it. An empty name is
    /// [`ContextError::InvalidScope`](crate::ContextError).
    fn clear_agent_context(&self, agent: &str) -> Result<ClearedContext>;
    /// [`clear_agent_context`](Self::clear_agent_context) in one session only;
    /// [`ContextError::SessionNotFound`](crate::ContextError) if there is no such session.
    fn clear_agent_context_in(&self, session: &str, agent: &str) -> Result<ClearedContext>;
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
    /// Starts a run and records its first turn — `prompt` as the user's message in the run's
    /// workspace, with `steps` — together. A store that can should do it in one transaction
    /// (both shipped stores do); the default makes the two writes in a row.
    fn open_run(
        &self,
        session: &str,
        run: &NewRun,
        prompt: &Message,
        steps: &[NewStep],
    ) -> Result<RunRecord> {
        let record = self.start_run(session, run)?;
        let prompt = NewMessage::new(record.context_scope.clone(), None, prompt.clone());
        self.record_turn(record.id, &[prompt], steps)?;
        Ok(record)
    }
    /// Closes a run: its last turn, its status and usage, then its handoff (see
    /// [`RunClosing`]). A store that can should do it in one transaction, so a run is never
    /// finished without its last turn (both shipped stores do); the default makes the writes
    /// in a row.
    fn close_run(&self, run: RunId, closing: &RunClosing) -> Result<()> {
        if !closing.messages.is_empty() || !closing.steps.is_empty() {
            self.record_turn(run, &closing.messages, &closing.steps)?;
        }
        self.finish_run(run, closing.status, closing.usage)?;
        if let Some(handoff) = &closing.handoff {
            self.write_handoff(run, handoff)?;
        }
        Ok(())
    }
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
    fn session_state(&self, session: &str) -> Result<BTreeMap<String, Value>> {
        Ok(self
            .state_entries(session)?
            .into_iter()
            .map(|entry| (entry.key, entry.value))
            .collect())
    }
    /// Sets `key` to `value` (JSON `null` deletes it), recording that `agent` wrote it.
    fn set_session_state(&self, session: &str, key: &str, value: &Value, agent: &str)
    -> Result<()>;
    /// The session's state with who set each key and when, in key order (for listings and
    /// for copying a session to another store).
    /// [`ContextError::SessionNotFound`](crate::ContextError) if there is no such session.
    fn state_entries(&self, session: &str) -> Result<Vec<StateEntry>>;
}

/// Graph checkpoints: after every node of a graph run, the graph state, the node that ran and
/// the node to run next, so a killed graph resumes where it stopped and an earlier step can be
/// re-run in a new branch without touching the original (time travel).
///
/// A session holds graph *branches* numbered from 0. [`start_graph`](Self::start_graph) opens
/// one with its step-0 `input` checkpoint; each finished node appends the next step with
/// [`write_checkpoint`](Self::write_checkpoint), which refuses anything but exactly the next
/// step: of two processes resuming the same branch, the second to write a step gets
/// [`ContextError::CheckpointConflict`](crate::ContextError::CheckpointConflict) and writes
/// nothing. [`fork_graph`](Self::fork_graph) copies a checkpoint into a new branch;
/// [`graph_history`](Self::graph_history) reads a forked branch through its ancestors as one
/// run. The state is a JSON object; secrets the store knows are masked in it, as in messages.
pub trait GraphLog: Send + Sync {
    /// Starts a graph run in a new branch of the session (the next free number, 0 for the
    /// first) with its step-0 `input` checkpoint: `state` (a JSON object) and `entry` as the
    /// next node.
    fn start_graph(
        &self,
        session: &str,
        graph: &str,
        state: &Value,
        entry: &str,
    ) -> Result<GraphCheckpoint>;
    /// Writes the checkpoint a finished node leaves, in one transaction. Refuses a step that
    /// is not exactly the branch's last step + 1
    /// ([`CheckpointConflict`](crate::ContextError::CheckpointConflict) when it is already
    /// written, [`CheckpointGap`](crate::ContextError::CheckpointGap) when it skips ahead), a
    /// branch whose graph ended ([`GraphEnded`](crate::ContextError::GraphEnded)), a state
    /// that is not a JSON object or is larger than
    /// [`MAX_CHECKPOINT_STATE_BYTES`](crate::MAX_CHECKPOINT_STATE_BYTES), and a run of
    /// another session.
    fn write_checkpoint(&self, checkpoint: &NewCheckpoint<'_>) -> Result<GraphCheckpoint>;
    /// Copies the checkpoint `(branch, step)` into a new branch: its first row, a `fork` at the
    /// same step with the same state and next node, whose parent is `(branch, step)`. The
    /// original branch is untouched.
    /// [`CheckpointNotFound`](crate::ContextError::CheckpointNotFound) (naming the steps the
    /// branch has) when the branch has no such step.
    fn fork_graph(&self, session: &str, branch: u32, step: u32) -> Result<GraphCheckpoint>;
    /// The branch's own checkpoints in step order; empty for a branch that does not exist.
    fn graph_checkpoints(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>>;
    /// The branch's latest checkpoint, where a resume continues; `None` for a branch that
    /// does not exist.
    fn latest_checkpoint(&self, session: &str, branch: u32) -> Result<Option<GraphCheckpoint>>;
    /// The session's graph branches in branch order.
    fn graph_branches(&self, session: &str) -> Result<Vec<GraphBranch>>;
    /// The branch read as one run: for a forked branch, its parent's history up to and
    /// including the step it was forked from (recursively), then the branch's own rows, whose
    /// first is the `fork` row repeating that step. Empty for a branch that does not exist.
    fn graph_history(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>>;
}

/// Trace spans of a session's traced turns: what `agentctl trace export` and `trace show`
/// read. Spans are written as they finish, so a long run never holds its trace in memory.
pub trait TraceLog: Send + Sync {
    /// Stores a finished span of `session` (writing the same span id again replaces it).
    fn record_span(&self, session: &str, span: &Span) -> Result<()>;
    /// Calls `visit` with the session's spans in start order, one at a time (a long trace is
    /// never loaded whole); returns how many there were.
    /// [`ContextError::SessionNotFound`](crate::ContextError) if there is no such session.
    fn for_each_span(&self, session: &str, visit: &mut dyn FnMut(Span)) -> Result<usize>;
}

/// Everything a session store does.
pub trait SessionStore: SessionLog + MessageLog + RunLog + StateLog + GraphLog + TraceLog {}

impl<T: SessionLog + MessageLog + RunLog + StateLog + GraphLog + TraceLog + ?Sized> SessionStore
    for T
{
}
