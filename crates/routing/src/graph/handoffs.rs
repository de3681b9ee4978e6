//! A plain agent's hand-offs drawn as a graph (the seed's "map handoffs to graph edges").

use super::{Graph, Kind};
use agentctl_core::{AgentDefinition, GraphEdge, GraphNode, GraphSpec};
use std::collections::{HashSet, VecDeque};

/// Most agents drawn in one hand-off map: a catalogue is finite, but a map bigger than this
/// is no longer readable either.
const MAX_AGENTS: usize = 500;

impl Graph {
    /// The hand-off map of `root`: every agent reachable through `handoffs:` (looked up with
    /// `lookup`), one node each, and an edge per hand-off labelled with its `when`. Cycles are
    /// drawn as they are; a target `lookup` does not find is drawn as a node marked missing
    /// ([`Graph::missing`]). The map is drawn by the same renderers as a declared graph, but
    /// never run: the model chooses its hand-offs ([`Graph::next`] refuses).
    ///
    /// ```
    /// use agentctl_core::{AgentDefinition, AgentSource, AgentSpec, Handoff, Scope, SourceFormat};
    /// use agentctl_routing::{Graph, render_text};
    ///
    /// let agent = |name: &str, to: &[&str]| AgentDefinition {
    ///     spec: AgentSpec {
    ///         name: name.into(),
    ///         handoffs: to.iter().map(|to| Handoff { to: (*to).into(), ..Default::default() }).collect(),
    ///         ..Default::default()
    ///     },
    ///     system_prompt: String::new(),
    ///     source: AgentSource { format: SourceFormat::Native, path: format!("{name}.md").into(), scope: Scope::Project },
    ///     extra: Default::default(),
    /// };
    /// let triage = agent("triage", &["fixer", "ghost"]);
    /// let fixer = agent("fixer", &["triage"]);
    /// let graph = Graph::from_handoffs(&triage, &|name| (name == "fixer").then(|| fixer.clone()));
    /// assert_eq!(graph.missing(), ["ghost"]);
    /// assert!(render_text(&graph).contains("  fixer → triage\n"));
    /// ```
    pub fn from_handoffs(
        root: &AgentDefinition,
        lookup: &dyn Fn(&str) -> Option<AgentDefinition>,
    ) -> Graph {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let mut missing = Vec::new();
        let mut seen: HashSet<String> = HashSet::from([root.name().to_owned()]);
        let mut queue = VecDeque::from([(root.name().to_owned(), Some(root.clone()))]);
        while let Some((name, agent)) = queue.pop_front() {
            nodes.push(GraphNode {
                name: name.clone(),
                agent: name.clone(),
                output: None,
                graph: None,
                join: None,
                map: None,
            });
            let Some(agent) = agent else {
                missing.push(name);
                continue;
            };
            for handoff in &agent.spec.handoffs {
                let target = handoff.to.trim();
                if target.is_empty() {
                    continue;
                }
                edges.push(GraphEdge {
                    from: name.clone(),
                    to: target.into(),
                    condition: handoff.when.clone(),
                });
                if seen.len() < MAX_AGENTS && seen.insert(target.to_owned()) {
                    queue.push_back((target.to_owned(), lookup(target)));
                }
            }
        }
        // Edges to agents beyond the cap have no node; the renderers leave them out.
        Graph {
            name: root.name().to_owned(),
            spec: GraphSpec {
                entry: root.name().to_owned(),
                nodes,
                edges,
                max_steps: None,
                reducers: Default::default(),
            },
            // Never evaluated: hand-off maps are not run.
            conditions: Vec::new(),
            warnings: Vec::new(),
            joins: Vec::new(),
            kind: Kind::Handoffs { missing },
            subgraphs: Vec::new(),
        }
    }
}
