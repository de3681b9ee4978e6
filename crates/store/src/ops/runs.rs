//! Runs and their steps: starting, recording turns, finishing, handoffs, reading.

use super::messages::insert_messages;
use super::{Statements, first, integers, now_ms, records, require_session};
use crate::error::ContextError;
use crate::record::{
    HandoffSummary, MessageId, NewMessage, NewRun, NewStep, RunId, RunRecord, RunStatus, StepRecord,
};
use crate::rows::{MessageRow, StepRow, described};
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

/// The run, inside a write transaction: where the store locks sessions, the run's session is
/// locked as the run is read (every write to a session takes its lock before anything else,
/// so writers never wait for each other in a cycle) — one statement, one round trip.
pub async fn lock_run<S: Statements + ?Sized>(
    store: &S,
    run: RunId,
) -> Result<RunRecord, S::Fault> {
    if !S::LOCKS_SESSIONS {
        return load_run(store, run).await;
    }
    let locked = Sql {
        table: "agent_runs",
        text: LOCKED_RUN,
        names: RunRecord::COLUMNS,
        values: vec![run.into()],
    };
    let mut found = None;
    store
        .visit(&S::DIALECT.sql(&locked), &mut |row| {
            found = Some(RunRecord::from_row(row)?);
            Ok(false)
        })
        .await?;
    found.ok_or_else(|| ContextError::RunNotFound(run).into())
}

/// [`lock_run`]'s statement where the store locks sessions (PostgreSQL's `FOR UPDATE OF`):
/// the run's columns ([`RunRecord::COLUMNS`], in order), its session's row locked.
const LOCKED_RUN: &str = "SELECT r.id, r.session_id, r.agent_id, r.parent_run_id, \
     r.context_scope, r.status, r.model, r.usage, r.started_at, r.finished_at, r.source \
     FROM agent_runs r JOIN sessions s ON s.id = r.session_id WHERE r.id = ?1 FOR UPDATE OF s";

/// The index `run`'s next step takes, when the operation writing it knows it already (a run
/// it just started has none yet; a step it just wrote says the next): one read fewer.
type NextStep = Option<i64>;

/// Appends `steps`, written at `now`, to `run`'s, numbered after its last (`next`, else read);
/// the index of the step after them, when known.
async fn insert_steps<S: Statements + ?Sized>(
    store: &S,
    run: RunId,
    steps: &[StepRow],
    now: i64,
    next: NextStep,
) -> Result<NextStep, S::Fault> {
    if steps.is_empty() {
        return Ok(next);
    }
    let first = match next {
        Some(first) => first,
        None => {
            let next = Query::value(
                "agent_run_steps",
                "COALESCE(MAX(step_index) + 1, 0)",
                &["next"],
            )
            .eq("run_id", run);
            integers(store, &next).await?.first().copied().unwrap_or(0)
        }
    };
    let mut index = first;
    for step in steps {
        store.write(&step.write(run, index, now)).await?;
        index += 1;
    }
    Ok(Some(index))
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
    let record = begin_run(store, session, run).await?;
    store.touch(session, record.started_at, 0).await?;
    Ok(record)
}

/// [`start_run`] but for touching the session, which the caller does once for the whole
/// operation.
async fn begin_run<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    run: &NewRun,
) -> Result<RunRecord, S::Fault> {
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
    store
        .write(&Write {
            table: described("agent_runs"),
            kind: WriteKind::Update,
            columns: S::RUN_STARTED,
            values,
        })
        .await?;
    Ok(RunRecord::started(id, session.to_owned(), run, scope, now))
}

/// Records a turn of `record` (its messages and steps masked already) inside a write
/// transaction.
pub async fn record_turn<S: Statements + ?Sized>(
    store: &S,
    record: &RunRecord,
    messages: &[MessageRow],
    steps: &[StepRow],
) -> Result<Vec<MessageId>, S::Fault> {
    let now = now_ms();
    let (ids, _) = write_turn(store, record, (messages, steps), now, None).await?;
    store.touch(&record.session_id, now, ids.len()).await?;
    Ok(ids)
}

/// [`record_turn`] at `now` but for touching the session, which the caller does once for the
/// whole operation; the steps numbered from `next` when known. The messages' ids, and the
/// index of the run's next step when known.
async fn write_turn<S: Statements + ?Sized>(
    store: &S,
    record: &RunRecord,
    (messages, steps): (&[MessageRow], &[StepRow]),
    now: i64,
    next: NextStep,
) -> Result<(Vec<MessageId>, NextStep), S::Fault> {
    let ids = insert_messages(
        store,
        &record.session_id,
        Some(record.id),
        &record.source,
        messages,
        now,
    )
    .await?;
    let next = insert_steps(store, record.id, steps, now, next).await?;
    Ok((ids, next))
}

/// Marks `run` finished inside a write transaction.
pub async fn finish_run<S: Statements + ?Sized>(
    store: &S,
    run: RunId,
    status: RunStatus,
    usage: Usage,
) -> Result<(), S::Fault> {
    let usage = serde_json::to_string(&usage).map_err(|error| RowError {
        table: "agent_runs",
        reason: error.to_string(),
    })?;
    let updated = store
        .write(&Write {
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
        .await?;
    if updated == 0 {
        return Err(ContextError::RunNotFound(run).into());
    }
    Ok(())
}

/// Writes `record`'s handoff to the `main` workspace and as a `handoff` step, inside a write
/// transaction; the message's id.
pub async fn write_handoff<S: Statements + ?Sized>(
    store: &S,
    redactor: &Redactor,
    record: &RunRecord,
    handoff: &HandoffSummary,
) -> Result<MessageId, S::Fault> {
    let now = now_ms();
    let id = handoff_rows(store, redactor, record, handoff, (now, None)).await?;
    store.touch(&record.session_id, now, 1).await?;
    Ok(id)
}

/// [`write_handoff`] at `now` but for touching the session; its step numbered `next` when
/// known.
async fn handoff_rows<S: Statements + ?Sized>(
    store: &S,
    redactor: &Redactor,
    record: &RunRecord,
    handoff: &HandoffSummary,
    (now, next): (i64, NextStep),
) -> Result<MessageId, S::Fault> {
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
    let step = StepRow::new(redactor, &NewStep::new("handoff", content));
    let (ids, _) = write_turn(store, record, (&[message], &[step]), now, next).await?;
    ids.first().copied().ok_or_else(|| {
        RowError {
            table: "chat_messages",
            reason: "handoff not stored".into(),
        }
        .into()
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
    let record = begin_run(store, session, run).await?;
    let prompt = NewMessage::new(record.context_scope.clone(), None, prompt.clone());
    let prompt = MessageRow::new(redactor, &prompt)?;
    let now = record.started_at;
    // The run was just started: its steps are its first.
    let (ids, _) = write_turn(store, &record, (&[prompt], steps), now, Some(0)).await?;
    store.touch(session, now, ids.len()).await?;
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
    let record = lock_run(store, run).await?;
    let now = now_ms();
    let (status, usage, handoff) = ending;
    let (ids, next) = write_turn(store, &record, turn, now, None).await?;
    let written = ids.len() + usize::from(handoff.is_some());
    store.touch(&record.session_id, now, written).await?;
    finish_run(store, run, status, usage).await?;
    if let Some(handoff) = handoff {
        // The run as it ended (what the summary names), without reading it again.
        let ended = RunRecord {
            status,
            usage,
            ..record
        };
        handoff_rows(store, redactor, &ended, handoff, (now, next)).await?;
    }
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
    fn the_locked_run_reads_a_runs_columns_in_order() {
        let (list, _) = LOCKED_RUN
            .trim_start_matches("SELECT ")
            .split_once(" FROM ")
            .unwrap();
        let columns: Vec<&str> = list
            .split(", ")
            .map(|column| column.trim_start_matches("r."))
            .collect();
        assert_eq!(columns, RunRecord::COLUMNS);
    }
}
