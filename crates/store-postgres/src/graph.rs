//! [`GraphLog`] for [`PgStore`]: one `graph_checkpoints` row per `(session, branch, step)`,
//! the state as JSON text.
//!
//! Every write locks its session first and reads the branch's latest step after, so "is this
//! exactly the next step?" is still true when the row is inserted: two processes resuming the
//! same branch queue on the lock, and the second finds the step taken. The rules and the
//! errors' words are the SQLite store's.

use crate::fault::{Fault, FaultResult};
use crate::store::{PgStore, lock_session, now_ms, opt_text, require_session, text, touch};
use crate::write::{execute, read};
use agentctl_store::{
    GraphBranch, GraphCheckpoint, GraphHistory, GraphLog, NewCheckpoint, Result, RunId,
    check_checkpoint_order, check_checkpoint_run, checkpoint_insert, checkpoint_number,
    checkpoint_parent, checkpoint_state, graph_branch_not_found, graph_checkpoint_not_found,
    invalid_checkpoint, select_list,
};
use serde_json::Value;
use tokio_postgres::GenericClient;

/// The branch's own rows in step order, up to `until` when given.
async fn load_branch(
    client: &impl GenericClient,
    session: &str,
    branch: u32,
    until: Option<u32>,
) -> FaultResult<Vec<GraphCheckpoint>> {
    let columns = select_list::<GraphCheckpoint>();
    let until = until.map_or(i64::MAX, i64::from);
    client
        .query(
            &format!(
                "SELECT {columns} FROM graph_checkpoints
                 WHERE session_id = $1 AND branch = $2 AND step <= $3 ORDER BY step"
            ),
            &[&session, &i64::from(branch), &until],
        )
        .await?
        .iter()
        .map(read)
        .collect()
}

async fn load_one(
    client: &impl GenericClient,
    session: &str,
    branch: u32,
    step: u32,
) -> FaultResult<Option<GraphCheckpoint>> {
    let columns = select_list::<GraphCheckpoint>();
    client
        .query_opt(
            &format!(
                "SELECT {columns} FROM graph_checkpoints
                 WHERE session_id = $1 AND branch = $2 AND step = $3"
            ),
            &[&session, &i64::from(branch), &i64::from(step)],
        )
        .await?
        .as_ref()
        .map(read)
        .transpose()
}

async fn load_latest(
    client: &impl GenericClient,
    session: &str,
    branch: u32,
) -> FaultResult<Option<GraphCheckpoint>> {
    let columns = select_list::<GraphCheckpoint>();
    client
        .query_opt(
            &format!(
                "SELECT {columns} FROM graph_checkpoints WHERE session_id = $1 AND branch = $2
                 ORDER BY step DESC LIMIT 1"
            ),
            &[&session, &i64::from(branch)],
        )
        .await?
        .as_ref()
        .map(read)
        .transpose()
}

/// The session's branch numbers, ascending.
async fn branch_numbers(client: &impl GenericClient, session: &str) -> FaultResult<Vec<u32>> {
    client
        .query(
            "SELECT DISTINCT branch FROM graph_checkpoints WHERE session_id = $1 ORDER BY branch",
            &[&session],
        )
        .await?
        .iter()
        .map(|row| Ok(checkpoint_number(row.try_get(0)?, "branch")?))
        .collect()
}

/// The number a new branch of the session gets: one past the highest, 0 for the first.
async fn next_branch(client: &impl GenericClient, session: &str) -> FaultResult<u32> {
    let next: i64 = client
        .query_one(
            "SELECT COALESCE(MAX(branch) + 1, 0) FROM graph_checkpoints WHERE session_id = $1",
            &[&session],
        )
        .await?
        .try_get(0)?;
    Ok(checkpoint_number(next, "next branch")?)
}

async fn branch_not_found(
    client: &impl GenericClient,
    session: &str,
    branch: u32,
) -> FaultResult<Fault> {
    let branches = branch_numbers(client, session).await?;
    Ok(Fault::Context(graph_branch_not_found(
        session, branch, &branches,
    )))
}

async fn checkpoint_not_found(
    client: &impl GenericClient,
    session: &str,
    branch: u32,
    step: u32,
) -> FaultResult<Fault> {
    let rows = load_branch(client, session, branch, None).await?;
    match graph_checkpoint_not_found(session, branch, step, &rows) {
        Some(error) => Ok(Fault::Context(error)),
        None => branch_not_found(client, session, branch).await,
    }
}

/// Refuses a run that does not exist or belongs to another session.
async fn check_run(
    client: &impl GenericClient,
    checkpoint: &GraphCheckpoint,
    run: RunId,
) -> FaultResult<()> {
    let owner: Option<String> = client
        .query_opt("SELECT session_id FROM agent_runs WHERE id = $1", &[&run])
        .await?
        .map(|row| row.try_get(0))
        .transpose()?;
    Ok(check_checkpoint_run(
        &checkpoint.session_id,
        checkpoint.branch,
        checkpoint.step,
        run,
        owner.as_deref(),
    )?)
}

impl GraphLog for PgStore {
    fn start_graph(
        &self,
        session: &str,
        graph: &str,
        state: &Value,
        entry: &str,
    ) -> Result<GraphCheckpoint> {
        let checked = checkpoint_state(&self.redactor, state);
        let (session, graph, entry) = (
            text(session).into_owned(),
            text(graph).into_owned(),
            text(entry).into_owned(),
        );
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_session(&tx, &session).await?;
            let branch = next_branch(&*tx, &session).await?;
            let (state, state_text) =
                checked.map_err(|reason| invalid_checkpoint(&session, branch, 0, reason))?;
            let checkpoint = GraphCheckpoint::input(session, branch, graph, entry, state, now_ms());
            execute(&tx, &checkpoint_insert(&checkpoint, &state_text)).await?;
            touch(&tx, &checkpoint.session_id, checkpoint.created_at).await?;
            tx.commit().await?;
            Ok(checkpoint)
        })
    }

    fn write_checkpoint(&self, checkpoint: &NewCheckpoint<'_>) -> Result<GraphCheckpoint> {
        // Masked and measured before the lock is taken: the lock is held for the rows.
        let (state, state_text) =
            checkpoint_state(&self.redactor, checkpoint.state).map_err(|reason| {
                invalid_checkpoint(
                    checkpoint.session,
                    checkpoint.branch,
                    checkpoint.step,
                    reason,
                )
            })?;
        let parallel = checkpoint
            .parallel
            .map(|parallel| checkpoint_state(&self.redactor, parallel).map(|(value, _)| value))
            .transpose()
            .map_err(|reason| {
                invalid_checkpoint(
                    checkpoint.session,
                    checkpoint.branch,
                    checkpoint.step,
                    reason,
                )
            })?;
        let reason = checkpoint
            .reason
            .map(|reason| text(&self.redactor.redact(reason)).into_owned());
        // Text as PostgreSQL keeps it, in the row and in the record returned alike.
        let mut written =
            GraphCheckpoint::after_node(checkpoint, String::new(), reason, (state, parallel), 0);
        written.session_id = text(&written.session_id).into_owned();
        written.node = written.node.as_deref().map(|node| text(node).into_owned());
        written.next = opt_text(written.next.as_deref());
        self.call(|inner| async move {
            let mut written = written;
            let session = written.session_id.clone();
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_session(&tx, &session).await?;
            let Some(latest) = load_latest(&*tx, &session, written.branch).await? else {
                return Err(branch_not_found(&*tx, &session, written.branch).await?);
            };
            check_checkpoint_order(&session, written.branch, written.step, &latest)?;
            if let Some(run) = written.run {
                check_run(&*tx, &written, run).await?;
            }
            (written.graph, written.created_at) = (latest.graph, now_ms());
            execute(&tx, &checkpoint_insert(&written, &state_text)).await?;
            touch(&tx, &session, written.created_at).await?;
            tx.commit().await?;
            Ok(written)
        })
    }

    fn fork_graph(&self, session: &str, branch: u32, step: u32) -> Result<GraphCheckpoint> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_session(&tx, &session).await?;
            if load_one(&*tx, &session, branch, step).await?.is_none() {
                return Err(checkpoint_not_found(&*tx, &session, branch, step).await?);
            }
            let fork = next_branch(&*tx, &session).await?;
            let now = now_ms();
            // Copied in SQL: the state is already masked and checked, and may be large.
            tx.execute(
                "INSERT INTO graph_checkpoints (session_id, branch, step, graph, next_node,
                     reason, state, source, parent_branch, parent_step, created_at, parallel)
                 SELECT session_id, $4, step, graph, next_node, reason, state, 'fork',
                     branch, step, $5, parallel
                 FROM graph_checkpoints WHERE session_id = $1 AND branch = $2 AND step = $3",
                &[
                    &session,
                    &i64::from(branch),
                    &i64::from(step),
                    &i64::from(fork),
                    &now,
                ],
            )
            .await?;
            touch(&tx, &session, now).await?;
            let forked = load_one(&*tx, &session, fork, step).await?.ok_or_else(|| {
                Fault::Corrupt("graph_checkpoints", format!("fork {fork} not stored"))
            })?;
            tx.commit().await?;
            Ok(forked)
        })
    }

    fn graph_checkpoints(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            load_branch(&**client, &session, branch, None).await
        })
    }

    fn latest_checkpoint(&self, session: &str, branch: u32) -> Result<Option<GraphCheckpoint>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            load_latest(&**client, &session, branch).await
        })
    }

    fn graph_branches(&self, session: &str) -> Result<Vec<GraphBranch>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            let rows = client
                .query(
                    "SELECT f.branch, f.graph, f.parent_branch, f.parent_step, f.step, f.created_at,
                            l.step, l.next_node IS NULL,
                            CASE WHEN l.next_node IS NULL THEN l.reason END, l.created_at
                     FROM graph_checkpoints f
                     JOIN graph_checkpoints l ON l.session_id = f.session_id AND l.branch = f.branch
                     WHERE f.session_id = $1
                       AND f.step = (SELECT MIN(step) FROM graph_checkpoints
                                     WHERE session_id = f.session_id AND branch = f.branch)
                       AND l.step = (SELECT MAX(step) FROM graph_checkpoints
                                     WHERE session_id = f.session_id AND branch = f.branch)
                     ORDER BY f.branch",
                    &[&session],
                )
                .await?;
            rows.iter()
                .map(|row| {
                    Ok(GraphBranch {
                        branch: checkpoint_number(row.try_get(0)?, "branch")?,
                        graph: row.try_get(1)?,
                        parent: checkpoint_parent(row.try_get(2)?, row.try_get(3)?)?,
                        first_step: checkpoint_number(row.try_get(4)?, "step")?,
                        last_step: checkpoint_number(row.try_get(6)?, "step")?,
                        ended: row.try_get(7)?,
                        end_reason: row.try_get(8)?,
                        created_at: row.try_get(5)?,
                        updated_at: row.try_get(9)?,
                    })
                })
                .collect()
        })
    }

    fn graph_history(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            let mut history = GraphHistory::new(branch);
            while let Some((branch, until)) = history.next_segment() {
                history.push(load_branch(&**client, &session, branch, until).await?)?;
            }
            Ok(history.into_checkpoints())
        })
    }
}
