//! The graph executor's state: the driver of one run and where the run is.

use super::host::{Checkpointer, Host};
use super::lanes::Parallel;
use super::node::NodeRun;
use agentctl_routing::Graph;
use agentctl_store::GraphCheckpoint;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Runs a graph node by node over a [`Host`] (what runs the nodes) and, when there is one, a
/// [`Checkpointer`] (where checkpoints go).
pub(super) struct Driver<'c> {
    pub(super) host: &'c mut dyn Host,
    /// Where checkpoints go; `None` for a run embedded without a store.
    pub(super) checkpoints: Option<Arc<dyn Checkpointer>>,
    pub(super) graph: Arc<Graph>,
    /// For a subgraph's driver, the node of the parent graph running it (and the parent's
    /// own parents): its checkpoints are written as the parent's.
    pub(super) nest: Option<Box<Nest>>,
}

/// Where the run is: the last checkpoint it wrote or started from.
pub(super) struct Position {
    pub(super) branch: u32,
    pub(super) step: u32,
    pub(super) next: Option<String>,
    pub(super) state: Map<String, Value>,
    pub(super) end_reason: Option<String>,
    /// Parallel branches whose join has not run yet.
    pub(super) parallel: Option<Parallel>,
}

/// A checkpoint to write after a node.
pub(super) struct Saved {
    pub(super) step: u32,
    pub(super) node: String,
    pub(super) run: Option<i64>,
    pub(super) next: Option<String>,
    pub(super) reason: String,
}

impl Saved {
    /// With the node's store run.
    pub(super) fn with_run(mut self, run: NodeRun) -> Self {
        self.run = run.run_id;
        self
    }
}

impl Position {
    /// The position a checkpoint leaves.
    pub(super) fn of(checkpoint: GraphCheckpoint) -> Self {
        let end_reason = match checkpoint.next {
            None => checkpoint.reason,
            Some(_) => None,
        };
        Self {
            branch: checkpoint.branch,
            step: checkpoint.step,
            next: checkpoint.next,
            state: match checkpoint.state {
                Value::Object(state) => state,
                _ => Map::new(),
            },
            end_reason,
            parallel: Parallel::read(checkpoint.parallel),
        }
    }

    /// The position `saved` leaves when no checkpoint is written: the same as reading it
    /// back, without the round trip.
    pub(super) fn unsaved(
        branch: u32,
        state: Map<String, Value>,
        saved: Saved,
        parallel: Option<Parallel>,
    ) -> Self {
        let end_reason = saved.next.is_none().then_some(saved.reason);
        Self {
            branch,
            step: saved.step,
            next: saved.next,
            state,
            end_reason,
            parallel: parallel.filter(Parallel::in_progress),
        }
    }
}

/// The parent of a subgraph's driver: the node running it and where the parent was.
pub(super) struct Nest {
    /// The parent's node running the subgraph.
    pub(super) node: String,
    /// The parent graph's name.
    pub(super) graph: String,
    pub(super) branch: u32,
    /// The parent's last step (one more with every checkpoint the subgraph writes).
    pub(super) step: u32,
    /// The parent's state when the node started.
    pub(super) state: Map<String, Value>,
    /// The parent's own parent, when the parent is a subgraph too.
    pub(super) outer: Option<Box<Nest>>,
    /// The store run of the subgraph's last node.
    pub(super) last_run: Option<i64>,
}
