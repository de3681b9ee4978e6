//! The session store contracts of agentctl: what the rest of agentctl needs from a session
//! database, and nothing that touches one (no I/O, no SQL, no files).
//!
//! * [`SessionStore`] (= [`SessionLog`] + [`MessageLog`] + [`RunLog`] + [`StateLog`] +
//!   [`GraphLog`] + [`TraceLog`]): sessions, messages and runs (with the [`Source`] that wrote
//!   them), steps (a model call's with its [`PromptBudget`]), one current summary per scope,
//!   per-session mode overrides, session state ([`StateEntry`]) and graph checkpoints. The
//!   embedded SQLite store (`agentctl-store-sqlite`) and the PostgreSQL one
//!   (`agentctl-store-postgres`) implement them; a crate that only needs, say, [`StateLog`]
//!   depends on this crate and compiles no database.
//! * The record types those traits read and write ([`NewMessage`], [`StoredMessage`],
//!   [`RunRecord`], [`GraphCheckpoint`], …), the workspaces messages belong to
//!   ([`ContextScope`]) and the error type they share ([`ContextError`]).
//! * [`RunRecorder`]: writes a run into its workspace from the turns the loop committed, through
//!   the traits; [`open_session`] picks new / `--session` / `--continue`.
//! * [`export_session`] / [`SessionImport`] / [`copy_sessions`]: whole sessions copied between
//!   stores, ids renumbered; run again, it brings earlier copies up to date and refuses
//!   sessions changed on both sides; [`ImportPlan`] is the rows such a copy writes, the same
//!   for every store.
//! * [`TABLES`]: the tables of the session schema, described once ([`Table`], [`Column`],
//!   [`ColumnType`], [`Index`]), and the rows stores write through them ([`Write`] of
//!   [`Value`]s, rendered per [`Dialect`]); the records read back from rows ([`FromRow`] over
//!   a [`RowRef`]) the same way by every store; reads and filtered changes described the
//!   same way ([`Query`], and [`Sql`] for joins), rendered per [`Dialect`] into a [`Statement`].
//! * [`ops`]: the store operations themselves, written once — start, open and close a run,
//!   record a turn, append and read messages (context windows included), save a summary,
//!   clear a workspace, start, write and fork a graph branch, sessions and their state — as
//!   the sequence of described statements each runs over [`ops::Statements`], the small trait
//!   each store implements on its connection or transaction (run a statement, read rows, the
//!   new row's id, take a session's lock). What stays in a store is its own: connections,
//!   transactions and locks, migrations, error mapping, SQLite's counters, PostgreSQL's owner
//!   columns and stale runs.
//!
//! ```
//! use agentctl_store::{ContextScope, MessageQuery, RunStatus, Source, parse_mode};
//! use agentctl_core::ContextMode;
//!
//! let scope: ContextScope = "agent:reviewer".parse()?;
//! assert_eq!(MessageQuery::scope(scope.clone()).scope, Some(scope));
//! assert_eq!(parse_mode("run")?, ContextMode::Run);
//! assert_eq!("interrupted".parse::<RunStatus>(), Ok(RunStatus::Interrupted));
//! assert_eq!(Source::new("web")?.as_str(), "web");
//! # Ok::<(), agentctl_store::ContextError>(())
//! ```

mod checkpoint_rules;
mod error;
pub mod ops;
mod record;
mod recorder;
mod rows;
mod schema;
mod scope;
mod session;
mod source;
mod store;
mod tokens;
mod transfer;

pub use checkpoint_rules::{
    GraphHistory, check_checkpoint_order, check_checkpoint_run, checkpoint_state,
    graph_branch_not_found, graph_checkpoint_not_found, invalid_checkpoint,
};
pub use error::{ContextError, Result};
pub use record::{
    CheckpointSource, ClearedContext, ContextSummary, GraphBranch, GraphCheckpoint, HandoffSummary,
    MAIN_TIMELINE, MAX_CHECKPOINT_STATE_BYTES, MessageId, MessageQuery, NewCheckpoint, NewMessage,
    NewRun, NewStep, PromptBudget, ReplacedSummary, RunClosing, RunId, RunRecord, RunStatus,
    SessionInfo, StateEntry, StepRecord, StoredMessage, role_of, utc_timestamp,
};
pub use recorder::{RunEnding, RunRecorder, RunTally};
pub use rows::{
    MessageRow, StepRow, SummarySave, checkpoint_insert, checkpoint_number, checkpoint_parent,
    masked_span, mode_override_write, span_write, state_write, sync_mark_write,
};
pub use schema::{
    Backend, Column, ColumnType, DefaultValue, Dialect, Field, Filter, ForeignKey, FromRow, Index,
    OnDelete, Order, Query, RowError, RowRef, Sql, Statement, TABLES, Table, Value, Write,
    WriteKind, column_types, select_list, table,
};
pub use scope::{ContextScope, parse_mode};
pub use session::{SessionChoice, open_session};
pub use source::Source;
pub use store::{GraphLog, MessageLog, RunLog, SessionLog, SessionStore, StateLog, TraceLog};
pub use tokens::{estimate_text_tokens, estimate_tokens};
pub use transfer::{
    Conflict, CopyOutcome, CopyReport, IdMap, ImportOutcome, ImportPlan, SessionBundle,
    SessionImport, SummaryRow, SyncMark, copy_sessions, export_session, same_version,
};
