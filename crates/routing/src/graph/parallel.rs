//! Fan-outs and joins: an edge `to: [a, b, c]` starts parallel branches, each following the
//! graph's edges from its node until it reaches a node that declares `join:`; that node runs
//! once enough branches arrived (`all`, `any`, or a number).
//!
//! Checked here, each located: every branch of a fan-out reaches the same join node (a branch
//! that can never reach it would leave the join waiting forever), a fan-out inside a branch (not
//! supported: branches meet before they split again), a map or a subgraph inside a branch (they
//! run on the main line), a join that asks for more branches than lead to it, and a `join:` on
//! a node no fan-out leads to.

use super::GraphIssue;
use super::flow::Flow;
use agentctl_core::{GraphSpec, Join};
use std::collections::{BTreeSet, VecDeque};

/// What one branch can reach before a join.
struct Reach {
    /// Join nodes it reaches.
    joins: BTreeSet<usize>,
    /// A fan-out edge inside the branch, if any.
    nested: Option<usize>,
    /// A node inside the branch that maps over a list, if any.
    mapped: Option<usize>,
    /// A node inside the branch that runs a subgraph, if any.
    subgraph: Option<usize>,
}

/// The join node of each fan-out edge (by edge index), `None` for plain edges and fan-outs
/// whose branches meet at no single join; the issues found on the way.
pub(super) fn check(
    spec: &GraphSpec,
    flow: &Flow,
    issues: &mut Vec<GraphIssue>,
) -> Vec<Option<usize>> {
    let mut joins = vec![None; spec.edges.len()];
    let mut joined = vec![false; spec.nodes.len()];
    for (i, edge) in spec.edges.iter().enumerate() {
        if !edge.to.is_fan_out() || flow.source[i].is_none() {
            continue;
        }
        let starts: Vec<usize> = flow.target[i].iter().flatten().copied().collect();
        if starts.len() != flow.target[i].len() {
            // An unknown node: reported by the edge checks.
            continue;
        }
        joins[i] = fan_out(spec, flow, i, &starts, issues);
        if let Some(join) = joins[i] {
            joined[join] = true;
        }
    }
    for (j, node) in spec.nodes.iter().enumerate() {
        let Some(join) = node.join else { continue };
        if join == Join::Count(0) {
            issues.push(GraphIssue::error(
                format!("nodes[{j}].join"),
                "join: 0 would run before any branch arrived: write all, any, or a number \
                 from 1",
            ));
        } else if !joined[j] && flow.first[j] {
            issues.push(GraphIssue::error(
                format!("nodes[{j}].join"),
                format!(
                    "`{}` joins branches, but no fan-out (`to: [a, b]`) leads to it: remove \
                     `join:` or fan out before it",
                    node.name
                ),
            ));
        }
    }
    joins
}

/// Checks fan-out edge `edge` with branches starting at `starts`; returns its join node.
fn fan_out(
    spec: &GraphSpec,
    flow: &Flow,
    edge: usize,
    starts: &[usize],
    issues: &mut Vec<GraphIssue>,
) -> Option<usize> {
    let field = format!("edges[{edge}].to");
    let reaches: Vec<Reach> = starts
        .iter()
        .map(|&start| reach(spec, flow, start))
        .collect();
    for (&start, reach) in starts.iter().zip(&reaches) {
        if spec.nodes[start].join.is_some() {
            issues.push(GraphIssue::error(
                field,
                format!(
                    "branch `{}` starts at a join node: a branch runs at least one node before \
                     it meets the others",
                    spec.nodes[start].name
                ),
            ));
            return None;
        }
        let mapped = reach
            .mapped
            .or_else(|| spec.nodes[start].map.is_some().then_some(start));
        if let Some(mapped) = mapped {
            issues.push(GraphIssue::error(
                format!("nodes[{mapped}].map"),
                format!(
                    "`{}` maps over a list inside the branch `{}` of edges[{edge}]: a map runs \
                     on the graph's main line, not inside a parallel branch; join first",
                    spec.nodes[mapped].name, spec.nodes[start].name
                ),
            ));
            return None;
        }
        let subgraph = reach
            .subgraph
            .or_else(|| spec.nodes[start].graph.is_some().then_some(start));
        if let Some(subgraph) = subgraph {
            issues.push(GraphIssue::error(
                format!("nodes[{subgraph}].graph"),
                format!(
                    "`{}` runs a subgraph inside the branch `{}` of edges[{edge}]: a subgraph \
                     runs on the graph's main line, not inside a parallel branch; join first, \
                     or fan out inside the subgraph",
                    spec.nodes[subgraph].name, spec.nodes[start].name
                ),
            ));
            return None;
        }
        if let Some(nested) = reach.nested {
            issues.push(GraphIssue::error(
                format!("edges[{nested}].to"),
                format!(
                    "a fan-out inside the branch `{}` of edges[{edge}]: branches cannot split \
                     again before they join; join them first",
                    spec.nodes[start].name
                ),
            ));
            return None;
        }
    }
    let all: BTreeSet<usize> = reaches
        .iter()
        .flat_map(|reach| reach.joins.iter().copied())
        .collect();
    let join = match all.iter().copied().collect::<Vec<_>>().as_slice() {
        [] => {
            issues.push(GraphIssue::error(
                field,
                "these parallel branches never meet: give the node they lead to `join: all` \
                 (or `any`, or a number of branches)",
            ));
            return None;
        }
        [join] => *join,
        several => {
            let names: Vec<String> = several
                .iter()
                .map(|&j| format!("`{}`", spec.nodes[j].name))
                .collect();
            issues.push(GraphIssue::error(
                field,
                format!(
                    "the branches reach different join nodes ({}): all branches of one fan-out \
                     meet at one join",
                    names.join(", ")
                ),
            ));
            return None;
        }
    };
    let mut arriving = 0;
    for (&start, reach) in starts.iter().zip(&reaches) {
        if reach.joins.contains(&join) {
            arriving += 1;
        } else {
            issues.push(GraphIssue::error(
                field.clone(),
                format!(
                    "branch `{}` can never reach the join `{}`: every path from it ends \
                     first, so the join would wait for it forever",
                    spec.nodes[start].name, spec.nodes[join].name
                ),
            ));
        }
    }
    if let Some(mode) = spec.nodes[join].join {
        let needed = mode.needed(starts.len());
        if needed > arriving {
            issues.push(GraphIssue::error(
                format!("nodes[{join}].join"),
                format!(
                    "join: {mode} can never complete: it waits for {needed} branches, and only \
                     {arriving} of edges[{edge}] lead to it"
                ),
            ));
        }
    }
    Some(join)
}

/// The join nodes reachable from `start` along edges that can be taken, stopping at joins.
fn reach(spec: &GraphSpec, flow: &Flow, start: usize) -> Reach {
    let mut seen = vec![false; spec.nodes.len()];
    seen[start] = true;
    let mut queue = VecDeque::from([start]);
    let mut out = Reach {
        joins: BTreeSet::new(),
        nested: None,
        mapped: None,
        subgraph: None,
    };
    while let Some(node) = queue.pop_front() {
        for &edge in &flow.live[node] {
            if spec.edges[edge].to.is_fan_out() {
                out.nested.get_or_insert(edge);
                continue;
            }
            for &next in flow.target[edge].iter().flatten() {
                if spec.nodes[next].map.is_some() && spec.nodes[next].join.is_none() {
                    out.mapped.get_or_insert(next);
                }
                if spec.nodes[next].graph.is_some() && spec.nodes[next].join.is_none() {
                    out.subgraph.get_or_insert(next);
                }
                if spec.nodes[next].join.is_some() {
                    out.joins.insert(next);
                } else if !seen[next] {
                    seen[next] = true;
                    queue.push_back(next);
                }
            }
        }
    }
    out
}
