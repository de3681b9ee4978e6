//! The store operations both backends share, written once over [`Statements`]: what a
//! store's connection (inside its transaction, where the operation writes) does with the
//! [`Write`]s, [`Query`]s and [`Sql`] statements described here.
//!
//! Each operation is the sequence of statements it runs, and the rules between them (the
//! next step index, "is the run there?", the fork's copy); the stores keep only what is
//! their own — connections, transactions and locking, migrations, error mapping, SQLite's
//! counters, PostgreSQL's owner columns — behind the trait.
//!
//! The operations are `async`: the PostgreSQL store awaits its driver, the SQLite store's
//! statements never wait (see [`Statements`]), so its futures finish on their first poll.

mod graph;
mod messages;
mod runs;
mod sessions;
mod trace;

pub use graph::{
    fork_graph, graph_branches, graph_checkpoints, graph_history, latest_checkpoint, start_graph,
    write_checkpoint,
};
pub use messages::{
    append_messages, clear_scope, latest_summary, message_query, read_messages, replaced_summaries,
    save_summary, scope_tokens, scope_tokens_query, scopes,
};
pub use runs::{
    LockedRun, close_run, finish_run, load_run, lock_run, open_run, record_turn, run_steps,
    session_runs, start_run, write_handoff,
};
pub use sessions::{
    create_session, delete_session, delete_session_rows, mode_overrides, new_session_id,
    read_sessions, set_mode_override, set_state, state_entries, state_text,
};
pub use trace::record_span;

use crate::error::ContextError;
use crate::schema::{Dialect, FromRow, Query, RowError, RowRef, Sql, Statement, Value, Write};
use std::time::{SystemTime, UNIX_EPOCH};

/// The session an operation's writes change, and when: what [`Statements::write_all`]
/// touches once they are written.
#[derive(Debug, Clone, Copy)]
pub struct Touch<'a> {
    /// The session's id.
    pub session: &'a str,
    /// When, in milliseconds since the Unix epoch ([`now_ms`]).
    pub now: i64,
}

/// A visitor of the rows a statement returns: `Ok(false)` stops reading.
pub type Visit<'a> = dyn FnMut(&RowRef<'_>) -> Result<bool, RowError> + Send + 'a;

/// What a store's connection does for the shared operations: run a described statement,
/// read its rows, and the few things each backend does its own way.
///
/// The SQLite store implements it on a `rusqlite` connection, whose calls return at once:
/// its futures are ready on their first poll, so it runs an operation by polling it once,
/// with no runtime. The PostgreSQL store implements it on a pooled client or transaction.
#[expect(
    async_fn_in_trait,
    reason = "the SQLite store's futures are not Send (its connection is not Sync); the \
              PostgreSQL store's are, and its callers see it through the concrete type"
)]
pub trait Statements {
    /// The store's error inside an operation.
    type Fault: From<RowError> + From<ContextError>;
    /// How the store spells its statements.
    const DIALECT: Dialect;
    /// Whether a write takes its session's lock first (PostgreSQL's `SELECT … FOR UPDATE`),
    /// or the store's write transaction already holds the whole database (SQLite's
    /// `BEGIN IMMEDIATE`).
    const LOCKS_SESSIONS: bool;
    /// The `agent_runs` columns a starting run sets once its id is known, in one update: its
    /// workspace (`context_scope`, which names the id in run mode), then the columns that name
    /// the process running it ([`run_owner`](Self::run_owner)): SQLite's pid, process start
    /// and boot id, PostgreSQL's advisory lock key, pid and host.
    const RUN_STARTED: &'static [&'static str];
    /// What a session read selects: its `id`, `title`, `created_at`, `updated_at`, and its
    /// counts of messages and runs (SQLite keeps them in the row, PostgreSQL counts them).
    const SESSION_COLUMNS: &'static str;
    /// The column that orders sessions written in the same millisecond (SQLite's `rowid`,
    /// PostgreSQL's `seq`), newest first.
    const SESSION_TIEBREAK: &'static str;

    /// Runs `write`; the number of rows it changed.
    async fn write(&self, write: &Write) -> Result<u64, Self::Fault>;
    /// Runs `write` (an insert) and returns the id the database gave the row.
    async fn insert(&self, write: &Write) -> Result<i64, Self::Fault>;
    /// Runs a statement that changes rows; how many it changed.
    async fn execute(&self, statement: &Statement) -> Result<u64, Self::Fault>;
    /// Calls `visit` with each row `statement` returns, until it returns `Ok(false)`.
    async fn visit(&self, statement: &Statement, visit: &mut Visit<'_>) -> Result<(), Self::Fault>;
    /// Runs `writes` in order inside the caller's transaction, then [`touch`](Self::touch)es
    /// the session they changed, counting each
    /// [`WriteKind::InsertReturningId`](crate::schema::WriteKind) row as a message; the id the
    /// database gave each such row, in order. A store that talks to a server sends them all,
    /// the touch last, before it reads an answer (one round trip, not one a row); by default
    /// each runs when the one before has.
    async fn write_all(&self, writes: &[Write], touch: Touch<'_>) -> Result<Vec<i64>, Self::Fault> {
        let mut ids = Vec::new();
        for write in writes {
            if write.kind == crate::schema::WriteKind::InsertReturningId {
                ids.push(self.insert(write).await?);
            } else {
                self.write(write).await?;
            }
        }
        self.touch(touch.session, touch.now, ids.len()).await?;
        Ok(ids)
    }
    /// Fails with [`ContextError::SessionNotFound`] unless the session exists, and takes its
    /// lock for the rest of the transaction where the store locks sessions.
    async fn lock_session(&self, session: &str) -> Result<(), Self::Fault>;
    /// Records a write to the session at `now` that added `messages` messages.
    async fn touch(&self, session: &str, now: i64, messages: usize) -> Result<(), Self::Fault>;
    /// The values of this process's owner columns, the last of
    /// [`RUN_STARTED`](Self::RUN_STARTED).
    fn run_owner(&self) -> Vec<Value>;
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
        })
}

/// Every `T` `query` reads.
pub(crate) async fn records<S: Statements + ?Sized, T: FromRow + Send>(
    store: &S,
    query: &Query,
) -> Result<Vec<T>, S::Fault> {
    let mut found = Vec::new();
    store
        .visit(&S::DIALECT.query(query), &mut |row| {
            found.push(T::from_row(row)?);
            Ok(true)
        })
        .await?;
    Ok(found)
}

/// The first `T` `query` reads.
pub(crate) async fn first<S: Statements + ?Sized, T: FromRow + Send>(
    store: &S,
    query: &Query,
) -> Result<Option<T>, S::Fault> {
    let mut found = None;
    store
        .visit(&S::DIALECT.query(query), &mut |row| {
            found = Some(T::from_row(row)?);
            Ok(false)
        })
        .await?;
    Ok(found)
}

/// Each row of a one-column `statement`, as `read` takes it from the row.
pub(crate) async fn column<S: Statements + ?Sized, T: Send>(
    store: &S,
    statement: &Statement,
    read: impl Fn(&RowRef<'_>, &str) -> Result<T, RowError> + Send + Sync,
) -> Result<Vec<T>, S::Fault> {
    let mut found = Vec::new();
    let name = statement.names.first().copied().unwrap_or_default();
    store
        .visit(statement, &mut |row| {
            found.push(read(row, name)?);
            Ok(true)
        })
        .await?;
    Ok(found)
}

/// The integers of a one-column `query`.
pub(crate) async fn integers<S: Statements + ?Sized>(
    store: &S,
    query: &Query,
) -> Result<Vec<i64>, S::Fault> {
    column(store, &S::DIALECT.query(query), |row, name| {
        row.integer(name)
    })
    .await
}

/// The texts of a one-column `query`.
pub(crate) async fn texts<S: Statements + ?Sized>(
    store: &S,
    query: &Query,
) -> Result<Vec<String>, S::Fault> {
    column(store, &S::DIALECT.query(query), |row, name| {
        row.text(name).map(str::to_owned)
    })
    .await
}

/// Runs `sql`; how many rows it changed.
pub(crate) async fn execute<S: Statements + ?Sized>(store: &S, sql: Sql) -> Result<u64, S::Fault> {
    store.execute(&S::DIALECT.sql(&sql)).await
}

/// Fails with [`ContextError::SessionNotFound`] unless the session exists (a read: no lock).
pub async fn require_session<S: Statements + ?Sized>(
    store: &S,
    session: &str,
) -> Result<(), S::Fault> {
    let found = integers(
        store,
        &Query::value("sessions", "1", &["found"]).eq("id", session),
    )
    .await?;
    if found.is_empty() {
        return Err(ContextError::SessionNotFound(session.to_owned()).into());
    }
    Ok(())
}
