//! Graphs of agents, run by the session engine: a graph turn runs a compiled [`Graph`] node by
//! node in the session, checkpointing after every node, and resumes or forks from those
//! checkpoints; [`GraphReplay`] reads a recorded graph run back from the store.
//!
//! **State.** A graph run keeps one JSON object: the user's request under `input` and each
//! node's output (its agent's final answer, parsed when it is JSON) under the node's `output`
//! key. After a node, the first edge whose CEL condition holds over that state (plus the
//! session state keys the graph state does not have) picks the next node; `END`, or no edge
//! taken, ends the run.
//!
//! **Checkpoints.** The state, the node just run, its run id and the next node are written in
//! one transaction after every node (step 0 is the input). A process killed mid-node leaves
//! the previous checkpoint: resuming ([`Op::ResumeGraph`](crate::Op::ResumeGraph)) re-runs
//! only the node that did not finish; a fork starts a new branch from an earlier checkpoint
//! and leaves the original branch as it was.
//!
//! Whichever way a graph agent is reached — a turn naming it, a handoff, a `task`, `mcp
//! serve` — it runs its graph: the session decides, never the front end.

mod replay;

pub use crate::error::GraphError;
pub use replay::{GraphReplay, ReplayItem, ReplayNode, ReplayTotals};

use crate::error::SessionError;
use crate::project::Project;
use crate::session::SessionHandle;
use agentctl_core::AgentDefinition;
use agentctl_routing::Graph;
use agentctl_store::GraphBranch;
use serde::Serialize;
use serde_json::Value;

/// Where a graph run starts.
#[derive(Debug, Clone)]
pub(crate) enum StartAt {
    /// At the entry, with this request.
    New(String),
    /// At the last checkpoint of a branch (the newest branch of the graph when `None`).
    Resume(Option<u32>),
    /// At checkpoint `step` of a branch, into a new branch.
    Fork(Option<u32>, u32),
}

/// A branch of the session's graph runs: `branch` when given, else the newest of `graph` (of
/// any graph when `None`). [`GraphError::NoBranch`] names the branches there are;
/// [`GraphError::NoCheckpoint`] says the session has none (of that graph).
pub fn find_branch(
    session: &SessionHandle,
    branch: Option<u32>,
    graph: Option<&str>,
) -> Result<GraphBranch, GraphError> {
    let branches = session.store().graph_branches(session.id())?;
    match branch {
        Some(wanted) => {
            let known: Vec<u32> = branches.iter().map(|b| b.branch).collect();
            branches
                .into_iter()
                .find(|b| b.branch == wanted)
                .ok_or_else(|| GraphError::NoBranch {
                    session: session.id().to_owned(),
                    branch: wanted,
                    known,
                })
        }
        None => branches
            .into_iter()
            .filter(|b| graph.is_none_or(|graph| b.graph == graph))
            .max_by_key(|b| (b.updated_at, b.branch))
            .ok_or_else(|| GraphError::NoCheckpoint {
                session: session.id().to_owned(),
            }),
    }
}

/// How a graph run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphOutcome {
    /// The graph.
    pub graph: String,
    /// The session.
    pub session_id: String,
    /// The branch written.
    pub branch: u32,
    /// The last step (node visits since the input, across forks).
    pub step: u32,
    /// Why it ended.
    pub reason: String,
    /// The last node run.
    pub last_node: String,
    /// The last node's final answer.
    pub text: String,
    /// The last node's output (the answer parsed when it is JSON).
    pub output: Value,
    /// The final state.
    pub state: Value,
}

/// The graph of `agent`, compiled; an agent without a `graph:` block, or a graph that does not
/// compile, is an error naming it.
pub(crate) fn compile(agent: &AgentDefinition) -> Result<Graph, GraphError> {
    if agent.spec.graph.is_none() {
        return Err(GraphError::NotAGraph {
            agent: agent.name().to_owned(),
        });
    }
    Graph::from_definition(agent).map_err(|issues| GraphError::Invalid {
        graph: agent.name().to_owned(),
        file: agent.source.path.clone(),
        issues: issues.to_string(),
    })
}

impl Project {
    /// The graph of the agent `name`, as `graph visualize` draws it: its `graph:` block
    /// compiled (with the graphs its subgraph nodes run attached), or, for an agent without one, the agents its handoffs reach.
    ///
    /// # Errors
    ///
    /// [`SessionError::Agent`] when there is no runnable agent `name`;
    /// [`SessionError::Graph`] with [`GraphError::Invalid`] for a graph that does not compile.
    pub fn graph_of(&self, name: &str) -> Result<Graph, SessionError> {
        let discovery = self.discover();
        let agent = &discovery.require(name)?.definition;
        if agent.spec.graph.is_some() {
            let graph = compile(agent).map_err(|error| SessionError::Graph(Box::new(error)))?;
            let find = |name: &str| {
                let found = discovery.require(name).ok()?;
                Graph::from_definition(&found.definition).ok()
            };
            return Ok(graph.with_subgraphs(&find));
        }
        let lookup = |name: &str| {
            discovery
                .require(name)
                .ok()
                .map(|found| found.definition.clone())
        };
        Ok(Graph::from_handoffs(agent, &lookup))
    }
}
