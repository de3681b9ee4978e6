//! [`GraphLog`] for [`SqliteStore`]: one `graph_checkpoints` row per `(session, branch, step)`,
//! the state as JSON text.
//!
//! Every write reads the branch's latest step inside its `BEGIN IMMEDIATE` transaction, so
//! "is this exactly the next step?" is still true when the row is inserted: two processes
//! resuming the same branch serialise on the write lock, and the second finds the step taken.

use super::sessions::require_session;
use super::write::{execute, read_all, read_first};
use super::{Fault, FaultResult, SqliteStore, now_ms};
use agentctl_store::{
    GraphBranch, GraphCheckpoint, GraphHistory, GraphLog, NewCheckpoint, Result, RunId,
    check_checkpoint_order, check_checkpoint_run, checkpoint_insert, checkpoint_number,
    checkpoint_parent, checkpoint_state, graph_branch_not_found, graph_checkpoint_not_found,
    invalid_checkpoint, select_list,
};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

/// The branch's own rows in step order, up to `until` when given.
fn load_branch(
    conn: &Connection,
    session: &str,
    branch: u32,
    until: Option<u32>,
) -> FaultResult<Vec<GraphCheckpoint>> {
    let columns = select_list::<GraphCheckpoint>();
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {columns} FROM graph_checkpoints
         WHERE session_id = ?1 AND branch = ?2 AND step <= ?3 ORDER BY step"
    ))?;
    let until = until.map_or(i64::MAX, i64::from);
    read_all(&mut statement, params![session, branch, until])
}

fn load_one(
    conn: &Connection,
    session: &str,
    branch: u32,
    step: u32,
) -> FaultResult<Option<GraphCheckpoint>> {
    let columns = select_list::<GraphCheckpoint>();
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {columns} FROM graph_checkpoints WHERE session_id = ?1 AND branch = ?2 AND step = ?3"
    ))?;
    read_first(&mut statement, params![session, branch, step])
}

fn load_latest(
    conn: &Connection,
    session: &str,
    branch: u32,
) -> FaultResult<Option<GraphCheckpoint>> {
    let columns = select_list::<GraphCheckpoint>();
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {columns} FROM graph_checkpoints WHERE session_id = ?1 AND branch = ?2
         ORDER BY step DESC LIMIT 1"
    ))?;
    read_first(&mut statement, params![session, branch])
}

/// The session's branch numbers, ascending.
fn branch_numbers(conn: &Connection, session: &str) -> FaultResult<Vec<u32>> {
    let mut statement = conn.prepare_cached(
        "SELECT DISTINCT branch FROM graph_checkpoints WHERE session_id = ?1 ORDER BY branch",
    )?;
    let rows = statement.query_map([session], |row| row.get::<_, i64>(0))?;
    let mut branches = Vec::new();
    for row in rows {
        branches.push(checkpoint_number(row?, "branch")?);
    }
    Ok(branches)
}

/// The number a new branch of the session gets: one past the highest, 0 for the first.
fn next_branch(conn: &Connection, session: &str) -> FaultResult<u32> {
    let next: i64 = conn
        .prepare_cached(
            "SELECT COALESCE(MAX(branch) + 1, 0) FROM graph_checkpoints WHERE session_id = ?1",
        )?
        .query_row([session], |row| row.get(0))?;
    Ok(checkpoint_number(next, "next branch")?)
}

fn branch_not_found(conn: &Connection, session: &str, branch: u32) -> FaultResult<Fault> {
    let branches = branch_numbers(conn, session)?;
    Ok(Fault::Context(graph_branch_not_found(
        session, branch, &branches,
    )))
}

/// Refuses a run that does not exist or belongs to another session.
fn check_run(conn: &Connection, checkpoint: &NewCheckpoint<'_>, run: RunId) -> FaultResult<()> {
    let owner: Option<String> = conn
        .prepare_cached("SELECT session_id FROM agent_runs WHERE id = ?1")?
        .query_row([run], |row| row.get(0))
        .optional()?;
    Ok(check_checkpoint_run(
        checkpoint.session,
        checkpoint.branch,
        checkpoint.step,
        run,
        owner.as_deref(),
    )?)
}

fn touch_session(conn: &Connection, session: &str, now: i64) -> FaultResult<()> {
    conn.prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1")?
        .execute(params![session, now])?;
    Ok(())
}

impl GraphLog for SqliteStore {
    fn start_graph(
        &self,
        session: &str,
        graph: &str,
        state: &Value,
        entry: &str,
    ) -> Result<GraphCheckpoint> {
        self.write(|tx| {
            require_session(tx, session)?;
            let branch = next_branch(tx, session)?;
            // Checked here, where the error can name the branch: once per graph run.
            let (state, text) = checkpoint_state(self.redactor(), state)
                .map_err(|reason| invalid_checkpoint(session, branch, 0, reason))?;
            let checkpoint = GraphCheckpoint::input(
                session.to_owned(),
                branch,
                graph.to_owned(),
                entry.to_owned(),
                state,
                now_ms(),
            );
            execute(tx, &checkpoint_insert(&checkpoint, &text))?;
            touch_session(tx, session, checkpoint.created_at)?;
            Ok(checkpoint)
        })
    }

    fn write_checkpoint(&self, checkpoint: &NewCheckpoint<'_>) -> Result<GraphCheckpoint> {
        let invalid = |reason: String| {
            invalid_checkpoint(
                checkpoint.session,
                checkpoint.branch,
                checkpoint.step,
                reason,
            )
        };
        // Masked and measured before the write lock is taken: the lock is held for the rows.
        let (state, text) = checkpoint_state(self.redactor(), checkpoint.state).map_err(invalid)?;
        let parallel = checkpoint
            .parallel
            .map(|parallel| checkpoint_state(self.redactor(), parallel).map(|(value, _)| value))
            .transpose()
            .map_err(invalid)?;
        let reason = checkpoint
            .reason
            .map(|reason| self.redactor().redact(reason).into_owned());
        self.write(|tx| {
            let session = checkpoint.session;
            require_session(tx, session)?;
            let Some(latest) = load_latest(tx, session, checkpoint.branch)? else {
                return Err(branch_not_found(tx, session, checkpoint.branch)?);
            };
            check_checkpoint_order(session, checkpoint.branch, checkpoint.step, &latest)?;
            if let Some(run) = checkpoint.run {
                check_run(tx, checkpoint, run)?;
            }
            let written = GraphCheckpoint::after_node(
                checkpoint,
                latest.graph,
                reason,
                (state, parallel),
                now_ms(),
            );
            execute(tx, &checkpoint_insert(&written, &text))?;
            touch_session(tx, session, written.created_at)?;
            Ok(written)
        })
    }

    fn fork_graph(&self, session: &str, branch: u32, step: u32) -> Result<GraphCheckpoint> {
        self.write(|tx| {
            require_session(tx, session)?;
            if load_one(tx, session, branch, step)?.is_none() {
                return Err(checkpoint_not_found(tx, session, branch, step)?);
            }
            let fork = next_branch(tx, session)?;
            let now = now_ms();
            // Copied in SQL: the state is already masked and checked, and may be large.
            tx.execute(
                "INSERT INTO graph_checkpoints (session_id, branch, step, graph, next_node,
                     reason, state, source, parent_branch, parent_step, created_at, parallel)
                 SELECT session_id, ?4, step, graph, next_node, reason, state, 'fork',
                     branch, step, ?5, parallel
                 FROM graph_checkpoints WHERE session_id = ?1 AND branch = ?2 AND step = ?3",
                params![session, branch, step, fork, now],
            )?;
            touch_session(tx, session, now)?;
            load_one(tx, session, fork, step)?.ok_or_else(|| {
                Fault::Corrupt("graph_checkpoints", format!("fork {fork} not stored"))
            })
        })
    }

    fn graph_checkpoints(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        self.with(|conn| {
            require_session(conn, session)?;
            load_branch(conn, session, branch, None)
        })
    }

    fn latest_checkpoint(&self, session: &str, branch: u32) -> Result<Option<GraphCheckpoint>> {
        self.with(|conn| {
            require_session(conn, session)?;
            load_latest(conn, session, branch)
        })
    }

    fn graph_branches(&self, session: &str) -> Result<Vec<GraphBranch>> {
        self.with(|conn| {
            require_session(conn, session)?;
            let mut statement = conn.prepare_cached(
                "SELECT f.branch, f.graph, f.parent_branch, f.parent_step, f.step, f.created_at,
                        l.step, l.next_node IS NULL, CASE WHEN l.next_node IS NULL THEN l.reason END, l.created_at
                 FROM graph_checkpoints f
                 JOIN graph_checkpoints l ON l.session_id = f.session_id AND l.branch = f.branch
                 WHERE f.session_id = ?1
                   AND f.step = (SELECT MIN(step) FROM graph_checkpoints
                                 WHERE session_id = f.session_id AND branch = f.branch)
                   AND l.step = (SELECT MAX(step) FROM graph_checkpoints
                                 WHERE session_id = f.session_id AND branch = f.branch)
                 ORDER BY f.branch",
            )?;
            let rows = statement.query_map([session], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Option<i64>>(2)?,
                    row.get::<_, Option<i64>>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, i64>(5)?,
                    row.get::<_, i64>(6)?,
                    row.get::<_, bool>(7)?,
                    row.get::<_, Option<String>>(8)?,
                    row.get::<_, i64>(9)?,
                ))
            })?;
            let mut branches = Vec::new();
            for row in rows {
                let (branch, graph, pb, ps, first, created_at, last, ended, end_reason, updated) =
                    row?;
                branches.push(GraphBranch {
                    branch: checkpoint_number(branch, "branch")?,
                    graph,
                    parent: checkpoint_parent(pb, ps)?,
                    first_step: checkpoint_number(first, "step")?,
                    last_step: checkpoint_number(last, "step")?,
                    ended,
                    end_reason,
                    created_at,
                    updated_at: updated,
                });
            }
            Ok(branches)
        })
    }

    fn graph_history(&self, session: &str, branch: u32) -> Result<Vec<GraphCheckpoint>> {
        self.with(|conn| {
            require_session(conn, session)?;
            let mut history = GraphHistory::new(branch);
            while let Some((branch, until)) = history.next_segment() {
                history.push(load_branch(conn, session, branch, until)?)?;
            }
            Ok(history.into_checkpoints())
        })
    }
}

fn checkpoint_not_found(
    conn: &Connection,
    session: &str,
    branch: u32,
    step: u32,
) -> FaultResult<Fault> {
    let rows = load_branch(conn, session, branch, None)?;
    match graph_checkpoint_not_found(session, branch, step, &rows) {
        Some(error) => Ok(Fault::Context(error)),
        None => branch_not_found(conn, session, branch),
    }
}
