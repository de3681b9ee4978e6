//! The records of work that runs side by side — a fan-out's branches, a map's elements — as
//! their checkpoints keep them (the store's `parallel` column), and the node runs in flight.

use super::host::Host;
use super::node::{Last, NodeJob, NodeRun};
use super::parts::write_key;
use crate::error::GraphError;
use agentctl_core::GraphNode;
use agentctl_routing::Graph;
use futures_util::StreamExt as _;
use futures_util::future::BoxFuture;
use futures_util::stream::FuturesUnordered;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use tokio_util::sync::CancellationToken;

/// A fan-out in progress, as its checkpoints record it (the `parallel` column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Fanout {
    /// The node whose edge fanned out.
    pub from: String,
    /// The node the branches join at.
    pub join: String,
    /// How many branches must arrive before the join runs.
    pub needed: usize,
    /// The join's inputs are in: the state holds the branches' writes and the join runs next.
    #[serde(default)]
    pub joined: bool,
    /// The branches, in the order the edge names them.
    pub branches: Vec<Branch>,
}

/// Where a branch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Status {
    /// Not started, or between two of its nodes.
    Pending,
    /// A node of it was running when the checkpoint was written.
    Running,
    /// It reached the join, or ended.
    Done,
    /// The join ran without it (`join: any` or a number).
    Cancelled,
}

/// One branch of a fan-out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Branch {
    /// The node it starts at (its name among the branches).
    pub start: String,
    pub status: Status,
    /// The node it runs next; `None` once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// Whether it reached the join (a done branch that did not, ended without it).
    #[serde(default)]
    pub arrived: bool,
    /// The nodes it ran, in order.
    #[serde(default)]
    pub path: Vec<String>,
    /// What its nodes wrote, in order, as `[key, value]`.
    #[serde(default)]
    pub writes: Vec<(String, Value)>,
}

impl Fanout {
    /// A fan-out from `from` to `starts`, joining at `join`.
    pub(super) fn new(from: &str, join: &GraphNode, starts: &[String]) -> Self {
        let needed = join
            .join
            .map_or(starts.len(), |join| join.needed(starts.len()));
        Self {
            from: from.to_owned(),
            join: join.name.clone(),
            needed,
            joined: false,
            branches: starts
                .iter()
                .map(|start| Branch {
                    start: start.clone(),
                    status: Status::Pending,
                    next: Some(start.clone()),
                    arrived: false,
                    path: Vec::new(),
                    writes: Vec::new(),
                })
                .collect(),
        }
    }

    pub(super) fn arrived(&self) -> usize {
        self.branches.iter().filter(|branch| branch.arrived).count()
    }

    /// What branch `b` sees: the state at the fan-out with its own writes.
    pub(super) fn branch_state(
        &self,
        base: &Map<String, Value>,
        b: usize,
        graph: &Graph,
    ) -> Map<String, Value> {
        let mut state = base.clone();
        for (key, value) in &self.branches[b].writes {
            write_key(&mut state, key, value.clone(), graph.reducer(key));
        }
        state
    }

    /// The state at the join: the fan-out's, with the writes of every branch that finished,
    /// branch by branch in declaration order.
    pub(super) fn merged(&self, base: &Map<String, Value>, graph: &Graph) -> Map<String, Value> {
        let mut state = base.clone();
        for branch in self.branches.iter().filter(|b| b.status == Status::Done) {
            for (key, value) in &branch.writes {
                write_key(&mut state, key, value.clone(), graph.reducer(key));
            }
        }
        state
    }
}

/// A branch node's end: the branch, the node, how it went.
pub(super) type Finished = (usize, String, Result<(Last, NodeRun), GraphError>);

/// The parallel records a checkpoint's `parallel` column holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) enum Parallel {
    /// Branches of a fan-out.
    Fanout(Fanout),
    /// The elements of a map.
    Map(MapRun),
    /// A subgraph node's graph, part way.
    Subgraph(Box<SubRun>),
}

impl Parallel {
    /// The record from a checkpoint's `parallel` column, when a fan-out or a map is still in
    /// progress there.
    pub(super) fn read(parallel: Option<Value>) -> Option<Self> {
        serde_json::from_value(parallel?)
            .ok()
            .filter(Parallel::in_progress)
    }

    /// False for a fan-out whose join's inputs are in: nothing of it is left to run.
    pub(super) fn in_progress(&self) -> bool {
        !matches!(self, Parallel::Fanout(fanout) if fanout.joined)
    }
}

/// The node runs in flight (branch nodes, map elements), with the tokens that cancel them.
#[derive(Default)]
pub(super) struct Running {
    pub(super) futures: FuturesUnordered<BoxFuture<'static, Finished>>,
    pub(super) cancels: HashMap<usize, CancellationToken>,
}

impl Running {
    /// Starts `job` as run `index` beside the others, on `host`.
    pub(super) fn start(&mut self, index: usize, name: String, job: NodeJob, host: &mut dyn Host) {
        let (run, cancel) = host.spawn_node(job);
        self.cancels.insert(index, cancel);
        self.futures
            .push(Box::pin(async move { (index, name, run.await) }));
    }

    /// Cancels every node still running and waits for them to stop (their runs end as
    /// cancelled in the store), returning the branches they belonged to.
    pub(super) async fn stop(&mut self) -> Vec<usize> {
        for cancel in self.cancels.values() {
            cancel.cancel();
        }
        let mut stopped = Vec::new();
        while let Some((b, _, _)) = self.futures.next().await {
            stopped.push(b);
        }
        self.cancels.clear();
        stopped
    }
}

/// A map in progress, as its checkpoints record it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MapRun {
    /// The node mapped.
    pub node: String,
    /// One per element of the list, in its order.
    pub items: Vec<Item>,
    /// The element whose checkpoint this is (from 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latest: Option<usize>,
}

/// One element's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Item {
    pub status: Status,
    /// Its output, once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

impl MapRun {
    pub(super) fn new(node: &str, count: usize) -> Self {
        Self {
            node: node.to_owned(),
            items: vec![
                Item {
                    status: Status::Pending,
                    output: None,
                };
                count
            ],
            latest: None,
        }
    }

    pub(super) fn done(&self) -> usize {
        self.items
            .iter()
            .filter(|item| item.status == Status::Done)
            .count()
    }
}

/// A subgraph part way, as the parent's checkpoint records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SubRun {
    /// The parent's node running the subgraph.
    pub node: String,
    /// The graph it runs.
    pub graph: String,
    /// The subgraph's own last step.
    pub step: u32,
    /// The subgraph's next node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// Why it went there.
    #[serde(default)]
    pub reason: String,
    /// The subgraph's state.
    pub state: Value,
    /// The subgraph's own parallel record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<Value>,
}
