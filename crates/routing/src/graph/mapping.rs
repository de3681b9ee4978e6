//! Nodes run over a list (`map: {over: analysis.files, as: file}`): the list must be written by
//! a node that runs before (or be under the graph's `input`), and the element's name must not
//! hide a state key or a fixed name.

use super::GraphIssue;
use super::flow::Flow;
use super::outputs::GRAPH_VARIABLES;
use agentctl_core::GraphSpec;
use std::collections::VecDeque;

/// Checks every node's `map:`.
pub(super) fn check(spec: &GraphSpec, flow: &Flow, issues: &mut Vec<GraphIssue>) {
    for (i, node) in spec.nodes.iter().enumerate() {
        let Some(map) = &node.map else { continue };
        let over = format!("nodes[{i}].map.over");
        let key = map.over.split('.').next().unwrap_or_default();
        if key.is_empty() || map.over.split('.').any(str::is_empty) {
            issues.push(GraphIssue::error(
                over,
                format!(
                    "`{}` is not a path into the state: write a key and fields, dotted, such \
                     as `analysis.files`",
                    map.over.escape_debug()
                ),
            ));
        } else if key != "input" && flow.first[i] {
            let earlier = earlier_nodes(spec, flow, i);
            if !earlier.iter().any(|&e| spec.nodes[e].output_key() == key) {
                let written: Vec<String> = earlier
                    .iter()
                    .map(|&e| format!("`{}`", spec.nodes[e].output_key()))
                    .collect();
                issues.push(GraphIssue::error(
                    over,
                    format!(
                        "`map.over` reads `{key}`, which no node before `{}` writes (they \
                         write {}): name the output of a node that runs earlier",
                        node.name,
                        if written.is_empty() {
                            "nothing".to_owned()
                        } else {
                            written.join(", ")
                        }
                    ),
                ));
            }
        }
        let item = map.item.as_str();
        let field = format!("nodes[{i}].map.as");
        let identifier = item
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && item.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            issues.push(GraphIssue::error(
                field,
                format!(
                    "`{}` is not a name for the element: use letters, digits and underscores",
                    item.escape_debug()
                ),
            ));
        } else if GRAPH_VARIABLES.contains(&item)
            || spec.nodes.iter().any(|other| other.output_key() == item)
        {
            issues.push(GraphIssue::error(
                field,
                format!(
                    "`{item}` is already a state key or a fixed name: the element would hide \
                     it; choose another name"
                ),
            ));
        }
    }
}

/// The nodes from which some edge path leads to `node` (itself only on a loop).
fn earlier_nodes(spec: &GraphSpec, flow: &Flow, node: usize) -> Vec<usize> {
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); spec.nodes.len()];
    for (from, edges) in flow.live.iter().enumerate() {
        for &edge in edges {
            for &to in flow.target[edge].iter().flatten() {
                incoming[to].push(from);
            }
        }
    }
    let mut seen = vec![false; spec.nodes.len()];
    let mut queue = VecDeque::from([node]);
    while let Some(current) = queue.pop_front() {
        for &before in &incoming[current] {
            if !seen[before] {
                seen[before] = true;
                queue.push_back(before);
            }
        }
    }
    (0..spec.nodes.len())
        .filter(|&i| seen[i] && i != node)
        .collect()
}
