//! Subgraph nodes drawn as nested clusters: the node and the graph it runs inside one box,
//! the node leading (dotted) into the subgraph's entry, the subgraph's ends into an `end` of
//! its own. Identifiers extend the node's (`n1_0`, `n1_end`), never taken from a name.

use super::{Layout, Point, dot_style, dot_text, mermaid_text, terminal};
use crate::graph::Graph;
use std::fmt::Write as _;

/// The identifier of `point` of a subgraph run by node `id`.
fn point_id(id: &str, point: Point) -> String {
    match point {
        Point::Start => id.to_owned(),
        Point::Node(j) => format!("{id}_{j}"),
        Point::End => format!("{id}_end"),
    }
}

/// The subgraph `child` of node `id` as a Mermaid `subgraph` block holding the node
/// (`declared`) and the child's nodes; its edges go to `edges`.
pub(super) fn mermaid_cluster(
    out: &mut String,
    edges: &mut String,
    id: &str,
    declared: &str,
    child: &Graph,
    depth: usize,
) {
    let pad = "    ".repeat(depth);
    let layout = Layout::new(child, None);
    let title = mermaid_text(&format!("graph {}", child.name()));
    let _ = writeln!(out, "{pad}subgraph c_{id}[\"{title}\"]");
    let _ = writeln!(out, "{pad}    {declared}");
    for (j, node) in layout.nodes.iter().enumerate() {
        let node_id = format!("{id}_{j}");
        let node_declared = format!("{node_id}[\"{}\"]", mermaid_text(&node.label()));
        match child.subgraph(node.name) {
            Some(grandchild) => {
                mermaid_cluster(out, edges, &node_id, &node_declared, grandchild, depth + 1);
            }
            None => {
                let _ = writeln!(out, "{pad}    {node_declared}");
            }
        }
    }
    if layout.has_end {
        let _ = writeln!(out, "{pad}    {id}_end([\"end\"])");
    }
    let _ = writeln!(out, "{pad}end");
    for edge in &layout.edges {
        let arrow = match (edge.from, edge.dotted, edge.parallel) {
            (Point::Start, ..) | (_, true, _) => "-.->",
            (_, false, true) => "==>",
            _ => "-->",
        };
        let _ = write!(edges, "    {} {arrow}", point_id(id, edge.from));
        if let Some(label) = edge.label {
            let _ = write!(edges, "|\"{}\"|", mermaid_text(label));
        }
        let _ = writeln!(edges, " {}", point_id(id, edge.to));
    }
}

/// The subgraph `child` of node `id` as a Graphviz `cluster_` subgraph holding the node
/// (`declared`) and the child's nodes; its edges go to `edges`.
pub(super) fn dot_cluster(
    out: &mut String,
    edges: &mut String,
    id: &str,
    declared: &str,
    child: &Graph,
    depth: usize,
) {
    let pad = "    ".repeat(depth);
    let layout = Layout::new(child, None);
    let title = dot_text(&format!("graph {}", child.name()));
    let _ = writeln!(out, "{pad}subgraph cluster_{id} {{");
    let _ = writeln!(out, "{pad}    label=\"{title}\";");
    let _ = writeln!(out, "{pad}    style=\"rounded,dashed\";");
    let _ = writeln!(out, "{pad}    {declared}");
    for (j, node) in layout.nodes.iter().enumerate() {
        let node_id = format!("{id}_{j}");
        let node_declared = format!(
            "{node_id} [label=\"{}\", {}];",
            dot_text(&node.dot_label()),
            dot_style(&["rounded"], false)
        );
        match child.subgraph(node.name) {
            Some(grandchild) => {
                dot_cluster(out, edges, &node_id, &node_declared, grandchild, depth + 1);
            }
            None => {
                let _ = writeln!(out, "{pad}    {node_declared}");
            }
        }
    }
    if layout.has_end {
        let _ = writeln!(
            out,
            "{pad}    {id}_end [label=\"end\", shape=oval, {}];",
            dot_style(&[], false)
        );
    }
    let _ = writeln!(out, "{pad}}}");
    for edge in &layout.edges {
        let mut attributes = Vec::new();
        if let Some(label) = edge.label {
            attributes.push(format!("label=\"{}\"", dot_text(label)));
        }
        if edge.dotted || edge.from == Point::Start {
            attributes.push("style=dotted".to_owned());
        }
        if edge.parallel {
            attributes.push("style=bold".to_owned());
        }
        let attributes = if attributes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attributes.join(", "))
        };
        let _ = writeln!(
            edges,
            "    {} -> {}{attributes};",
            point_id(id, edge.from),
            point_id(id, edge.to)
        );
    }
}

/// The subgraph `child` under its node in the text form: its entry, nodes and edges,
/// indented by `indent` spaces (deeper subgraphs further).
pub(super) fn text_nested(out: &mut String, child: &Graph, indent: usize) {
    let pad = " ".repeat(indent);
    let _ = writeln!(
        out,
        "{pad}entry {} · nodes and edges of {}:",
        terminal(&child.entry().name),
        terminal(child.name())
    );
    for node in child.nodes() {
        let runs = match node.graph.as_deref() {
            Some(graph) => format!("graph {}", terminal(graph)),
            None => terminal(&node.agent),
        };
        let _ = writeln!(out, "{pad}• {} ({runs})", terminal(&node.name));
        if let Some(grandchild) = child.subgraph(&node.name) {
            text_nested(out, grandchild, indent + 4);
        }
    }
    for edge in &child.spec().edges {
        let to = match edge.to.single() {
            Some(to) => terminal(to),
            None => format!("{} (parallel)", terminal(&edge.to.to_string())),
        };
        let _ = write!(out, "{pad}{} → {to}", terminal(&edge.from));
        if let Some(condition) = &edge.condition {
            let _ = write!(out, " [if: {}]", terminal(condition));
        }
        out.push('\n');
    }
}
