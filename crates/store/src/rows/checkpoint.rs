//! The row of a graph checkpoint: what starting a graph, writing a node's checkpoint and
//! importing one insert, in both stores.

use super::described;
use crate::record::{CheckpointSource, GraphCheckpoint, NewCheckpoint};
use crate::schema::{Write, WriteKind};
use serde_json::Value;

/// The columns of a `graph_checkpoints` row, in the order of its values.
const CHECKPOINT_COLUMNS: &[&str] = &[
    "session_id",
    "branch",
    "step",
    "graph",
    "node",
    "run_id",
    "next_node",
    "reason",
    "state",
    "source",
    "parent_branch",
    "parent_step",
    "created_at",
    "parallel",
];

/// The insert of `checkpoint`'s row; `state` is the JSON text stored for its state (masked and
/// checked by [`checkpoint_state`](crate::checkpoint_state), so the record's own `state` is not
/// serialised again).
pub fn checkpoint_insert(checkpoint: &GraphCheckpoint, state: &str) -> Write {
    Write {
        table: described("graph_checkpoints"),
        kind: WriteKind::Insert,
        columns: CHECKPOINT_COLUMNS,
        values: vec![
            checkpoint.session_id.as_str().into(),
            checkpoint.branch.into(),
            checkpoint.step.into(),
            checkpoint.graph.as_str().into(),
            checkpoint.node.as_deref().into(),
            checkpoint.run.into(),
            checkpoint.next.as_deref().into(),
            checkpoint.reason.as_deref().into(),
            state.into(),
            checkpoint.source.as_str().into(),
            checkpoint.parent.map(|(branch, _)| branch).into(),
            checkpoint.parent.map(|(_, step)| step).into(),
            checkpoint.created_at.into(),
            checkpoint
                .parallel
                .as_ref()
                .map(serde_json::Value::to_string)
                .into(),
        ],
    }
}

impl GraphCheckpoint {
    /// Step 0 of a new `branch` of `graph` in `session`: the input `state`, `entry` to run
    /// first, written at `now`.
    pub fn input(
        session: String,
        branch: u32,
        graph: String,
        entry: String,
        state: Value,
        now: i64,
    ) -> Self {
        Self {
            session_id: session,
            branch,
            step: 0,
            graph,
            node: None,
            run: None,
            next: Some(entry),
            reason: None,
            state,
            source: CheckpointSource::Input,
            parallel: None,
            parent: None,
            created_at: now,
        }
    }

    /// The checkpoint `new` writes after a node of `graph` at `now`, its `reason`, `state`
    /// and `parallel` record as the store keeps them (masked).
    pub fn after_node(
        new: &NewCheckpoint<'_>,
        graph: String,
        reason: Option<String>,
        (state, parallel): (Value, Option<Value>),
        now: i64,
    ) -> Self {
        Self {
            session_id: new.session.to_owned(),
            branch: new.branch,
            step: new.step,
            graph,
            node: Some(new.node.to_owned()),
            run: new.run,
            next: new.next.map(str::to_owned),
            reason,
            state,
            source: CheckpointSource::Node,
            parallel,
            parent: None,
            created_at: now,
        }
    }
}
