//! The edges as a run can take them, by node: which edges leaving a node are live (up to its
//! first edge without a condition), where each goes, and the checks over that shape —
//! edges never taken, nodes never reached, nodes that can never reach `END`.

use super::GraphIssue;
use agentctl_core::{GRAPH_END, GraphSpec};
use std::collections::{HashMap, VecDeque};

/// The edges as the run can take them.
pub(super) struct Flow {
    /// For each node (by index), the edges leaving it that can be taken, in file order: the
    /// ones up to and including its first edge without a condition.
    pub(super) live: Vec<Vec<usize>>,
    /// For each node, the index of its first edge without a condition.
    pub(super) default_edge: Vec<Option<usize>>,
    /// For each edge, the node it leaves (`None` for an unknown node).
    pub(super) source: Vec<Option<usize>>,
    /// For each edge, the nodes it goes to (`None` for END or an unknown node); several for
    /// a fan-out.
    pub(super) target: Vec<Vec<Option<usize>>>,
    /// For each node, whether its name is its first use (duplicates are not analysed).
    pub(super) first: Vec<bool>,
}

impl Flow {
    pub(super) fn new(spec: &GraphSpec, index: &HashMap<&str, usize>) -> Self {
        let count = spec.nodes.len();
        let mut flow = Flow {
            live: vec![Vec::new(); count],
            default_edge: vec![None; count],
            source: Vec::with_capacity(spec.edges.len()),
            target: Vec::with_capacity(spec.edges.len()),
            first: (0..count)
                .map(|i| index.get(spec.nodes[i].name.as_str()) == Some(&i))
                .collect(),
        };
        for (i, edge) in spec.edges.iter().enumerate() {
            flow.target.push(
                edge.to
                    .names()
                    .iter()
                    .map(|name| index.get(name.as_str()).copied())
                    .collect(),
            );
            flow.source.push(index.get(edge.from.as_str()).copied());
            let Some(&from) = index.get(edge.from.as_str()) else {
                continue;
            };
            if flow.default_edge[from].is_some() {
                continue;
            }
            flow.live[from].push(i);
            if edge.condition.is_none() {
                flow.default_edge[from] = Some(i);
            }
        }
        flow
    }

    /// Edges after a node's default edge are never tried.
    pub(super) fn shadowed_edges(&self, spec: &GraphSpec, issues: &mut Vec<GraphIssue>) {
        for (i, edge) in spec.edges.iter().enumerate() {
            let Some(default) = self.source[i].and_then(|from| self.default_edge[from]) else {
                continue;
            };
            if i > default {
                issues.push(GraphIssue::warning(
                    format!("edges[{i}]"),
                    format!(
                        "never taken: edges[{default}] leaves `{}` first and has no condition, \
                         so it is always taken; move this edge above it or give that edge a \
                         condition",
                        edge.from
                    ),
                ));
            }
        }
    }

    /// Nodes no live edge leads to from the entry.
    pub(super) fn unreachable(&self, spec: &GraphSpec, entry: usize, issues: &mut Vec<GraphIssue>) {
        let mut seen = vec![false; spec.nodes.len()];
        seen[entry] = true;
        let mut queue = VecDeque::from([entry]);
        while let Some(node) = queue.pop_front() {
            for &edge in &self.live[node] {
                for &next in self.target[edge].iter().flatten() {
                    if !seen[next] {
                        seen[next] = true;
                        queue.push_back(next);
                    }
                }
            }
        }
        for (i, node) in spec.nodes.iter().enumerate() {
            if self.first[i] && !seen[i] {
                issues.push(GraphIssue::error(
                    format!("nodes[{i}].name"),
                    format!(
                        "node `{}` is unreachable: no edge that can be taken leads to it from \
                         the entry `{}`",
                        node.name, spec.entry
                    ),
                ));
            }
        }
    }

    /// Nodes from which the run can never end. A node can end when one of its live edges
    /// goes to END, when it has no default edge (then "no edge matched" ends the graph), or
    /// when a live edge leads to a node that can end: a fixpoint, computed backwards from the
    /// nodes that can end by themselves.
    pub(super) fn cannot_end(&self, spec: &GraphSpec, issues: &mut Vec<GraphIssue>) {
        let count = spec.nodes.len();
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); count];
        let mut can_end = vec![false; count];
        let mut queue = VecDeque::new();
        for (node, &first) in self.first.iter().enumerate() {
            if !first {
                continue;
            }
            // An edge to a node that does not exist is an error of its own: counting it as a
            // way out keeps that one mistake from being reported again here.
            let ends_here = self.default_edge[node].is_none()
                || self.live[node].iter().any(|&edge| {
                    spec.edges[edge].to == GRAPH_END
                        || self.target[edge].iter().any(Option::is_none)
                });
            if ends_here {
                can_end[node] = true;
                queue.push_back(node);
            }
            for &edge in &self.live[node] {
                for &next in self.target[edge].iter().flatten() {
                    incoming[next].push(node);
                }
            }
        }
        while let Some(node) = queue.pop_front() {
            for &before in &incoming[node] {
                if !can_end[before] {
                    can_end[before] = true;
                    queue.push_back(before);
                }
            }
        }
        for (i, node) in spec.nodes.iter().enumerate() {
            if !self.first[i] || can_end[i] {
                continue;
            }
            let default = self.default_edge[i].unwrap_or_default();
            issues.push(GraphIssue::error(
                format!("nodes[{i}].name"),
                format!(
                    "node `{}` can never reach END: edges[{default}] always leads on and every \
                     path from there loops; add an edge to END or give edges[{default}] a \
                     condition",
                    node.name
                ),
            ));
        }
    }
}
