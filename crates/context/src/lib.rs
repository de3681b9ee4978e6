//! Context scoping and persistence for agentctl.
//!
//! * [`ContextScope`]: the workspaces of a session — `main`, `agent:{name}`, `run:{id}`,
//!   `sub:{agent}:{run}` — apart from the timeline (the session's visible messages, what the
//!   user sees). Sub-agent messages are never visible; a run hands one
//!   [`HandoffSummary`] back to `main` ([`RunLog::write_handoff`]).
//! * [`resolve_mode`]: which [`ContextMode`](agentctl_core::ContextMode) an agent runs in, with
//!   the precedence flag > session override > agent file > settings > `isolated`, refusing
//!   `shared` when `agents.allowSharedContext` is false.
//! * [`SessionStore`] (= [`SessionLog`] + [`MessageLog`] + [`RunLog`] + [`StateLog`] +
//!   [`GraphLog`] + [`TraceLog`]) and its SQLite implementation [`SqliteStore`]: sessions,
//!   messages and runs (with the [`Source`] that wrote them), steps (a model call's with its
//!   [`PromptBudget`]), one current summary per scope, per-session mode overrides, session
//!   state (the JSON values agents keep with `memory_set`, read by `when` conditions) and
//!   graph checkpoints (resume, time travel), one transaction per turn.
//!   [`MessageLog::clear_agent_context`] forgets an agent's isolated workspace.
//!   [`open_session`] picks new / `--session` / `--continue`.
//! * [`load_history`] / [`load_history_within`] / [`HistoryView`]: what an agent sees in each
//!   mode, within a context window's token budget (read newest first). The shared hand-over
//!   is a window into an `Arc<[ScopedMessage]>`: constant time in the history's length.
//! * [`compact_scope`] / [`compact_session`]: model-written summaries with an
//!   `until_message_id` cursor, per scope, through a [`Summarizer`] ([`ProviderSummarizer`]).
//! * [`expand_file_references`]: `@file:keyword` references appended as a `<Context>` block.
//! * [`RunRecorder`]: writes a run into its workspace from the turns the loop committed.
//! * [`export_session`] / [`SessionImport`] / [`copy_sessions`]: whole sessions copied between
//!   stores (the SQLite one here, the PostgreSQL one of agentctl-store-postgres), ids
//!   renumbered; run again, it brings earlier copies up to date and refuses sessions changed
//!   on both sides.
//!
//! Wiring a run into a session:
//!
//! ```
//! use agentctl_context::*;
//! use agentctl_core::{AgentsSettings, ContextMode, Message, Usage};
//!
//! let store = SqliteStore::open_in_memory()?; // SqliteStore::open(&SqliteStore::default_path(..))
//! let session = open_session(&store, &SessionChoice::Continue)?;
//! let overrides = store.mode_overrides(&session.id)?;
//! let inputs = ModeInputs {
//!     flag: None,
//!     session_override: overrides.get("reviewer").copied(),
//!     agent_file: Some(ContextMode::Isolated),
//! };
//! let settings = AgentsSettings::default();
//! let mode = resolve_mode("reviewer", inputs, &settings)?.mode;
//! let history = load_history(&store, &session.id, "reviewer", mode,
//!     settings.shared_context_max_messages)?.to_messages(); // RunOptions::history
//! let run = store.start_run(&session.id, &NewRun::new("reviewer", mode))?;
//! store.record_turn(run.id, &[
//!     NewMessage::new(run.context_scope.clone(), None, Message::user("review it")),
//!     NewMessage::new(run.context_scope.clone(), Some("reviewer"), Message::assistant("done")),
//! ], &[])?;
//! store.finish_run(run.id, RunStatus::Completed, Usage::default())?;
//! assert!(history.is_empty());
//! assert_eq!(load_history(&store, &session.id, "reviewer", mode, 100)?.len(), 2);
//! # Ok::<(), ContextError>(())
//! ```

mod compaction;
mod error;
mod file_refs;
mod mode;
mod record;
mod recorder;
mod scope;
mod session;
mod source;
mod sqlite;
mod store;
mod tokens;
mod transfer;
mod view;

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
    CheckpointSource, ClearedContext, ContextSummary, GraphBranch, GraphCheckpoint, HandoffSummary,
    MAIN_TIMELINE, MessageId, MessageQuery, NewCheckpoint, NewMessage, NewRun, NewStep,
    PromptBudget, ReplacedSummary, RunId, RunRecord, RunStatus, SessionInfo, StepRecord,
    StoredMessage, utc_timestamp,
};
pub use recorder::{RunEnding, RunRecorder, RunTally};
pub use scope::ContextScope;
pub use session::{SessionChoice, open_session};
pub use source::Source;
pub use sqlite::{
    BUSY_TIMEOUT, MAX_CHECKPOINT_STATE_BYTES, SCHEMA_VERSION, SchemaError, SqliteStore, StateEntry,
    migrate_sqlite, prepare_sqlite,
};
pub use store::{GraphLog, MessageLog, RunLog, SessionLog, SessionStore, StateLog, TraceLog};
pub use tokens::estimate_tokens;
pub use transfer::{
    Conflict, CopyOutcome, CopyReport, IdMap, ImportOutcome, SessionBundle, SessionImport,
    SummaryRow, SyncMark, copy_sessions, export_session, same_version,
};
pub use view::{HistoryView, ScopeHistory, ScopedMessage, load_history, load_history_within};
