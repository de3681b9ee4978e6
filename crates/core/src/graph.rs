//! Graphs of agents, as an agent file's `graph:` block or a graph file declares them: an entry
//! node, nodes that each run an agent, and edges with optional CEL conditions over the graph
//! state (seed 002 §4.1.5).
//!
//! These are the declarations only; `agentctl-routing` compiles and checks them, and the
//! session runner executes them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
