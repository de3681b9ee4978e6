//! Where a node's answer is stored when it does not say (`output:`): under the one state key
//! its own edges' conditions read that nothing else stores — seed 002's graph reads
//! `analysis.can_auto_fix` after the `analyzer` node and `fix.applied` after `fixer`, so their
//! answers are `analysis` and `fix` — else under the node's name.

use crate::condition::Condition;
use agentctl_core::GraphSpec;
use std::collections::{BTreeSet, HashSet};

/// The names graph conditions always have besides the state keys: the run's `input`, the
/// whole `state`, the `last` node's output, the `node` that just ran and the `step` count. No
/// node may store its output under one of them.
pub const GRAPH_VARIABLES: &[&str] = &["input", "state", "last", "node", "step"];

/// For each node (by index), the output key inferred for it: `None` when it declares
/// `output:`, or when its edges' conditions do not read exactly one key that no node's name,
/// declared output or earlier inferred output already is.
pub(super) fn infer_outputs(
    spec: &GraphSpec,
    conditions: &[Option<Condition>],
) -> Vec<Option<String>> {
    let mut taken: HashSet<String> = spec
        .nodes
        .iter()
        .flat_map(|node| [Some(&node.name), node.output.as_ref()])
        .flatten()
        .cloned()
        .collect();
    let mut inferred = Vec::with_capacity(spec.nodes.len());
    for node in &spec.nodes {
        if node.output.is_some() {
            inferred.push(None);
            continue;
        }
        let read: BTreeSet<&str> = spec
            .edges
            .iter()
            .zip(conditions)
            .filter(|(edge, _)| edge.from == node.name)
            .filter_map(|(_, condition)| condition.as_ref())
            .flat_map(Condition::variables)
            .filter(|name| !GRAPH_VARIABLES.contains(name) && !taken.contains(*name))
            .collect();
        let key = match read.into_iter().collect::<Vec<_>>().as_slice() {
            [only] => Some((*only).to_owned()),
            _ => None,
        };
        if let Some(key) = &key {
            taken.insert(key.clone());
        }
        inferred.push(key);
    }
    inferred
}

/// `spec` with the inferred output keys written in.
pub(super) fn with_outputs(spec: &GraphSpec, inferred: &[Option<String>]) -> GraphSpec {
    let mut spec = spec.clone();
    for (node, key) in spec.nodes.iter_mut().zip(inferred) {
        if let Some(key) = key {
            node.output = Some(key.clone());
        }
    }
    spec
}

#[cfg(test)]
mod tests {
    use crate::Graph;
    use agentctl_core::GraphSpec;
    use serde_json::json;

    fn graph(value: serde_json::Value) -> Graph {
        let spec: GraphSpec = serde_json::from_value(value).unwrap();
        Graph::compile("g", &spec).unwrap()
    }

    fn outputs(graph: &Graph) -> Vec<&str> {
        graph
            .spec()
            .nodes
            .iter()
            .map(|node| node.output_key())
            .collect()
    }

    /// Seed 002 §4.1.5's graph, as written: no `output:` anywhere.
    #[test]
    fn the_seed_graph_stores_answers_where_its_conditions_read_them() {
        let seed = graph(json!({
            "entry": "analyzer",
            "nodes": [
                {"name": "analyzer", "agent": "debug-analyzer"},
                {"name": "fixer", "agent": "code-fixer"},
                {"name": "reviewer", "agent": "code-reviewer"}
            ],
            "edges": [
                {"from": "analyzer", "to": "fixer", "condition": "analysis.can_auto_fix"},
                {"from": "fixer", "to": "reviewer", "condition": "fix.applied"},
                {"from": "analyzer", "to": "END", "condition": "analysis.needs_human"}
            ]
        }));
        assert_eq!(outputs(&seed), ["analysis", "fix", "reviewer"]);
        assert_eq!(seed.warnings(), []);
    }

    #[test]
    fn declared_names_and_ambiguity_keep_the_node_name() {
        let graph = graph(json!({
            "entry": "a",
            "nodes": [
                {"name": "a", "agent": "x", "output": "plan"},
                {"name": "b", "agent": "x"},
                {"name": "c", "agent": "x"},
                {"name": "d", "agent": "x"}
            ],
            "edges": [
                // `plan` is a's declared key: b reads it, it does not become b's.
                {"from": "a", "to": "b", "condition": "plan.ok"},
                {"from": "b", "to": "c", "condition": "plan.ok && step < 3"},
                // Two keys read: which one the answer is cannot be told.
                {"from": "c", "to": "d", "condition": "x.ok || y.ok"},
                {"from": "d", "to": "END", "condition": "d.done && last.done"}
            ]
        }));
        assert_eq!(outputs(&graph), ["plan", "b", "c", "d"]);
    }
}
