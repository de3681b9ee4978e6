//! Graphs of agents, as an agent file's `graph:` block or a graph file declares them: an entry
//! node, nodes that each run an agent, and edges with optional CEL conditions over the graph
//! state (seed 002 §4.1.5).
//!
//! These are the declarations only; `agentctl-routing` compiles and checks them, and the
//! session runner executes them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

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
    /// How writes to a state key from parallel branches combine, by key
    /// (`reducers: {reviews: append}`). A key that branches of one fan-out may both write
    /// needs one; keys written by one node at a time do not.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reducers: BTreeMap<String, Reducer>,
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

/// A node of a graph: a name and the agent (or graph) it runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GraphNode {
    /// The node's name, unique in the graph (edges use it); not `END`.
    pub name: String,
    /// The agent the node runs (empty when the node runs a graph).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub agent: String,
    /// The graph the node runs instead of an agent (`graph: review-flow`): a subgraph, run
    /// with its own state (the node's input as its `input`), its own checkpoints nested in
    /// the parent's and its own `maxSteps`; its final state is stored under the node's output
    /// key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<String>,
    /// The state key the node's final answer is stored under (parsed when it is JSON);
    /// default: the node's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The node joins parallel branches (`join: all`, `join: any`, `join: 2`): it runs once
    /// that many of the branches fanned out before it have arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join: Option<Join>,
    /// Runs the node once per element of a list in the state (`map: {over: analysis.files,
    /// as: file}`), concurrently, its outputs collected in order under its output key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<GraphMap>,
}

/// A node run over a list: LangGraph's `Send`, declared.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphMap {
    /// The list: a state key and fields under it, dotted (`analysis.files`).
    pub over: String,
    /// The name each element is shown under in the node's prompt (`file`).
    #[serde(rename = "as")]
    pub item: String,
}

impl GraphNode {
    /// `output`, else the node's name.
    pub fn output_key(&self) -> &str {
        self.output.as_deref().unwrap_or(&self.name)
    }

    /// What the node runs.
    pub fn kind(&self) -> NodeKind<'_> {
        match &self.graph {
            Some(graph) => NodeKind::Graph(graph),
            None => NodeKind::Agent(&self.agent),
        }
    }

    /// What the node runs, by name: its graph's or its agent's.
    pub fn runs(&self) -> &str {
        match self.kind() {
            NodeKind::Graph(name) | NodeKind::Agent(name) => name,
        }
    }
}

/// What a node runs: an agent, or a graph (a subgraph).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NodeKind<'a> {
    /// An agent, by name.
    Agent(&'a str),
    /// A graph agent, by name, run as a subgraph.
    Graph(&'a str),
}

/// How many of the branches fanned out before a join node must arrive before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Join {
    /// `all` or `any`.
    Named(JoinMode),
    /// A number of branches (at least 1).
    Count(u32),
}

/// `join: all | any`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JoinMode {
    /// Every branch.
    All,
    /// The first branch to arrive; the others are cancelled.
    Any,
}

impl Join {
    /// How many of `branches` must arrive.
    pub fn needed(self, branches: usize) -> usize {
        match self {
            Join::Named(JoinMode::All) => branches,
            Join::Named(JoinMode::Any) => branches.min(1),
            Join::Count(count) => usize::try_from(count).unwrap_or(usize::MAX),
        }
    }
}

impl fmt::Display for Join {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Join::Named(JoinMode::All) => f.write_str("all"),
            Join::Named(JoinMode::Any) => f.write_str("any"),
            Join::Count(count) => write!(f, "{count}"),
        }
    }
}

/// How writes of parallel branches to one state key combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Reducer {
    /// The key holds a list; each write is appended (a list written is appended item by
    /// item), in the order the branches are declared.
    Append,
    /// The key holds an object; each write (an object) is merged in, later branches winning
    /// on shared fields.
    Merge,
    /// The write of the last branch (in declaration order) wins.
    Last,
}

/// Where an edge goes: one node (or `END`), or several that run in parallel
/// (`to: [security, perf, style]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EdgeTarget {
    /// One node, or `END`.
    One(String),
    /// Several nodes, run in parallel (a fan-out).
    Many(Vec<String>),
}

impl Default for EdgeTarget {
    fn default() -> Self {
        EdgeTarget::One(String::new())
    }
}

impl EdgeTarget {
    /// The node names, in order (one for a plain edge).
    pub fn names(&self) -> &[String] {
        match self {
            EdgeTarget::One(name) => std::slice::from_ref(name),
            EdgeTarget::Many(names) => names,
        }
    }

    /// The one target of a plain edge; `None` for a fan-out.
    pub fn single(&self) -> Option<&str> {
        match self {
            EdgeTarget::One(name) => Some(name),
            EdgeTarget::Many(_) => None,
        }
    }

    /// True for a fan-out (`to: [...]`), even of one name.
    pub fn is_fan_out(&self) -> bool {
        matches!(self, EdgeTarget::Many(_))
    }
}

impl From<String> for EdgeTarget {
    fn from(name: String) -> Self {
        EdgeTarget::One(name)
    }
}

impl From<&str> for EdgeTarget {
    fn from(name: &str) -> Self {
        EdgeTarget::One(name.to_owned())
    }
}

impl PartialEq<&str> for EdgeTarget {
    fn eq(&self, other: &&str) -> bool {
        self.single() == Some(*other)
    }
}

impl fmt::Display for EdgeTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EdgeTarget::One(name) => f.write_str(name),
            EdgeTarget::Many(names) => write!(f, "[{}]", names.join(", ")),
        }
    }
}

/// An edge of a graph.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GraphEdge {
    /// The node the edge leaves.
    pub from: String,
    /// The node it goes to, or `END`; or a list of nodes that then run in parallel
    /// (`to: [security, perf, style]`).
    pub to: EdgeTarget,
    /// A CEL expression over the graph state (`analysis.can_auto_fix`); without one the edge
    /// is the node's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}
