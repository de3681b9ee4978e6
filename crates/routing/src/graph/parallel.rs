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
    let reaches: Vec<Reach> = starts
        .iter()
        .map(|&start| reach(spec, flow, start))
        .collect();
    for (&start, reach) in starts.iter().zip(&reaches) {
        if let Some(issue) = branch_issue(spec, edge, start, reach) {
            issues.push(issue);
            return None;
        }
    }
    let join = match meeting_join(spec, &reaches) {
        Ok(join) => join,
        Err(message) => {
            issues.push(GraphIssue::error(format!("edges[{edge}].to"), message));
            return None;
        }
    };
    let arriving = count_arrivals(spec, edge, starts, &reaches, join, issues);
    check_join_count(spec, edge, join, starts.len(), arriving, issues);
    Some(join)
}

/// What makes the branch starting at `start` unfit to run in parallel, if anything: it starts
/// at a join, or maps over a list, runs a subgraph or fans out again before it joins.
fn branch_issue(spec: &GraphSpec, edge: usize, start: usize, reach: &Reach) -> Option<GraphIssue> {
    let name = &spec.nodes[start].name;
    if spec.nodes[start].join.is_some() {
        return Some(GraphIssue::error(
            format!("edges[{edge}].to"),
            format!(
                "branch `{name}` starts at a join node: a branch runs at least one node before \
                 it meets the others"
            ),
        ));
    }
    let mapped = reach
        .mapped
        .or_else(|| spec.nodes[start].map.is_some().then_some(start));
    if let Some(mapped) = mapped {
        return Some(GraphIssue::error(
            format!("nodes[{mapped}].map"),
            format!(
                "`{}` maps over a list inside the branch `{name}` of edges[{edge}]: a map runs \
                 on the graph's main line, not inside a parallel branch; join first",
                spec.nodes[mapped].name
            ),
        ));
    }
    let subgraph = reach
        .subgraph
        .or_else(|| spec.nodes[start].graph.is_some().then_some(start));
    if let Some(subgraph) = subgraph {
        return Some(GraphIssue::error(
            format!("nodes[{subgraph}].graph"),
            format!(
                "`{}` runs a subgraph inside the branch `{name}` of edges[{edge}]: a subgraph \
                 runs on the graph's main line, not inside a parallel branch; join first, \
                 or fan out inside the subgraph",
                spec.nodes[subgraph].name
            ),
        ));
    }
    reach.nested.map(|nested| {
        GraphIssue::error(
            format!("edges[{nested}].to"),
            format!(
                "a fan-out inside the branch `{name}` of edges[{edge}]: branches cannot split \
                 again before they join; join them first"
            ),
        )
    })
}

/// The one join node the branches meet at, or why there is none (they meet nowhere, or at
/// several joins).
fn meeting_join(spec: &GraphSpec, reaches: &[Reach]) -> Result<usize, String> {
    let all: BTreeSet<usize> = reaches
        .iter()
        .flat_map(|reach| reach.joins.iter().copied())
        .collect();
    match all.iter().copied().collect::<Vec<_>>().as_slice() {
        [] => Err(
            "these parallel branches never meet: give the node they lead to `join: all` \
             (or `any`, or a number of branches)"
                .to_owned(),
        ),
        [join] => Ok(*join),
        several => {
            let names: Vec<String> = several
                .iter()
                .map(|&j| format!("`{}`", spec.nodes[j].name))
                .collect();
            Err(format!(
                "the branches reach different join nodes ({}): all branches of one fan-out \
                 meet at one join",
                names.join(", ")
            ))
        }
    }
}

/// How many branches of edge `edge` can reach `join`; each one that cannot is an issue.
fn count_arrivals(
    spec: &GraphSpec,
    edge: usize,
    starts: &[usize],
    reaches: &[Reach],
    join: usize,
    issues: &mut Vec<GraphIssue>,
) -> usize {
    let mut arriving = 0;
    for (&start, reach) in starts.iter().zip(reaches) {
        if reach.joins.contains(&join) {
            arriving += 1;
        } else {
            issues.push(GraphIssue::error(
                format!("edges[{edge}].to"),
                format!(
                    "branch `{}` can never reach the join `{}`: every path from it ends \
                     first, so the join would wait for it forever",
                    spec.nodes[start].name, spec.nodes[join].name
                ),
            ));
        }
    }
    arriving
}

/// Reports a `join:` on `join` that waits for more of the `branches` of edge `edge` than the
/// `arriving` ones that lead to it.
fn check_join_count(
    spec: &GraphSpec,
    edge: usize,
    join: usize,
    branches: usize,
    arriving: usize,
    issues: &mut Vec<GraphIssue>,
) {
    let Some(mode) = spec.nodes[join].join else {
        return;
    };
    let needed = mode.needed(branches);
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
