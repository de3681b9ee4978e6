//! Graphs of agents: compiling and checking a [`GraphSpec`], choosing the next node, and
//! drawing the graph.
//!
//! A graph agent's `graph:` block (or a standalone graph file) declares an entry node, nodes
//! that each run an agent, and edges with optional CEL conditions (seed 002 §4.1.5).
//! [`Graph::compile`] checks it once — every problem located by its field inside the block
//! (`edges[2].condition`, `nodes[1].output`) — and compiles its conditions; the runner then
//! asks [`Graph::next`] where to go after each node, with the variables
//! [`graph_variables`] builds from the graph state.
//!
//! **Which edge is taken.** The edges leaving a node are tried in file order; the first whose
//! condition is true, or that has none, is taken. A condition that reads a key or field that
//! is not set counts as false (an analyzer that did not say `needs_human` does not need a
//! human), and the [`Transition`] keeps why; any other evaluation error (a result that is not
//! a boolean, types that do not compare) stops the graph with a [`GraphStepError`] naming the
//! node, the edge and the expression. No edge taken ends the graph, as does an edge to `END`.
//!
//! **What is checked.** Structure (an entry that is a node, unique node names, edges between
//! nodes, `END` only as a target), conditions that compile, output keys conditions can read
//! and that do not collide, every node reachable from the entry, every node able to reach
//! `END`, edges that can never be taken, `maxSteps` above 0; [`Graph::check_agents`] adds the
//! nodes' agents once the caller knows which agents exist.
//!
//! **Output keys.** A node stores its answer under `output:`; without one, under the one state
//! key its own edges' conditions read that no node's name or output already is (seed 002's
//! graph reads `analysis.can_auto_fix` after `analyzer`: its answer is `analysis`), else under
//! its name. [`Graph::spec`] has every node's key written in.
//!
//! **Drawing.** [`render_text`] prints the seed's form (entry, nodes, edges with `[if: …]`),
//! [`render_mermaid`] a Mermaid flowchart and [`render_dot`] a Graphviz digraph, optionally
//! with the path of a recorded run highlighted. [`Graph::from_handoffs`] maps a plain agent's
//! `handoffs:` onto the same drawing.

mod check;
mod flow;
mod handoffs;
mod mapping;
mod outputs;
mod parallel;
mod render;
mod step;
mod subgraph;

use crate::condition::Condition;
use agentctl_core::{AgentDefinition, GraphNode, GraphSpec, Reducer};
use serde::{Deserialize, Serialize};
use std::fmt;

pub use check::check_spec;
pub use outputs::GRAPH_VARIABLES;
pub use render::{render_dot, render_mermaid, render_text};
pub use step::{ConditionOutcome, EdgeOutcome, GraphStepError, Transition, graph_variables};
pub use subgraph::check_recursion;

/// A compiled graph: its declaration, checked, with its edge conditions compiled. Cheap to
/// clone (conditions are shared), `Send + Sync`.
///
/// ```
/// use agentctl_core::GraphSpec;
/// use agentctl_routing::{Graph, graph_variables};
/// use serde_json::json;
///
/// let spec: GraphSpec = serde_json::from_value(json!({
///     "entry": "analyzer",
///     "nodes": [
///         {"name": "analyzer", "agent": "debug-analyzer", "output": "analysis"},
///         {"name": "fixer", "agent": "code-fixer", "output": "fix"},
///         {"name": "reviewer", "agent": "code-reviewer"}
///     ],
///     "edges": [
///         {"from": "analyzer", "to": "fixer", "condition": "analysis.can_auto_fix"},
///         {"from": "fixer", "to": "reviewer", "condition": "fix.applied"},
///         {"from": "analyzer", "to": "END", "condition": "analysis.needs_human"}
///     ]
/// }))?;
/// let graph = Graph::compile("debug-flow", &spec)?;
/// assert_eq!(graph.entry().name, "analyzer");
///
/// // The analyzer stored its JSON answer under `analysis`.
/// let state = json!({"input": "fix the login bug", "analysis": {"can_auto_fix": true}});
/// let variables = graph_variables(state.as_object().unwrap(), "analyzer", 1, None);
/// let next = graph.next("analyzer", &variables)?;
/// assert_eq!(next.to.as_deref(), Some("fixer"));
///
/// let state = json!({"analysis": {"can_auto_fix": false}});
/// let variables = graph_variables(state.as_object().unwrap(), "analyzer", 1, None);
/// let next = graph.next("analyzer", &variables)?;
/// assert!(next.ended());
/// assert_eq!(
///     next.reason(),
///     "no edge from `analyzer` matched: `analysis.can_auto_fix` is false; \
///      `analysis.needs_human`: `analysis` has no field `needs_human`"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Graph {
    name: String,
    spec: GraphSpec,
    /// The compiled condition of each edge (by index in `spec.edges`).
    conditions: Vec<Option<Condition>>,
    warnings: Vec<GraphIssue>,
    /// For each edge, the node its fan-out's branches join at.
    joins: Vec<Option<usize>>,
    kind: Kind,
    /// The graphs subgraph nodes run, by node name, when attached
    /// ([`Graph::with_subgraphs`]) for drawing.
    subgraphs: Vec<(String, Graph)>,
}

/// Where a [`Graph`] comes from.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// A `graph:` declaration: compiled, checked, runnable.
    Declared,
    /// A plain agent's hand-offs, drawn as a graph ([`Graph::from_handoffs`]): the model picks
    /// its hand-offs, so it is drawn, never stepped through.
    Handoffs {
        /// Nodes whose agent was not found.
        missing: Vec<String>,
    },
}

impl Graph {
    /// Checks `spec` and compiles its conditions. Fails when the checks find an error (the
    /// [`GraphIssues`] hold every issue, warnings included); warnings alone are kept in
    /// [`Graph::warnings`].
    pub fn compile(name: &str, spec: &GraphSpec) -> Result<Graph, GraphIssues> {
        let analysis = check::analyze(spec);
        if analysis
            .issues
            .iter()
            .any(|issue| issue.severity == IssueSeverity::Error)
        {
            return Err(GraphIssues(analysis.issues));
        }
        Ok(Graph {
            name: name.to_owned(),
            spec: outputs::with_outputs(spec, &analysis.inferred),
            conditions: analysis.conditions,
            warnings: analysis.issues,
            joins: analysis.joins,
            kind: Kind::Declared,
            subgraphs: Vec::new(),
        })
    }

    /// The graph of a graph agent (an agent file with a `graph:` block, or a graph file). An
    /// agent without one is an issue of field `graph`.
    pub fn from_definition(agent: &AgentDefinition) -> Result<Graph, GraphIssues> {
        match &agent.spec.graph {
            Some(spec) => Graph::compile(agent.name(), spec),
            None => Err(GraphIssues(vec![GraphIssue::error(
                "graph",
                format!(
                    "agent `{}` has no `graph:` block: it is a plain agent, not a graph",
                    agent.name()
                ),
            )])),
        }
    }

    /// The graph's name (the graph agent's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The declaration it was compiled from, with the output key of every node written in.
    pub fn spec(&self) -> &GraphSpec {
        &self.spec
    }

    /// The node the graph starts at.
    pub fn entry(&self) -> &GraphNode {
        // `compile` refuses a graph whose entry is not a node, and a hand-off map's root is its
        // first node, so the fallback is never used; it keeps this total without a panic.
        self.spec
            .node(&self.spec.entry)
            .or(self.spec.nodes.first())
            .unwrap_or(&FALLBACK_NODE)
    }

    /// The node named `name`.
    pub fn node(&self, name: &str) -> Option<&GraphNode> {
        self.spec.node(name)
    }

    /// The nodes, in declaration order.
    pub fn nodes(&self) -> &[GraphNode] {
        &self.spec.nodes
    }

    /// Most node visits in one run (`maxSteps`, default 25).
    pub fn max_steps(&self) -> u32 {
        self.spec.max_steps()
    }

    /// What [`Graph::compile`] warned about (edges never taken, conditions reading keys no
    /// node stores).
    pub fn warnings(&self) -> &[GraphIssue] {
        &self.warnings
    }

    /// True for a hand-off map ([`Graph::from_handoffs`]), which is drawn but not run.
    pub fn is_handoff_map(&self) -> bool {
        matches!(self.kind, Kind::Handoffs { .. })
    }

    /// The nodes of a hand-off map whose agent was not found (empty for declared graphs).
    pub fn missing(&self) -> &[String] {
        match &self.kind {
            Kind::Handoffs { missing } => missing,
            Kind::Declared => &[],
        }
    }

    /// Checks the nodes' agents with `find`, which says what each name finds: a node naming no
    /// agent, an agent that cannot run, or a graph agent named by `agent:` is an error of field
    /// `nodes[i].agent` (a subgraph is named by `graph:`, checked at `nodes[i].graph`).
    ///
    /// ```
    /// # use agentctl_core::GraphSpec;
    /// use agentctl_routing::{Graph, NodeAgent};
    /// # let spec: GraphSpec = serde_json::from_value(serde_json::json!({
    /// #     "entry": "a", "nodes": [{"name": "a", "agent": "code-fixr"}]}))?;
    /// let graph = Graph::compile("g", &spec)?;
    /// let issues = graph.check_agents(&|agent| match agent {
    ///     "code-fixer" => NodeAgent::Agent,
    ///     _ => NodeAgent::Unknown { similar: vec!["code-fixer".into()] },
    /// });
    /// assert_eq!(issues[0].to_string(), "nodes[0].agent: node `a` runs `code-fixr`, and no agent has that name; did you mean `code-fixer`?");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_agents(&self, find: &dyn Fn(&str) -> NodeAgent) -> Vec<GraphIssue> {
        check_node_agents(&self.spec, find)
    }

    /// The join node where the branches of fan-out edge `edge` meet (`None` for a plain edge).
    pub fn join_of(&self, edge: usize) -> Option<&GraphNode> {
        let join = self.joins.get(edge).copied().flatten()?;
        self.spec.nodes.get(join)
    }

    /// How writes to `key` combine, when the graph declares a reducer for it.
    pub fn reducer(&self, key: &str) -> Option<Reducer> {
        self.spec.reducers.get(key).copied()
    }

    /// Attaches the graphs the subgraph nodes run, found by `find` (a compiled graph by name),
    /// down to the graphs they run in turn, so the drawings show them as nested clusters. A
    /// graph met again on the way down (recursion, which validation refuses) is not attached
    /// again.
    pub fn with_subgraphs(self, find: &dyn Fn(&str) -> Option<Graph>) -> Graph {
        self.attach(find, &mut vec![])
    }

    fn attach(mut self, find: &dyn Fn(&str) -> Option<Graph>, above: &mut Vec<String>) -> Graph {
        above.push(self.name.clone());
        let mut subgraphs = Vec::new();
        for node in &self.spec.nodes {
            let Some(name) = node.graph.as_deref() else {
                continue;
            };
            if above.iter().any(|seen| seen == name) {
                continue;
            }
            if let Some(child) = find(name) {
                subgraphs.push((node.name.clone(), child.attach(find, above)));
            }
        }
        above.pop();
        self.subgraphs = subgraphs;
        self
    }

    /// The graph subgraph node `node` runs, when attached ([`Graph::with_subgraphs`]).
    pub fn subgraph(&self, node: &str) -> Option<&Graph> {
        self.subgraphs
            .iter()
            .find(|(name, _)| name == node)
            .map(|(_, graph)| graph)
    }

    /// Whether an edge leaving `from` has a condition: only then does choosing the next node
    /// read the state, so a runner builds the condition variables only then.
    pub fn reads_state(&self, from: &str) -> bool {
        self.spec
            .edges
            .iter()
            .zip(&self.conditions)
            .any(|(edge, condition)| condition.is_some() && edge.from == from)
    }

    /// The compiled condition of edge `index`, if it has one.
    pub(crate) fn condition(&self, index: usize) -> Option<&Condition> {
        self.conditions.get(index).and_then(Option::as_ref)
    }
}

/// Returned by [`Graph::entry`] for a graph without nodes, which `compile` never builds.
static FALLBACK_NODE: GraphNode = GraphNode {
    name: String::new(),
    agent: String::new(),
    output: None,
    graph: None,
    join: None,
    map: None,
};

/// What a node's agent name finds, for [`Graph::check_agents`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeAgent {
    /// A plain agent: the node can run it.
    Agent,
    /// A graph agent: a node runs it with `graph:` (a subgraph).
    Graph,
    /// An agent of that name exists but cannot run (its definition has errors, its file does
    /// not load).
    Unusable {
        /// Why, for people (the first located error, say).
        reason: String,
    },
    /// No agent of that name.
    Unknown {
        /// Names of agents close to it, closest first (may be empty).
        similar: Vec<String>,
    },
}

/// How serious a [`GraphIssue`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IssueSeverity {
    /// The graph still runs; something is probably not what the author meant.
    Warning,
    /// The graph cannot run.
    Error,
}

/// A problem in a graph declaration, located by its field inside the `graph:` block.
///
/// Displayed as `edges[2].condition: message` (`warning: ` first for warnings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphIssue {
    /// Error or warning.
    pub severity: IssueSeverity,
    /// The field inside the graph declaration: `entry`, `maxSteps`, `nodes`, `nodes[1].agent`,
    /// `nodes[0].output`, `edges[2].condition`, `edges[0].to` …
    pub field: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl GraphIssue {
    pub(crate) fn error(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: IssueSeverity::Error,
            field: field.into(),
            message: message.into(),
        }
    }

    pub(crate) fn warning(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: IssueSeverity::Warning,
            field: field.into(),
            message: message.into(),
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == IssueSeverity::Error
    }
}

impl fmt::Display for GraphIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.severity == IssueSeverity::Warning {
            f.write_str("warning: ")?;
        }
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// The issues of a graph that did not compile: at least one error, and any warnings, in the
/// order they were found. Displayed one per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphIssues(pub Vec<GraphIssue>);

impl GraphIssues {
    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &GraphIssue> {
        self.0.iter().filter(|issue| issue.is_error())
    }
}

impl fmt::Display for GraphIssues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, issue) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{issue}")?;
        }
        Ok(())
    }
}

impl std::error::Error for GraphIssues {}

/// [`Graph::check_agents`] on a declaration that may not compile, so `agents validate` reports
/// unknown node agents together with the graph's other problems. A node's `graph:` must find
/// a graph agent, its `agent:` a plain one.
pub fn check_node_agents(spec: &GraphSpec, find: &dyn Fn(&str) -> NodeAgent) -> Vec<GraphIssue> {
    let mut issues = Vec::new();
    for (i, node) in spec.nodes.iter().enumerate() {
        let subgraph = node.graph.is_some();
        let (field, what) = if subgraph {
            (format!("nodes[{i}].graph"), "graph")
        } else {
            (format!("nodes[{i}].agent"), "agent")
        };
        let runs = node.runs();
        if runs.trim().is_empty() {
            continue;
        }
        let message = match find(runs) {
            NodeAgent::Agent if !subgraph => continue,
            NodeAgent::Graph if subgraph => continue,
            NodeAgent::Agent => format!(
                "node `{}` runs graph `{runs}`, which is a plain agent, not a graph: write \
                 `agent: {runs}`",
                node.name
            ),
            NodeAgent::Graph => format!(
                "node `{}` runs `{runs}`, which is a graph agent: write `graph: {runs}` to run \
                 it as a subgraph",
                node.name
            ),
            NodeAgent::Unusable { reason } => {
                format!(
                    "node `{}` runs `{runs}`, which cannot run: {reason}",
                    node.name
                )
            }
            NodeAgent::Unknown { similar } => {
                let hint = match similar.as_slice() {
                    [] => String::new(),
                    names => format!(
                        "; did you mean {}?",
                        names
                            .iter()
                            .map(|name| format!("`{name}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                format!(
                    "node `{}` runs `{runs}`, and no {what} has that name{hint}",
                    node.name
                )
            }
        };
        issues.push(GraphIssue::error(field, message));
    }
    issues
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync + Clone>() {}

    #[test]
    fn graph_is_send_sync_clone() {
        assert_send_sync::<Graph>();
    }
}
