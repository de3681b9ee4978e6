//! Graph checkpoints: starting a branch, a node's checkpoint, forking, reading.
//!
//! Every write takes its session's lock (or the store's write transaction) before it reads
//! the branch's latest step, so "is this exactly the next step?" is still true when the row
//! is inserted: two processes resuming the same branch queue, and the second finds the step
//! taken.

use super::{Statements, first, integers, now_ms, records, require_session, texts};
use crate::checkpoint_rules::{
    GraphHistory, check_checkpoint_order, check_checkpoint_run, graph_branch_not_found,
    graph_checkpoint_not_found, invalid_checkpoint,
};
use crate::record::{GraphBranch, GraphCheckpoint};
use crate::rows::{checkpoint_insert, checkpoint_number, checkpoint_parent};
use crate::schema::{Query, RowError, Sql};
use serde_json::Value;

/// The branch's own rows in step order, up to `until` when given.
pub async fn load_branch<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
    until: Option<u32>,
) -> Result<Vec<GraphCheckpoint>, S::Fault> {
    let query = Query::records::<GraphCheckpoint>()
        .eq("session_id", session)
        .eq("branch", branch)
        .at_most("step", until.map_or(i64::MAX, i64::from))
        .order_by("step");
    records(store, &query).await
}

async fn load_one<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
    step: u32,
) -> Result<Option<GraphCheckpoint>, S::Fault> {
    let query = Query::records::<GraphCheckpoint>()
        .eq("session_id", session)
        .eq("branch", branch)
        .eq("step", step);
    first(store, &query).await
}

/// The branch's latest checkpoint, without checking the session.
async fn load_latest<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
) -> Result<Option<GraphCheckpoint>, S::Fault> {
    let query = Query::records::<GraphCheckpoint>()
        .eq("session_id", session)
        .eq("branch", branch)
        .order_desc("step")
        .limit(1);
    first(store, &query).await
}

/// The number a new branch of the session gets: one past the highest, 0 for the first.
async fn next_branch<S: Statements + ?Sized>(store: &S, session: &str) -> Result<u32, S::Fault> {
    let query = Query::value(
        "graph_checkpoints",
        "COALESCE(MAX(branch) + 1, 0)",
        &["next"],
    )
    .eq("session_id", session);
    let next = integers(store, &query).await?.first().copied().unwrap_or(0);
    Ok(checkpoint_number(next, "next branch")?)
}

/// The error of a branch the session does not have, naming the branches it has.
async fn branch_not_found<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
) -> Result<S::Fault, S::Fault> {
    let query = Query::value("graph_checkpoints", "DISTINCT branch", &["branch"])
        .eq("session_id", session)
        .order_by("branch");
    let mut branches = Vec::new();
    for number in integers(store, &query).await? {
        branches.push(checkpoint_number(number, "branch")?);
    }
    Ok(graph_branch_not_found(session, branch, &branches).into())
}

async fn checkpoint_not_found<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
    step: u32,
) -> Result<S::Fault, S::Fault> {
    let rows = load_branch(store, session, branch, None).await?;
    match graph_checkpoint_not_found(session, branch, step, &rows) {
        Some(error) => Ok(error.into()),
        None => branch_not_found(store, session, branch).await,
    }
}

/// Starts a graph run in a new branch of `session` inside a write transaction: its step-0
/// `input` checkpoint with `checked` (the state masked and measured, see
/// [`checkpoint_state`](crate::checkpoint_state), or why it cannot be stored).
pub async fn start_graph<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    (graph, entry): (String, String),
    checked: Result<(Value, String), String>,
) -> Result<GraphCheckpoint, S::Fault> {
    store.lock_session(session).await?;
    let branch = next_branch(store, session).await?;
    // Checked here, where the error can name the branch: once per graph run.
    let (state, text) = checked.map_err(|reason| invalid_checkpoint(session, branch, 0, reason))?;
    let checkpoint =
        GraphCheckpoint::input(session.to_owned(), branch, graph, entry, state, now_ms());
    store.write(&checkpoint_insert(&checkpoint, &text)).await?;
    store.touch(session, checkpoint.created_at, 0).await?;
    Ok(checkpoint)
}

/// Writes the checkpoint a finished node leaves inside a write transaction: `written` (its
/// graph and time filled here) with `state` as its state's stored text. Refuses a step that is
/// not the branch's next, and a run of another session.
pub async fn write_checkpoint<S: Statements + ?Sized>(
    store: &S,
    mut written: GraphCheckpoint,
    state: &str,
) -> Result<GraphCheckpoint, S::Fault> {
    let session = written.session_id.clone();
    store.lock_session(&session).await?;
    let Some(latest) = load_latest(store, &session, written.branch).await? else {
        return Err(branch_not_found(store, &session, written.branch).await?);
    };
    check_checkpoint_order(&session, written.branch, written.step, &latest)?;
    if let Some(run) = written.run {
        let query = Query::value("agent_runs", "session_id", &["session_id"]).eq("id", run);
        let owner = texts(store, &query).await?.into_iter().next();
        check_checkpoint_run(
            &session,
            written.branch,
            written.step,
            run,
            owner.as_deref(),
        )?;
    }
    (written.graph, written.created_at) = (latest.graph, now_ms());
    store.write(&checkpoint_insert(&written, state)).await?;
    store.touch(&session, written.created_at, 0).await?;
    Ok(written)
}

/// Copies `(branch, step)` into a new branch: a `fork` row at the same step, with the same
/// state (copied in SQL: already masked and checked, and maybe large) and next node.
const FORK: &str = "INSERT INTO graph_checkpoints (session_id, branch, step, graph, next_node,
         reason, state, source, parent_branch, parent_step, created_at, parallel)
     SELECT session_id, ?4, step, graph, next_node, reason, state, 'fork',
         branch, step, ?5, parallel
     FROM graph_checkpoints WHERE session_id = ?1 AND branch = ?2 AND step = ?3";

/// Copies the checkpoint `(branch, step)` of `session` into a new branch inside a write
/// transaction; the new branch's first row.
pub async fn fork_graph<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
    step: u32,
) -> Result<GraphCheckpoint, S::Fault> {
    store.lock_session(session).await?;
    if load_one(store, session, branch, step).await?.is_none() {
        return Err(checkpoint_not_found(store, session, branch, step).await?);
    }
    let fork = next_branch(store, session).await?;
    let now = now_ms();
    let copy = Sql {
        table: "graph_checkpoints",
        text: FORK,
        names: &[],
        values: vec![
            session.into(),
            branch.into(),
            step.into(),
            fork.into(),
            now.into(),
        ],
    };
    store.execute(&S::DIALECT.sql(&copy)).await?;
    store.touch(session, now, 0).await?;
    load_one(store, session, fork, step).await?.ok_or_else(|| {
        RowError {
            table: "graph_checkpoints",
            reason: format!("fork {fork} not stored"),
        }
        .into()
    })
}

/// The branch's own checkpoints in step order; empty for a branch that does not exist.
pub async fn graph_checkpoints<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
) -> Result<Vec<GraphCheckpoint>, S::Fault> {
    require_session(store, session).await?;
    load_branch(store, session, branch, None).await
}

/// The branch's latest checkpoint; `None` for a branch that does not exist.
pub async fn latest_checkpoint<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
) -> Result<Option<GraphCheckpoint>, S::Fault> {
    require_session(store, session).await?;
    load_latest(store, session, branch).await
}

/// Each branch with its first and latest rows.
const BRANCHES: &str =
    "SELECT f.branch, f.graph, f.parent_branch, f.parent_step, f.step, f.created_at,
            l.step, CASE WHEN l.next_node IS NULL THEN 1 ELSE 0 END,
            CASE WHEN l.next_node IS NULL THEN l.reason END, l.created_at
     FROM graph_checkpoints f
     JOIN graph_checkpoints l ON l.session_id = f.session_id AND l.branch = f.branch
     WHERE f.session_id = ?1
       AND f.step = (SELECT MIN(step) FROM graph_checkpoints
                     WHERE session_id = f.session_id AND branch = f.branch)
       AND l.step = (SELECT MAX(step) FROM graph_checkpoints
                     WHERE session_id = f.session_id AND branch = f.branch)
     ORDER BY f.branch";

/// The session's graph branches in branch order.
pub async fn graph_branches<S: Statements + ?Sized>(
    store: &S,
    session: &str,
) -> Result<Vec<GraphBranch>, S::Fault> {
    require_session(store, session).await?;
    let sql = Sql {
        table: "graph_checkpoints",
        text: BRANCHES,
        names: &[
            "branch",
            "graph",
            "parent_branch",
            "parent_step",
            "first_step",
            "created_at",
            "last_step",
            "ended",
            "end_reason",
            "updated_at",
        ],
        values: vec![session.into()],
    };
    let mut branches = Vec::new();
    store
        .visit(&S::DIALECT.sql(&sql), &mut |row| {
            branches.push(GraphBranch {
                branch: checkpoint_number(row.integer("branch")?, "branch")?,
                graph: row.text("graph")?.to_owned(),
                parent: checkpoint_parent(
                    row.opt_integer("parent_branch")?,
                    row.opt_integer("parent_step")?,
                )?,
                first_step: checkpoint_number(row.integer("first_step")?, "step")?,
                last_step: checkpoint_number(row.integer("last_step")?, "step")?,
                ended: row.integer("ended")? != 0,
                end_reason: row.opt_text("end_reason")?.map(str::to_owned),
                created_at: row.integer("created_at")?,
                updated_at: row.integer("updated_at")?,
            });
            Ok(true)
        })
        .await?;
    Ok(branches)
}

/// The branch read as one run, through the branches it was forked from.
pub async fn graph_history<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    branch: u32,
) -> Result<Vec<GraphCheckpoint>, S::Fault> {
    require_session(store, session).await?;
    let mut history = GraphHistory::new(branch);
    while let Some((branch, until)) = history.next_segment() {
        history.push(load_branch(store, session, branch, until).await?)?;
    }
    Ok(history.into_checkpoints())
}
