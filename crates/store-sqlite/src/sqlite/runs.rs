//! [`RunLog`] for [`SqliteStore`]: the shared operations of `agentctl-store`, and which runs
//! are stale (their owner process gone).

use super::owner::Owner;
use super::write::{Sqlite, ready, require_session};
use super::{FaultResult, SqliteStore, now_ms};
use agentctl_core::{Message, Usage};
use agentctl_store::ops;
use agentctl_store::{
    HandoffSummary, MessageId, MessageRow, NewMessage, NewRun, NewStep, Result, RunClosing, RunId,
    RunLog, RunRecord, RunStatus, StepRecord, StepRow,
};
use rusqlite::params;

/// Masks a turn's messages and steps before the write lock is taken.
pub(crate) fn prepare(
    store: &SqliteStore,
    messages: &[NewMessage],
    steps: &[NewStep],
) -> FaultResult<(Vec<MessageRow>, Vec<StepRow>)> {
    let redactor = store.redactor();
    let messages = messages
        .iter()
        .map(|new| MessageRow::new(redactor, new))
        .collect::<std::result::Result<_, _>>()?;
    let steps = steps
        .iter()
        .map(|step| StepRow::new(redactor, step))
        .collect();
    Ok((messages, steps))
}

impl RunLog for SqliteStore {
    fn start_run(&self, session: &str, run: &NewRun) -> Result<RunRecord> {
        self.write(|tx| ready(ops::start_run(&Sqlite(tx), session, run)))
    }

    fn record_turn(
        &self,
        run: RunId,
        messages: &[NewMessage],
        steps: &[NewStep],
    ) -> Result<Vec<MessageId>> {
        let (messages, steps) = prepare(self, messages, steps)
            .map_err(|fault| super::into_error(fault, self.path()))?;
        self.write(|tx| ready(ops::record_turn(&Sqlite(tx), run, &messages, &steps)))
    }

    fn finish_run(&self, run: RunId, status: RunStatus, usage: Usage) -> Result<()> {
        self.write(|tx| ready(ops::finish_run(&Sqlite(tx), run, status, usage)))
    }

    fn write_handoff(&self, run: RunId, handoff: &HandoffSummary) -> Result<MessageId> {
        self.write(|tx| {
            ready(ops::write_handoff(
                &Sqlite(tx),
                self.redactor(),
                run,
                handoff,
            ))
        })
    }

    fn open_run(
        &self,
        session: &str,
        run: &NewRun,
        prompt: &Message,
        steps: &[NewStep],
    ) -> Result<RunRecord> {
        let (_, steps) =
            prepare(self, &[], steps).map_err(|fault| super::into_error(fault, self.path()))?;
        self.write(|tx| {
            let (tx, redactor) = (Sqlite(tx), self.redactor());
            ready(ops::open_run(&tx, redactor, session, run, prompt, &steps))
        })
    }

    fn close_run(&self, run: RunId, closing: &RunClosing) -> Result<()> {
        let (messages, steps) = prepare(self, &closing.messages, &closing.steps)
            .map_err(|fault| super::into_error(fault, self.path()))?;
        let ending = (closing.status, closing.usage, closing.handoff.as_ref());
        self.write(|tx| {
            let tx = Sqlite(tx);
            ready(ops::close_run(
                &tx,
                self.redactor(),
                run,
                (&messages, &steps),
                ending,
            ))
        })
    }

    fn run(&self, run: RunId) -> Result<RunRecord> {
        self.with(|conn| ready(ops::load_run(&Sqlite(conn), run)))
    }

    fn runs(&self, session: &str) -> Result<Vec<RunRecord>> {
        self.with(|conn| ready(ops::session_runs(&Sqlite(conn), session)))
    }

    fn steps(&self, run: RunId) -> Result<Vec<StepRecord>> {
        self.with(|conn| ready(ops::run_steps(&Sqlite(conn), run)))
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
