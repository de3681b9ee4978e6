//! Graphs of agents, as an agent file's `graph:` block or a graph file declares them: an entry
//! node, nodes that each run an agent, and edges with optional CEL conditions over the graph
//! state (seed 002 §4.1.5).
//!
//! These are the declarations only; `agentctl-routing` compiles and checks them, and the
//! session runner executes them.

use crate::event::RunEvent;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The name of the end of a graph, as edges write it (`to: END`).
pub const GRAPH_END: &str = "END";

/// Node visits in one graph run when `maxSteps` is not set (LangGraph's recursion limit).
pub const DEFAULT_GRAPH_MAX_STEPS: u32 = 25;

/// A graph of agents.
///
/// ```
/// use agentctl_core::GraphSpec;
///
/// let graph: GraphSpec = serde_json::from_value(serde_json::json!({
///     "entry": "analyzer",
///     "nodes": [
///         {"name": "analyzer", "agent": "debug-analyzer", "output": "analysis"},
///         {"name": "fixer", "agent": "code-fixer", "output": "fix"}
///     ],
///     "edges": [
///         {"from": "analyzer", "to": "fixer", "condition": "analysis.can_auto_fix"},
///         {"from": "analyzer", "to": "END", "condition": "analysis.needs_human"}
///     ]
/// })).unwrap();
/// assert_eq!(graph.nodes[0].output_key(), "analysis");
/// assert_eq!(graph.max_steps(), 25);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GraphSpec {
    /// The node the graph starts at.
    pub entry: String,
    /// The nodes, each running an agent.
    pub nodes: Vec<GraphNode>,
    /// The edges. From a node, the first edge (in this order) whose condition is true is
    /// taken; an edge without a condition always is. No edge taken ends the graph.
    #[serde(default)]
    pub edges: Vec<GraphEdge>,
    /// Most node visits in one run (default 25); a graph that loops longer stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
}

impl GraphSpec {
    /// `maxSteps`, else [`DEFAULT_GRAPH_MAX_STEPS`].
    pub fn max_steps(&self) -> u32 {
        self.max_steps.unwrap_or(DEFAULT_GRAPH_MAX_STEPS)
    }

    /// The node named `name`.
    pub fn node(&self, name: &str) -> Option<&GraphNode> {
        self.nodes.iter().find(|node| node.name == name)
    }
}

/// A node of a graph: a name and the agent it runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GraphNode {
    /// The node's name, unique in the graph (edges use it); not `END`.
    pub name: String,
    /// The agent the node runs.
    pub agent: String,
    /// The state key the node's final answer is stored under (parsed when it is JSON);
    /// default: the node's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl GraphNode {
    /// `output`, else the node's name.
    pub fn output_key(&self) -> &str {
        self.output.as_deref().unwrap_or(&self.name)
    }
}

/// An edge of a graph.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GraphEdge {
    /// The node the edge leaves.
    pub from: String,
    /// The node it goes to, or `END`.
    pub to: String,
    /// A CEL expression over the graph state (`analysis.can_auto_fix`); without one the edge
    /// is the node's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// One thing that happened while a graph ran, in order: `graph_started`, then per node
/// `node_started`, the node's run events (`run`), `node_finished`, `edge_taken` and
/// `checkpoint_saved`; a graph ends with exactly one `graph_finished` or `graph_failed`.
///
/// Like [`RunEvent`], field names are snake_case here; the CLI's `--format stream-json` prints
/// them in its camelCase shape (`agentctl schema graph-event`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum GraphEvent {
    /// The graph started, resumed or was forked from an earlier checkpoint.
    GraphStarted {
        /// The graph's name.
        graph: String,
        /// The session its runs and checkpoints are stored in.
        session_id: String,
        /// The branch of the session's graph history it writes (0 for the first run).
        branch: u32,
        /// The step of the checkpoint it starts from (0 for a new run).
        from_step: u32,
        /// The node it runs first.
        next: String,
        /// How it started.
        start: GraphStart,
    },
    /// A node's agent was started.
    NodeStarted {
        /// The step the node's result will be checkpointed as (1 for the first node).
        step: u32,
        /// The node.
        node: String,
        /// Its agent.
        agent: String,
    },
    /// Something the user should know that did not stop the node (an MCP server of its
    /// agent that failed to start).
    Warning {
        /// The node.
        node: String,
        /// The warning.
        message: String,
    },
    /// An event of a node's run (or of the agents it handed off to).
    Run {
        /// The node.
        node: String,
        /// The run's event.
        event: RunEvent,
    },
    /// A node's agents finished; its output is in the state.
    NodeFinished {
        /// The node's step.
        step: u32,
        /// The node.
        node: String,
        /// The agents that worked on it, in order (more than one after handoffs).
        agents: Vec<String>,
        /// The state key its output is stored under.
        output_key: String,
        /// Its output: the final answer parsed when it is JSON, else the text.
        output: Value,
    },
    /// The edge chosen after a node (`to` is `END` when the graph ends there).
    EdgeTaken {
        /// The node left.
        from: String,
        /// The next node, or `END`.
        to: String,
        /// The edge's condition, when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        condition: Option<String>,
        /// Why: the condition that held, or why no edge was taken.
        reason: String,
    },
    /// The state after a node was saved, with the node to run next.
    CheckpointSaved {
        /// The branch.
        branch: u32,
        /// The step.
        step: u32,
        /// The node to run next; `None` when the graph ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<String>,
    },
    /// The graph reached its end.
    GraphFinished {
        /// Why it ended (`END` after a node, or no edge taken).
        reason: String,
        /// The last node.
        last_node: String,
        /// The last node's output.
        output: Value,
        /// The final state.
        state: Value,
    },
    /// The graph stopped: a node failed, a condition could not be evaluated, the step limit
    /// was reached, or the store failed. The last checkpoint stays; `resume` continues from it.
    GraphFailed {
        /// The node that failed, when one did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        /// One-line error message.
        error: String,
    },
}

/// How a graph run began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GraphStart {
    /// From its entry, with a new input.
    New,
    /// From the last checkpoint of a branch that had stopped.
    Resumed,
    /// From an earlier checkpoint, into a new branch.
    Forked,
}
