//! Subgraphs: a node that runs a graph (`graph: review-flow`). A graph may not run itself,
//! directly or through the graphs it runs.

use super::GraphIssue;
use agentctl_core::GraphSpec;
use std::collections::HashSet;

/// The recursion errors of graph `name`: each node whose `graph:` leads back to `name`,
/// directly or through other graphs, is an error of field `nodes[i].graph` showing the cycle.
/// `find` returns the declaration of a graph agent by name (`None` for anything else, which
/// [`check_node_agents`](super::check_node_agents) reports).
///
/// ```
/// use agentctl_core::GraphSpec;
/// use agentctl_routing::check_recursion;
///
/// let review: GraphSpec = serde_json::from_value(serde_json::json!({
///     "entry": "again", "nodes": [{"name": "again", "graph": "main-flow"}]}))?;
/// let main: GraphSpec = serde_json::from_value(serde_json::json!({
///     "entry": "review", "nodes": [{"name": "review", "graph": "review-flow"}]}))?;
/// let find = |name: &str| (name == "review-flow").then(|| review.clone());
/// let issues = check_recursion("main-flow", &main, &find);
/// assert_eq!(issues[0].to_string(), "nodes[0].graph: node `review` runs graph `review-flow`, \
///     which runs `main-flow` again (main-flow → review-flow → main-flow): a graph cannot run \
///     itself");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn check_recursion(
    name: &str,
    spec: &GraphSpec,
    find: &dyn Fn(&str) -> Option<GraphSpec>,
) -> Vec<GraphIssue> {
    let mut issues = Vec::new();
    for (i, node) in spec.nodes.iter().enumerate() {
        let Some(graph) = node.graph.as_deref() else {
            continue;
        };
        let mut seen = HashSet::new();
        let mut path = vec![name.to_owned(), graph.to_owned()];
        if leads_back(name, graph, find, &mut seen, &mut path) {
            let message = if graph == name {
                format!(
                    "node `{}` runs graph `{graph}`, the graph it belongs to: a graph cannot \
                     run itself",
                    node.name
                )
            } else {
                format!(
                    "node `{}` runs graph `{graph}`, which runs `{name}` again ({}): a graph \
                     cannot run itself",
                    node.name,
                    path.join(" → ")
                )
            };
            issues.push(GraphIssue::error(format!("nodes[{i}].graph"), message));
        }
    }
    issues
}

/// Whether graph `at` runs `target`, directly or further down; `path` ends at `target` when
/// it does.
fn leads_back(
    target: &str,
    at: &str,
    find: &dyn Fn(&str) -> Option<GraphSpec>,
    seen: &mut HashSet<String>,
    path: &mut Vec<String>,
) -> bool {
    if at == target {
        return true;
    }
    if !seen.insert(at.to_owned()) {
        return false;
    }
    let Some(spec) = find(at) else {
        return false;
    };
    for node in &spec.nodes {
        let Some(next) = node.graph.as_deref() else {
            continue;
        };
        path.push(next.to_owned());
        if leads_back(target, next, find, seen, path) {
            return true;
        }
        path.pop();
    }
    false
}
