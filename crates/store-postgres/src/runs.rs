//! [`RunLog`] for [`PgStore`]: the shared operations of `agentctl-store` in transactions that
//! lock their session, and which runs are stale (their owner's advisory lock gone).

use crate::messages;
use crate::presence::OWNER_ALIVE;
use crate::store::{PgStore, now_ms, text};
use agentctl_core::{Message, Usage};
use agentctl_store::ops::{self, Statements};
use agentctl_store::{
    HandoffSummary, MessageId, NewMessage, NewRun, NewStep, Result, RunClosing, RunId, RunLog,
    RunRecord, RunStatus, StepRecord, StepRow,
};

/// Masks a turn's steps on the caller's thread.
pub(crate) fn prepare_steps(redactor: &agentctl_core::Redactor, steps: &[NewStep]) -> Vec<StepRow> {
    steps
        .iter()
        .map(|step| StepRow::new(redactor, step))
        .collect()
}

impl RunLog for PgStore {
    fn start_run(&self, session: &str, run: &NewRun) -> Result<RunRecord> {
        let (session, run) = (session.to_owned(), run.clone());
        self.call(|inner| async move {
            // The lock that tells other processes this store's runs are alive.
            inner.presence.ensure(&inner.url, &inner.tls).await?;
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let pg = inner.on(&tx);
            let record = ops::start_run(&pg, &session, &run).await?;
            tx.commit().await?;
            Ok(record)
        })
    }

    fn record_turn(
        &self,
        run: RunId,
        messages: &[NewMessage],
        steps: &[NewStep],
    ) -> Result<Vec<MessageId>> {
        let prepared = messages::prepare(&self.redactor, messages).map_err(|f| self.error(f))?;
        let steps = prepare_steps(&self.redactor, steps);
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let pg = inner.on(&tx);
            let ids = ops::record_turn(&pg, run, &prepared, &steps).await?;
            tx.commit().await?;
            Ok(ids)
        })
    }

    fn finish_run(&self, run: RunId, status: RunStatus, usage: Usage) -> Result<()> {
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let pg = inner.on(&tx);
            ops::lock_run(&pg, run).await?;
            ops::finish_run(&pg, run, status, usage).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn write_handoff(&self, run: RunId, handoff: &HandoffSummary) -> Result<MessageId> {
        let handoff = handoff.clone();
        let redactor = self.redactor.clone();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let pg = inner.on(&tx);
            let id = ops::write_handoff(&pg, &redactor, run, &handoff).await?;
            tx.commit().await?;
            Ok(id)
        })
    }

    fn open_run(
        &self,
        session: &str,
        run: &NewRun,
        prompt: &Message,
        steps: &[NewStep],
    ) -> Result<RunRecord> {
        let (session, run, prompt) = (session.to_owned(), run.clone(), prompt.clone());
        let steps = prepare_steps(&self.redactor, steps);
        let redactor = self.redactor.clone();
        self.call(|inner| async move {
            inner.presence.ensure(&inner.url, &inner.tls).await?;
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let pg = inner.on(&tx);
            let record = ops::open_run(&pg, &redactor, &session, &run, &prompt, &steps).await?;
            tx.commit().await?;
            Ok(record)
        })
    }

    fn close_run(&self, run: RunId, closing: &RunClosing) -> Result<()> {
        let messages =
            messages::prepare(&self.redactor, &closing.messages).map_err(|f| self.error(f))?;
        let steps = prepare_steps(&self.redactor, &closing.steps);
        let (status, usage, handoff) = (closing.status, closing.usage, closing.handoff.clone());
        let redactor = self.redactor.clone();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let pg = inner.on(&tx);
            let ending = (status, usage, handoff.as_ref());
            ops::close_run(&pg, &redactor, run, (&messages, &steps), ending).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn run(&self, run: RunId) -> Result<RunRecord> {
        self.call(move |inner| async move {
            let client = inner.pool.get().await?;
            ops::load_run(&inner.on(&client), run).await
        })
    }

    fn runs(&self, session: &str) -> Result<Vec<RunRecord>> {
        let session = session.to_owned();
        self.call(move |inner| async move {
            let client = inner.pool.get().await?;
            ops::session_runs(&inner.on(&client), &session).await
        })
    }

    fn steps(&self, run: RunId) -> Result<Vec<StepRecord>> {
        self.call(move |inner| async move {
            let client = inner.pool.get().await?;
            ops::run_steps(&inner.on(&client), run).await
        })
    }

    fn interrupt_stale_runs(&self, session: &str) -> Result<usize> {
        let session = session.to_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            inner.on(&tx).lock_session(&session).await?;
            // A run without an owner was copied from another store: no process here runs it.
            let marked = tx
                .execute(
                    &format!(
                        "UPDATE agent_runs r SET status = 'interrupted', finished_at = $2
                         WHERE r.session_id = $1 AND r.status = 'running'
                           AND (r.owner_client IS NULL OR NOT {OWNER_ALIVE})"
                    ),
                    &[&text(&session), &now_ms()],
                )
                .await?;
            tx.commit().await?;
            Ok(usize::try_from(marked).unwrap_or(usize::MAX))
        })
    }
}
