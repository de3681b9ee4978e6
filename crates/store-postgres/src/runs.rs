//! [`RunLog`] for [`PgStore`].

use crate::fault::{Fault, FaultResult};
use crate::messages;
use crate::presence::OWNER_ALIVE;
use crate::store::{Inner, PgStore, lock_session, now_ms, require_session, text, touch};
use crate::write::{execute, read};
use agentctl_core::{Message, Redactor, Usage};
use agentctl_store::{
    ContextError, ContextScope, HandoffSummary, MessageId, MessageRow, NewMessage, NewRun, NewStep,
    Result, RunClosing, RunId, RunLog, RunRecord, RunStatus, StepRecord, StepRow, select_list,
};
use tokio_postgres::GenericClient;

/// One run; [`ContextError::RunNotFound`] when there is none. With `lock`, inside a write
/// transaction, the run's session is locked first (every write to a session takes its lock
/// before anything else, so writers never wait for each other in a cycle).
async fn load_run(client: &impl GenericClient, run: RunId) -> FaultResult<RunRecord> {
    let columns = select_list::<RunRecord>();
    let row = client
        .query_opt(
            &format!("SELECT {columns} FROM agent_runs WHERE id = $1"),
            &[&run],
        )
        .await?
        .ok_or(Fault::Context(ContextError::RunNotFound(run)))?;
    read(&row)
}

/// The run's session, locked for the rest of the transaction, then the run as it is now.
pub(crate) async fn lock_run(
    tx: &tokio_postgres::Transaction<'_>,
    run: RunId,
) -> FaultResult<RunRecord> {
    let session: String = tx
        .query_opt("SELECT session_id FROM agent_runs WHERE id = $1", &[&run])
        .await?
        .ok_or(Fault::Context(ContextError::RunNotFound(run)))?
        .try_get(0)?;
    lock_session(tx, &session).await?;
    load_run(tx, run).await
}

/// Masks a turn's steps on the caller's thread.
pub(crate) fn prepare_steps(redactor: &agentctl_core::Redactor, steps: &[NewStep]) -> Vec<StepRow> {
    steps
        .iter()
        .map(|step| StepRow::new(redactor, step))
        .collect()
}

async fn insert_steps(
    tx: &deadpool_postgres::Transaction<'_>,
    run: RunId,
    steps: &[StepRow],
) -> FaultResult<()> {
    if steps.is_empty() {
        return Ok(());
    }
    let first: i64 = tx
        .query_one(
            "SELECT COALESCE(MAX(step_index) + 1, 0) FROM agent_run_steps WHERE run_id = $1",
            &[&run],
        )
        .await?
        .try_get(0)?;
    let now = now_ms();
    for (index, step) in (first..).zip(steps) {
        execute(tx, &step.write(run, index, now)).await?;
    }
    Ok(())
}

/// Starts a run of `session` inside a write transaction, after taking the session's lock.
async fn start_run(
    tx: &deadpool_postgres::Transaction<'_>,
    inner: &Inner,
    session: &str,
    run: &NewRun,
) -> FaultResult<RunRecord> {
    lock_session(tx, session).await?;
    if let Some(parent) = run.parent_run_id {
        load_run(&**tx, parent).await?;
    }
    let now = now_ms();
    let id: RunId = tx
        .query_one(
            "INSERT INTO agent_runs (session_id, agent_id, parent_run_id, context_scope,
                 status, model, started_at, owner_client, owner_pid, owner_host, source)
             VALUES ($1, $2, $3, '', 'running', $4, $5, $6, $7, $8, $9) RETURNING id",
            &[
                &text(session),
                &text(&run.agent),
                &run.parent_run_id,
                &run.model.as_deref().map(text),
                &now,
                &inner.presence.key,
                &inner.pid,
                &inner.host,
                &run.source.as_str(),
            ],
        )
        .await?
        .try_get(0)?;
    let scope = run.scope(id);
    tx.execute(
        "UPDATE agent_runs SET context_scope = $2 WHERE id = $1",
        &[&id, &text(&scope.to_string())],
    )
    .await?;
    touch(tx, session, now).await?;
    Ok(RunRecord::started(id, session.to_owned(), run, scope, now))
}

/// Records a turn of `record` (its messages and steps prepared) inside a write transaction.
async fn record_turn(
    tx: &deadpool_postgres::Transaction<'_>,
    record: &RunRecord,
    messages: &[MessageRow],
    steps: &[StepRow],
) -> FaultResult<Vec<MessageId>> {
    let ids = messages::insert(
        tx,
        &record.session_id,
        Some(record.id),
        &record.source,
        messages,
    )
    .await?;
    insert_steps(tx, record.id, steps).await?;
    Ok(ids)
}

/// Marks `run` finished inside a write transaction.
async fn finish_run(
    tx: &deadpool_postgres::Transaction<'_>,
    run: RunId,
    status: RunStatus,
    usage: Usage,
) -> FaultResult<()> {
    let usage = serde_json::to_string(&usage)
        .map_err(|error| Fault::Corrupt("agent_runs", error.to_string()))?;
    tx.execute(
        "UPDATE agent_runs SET status = $2, usage = $3, finished_at = $4 WHERE id = $1",
        &[&run, &status.as_str(), &usage, &now_ms()],
    )
    .await?;
    Ok(())
}

/// Writes `record`'s handoff inside a write transaction.
async fn write_handoff(
    tx: &deadpool_postgres::Transaction<'_>,
    redactor: &Redactor,
    record: &RunRecord,
    handoff: &HandoffSummary,
) -> FaultResult<MessageId> {
    let message = NewMessage::new(
        ContextScope::Main,
        Some(&record.agent),
        Message::assistant(handoff.render(record)),
    );
    let messages = messages::prepare(redactor, &[message])?;
    let content = serde_json::to_value(handoff)
        .map_err(|error| Fault::Corrupt("agent_run_steps", error.to_string()))?;
    let steps = prepare_steps(redactor, &[NewStep::new("handoff", content)]);
    let ids = record_turn(tx, record, &messages, &steps).await?;
    ids.first()
        .copied()
        .ok_or_else(|| Fault::Corrupt("chat_messages", "handoff not stored".into()))
}

impl RunLog for PgStore {
    fn start_run(&self, session: &str, run: &NewRun) -> Result<RunRecord> {
        let (session, run) = (session.to_owned(), run.clone());
        self.call(|inner| async move {
            // The lock that tells other processes this store's runs are alive.
            inner.presence.ensure(&inner.url, &inner.tls).await?;
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let record = start_run(&tx, &inner, &session, &run).await?;
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
            let record = lock_run(&tx, run).await?;
            let ids = record_turn(&tx, &record, &prepared, &steps).await?;
            tx.commit().await?;
            Ok(ids)
        })
    }

    fn finish_run(&self, run: RunId, status: RunStatus, usage: Usage) -> Result<()> {
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_run(&tx, run).await?;
            finish_run(&tx, run, status, usage).await?;
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
            let record = lock_run(&tx, run).await?;
            let id = write_handoff(&tx, &redactor, &record, &handoff).await?;
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
            let record = start_run(&tx, &inner, &session, &run).await?;
            // The prompt's workspace is known once the run is: masked here, not before.
            let prompt = NewMessage::new(record.context_scope.clone(), None, prompt);
            let prompt = messages::prepare(&redactor, &[prompt])?;
            record_turn(&tx, &record, &prompt, &steps).await?;
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
            let record = lock_run(&tx, run).await?;
            record_turn(&tx, &record, &messages, &steps).await?;
            finish_run(&tx, run, status, usage).await?;
            if let Some(handoff) = &handoff {
                // The handoff names the run as it ended.
                let record = load_run(&*tx, run).await?;
                write_handoff(&tx, &redactor, &record, handoff).await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    fn run(&self, run: RunId) -> Result<RunRecord> {
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            load_run(&**client, run).await
        })
    }

    fn runs(&self, session: &str) -> Result<Vec<RunRecord>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            let columns = select_list::<RunRecord>();
            client
                .query(
                    &format!("SELECT {columns} FROM agent_runs WHERE session_id = $1 ORDER BY id"),
                    &[&session],
                )
                .await?
                .iter()
                .map(read)
                .collect()
        })
    }

    fn steps(&self, run: RunId) -> Result<Vec<StepRecord>> {
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let columns = select_list::<StepRecord>();
            client
                .query(
                    &format!(
                        "SELECT {columns} FROM agent_run_steps WHERE run_id = $1 ORDER BY step_index"
                    ),
                    &[&run],
                )
                .await?
                .iter()
                .map(read)
                .collect()
        })
    }

    fn interrupt_stale_runs(&self, session: &str) -> Result<usize> {
        let session = session.to_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_session(&tx, &session).await?;
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
