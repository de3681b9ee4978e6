//! [`RunLog`] for [`SqliteStore`].

use super::messages::insert_messages;
use super::owner::Owner;
use super::sessions::require_session;
use super::write::{execute, read_all, read_first};
use super::{Fault, FaultResult, SqliteStore, now_ms};
use agentctl_core::Redactor;
use agentctl_core::{Message, Usage};
use agentctl_store::{
    ContextError, ContextScope, HandoffSummary, MessageId, NewMessage, NewRun, NewStep, Result,
    RunClosing, RunId, RunLog, RunRecord, RunStatus, StepRecord, StepRow, select_list,
};
use rusqlite::{Connection, params};

fn load_run(conn: &Connection, run: RunId) -> FaultResult<RunRecord> {
    let columns = select_list::<RunRecord>();
    let mut statement =
        conn.prepare_cached(&format!("SELECT {columns} FROM agent_runs WHERE id = ?1"))?;
    read_first(&mut statement, [run])?.ok_or(Fault::Context(ContextError::RunNotFound(run)))
}

fn insert_steps(
    conn: &Connection,
    redactor: &Redactor,
    run: RunId,
    steps: &[NewStep],
) -> FaultResult<()> {
    if steps.is_empty() {
        return Ok(());
    }
    let first: i64 = conn
        .prepare_cached(
            "SELECT COALESCE(MAX(step_index) + 1, 0) FROM agent_run_steps WHERE run_id = ?1",
        )?
        .query_row([run], |row| row.get(0))?;
    let now = now_ms();
    for (index, step) in (first..).zip(steps) {
        execute(conn, &StepRow::new(redactor, step).write(run, index, now))?;
    }
    Ok(())
}

/// Starts a run of `session` inside a write transaction.
fn start_run(tx: &Connection, session: &str, run: &NewRun) -> FaultResult<RunRecord> {
    require_session(tx, session)?;
    if let Some(parent) = run.parent_run_id {
        load_run(tx, parent)?;
    }
    let now = now_ms();
    let owner = Owner::current();
    tx.execute(
        "INSERT INTO agent_runs (session_id, agent_id, parent_run_id, context_scope, status, model, started_at,
             owner_pid, owner_start, owner_boot, source)
         VALUES (?1, ?2, ?3, '', 'running', ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            session,
            run.agent,
            run.parent_run_id,
            run.model,
            now,
            owner.pid,
            owner.start_column(),
            owner.boot,
            run.source.as_str()
        ],
    )?;
    let id = tx.last_insert_rowid();
    let scope = run.scope(id);
    tx.execute(
        "UPDATE agent_runs SET context_scope = ?2 WHERE id = ?1",
        params![id, scope.to_string()],
    )?;
    tx.execute(
        "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
        params![session, now],
    )?;
    Ok(RunRecord::started(id, session.to_owned(), run, scope, now))
}

/// Records a turn of `record` inside a write transaction.
fn record_turn(
    tx: &Connection,
    redactor: &Redactor,
    record: &RunRecord,
    messages: &[NewMessage],
    steps: &[NewStep],
) -> FaultResult<Vec<MessageId>> {
    let ids = insert_messages(
        tx,
        redactor,
        &record.session_id,
        Some(record.id),
        &record.source,
        messages,
    )?;
    insert_steps(tx, redactor, record.id, steps)?;
    Ok(ids)
}

/// Marks `run` finished inside a write transaction.
fn finish_run(tx: &Connection, run: RunId, status: RunStatus, usage: Usage) -> FaultResult<()> {
    let usage = serde_json::to_string(&usage)
        .map_err(|error| Fault::Corrupt("agent_runs", error.to_string()))?;
    let updated = tx.execute(
        "UPDATE agent_runs SET status = ?2, usage = ?3, finished_at = ?4 WHERE id = ?1",
        params![run, status.as_str(), usage, now_ms()],
    )?;
    if updated == 0 {
        return Err(Fault::Context(ContextError::RunNotFound(run)));
    }
    Ok(())
}

/// Writes `record`'s handoff inside a write transaction.
fn write_handoff(
    tx: &Connection,
    redactor: &Redactor,
    record: &RunRecord,
    handoff: &HandoffSummary,
) -> FaultResult<MessageId> {
    let message = NewMessage::new(
        ContextScope::Main,
        Some(&record.agent),
        Message::assistant(handoff.render(record)),
    );
    let content = serde_json::to_value(handoff)
        .map_err(|error| Fault::Corrupt("agent_run_steps", error.to_string()))?;
    let step = NewStep::new("handoff", content);
    let ids = record_turn(tx, redactor, record, &[message], &[step])?;
    ids.first()
        .copied()
        .ok_or_else(|| Fault::Corrupt("chat_messages", "handoff not stored".into()))
}

impl RunLog for SqliteStore {
    fn start_run(&self, session: &str, run: &NewRun) -> Result<RunRecord> {
        self.write(|tx| start_run(tx, session, run))
    }

    fn record_turn(
        &self,
        run: RunId,
        messages: &[NewMessage],
        steps: &[NewStep],
    ) -> Result<Vec<MessageId>> {
        self.write(|tx| {
            let record = load_run(tx, run)?;
            record_turn(tx, self.redactor(), &record, messages, steps)
        })
    }

    fn finish_run(&self, run: RunId, status: RunStatus, usage: Usage) -> Result<()> {
        self.write(|tx| finish_run(tx, run, status, usage))
    }

    fn write_handoff(&self, run: RunId, handoff: &HandoffSummary) -> Result<MessageId> {
        self.write(|tx| {
            let record = load_run(tx, run)?;
            write_handoff(tx, self.redactor(), &record, handoff)
        })
    }

    fn open_run(
        &self,
        session: &str,
        run: &NewRun,
        prompt: &Message,
        steps: &[NewStep],
    ) -> Result<RunRecord> {
        self.write(|tx| {
            let record = start_run(tx, session, run)?;
            let prompt = NewMessage::new(record.context_scope.clone(), None, prompt.clone());
            record_turn(tx, self.redactor(), &record, &[prompt], steps)?;
            Ok(record)
        })
    }

    fn close_run(&self, run: RunId, closing: &RunClosing) -> Result<()> {
        self.write(|tx| {
            let record = load_run(tx, run)?;
            record_turn(
                tx,
                self.redactor(),
                &record,
                &closing.messages,
                &closing.steps,
            )?;
            finish_run(tx, run, closing.status, closing.usage)?;
            if let Some(handoff) = &closing.handoff {
                // The handoff names the run as it ended.
                write_handoff(tx, self.redactor(), &load_run(tx, run)?, handoff)?;
            }
            Ok(())
        })
    }

    fn run(&self, run: RunId) -> Result<RunRecord> {
        self.with(|conn| load_run(conn, run))
    }

    fn runs(&self, session: &str) -> Result<Vec<RunRecord>> {
        self.with(|conn| {
            require_session(conn, session)?;
            let columns = select_list::<RunRecord>();
            let mut statement = conn.prepare(&format!(
                "SELECT {columns} FROM agent_runs WHERE session_id = ?1 ORDER BY id"
            ))?;
            read_all(&mut statement, [session])
        })
    }

    fn steps(&self, run: RunId) -> Result<Vec<StepRecord>> {
        self.with(|conn| {
            let columns = select_list::<StepRecord>();
            let mut statement = conn.prepare(&format!(
                "SELECT {columns} FROM agent_run_steps WHERE run_id = ?1 ORDER BY step_index"
            ))?;
            read_all(&mut statement, [run])
        })
    }

    fn interrupt_stale_runs(&self, session: &str) -> Result<usize> {
        self.write(|tx| {
            require_session(tx, session)?;
            let mut running = tx.prepare(
                "SELECT id, owner_pid, owner_start, owner_boot FROM agent_runs
                 WHERE session_id = ?1 AND status = 'running'",
            )?;
            let rows = running.query_map([session], |row| {
                Ok((
                    row.get::<_, RunId>(0)?,
                    row.get::<_, Option<i64>>(1)?,
                    row.get::<_, Option<i64>>(2)?,
                    row.get::<_, Option<String>>(3)?,
                ))
            })?;
            let mut stale = Vec::new();
            for row in rows {
                let (id, pid, start, boot) = row?;
                // A run without an owner was written before owners were recorded.
                if Owner::from_columns(pid, start, boot).is_none_or(|owner| owner.is_gone()) {
                    stale.push(id);
                }
            }
            let now = now_ms();
            let mut interrupt = tx.prepare(
                "UPDATE agent_runs SET status = 'interrupted', finished_at = ?2
                 WHERE id = ?1 AND status = 'running'",
            )?;
            for id in &stale {
                interrupt.execute(params![id, now])?;
            }
            Ok(stale.len())
        })
    }
}
