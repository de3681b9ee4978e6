//! Why a graph run stopped.

use super::SessionError;
use agentctl_core::{Hint, RunError};
use agentctl_routing::GraphStepError;
use agentctl_store::ContextError;

/// Why a graph could not run, or stopped. The last checkpoint written stays: a stopped graph
/// can be resumed once the cause is fixed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// A node's agent run failed (its model, a tool, a guardrail).
    #[error("node `{node}` (agent `{agent}`) failed: {source}")]
    NodeFailed {
        /// The node.
        node: String,
        /// Its agent.
        agent: String,
        /// The run's error.
        source: Box<RunError>,
    },
    /// A node's agent could not be found or started.
    #[error("node `{node}`: {source}")]
    NodeSetup {
        /// The node.
        node: String,
        /// Why.
        source: Box<SessionError>,
    },
    /// An edge condition could not be evaluated.
    #[error("graph `{graph}`: {source}")]
    Condition {
        /// The graph.
        graph: String,
        /// Which edge, and why.
        source: GraphStepError,
    },
    /// The graph ran `maxSteps` nodes without reaching its end.
    #[error(
        "graph `{graph}` stopped after {limit} steps (maxSteps) without reaching END: {}; raise `maxSteps` or give the loop an edge to END",
        path_text(.path)
    )]
    StepLimit {
        /// The graph.
        graph: String,
        /// `maxSteps`.
        limit: u32,
        /// The nodes run, in order.
        path: Vec<String>,
    },
    /// A map node's `map.over` is not a list in the state.
    #[error(
        "graph `{graph}`, node `{node}`: `map.over: {over}` is {found}, not a list; the node before it must write a list there"
    )]
    MapOver {
        /// The graph.
        graph: String,
        /// The map node.
        node: String,
        /// The path.
        over: String,
        /// What was found there.
        found: String,
    },
    /// Parallel branches ended without enough of them reaching their join node.
    #[error(
        "graph `{graph}`: the join `{join}` waits for {needed} branches and only {arrived} arrived (the others ended before it); change their edges so they lead to `{join}`, or lower its `join:`"
    )]
    JoinIncomplete {
        /// The graph.
        graph: String,
        /// The join node.
        join: String,
        /// Branches that reached it.
        arrived: usize,
        /// Branches it waits for.
        needed: usize,
    },
    /// A checkpoint names a node the graph no longer has.
    #[error(
        "graph `{graph}` has no node `{node}`, which its checkpoint runs next: was the graph changed since? restore the node, or re-run from an earlier step"
    )]
    UnknownNode {
        /// The graph.
        graph: String,
        /// The node.
        node: String,
    },
    /// A subgraph node in a place that runs node jobs side by side (a fan-out's branch).
    #[error(
        "graph `{graph}`, node `{node}` runs a graph: a subgraph node cannot be a parallel branch yet; put it after the join"
    )]
    SubgraphInBranch {
        /// The graph.
        graph: String,
        /// The node.
        node: String,
    },
    /// The branch already ended.
    #[error(
        "graph `{graph}` in session {session} already finished (branch {branch}, step {step}: {reason}); re-run from an earlier step"
    )]
    Finished {
        /// The graph.
        graph: String,
        /// The session.
        session: String,
        /// The branch.
        branch: u32,
        /// Its last step.
        step: u32,
        /// Why it ended.
        reason: String,
    },
    /// The session has no graph run (of this graph).
    #[error("session {session} has no graph checkpoints to continue")]
    NoCheckpoint {
        /// The session.
        session: String,
    },
    /// No branch of that number.
    #[error(
        "session {session} has no graph branch {branch}; its branches: {}",
        branch_list(.known)
    )]
    NoBranch {
        /// The session.
        session: String,
        /// The branch asked for.
        branch: u32,
        /// The branches there are.
        known: Vec<u32>,
    },
    /// The branch belongs to another graph.
    #[error("branch {branch} of session {session} is a run of graph `{recorded}`, not `{given}`")]
    OtherGraph {
        /// The session.
        session: String,
        /// The branch.
        branch: u32,
        /// The graph recorded.
        recorded: String,
        /// The graph asked for.
        given: String,
    },
    /// The agent named as a graph has no `graph:` block.
    #[error("`{agent}` is an agent, not a graph (it has no `graph:` block)")]
    NotAGraph {
        /// The agent.
        agent: String,
    },
    /// The graph does not compile.
    #[error("graph `{graph}` ({}) is invalid:\n{issues}", .file.display())]
    Invalid {
        /// The graph.
        graph: String,
        /// Its file.
        file: std::path::PathBuf,
        /// What is wrong, one issue per line.
        issues: String,
    },
    /// Graph runs are recorded: there must be a session store.
    #[error(
        "graphs are checkpointed in the session store, and persistence is off (agents.contextPersistence: false): turn persistence on"
    )]
    NoSession,
    /// A node function of an embedded run ([`GraphExecutor`](crate::GraphExecutor)) failed.
    #[error("graph `{graph}`, node `{node}`: {message}")]
    NodeFunction {
        /// The graph.
        graph: String,
        /// The node.
        node: String,
        /// What the function said.
        message: String,
    },
    /// A run embedded without a store keeps no checkpoints: it can only start anew.
    #[error(
        "graph `{graph}` runs without a store here, so it keeps no checkpoints: it cannot be resumed or re-run from a step"
    )]
    NotCheckpointed {
        /// The graph.
        graph: String,
    },
    /// The run was cancelled.
    #[error("graph run cancelled")]
    Cancelled,
    /// The session store failed.
    #[error(transparent)]
    Store(#[from] ContextError),
}

impl GraphError {
    /// The node the error is about, when there is one.
    pub fn node(&self) -> Option<&str> {
        match self {
            Self::NodeFailed { node, .. }
            | Self::NodeSetup { node, .. }
            | Self::UnknownNode { node, .. }
            | Self::SubgraphInBranch { node, .. }
            | Self::NodeFunction { node, .. } => Some(node),
            _ => None,
        }
    }

    /// What a front end can offer beyond the message (starting, resuming or re-running a
    /// graph, naming a session, or the failed node's run's own hint).
    pub fn hint(&self) -> Option<Hint> {
        match self {
            Self::NodeFailed { source, .. } => source.hint(),
            Self::UnknownNode { .. } | Self::Finished { .. } => Some(Hint::RerunFromStep),
            Self::NoCheckpoint { .. } => Some(Hint::StartGraph),
            Self::NoSession => Some(Hint::NameSession),
            Self::Cancelled => Some(Hint::ResumeGraph),
            _ => None,
        }
    }

    /// The run error of a failed node (e.g. a guardrail violation, for the exit status).
    pub fn run_error(&self) -> Option<&RunError> {
        match self {
            Self::NodeFailed { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// `0, 1, 2`, or `none`.
fn branch_list(known: &[u32]) -> String {
    if known.is_empty() {
        return "none".to_owned();
    }
    known
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `a → b → a → …` (the last 12 nodes of a long path).
fn path_text(path: &[String]) -> String {
    const SHOWN: usize = 12;
    if path.len() > SHOWN {
        format!("… → {}", path[path.len() - SHOWN..].join(" → "))
    } else {
        path.join(" → ")
    }
}
