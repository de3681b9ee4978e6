//! The checks [`Graph::compile`](super::Graph::compile) runs over a declaration: structure,
//! conditions, output keys, reachability from the entry, a way to `END` from every node, and
//! edges that can never be taken.

use super::GraphIssue;
use super::flow::Flow;
use super::outputs::{GRAPH_VARIABLES, infer_outputs, with_outputs};
use crate::condition::Condition;
use crate::state::{CEL_RESERVED, MAX_STATE_KEY_LEN};
use agentctl_core::{EdgeTarget, GRAPH_END, GraphSpec};
use std::collections::{HashMap, HashSet};

/// What the checks found, and the edges' compiled conditions (by edge index).
pub(super) struct Analysis {
    pub(super) issues: Vec<GraphIssue>,
    pub(super) conditions: Vec<Option<Condition>>,
    /// For each node, the output key inferred for it (see [`infer_outputs`]).
    pub(super) inferred: Vec<Option<String>>,
    /// For each edge, the join node (index) a fan-out's branches meet at.
    pub(super) joins: Vec<Option<usize>>,
}

/// Every issue of `spec`, errors and warnings, in the order found (the checks
/// [`Graph::compile`](super::Graph::compile) runs, without building a graph).
///
/// ```
/// use agentctl_core::GraphSpec;
/// use agentctl_routing::check_spec;
///
/// let spec: GraphSpec = serde_json::from_value(serde_json::json!({
///     "entry": "analyser",
///     "nodes": [{"name": "analyzer", "agent": "debug-analyzer"}],
///     "maxSteps": 0
/// }))?;
/// let issues: Vec<String> = check_spec(&spec).iter().map(ToString::to_string).collect();
/// assert_eq!(issues, [
///     "maxSteps: maxSteps is 0: the graph could not run a single node",
///     "entry: the entry `analyser` is not a node; did you mean `analyzer`?",
/// ]);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn check_spec(spec: &GraphSpec) -> Vec<GraphIssue> {
    analyze(spec).issues
}

pub(super) fn analyze(spec: &GraphSpec) -> Analysis {
    let mut issues = Vec::new();
    if spec.max_steps == Some(0) {
        issues.push(GraphIssue::error(
            "maxSteps",
            "maxSteps is 0: the graph could not run a single node",
        ));
    }
    let index = node_names(spec, &mut issues);
    output_keys(spec, &mut issues);
    entry(spec, &index, &mut issues);
    let conditions = edges(spec, &index, &mut issues);
    reducers(spec, &mut issues);
    let flow = Flow::new(spec, &index);
    flow.shadowed_edges(spec, &mut issues);
    let joins = super::parallel::check(spec, &flow, &mut issues);
    super::mapping::check(spec, &flow, &mut issues);
    if let Some(&entry) = index.get(spec.entry.as_str()) {
        flow.unreachable(spec, entry, &mut issues);
    }
    flow.cannot_end(spec, &mut issues);
    let inferred = infer_outputs(spec, &conditions);
    unread_keys(&with_outputs(spec, &inferred), &conditions, &mut issues);
    Analysis {
        issues,
        conditions,
        inferred,
        joins,
    }
}

/// Checks node names; returns the index of each name's first node.
fn node_names<'a>(spec: &'a GraphSpec, issues: &mut Vec<GraphIssue>) -> HashMap<&'a str, usize> {
    if spec.nodes.is_empty() {
        issues.push(GraphIssue::error(
            "nodes",
            "the graph has no nodes: add at least one `{name, agent}`",
        ));
    }
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(spec.nodes.len());
    for (i, node) in spec.nodes.iter().enumerate() {
        let name = node.name.as_str();
        let field = format!("nodes[{i}].name");
        if name.trim().is_empty() {
            issues.push(GraphIssue::error(
                field,
                "the node has no name: edges refer to nodes by name",
            ));
        } else if name == GRAPH_END {
            issues.push(GraphIssue::error(
                field,
                "`END` is where edges stop (`to: END`): a node cannot be called that",
            ));
        } else if name.chars().any(char::is_control) {
            issues.push(GraphIssue::error(
                field,
                format!(
                    "the node name {} holds control characters: use letters, digits and `-`",
                    name.escape_debug()
                ),
            ));
        } else if let Some(first) = index.get(name) {
            issues.push(GraphIssue::error(
                field,
                format!("nodes[{first}] is already called `{name}`: node names are unique"),
            ));
        } else {
            index.insert(name, i);
        }
        match &node.graph {
            Some(_) if !node.agent.is_empty() => issues.push(GraphIssue::error(
                format!("nodes[{i}].graph"),
                format!("node `{name}` names both an agent and a graph: a node runs one of them"),
            )),
            Some(graph) if graph.trim().is_empty() => issues.push(GraphIssue::error(
                format!("nodes[{i}].graph"),
                format!("node `{name}` names no graph to run"),
            )),
            Some(_) if node.map.is_some() => issues.push(GraphIssue::error(
                format!("nodes[{i}].map"),
                format!("node `{name}` runs a graph: a subgraph node cannot be mapped yet"),
            )),
            Some(_) => {}
            None if node.agent.trim().is_empty() => issues.push(GraphIssue::error(
                format!("nodes[{i}].agent"),
                format!(
                    "node `{name}` names no agent to run (`agent:`, or `graph:` for a subgraph)"
                ),
            )),
            None => {}
        }
    }
    index
}

/// Output keys: readable by conditions, not a fixed name, one node each.
fn output_keys(spec: &GraphSpec, issues: &mut Vec<GraphIssue>) {
    let mut owners: HashMap<&str, usize> = HashMap::with_capacity(spec.nodes.len());
    for (i, node) in spec.nodes.iter().enumerate() {
        let key = node.output_key();
        let explicit = node.output.is_some();
        let field = if explicit {
            format!("nodes[{i}].output")
        } else {
            format!("nodes[{i}].name")
        };
        if let Some(problem) = output_key_problem(key, explicit) {
            issues.push(GraphIssue::error(field, problem));
        } else if let Some(&first) = owners.get(key) {
            if spec.reducers.contains_key(key) {
                continue;
            }
            issues.push(GraphIssue::error(
                field,
                format!(
                    "nodes[{first}] (`{}`) already stores its output under `{key}`: give each \
                     node its own `output:` key, or declare how their writes combine \
                     (`reducers: {{{key}: append}}`, or `merge`, `last`)",
                    spec.nodes[first].name
                ),
            ));
        } else {
            owners.insert(key, i);
        }
    }
}

/// Reducers: for a key some node stores, not a fixed name.
fn reducers(spec: &GraphSpec, issues: &mut Vec<GraphIssue>) {
    for key in spec.reducers.keys() {
        let field = format!("reducers.{key}");
        if GRAPH_VARIABLES.contains(&key.as_str()) {
            issues.push(GraphIssue::error(
                field,
                format!(
                    "`{key}` is a name conditions already have (input, state, last, node, \
                     step): no node stores it, so it has nothing to reduce"
                ),
            ));
        } else if !spec.nodes.iter().any(|node| node.output_key() == key) {
            issues.push(GraphIssue::warning(
                field,
                format!(
                    "no node stores its output under `{}`, so this reducer is never used",
                    key.escape_debug()
                ),
            ));
        }
    }
}

/// Why `key` cannot be an output key. A key defaulted from the node's name needs only to
/// avoid the fixed names (conditions can read any other key as `state['code-fixer']`); one
/// written as `output:` is meant to be read by name, so it must be a CEL identifier.
fn output_key_problem(key: &str, explicit: bool) -> Option<String> {
    if GRAPH_VARIABLES.contains(&key) {
        let fix = if explicit {
            "choose another key"
        } else {
            "give the node an `output:` key"
        };
        return Some(format!(
            "the output would be stored under `{key}`, a name conditions already have \
             (input, state, last, node, step): {fix}"
        ));
    }
    if !explicit {
        return None;
    }
    let mut chars = key.chars();
    let identifier = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && key.len() <= MAX_STATE_KEY_LEN;
    if !identifier {
        return Some(format!(
            "`{}` is not a valid output key: use letters, digits and underscores, starting \
             with a letter, up to {MAX_STATE_KEY_LEN} characters (conditions read it as a name)",
            key.escape_debug()
        ));
    }
    if CEL_RESERVED.contains(&key) || key.starts_with("__") {
        return Some(format!(
            "`{key}` is reserved by the CEL language: choose another key"
        ));
    }
    None
}

fn entry(spec: &GraphSpec, index: &HashMap<&str, usize>, issues: &mut Vec<GraphIssue>) {
    let entry = spec.entry.as_str();
    if entry.trim().is_empty() {
        issues.push(GraphIssue::error(
            "entry",
            "no entry: name the node the graph starts at",
        ));
    } else if entry == GRAPH_END {
        issues.push(GraphIssue::error(
            "entry",
            "the graph cannot start at END: name a node",
        ));
    } else if !index.contains_key(entry) {
        issues.push(GraphIssue::error(
            "entry",
            format!(
                "the entry `{}` is not a node{}",
                entry.escape_debug(),
                did_you_mean(entry, index.keys().copied())
            ),
        ));
    }
}

/// Checks each edge's ends and compiles its condition.
fn edges(
    spec: &GraphSpec,
    index: &HashMap<&str, usize>,
    issues: &mut Vec<GraphIssue>,
) -> Vec<Option<Condition>> {
    let mut conditions = Vec::with_capacity(spec.edges.len());
    for (i, edge) in spec.edges.iter().enumerate() {
        if edge.from == GRAPH_END {
            issues.push(GraphIssue::error(
                format!("edges[{i}].from"),
                "an edge cannot leave END: the graph stops there",
            ));
        } else if !index.contains_key(edge.from.as_str()) {
            issues.push(GraphIssue::error(
                format!("edges[{i}].from"),
                unknown_node(&edge.from, index),
            ));
        }
        targets(i, &edge.to, index, issues);
        let condition = edge.condition.as_deref().and_then(|expression| {
            Condition::parse(expression)
                .map_err(|error| {
                    issues.push(GraphIssue::error(
                        format!("edges[{i}].condition"),
                        format!(
                            "{error}; a condition is a CEL expression over the graph state, \
                             such as `analysis.can_auto_fix` or `fix.applied`"
                        ),
                    ));
                })
                .ok()
        });
        conditions.push(condition);
    }
    conditions
}

/// An edge's targets: nodes (or END for a plain edge); a fan-out names distinct nodes.
fn targets(i: usize, to: &EdgeTarget, index: &HashMap<&str, usize>, issues: &mut Vec<GraphIssue>) {
    let field = format!("edges[{i}].to");
    let Some(names) = to.is_fan_out().then(|| to.names()) else {
        let to = to.single().unwrap_or_default();
        if to != GRAPH_END && !index.contains_key(to) {
            let message = format!("{} (or END)", unknown_node(to, index));
            issues.push(GraphIssue::error(field, message));
        }
        return;
    };
    if names.is_empty() {
        issues.push(GraphIssue::error(
            field.clone(),
            "the list of nodes to run in parallel is empty: name at least one node",
        ));
    }
    let mut seen = HashSet::new();
    for name in names {
        if name == GRAPH_END {
            issues.push(GraphIssue::error(
                field.clone(),
                "END cannot be a parallel branch: branches run nodes and meet at a join node",
            ));
        } else if !index.contains_key(name.as_str()) {
            issues.push(GraphIssue::error(field.clone(), unknown_node(name, index)));
        } else if !seen.insert(name.as_str()) {
            issues.push(GraphIssue::error(
                field.clone(),
                format!("`{name}` is named twice: each branch runs a different node"),
            ));
        }
    }
}

fn unknown_node(name: &str, index: &HashMap<&str, usize>) -> String {
    format!(
        "no node named `{}`{}",
        name.escape_debug(),
        did_you_mean(name, index.keys().copied())
    )
}

/// Conditions reading a top-level name that is neither a fixed name nor any node's output
/// key (declared or inferred): such a condition can only be false (the key is never set),
/// which is rarely meant.
fn unread_keys(spec: &GraphSpec, conditions: &[Option<Condition>], issues: &mut Vec<GraphIssue>) {
    let outputs: Vec<&str> = spec.nodes.iter().map(|node| node.output_key()).collect();
    let stored: HashSet<&str> = outputs.iter().copied().collect();
    for (i, condition) in conditions.iter().enumerate() {
        let Some(condition) = condition else { continue };
        for name in condition.variables() {
            if GRAPH_VARIABLES.contains(&name) || stored.contains(name) {
                continue;
            }
            let stored: Vec<String> = outputs.iter().map(|key| format!("`{key}`")).collect();
            issues.push(GraphIssue::warning(
                format!("edges[{i}].condition"),
                format!(
                    "reads `{name}`, which no node stores, so it is never set (nodes store \
                     {}): give the node whose answer it is `output: {name}`",
                    if stored.is_empty() {
                        "nothing".to_owned()
                    } else {
                        stored.join(", ")
                    }
                ),
            ));
        }
    }
}

/// `; did you mean `x`?` for the closest of `candidates`, or nothing.
pub(super) fn did_you_mean<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    // Names are short; a long one (or a long candidate) gets no suggestion rather than a
    // quadratic comparison.
    const LONGEST: usize = 128;
    if name.len() > LONGEST {
        return String::new();
    }
    let limit = (name.chars().count() / 3).max(1);
    let best = candidates
        .filter(|candidate| !candidate.is_empty() && candidate.len() <= LONGEST)
        .map(|candidate| (distance(name, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        .min();
    best.map(|(_, candidate)| format!("; did you mean `{candidate}`?"))
        .unwrap_or_default()
}

/// Levenshtein distance over characters, for names (short).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("analyzer", "analyser"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("fixer", "fixer"), 0);
        assert_eq!(
            did_you_mean("fixr", ["fixer", "reviewer"].into_iter()),
            "; did you mean `fixer`?"
        );
        assert_eq!(did_you_mean("zzz", ["fixer"].into_iter()), "");
    }
}
