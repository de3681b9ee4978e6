//! [`GraphLog`] for [`SqliteStore`]: one `graph_checkpoints` row per `(session, branch, step)`,
//! the state as JSON text.
//!
//! Every write reads the branch's latest step inside its `BEGIN IMMEDIATE` transaction, so
//! "is this exactly the next step?" is still true when the row is inserted: two processes
//! resuming the same branch serialise on the write lock, and the second finds the step taken.

use super::sessions::require_session;
use super::write::{read_all, read_first};
use super::{Fault, FaultResult, SqliteStore, now_ms};
use agentctl_store::{
    CheckpointSource, ContextError, GraphBranch, GraphCheckpoint, GraphLog,
    MAX_CHECKPOINT_STATE_BYTES, NewCheckpoint, Result, RunId, checkpoint_number, checkpoint_parent,
    select_list,
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

/// Numbers as ranges: `0–3, 5, 7–9`. Branches and steps are contiguous in practice, so a
/// session with hundreds of them still reads in a few characters.
fn ranges(numbers: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut iter = numbers.iter().copied().peekable();
    while let Some(start) = iter.next() {
        let mut end = start;
        while iter
            .peek()
            .is_some_and(|&n| u64::from(n) == u64::from(end) + 1)
        {
            end = iter.next().unwrap_or(end);
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
    }
    parts.join(", ")
}

fn branch_not_found(conn: &Connection, session: &str, branch: u32) -> FaultResult<Fault> {
    let branches = branch_numbers(conn, session)?;
    let known = if branches.is_empty() {
        "it has no graph checkpoints".to_owned()
    } else {
        format!("its branches are {}", ranges(&branches))
    };
    Ok(Fault::Context(ContextError::GraphBranchNotFound {
        session: session.to_owned(),
        branch,
        known,
    }))
}

/// Checks a state and turns it into the stored text: a JSON object, secrets masked, bounded.
/// The error is the reason, for [`invalid`].
fn state_text(store: &SqliteStore, state: &Value) -> std::result::Result<(Value, String), String> {
    if !state.is_object() {
        return Err(format!(
            "the graph state must be a JSON object (keys are node outputs), not {}",
            json_kind(state)
        ));
    }
    // A node's output is model text: a secret it echoed never reaches the file.
    let mut state = state.clone();
    store.redactor().redact_json(&mut state);
    let text = state.to_string();
    if text.len() > MAX_CHECKPOINT_STATE_BYTES {
        return Err(format!(
            "the graph state is {} bytes of JSON, more than the {} MiB a checkpoint keeps: \
             store smaller node outputs (a summary, a file path) in the state",
            text.len(),
            MAX_CHECKPOINT_STATE_BYTES / (1024 * 1024)
        ));
    }
    Ok((state, text))
}

fn invalid(session: &str, branch: u32, step: u32, reason: String) -> ContextError {
    ContextError::InvalidCheckpoint {
        session: session.to_owned(),
        branch,
        step,
        reason,
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Refuses a run that does not exist or belongs to another session.
fn check_run(conn: &Connection, checkpoint: &NewCheckpoint<'_>, run: RunId) -> FaultResult<()> {
    let owner: Option<String> = conn
        .prepare_cached("SELECT session_id FROM agent_runs WHERE id = ?1")?
        .query_row([run], |row| row.get(0))
        .optional()?;
    match owner {
        None => Err(Fault::Context(ContextError::RunNotFound(run))),
        Some(owner) if owner != checkpoint.session => Err(Fault::Context(invalid(
            checkpoint.session,
            checkpoint.branch,
            checkpoint.step,
            format!(
                "agent run {run} belongs to session {owner}: a checkpoint names a run of its own \
                 session"
            ),
        ))),
        Some(_) => Ok(()),
    }
}

/// Refuses a step that is not exactly the one after `latest`, or any step after an end.
fn check_order(checkpoint: &NewCheckpoint<'_>, latest: &GraphCheckpoint) -> FaultResult<()> {
    let (session, branch, step, last) = (
        checkpoint.session.to_owned(),
        checkpoint.branch,
        checkpoint.step,
        latest.step,
    );
    let error = if step <= last {
        ContextError::CheckpointConflict {
            session,
            branch,
            step,
            last,
        }
    } else if latest.is_end() {
        ContextError::GraphEnded {
            session,
            branch,
            last,
            reason: latest
                .reason
                .clone()
                .unwrap_or_else(|| "no reason recorded".into()),
        }
    } else if u64::from(step) != u64::from(last) + 1 {
        ContextError::CheckpointGap {
            session,
            branch,
            step,
            last,
        }
    } else {
        return Ok(());
    };
    Err(Fault::Context(error))
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
            let (state, text) = state_text(self, state)
                .map_err(|reason| Fault::Context(invalid(session, branch, 0, reason)))?;
            let now = now_ms();
            tx.execute(
                "INSERT INTO graph_checkpoints (session_id, branch, step, graph, next_node, state,
                     source, created_at)
                 VALUES (?1, ?2, 0, ?3, ?4, ?5, 'input', ?6)",
                params![session, branch, graph, entry, text, now],
            )?;
            touch_session(tx, session, now)?;
            Ok(GraphCheckpoint {
                session_id: session.to_owned(),
                branch,
                step: 0,
                graph: graph.to_owned(),
                node: None,
                run: None,
                next: Some(entry.to_owned()),
                reason: None,
                state,
                source: CheckpointSource::Input,
                parent: None,
                created_at: now,
            })
        })
    }

    fn write_checkpoint(&self, checkpoint: &NewCheckpoint<'_>) -> Result<GraphCheckpoint> {
        let invalid = |reason: String| {
            invalid(
                checkpoint.session,
                checkpoint.branch,
                checkpoint.step,
                reason,
            )
        };
        // Masked and measured before the write lock is taken: the lock is held for the rows.
        let (state, text) = state_text(self, checkpoint.state).map_err(invalid)?;
        let reason = checkpoint
            .reason
            .map(|reason| self.redactor().redact(reason).into_owned());
        self.write(|tx| {
            let session = checkpoint.session;
            require_session(tx, session)?;
            let Some(latest) = load_latest(tx, session, checkpoint.branch)? else {
                return Err(branch_not_found(tx, session, checkpoint.branch)?);
            };
            check_order(checkpoint, &latest)?;
            if let Some(run) = checkpoint.run {
                check_run(tx, checkpoint, run)?;
            }
            let now = now_ms();
            tx.execute(
                "INSERT INTO graph_checkpoints (session_id, branch, step, graph, node, run_id,
                     next_node, reason, state, source, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'node', ?10)",
                params![
                    session,
                    checkpoint.branch,
                    checkpoint.step,
                    latest.graph,
                    checkpoint.node,
                    checkpoint.run,
                    checkpoint.next,
                    reason,
                    text,
                    now
                ],
            )?;
            touch_session(tx, session, now)?;
            Ok(GraphCheckpoint {
                session_id: session.to_owned(),
                branch: checkpoint.branch,
                step: checkpoint.step,
                graph: latest.graph,
                node: Some(checkpoint.node.to_owned()),
                run: checkpoint.run,
                next: checkpoint.next.map(str::to_owned),
                reason,
                state,
                source: CheckpointSource::Node,
                parent: None,
                created_at: now,
            })
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
                     reason, state, source, parent_branch, parent_step, created_at)
                 SELECT session_id, ?4, step, graph, next_node, reason, state, 'fork',
                     branch, step, ?5
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
            let mut segments = Vec::new();
            let (mut current, mut until) = (branch, None);
            loop {
                let rows = load_branch(conn, session, current, until)?;
                if let Some(until) = until
                    && rows.last().map(|row| row.step) != Some(until)
                {
                    return Err(Fault::Corrupt(
                        "graph_checkpoints",
                        format!("branch {current} has no step {until}, which a fork copied"),
                    ));
                }
                let parent = rows.first().and_then(|first| first.parent);
                segments.push(rows);
                match parent {
                    // A fork always gets a higher number than its parent, so this ends.
                    Some((parent, step)) if parent < current => {
                        (current, until) = (parent, Some(step));
                    }
                    Some((parent, _)) => {
                        return Err(Fault::Corrupt(
                            "graph_checkpoints",
                            format!("branch {current} names branch {parent} as its parent"),
                        ));
                    }
                    None => break,
                }
            }
            Ok(segments.into_iter().rev().flatten().collect())
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
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return branch_not_found(conn, session, branch);
    };
    let steps: Vec<u32> = rows.iter().map(|row| row.step).collect();
    let mut known = format!("its checkpoints are steps {}", ranges(&steps));
    if let Some((parent, at)) = first.parent
        && step < first.step
    {
        known.push_str(&format!(
            " (it was forked from branch {parent} at step {at}; step {step} is in branch {parent}'s history)"
        ));
    } else if step > last.step {
        known.push_str(&format!(", the latest is {}", last.step));
    }
    Ok(Fault::Context(ContextError::CheckpointNotFound {
        session: session.to_owned(),
        branch,
        step,
        known,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_ranges() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[0]), "0");
        assert_eq!(ranges(&[0, 1, 2, 3, 5, 7, 8, 9]), "0–3, 5, 7–9");
        assert_eq!(
            ranges(&[u32::MAX - 1, u32::MAX]),
            format!("{}–{}", u32::MAX - 1, u32::MAX)
        );
    }
}
