//! Context scoping and persistence for agentctl.
//!
//! The store contracts — the traits, their records, [`ContextScope`](agentctl_store::ContextScope)
//! and [`ContextError`](agentctl_store::ContextError) — are `agentctl-store`'s, the stores
//! `agentctl-store-sqlite`'s and `agentctl-store-postgres`'s; this crate has what works on any
//! [`SessionStore`](agentctl_store::SessionStore):
//!
//! * [`resolve_mode`]: which [`ContextMode`](agentctl_core::ContextMode) an agent runs in, with
//!   the precedence flag > session override > agent file > settings > `isolated`, refusing
//!   `shared` when `agents.allowSharedContext` is false.
//! * [`load_history`] / [`load_history_within`] / [`HistoryView`]: what an agent sees in each
//!   mode, within a context window's token budget (read newest first). The shared hand-over
//!   is a window into an `Arc<[ScopedMessage]>`: constant time in the history's length.
//! * [`compact_scope`] / [`compact_session`]: model-written summaries with an
//!   `until_message_id` cursor, per scope, through a [`Summarizer`] ([`ProviderSummarizer`]);
//!   [`PendingCompaction`] takes the same steps one at a time (read, summarise, save), so the
//!   store is not held while the model writes.
//! * [`expand_file_references`]: `@file:keyword` references appended as a `<Context>` block.
//!
//! Wiring a run into a session:
//!
//! ```
//! use agentctl_context::*;
//! use agentctl_store_sqlite::*;
//! use agentctl_store::*;
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
mod file_refs;
mod mode;
mod view;

pub use compaction::{
    CompactionPolicy, PendingCompaction, ProviderSummarizer, Summarizer, SummaryRequest,
    compact_scope, compact_session, needs_compaction,
};
pub use file_refs::{
    Expansion, FileRefLimits, expand_file_references, expand_file_references_with, file_references,
};
pub use mode::{ModeInputs, ModeSource, ResolvedMode, resolve_mode};
pub use view::{HistoryView, ScopeHistory, ScopedMessage, load_history, load_history_within};
