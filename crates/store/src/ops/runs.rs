//! Runs and their steps: starting, recording turns, finishing, handoffs, reading.

use super::{Statements, Touch, first, now_ms, records, require_session};
use crate::error::ContextError;
use crate::record::{
    HandoffSummary, MessageId, NewMessage, NewRun, NewStep, RunId, RunRecord, RunStatus, StepRecord,
};
use crate::rows::{MessageRow, RUN_AND_NEXT_STEP, StepRow, described};
use crate::schema::{FromRow, Query, RowError, Sql, Write, WriteKind};
use crate::scope::ContextScope;
use agentctl_core::{Message, Redactor, Usage};

/// One run; [`ContextError::RunNotFound`] when there is none.
pub async fn load_run<S: Statements + ?Sized>(
    store: &S,
    run: RunId,
) -> Result<RunRecord, S::Fault> {
    first(store, &Query::records::<RunRecord>().eq("id", run))
        .await?
        .ok_or_else(|| ContextError::RunNotFound(run).into())
}

/// A run read for writing to it: the run, and the index its next step takes.
pub struct LockedRun {
    /// The run.
    pub record: RunRecord,
    /// The index of the run's next step: one after its last, 0 for a run without steps.
    pub next_step: i64,
}

/// The run and its next step's index, inside a write transaction: where the store locks
/// sessions, the run's session is locked as the run is read (every write to a session takes
/// its lock before anything else, so writers never wait for each other in a cycle) — one
/// statement, one round trip.
pub async fn lock_run<S: Statements + ?Sized>(
    store: &S,
    run: RunId,
) -> Result<LockedRun, S::Fault> {
    let locked = Sql {
        table: "agent_runs",
        text: if S::LOCKS_SESSIONS {
            LOCKED_RUN
        } else {
            RUN_FOR_WRITING
        },
        names: RUN_AND_NEXT_STEP,
        values: vec![run.into()],
    };
    let mut found = None;
    store
        .visit(&S::DIALECT.sql(&locked), &mut |row| {
            let record = RunRecord::from_row(row)?;
            found = Some(LockedRun {
                record,
                next_step: row.integer("next_step")?,
            });
            Ok(false)
        })
        .await?;
    found.ok_or_else(|| ContextError::RunNotFound(run).into())
}

/// The start of [`lock_run`]'s statements: the run's columns ([`RunRecord::COLUMNS`], in
/// order), then the index of its next step ([`RUN_AND_NEXT_STEP`]).
macro_rules! run_and_next_step {
    () => {
        "SELECT r.id, r.session_id, r.agent_id, r.parent_run_id, r.context_scope, r.status, \
         r.model, r.usage, r.started_at, r.finished_at, r.source, \
         (SELECT COALESCE(MAX(step_index) + 1, 0) FROM agent_run_steps WHERE run_id = r.id) \
         FROM agent_runs r"
    };
}

/// [`lock_run`]'s statement where the store's write transaction holds the whole database.
const RUN_FOR_WRITING: &str = concat!(run_and_next_step!(), " WHERE r.id = ?1");

/// [`lock_run`]'s statement where the store locks sessions (PostgreSQL's `FOR UPDATE OF`).
const LOCKED_RUN: &str = concat!(
    run_and_next_step!(),
    " JOIN sessions s ON s.id = r.session_id WHERE r.id = ?1 FOR UPDATE OF s"
);

/// The rows of a turn of `record` written at `now`: its messages, then its steps numbered
/// from `first`.
fn turn_writes(
    record: &RunRecord,
    (messages, steps): (&[MessageRow], &[StepRow]),
    now: i64,
    first: i64,
) -> Vec<Write> {
    let mut writes: Vec<Write> = messages
        .iter()
        .map(|message| message.write(&record.session_id, Some(record.id), &record.source, now))
        .collect();
    writes.extend(
        (first..)
            .zip(steps)
            .map(|(index, step)| step.write(record.id, index, now)),
    );
    writes
}

/// The index after `count` steps numbered from `first`.
fn after(first: i64, count: usize) -> i64 {
    first.saturating_add(i64::try_from(count).unwrap_or(i64::MAX))
}

/// The `agent_runs` row of a run starting in `session` at `now`, but for its workspace (known
/// once its id is) and its owner (each store's own columns).
fn run_insert(session: &str, run: &NewRun, now: i64) -> Write {
    Write {
        table: described("agent_runs"),
        kind: WriteKind::InsertReturningId,
        columns: &[
            "session_id",
            "agent_id",
            "parent_run_id",
            "context_scope",
            "status",
            "model",
            "started_at",
            "source",
        ],
        values: vec![
            session.into(),
            run.agent.as_str().into(),
            run.parent_run_id.into(),
            "".into(),
            RunStatus::Running.as_str().into(),
            run.model.as_deref().into(),
            now.into(),
            run.source.as_str().into(),
        ],
    }
}

/// Starts a run of `session` inside a write transaction, after taking the session's lock.
pub async fn start_run<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    run: &NewRun,
) -> Result<RunRecord, S::Fault> {
    let (record, started) = begin_run(store, session, run).await?;
    let touch = Touch {
        session,
        now: record.started_at,
    };
    store.write_all(&[started], touch).await?;
    Ok(record)
}

/// [`start_run`] up to the run's row: the run, and the update that sets its workspace and
/// owner, for the caller to run with the operation's other rows; the caller touches the
/// session once for the whole operation.
async fn begin_run<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    run: &NewRun,
) -> Result<(RunRecord, Write), S::Fault> {
    store.lock_session(session).await?;
    if let Some(parent) = run.parent_run_id {
        load_run(store, parent).await?;
    }
    let now = now_ms();
    let id = store.insert(&run_insert(session, run, now)).await?;
    let scope = run.scope(id);
    let mut values = vec![scope.to_string().into()];
    values.extend(store.run_owner());
    values.push(id.into());
    let started = Write {
        table: described("agent_runs"),
        kind: WriteKind::Update,
        columns: S::RUN_STARTED,
        values,
    };
    Ok((
        RunRecord::started(id, session.to_owned(), run, scope, now),
        started,
    ))
}

/// Records a turn of `run` (its messages and steps masked already) inside a write
/// transaction.
pub async fn record_turn<S: Statements + ?Sized>(
    store: &S,
    run: RunId,
    messages: &[MessageRow],
    steps: &[StepRow],
) -> Result<Vec<MessageId>, S::Fault> {
    let LockedRun { record, next_step } = lock_run(store, run).await?;
    let now = now_ms();
    let writes = turn_writes(&record, (messages, steps), now, next_step);
    let touch = Touch {
        session: &record.session_id,
        now,
    };
    store.write_all(&writes, touch).await
}

/// The update that marks `run` finished with `status` and `usage`.
fn finish_write(run: RunId, status: RunStatus, usage: Usage) -> Result<Write, RowError> {
    let usage = serde_json::to_string(&usage).map_err(|error| RowError {
        table: "agent_runs",
        reason: error.to_string(),
    })?;
    Ok(Write {
        table: described("agent_runs"),
        kind: WriteKind::Update,
        columns: &["status", "usage", "finished_at"],
        values: vec![
            status.as_str().into(),
            usage.into(),
            now_ms().into(),
            run.into(),
        ],
    })
}

/// Marks `run` finished inside a write transaction.
pub async fn finish_run<S: Statements + ?Sized>(
    store: &S,
    run: RunId,
    status: RunStatus,
    usage: Usage,
) -> Result<(), S::Fault> {
    let updated = store.write(&finish_write(run, status, usage)?).await?;
    if updated == 0 {
        return Err(ContextError::RunNotFound(run).into());
    }
    Ok(())
}

/// Writes `run`'s handoff to the `main` workspace and as a `handoff` step, inside a write
/// transaction; the message's id.
pub async fn write_handoff<S: Statements + ?Sized>(
    store: &S,
    redactor: &Redactor,
    run: RunId,
    handoff: &HandoffSummary,
) -> Result<MessageId, S::Fault> {
    let LockedRun { record, next_step } = lock_run(store, run).await?;
    let now = now_ms();
    let (message, step) = handoff_rows(redactor, &record, handoff)?;
    let writes = turn_writes(&record, (&[message], &[step]), now, next_step);
    let touch = Touch {
        session: &record.session_id,
        now,
    };
    let ids = store.write_all(&writes, touch).await?;
    Ok(handoff_id(&ids)?)
}

/// The rows of `record`'s handoff: its message to the `main` workspace and its `handoff`
/// step, masked.
fn handoff_rows(
    redactor: &Redactor,
    record: &RunRecord,
    handoff: &HandoffSummary,
) -> Result<(MessageRow, StepRow), RowError> {
    let message = NewMessage::new(
        ContextScope::Main,
        Some(&record.agent),
        Message::assistant(handoff.render(record)),
    );
    let message = MessageRow::new(redactor, &message)?;
    let content = serde_json::to_value(handoff).map_err(|error| RowError {
        table: "agent_run_steps",
        reason: error.to_string(),
    })?;
    Ok((
        message,
        StepRow::new(redactor, &NewStep::new("handoff", content)),
    ))
}

/// The handoff message's id: the last of `ids`.
fn handoff_id(ids: &[MessageId]) -> Result<MessageId, RowError> {
    ids.last().copied().ok_or_else(|| RowError {
        table: "chat_messages",
        reason: "handoff not stored".into(),
    })
}

/// Starts a run and records its first turn — `prompt` as the user's message in the run's
/// workspace (masked here, once the workspace is known), with `steps` — inside one write
/// transaction, touching the session once.
pub async fn open_run<S: Statements + ?Sized>(
    store: &S,
    redactor: &Redactor,
    session: &str,
    run: &NewRun,
    prompt: &Message,
    steps: &[StepRow],
) -> Result<RunRecord, S::Fault> {
    let (record, started) = begin_run(store, session, run).await?;
    let prompt = NewMessage::new(record.context_scope.clone(), None, prompt.clone());
    let prompt = MessageRow::new(redactor, &prompt)?;
    let now = record.started_at;
    // The run was just started: its steps are its first.
    let mut writes = vec![started];
    writes.extend(turn_writes(&record, (&[prompt], steps), now, 0));
    store.write_all(&writes, Touch { session, now }).await?;
    Ok(record)
}

/// Closes `run` inside one write transaction: its last turn, its status and usage, then its
/// handoff, which names the run as it ended; the session is touched once.
pub async fn close_run<S: Statements + ?Sized>(
    store: &S,
    redactor: &Redactor,
    run: RunId,
    turn: (&[MessageRow], &[StepRow]),
    ending: (RunStatus, Usage, Option<&HandoffSummary>),
) -> Result<(), S::Fault> {
    let LockedRun { record, next_step } = lock_run(store, run).await?;
    let session = record.session_id.clone();
    let now = now_ms();
    let (status, usage, handoff) = ending;
    let mut writes = turn_writes(&record, turn, now, next_step);
    // The run was just read (its session locked where the store locks sessions): it is there.
    writes.push(finish_write(run, status, usage)?);
    if let Some(handoff) = handoff {
        // The run as it ended (what the summary names), without reading it again.
        let ended = RunRecord {
            status,
            usage,
            ..record
        };
        let (message, step) = handoff_rows(redactor, &ended, handoff)?;
        let next = after(next_step, turn.1.len());
        writes.extend(turn_writes(&ended, (&[message], &[step]), now, next));
    }
    let touch = Touch {
        session: &session,
        now,
    };
    store.write_all(&writes, touch).await?;
    Ok(())
}

/// The session's runs, oldest first.
pub async fn session_runs<S: Statements + ?Sized>(
    store: &S,
    session: &str,
) -> Result<Vec<RunRecord>, S::Fault> {
    require_session(store, session).await?;
    let query = Query::records::<RunRecord>()
        .eq("session_id", session)
        .order_by("id");
    records(store, &query).await
}

/// A run's steps in order.
pub async fn run_steps<S: Statements + ?Sized>(
    store: &S,
    run: RunId,
) -> Result<Vec<StepRecord>, S::Fault> {
    let query = Query::records::<StepRecord>()
        .eq("run_id", run)
        .order_by("step_index");
    records(store, &query).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locked_run_reads_a_runs_columns_in_order_then_its_next_step() {
        assert_eq!(RUN_AND_NEXT_STEP.last(), Some(&"next_step"));
        for statement in [LOCKED_RUN, RUN_FOR_WRITING] {
            let (list, _) = statement
                .trim_start_matches("SELECT ")
                .split_once(" FROM agent_runs r ")
                .unwrap();
            let (columns, next) = list.rsplit_once(", (").unwrap();
            let columns: Vec<&str> = columns
                .split(", ")
                .map(|column| column.trim_start_matches("r."))
                .collect();
            assert_eq!(columns, RunRecord::COLUMNS);
            assert!(next.contains("MAX(step_index)"), "{next}");
        }
    }
}
