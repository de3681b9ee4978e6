//! Drawing a graph: the seed's text form, Mermaid and Graphviz DOT.
//!
//! Names and conditions come from agent files, which may come from anywhere: every label is
//! escaped for its target (terminal control characters in text, Mermaid entity codes, DOT
//! string escapes), and diagram identifiers are generated (`n0`, `n1` …), never taken from a
//! name, so no name or condition can end a label early and add nodes, edges or directives.

mod clusters;

use super::Graph;
use agentctl_core::{GRAPH_END, GraphMap, Join};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The seed's text form (seed 002 §4.2.2): the entry, the nodes with their agents, and the
/// edges with their conditions.
///
/// ```text
/// 📊 Agent Graph: debug-flow
///
/// Entry: analyzer
///
/// Nodes:
///   • analyzer (debug-analyzer)
///   • fixer (code-fixer)
///
/// Edges:
///   analyzer → fixer [if: analysis.can_auto_fix]
///   analyzer → END [if: analysis.needs_human]
/// ```
///
/// A hand-off map ([`Graph::from_handoffs`]) is titled `Handoff Graph`, its edges show their
/// `when` as `[when: …]`, and agents that were not found are marked `(not found)`.
pub fn render_text(graph: &Graph) -> String {
    let handoffs = graph.is_handoff_map();
    let mut out = String::new();
    let title = if handoffs {
        "Handoff Graph"
    } else {
        "Agent Graph"
    };
    let _ = writeln!(out, "📊 {title}: {}\n", terminal(graph.name()));
    let _ = writeln!(out, "Entry: {}\n", terminal(&graph.entry().name));
    out.push_str("Nodes:\n");
    for node in graph.nodes() {
        let name = terminal(&node.name);
        if graph.missing().contains(&node.name) {
            let _ = writeln!(out, "  • {name} (not found)");
        } else if let Some(subgraph) = node.graph.as_deref() {
            let _ = write!(out, "  • {name} (graph {})", terminal(subgraph));
        } else if node.agent == node.name {
            let _ = write!(out, "  • {name}");
        } else {
            let _ = write!(out, "  • {name} ({})", terminal(&node.agent));
        }
        if let Some(join) = node.join {
            let _ = write!(out, " [join: {join}]");
        }
        if let Some(map) = &node.map {
            let _ = write!(
                out,
                " [map: over {} as {}]",
                terminal(&map.over),
                terminal(&map.item)
            );
        }
        if !graph.missing().contains(&node.name) {
            out.push('\n');
        }
        if let Some(child) = graph.subgraph(&node.name) {
            clusters::text_nested(&mut out, child, 6);
        }
    }
    out.push_str("\nEdges:\n");
    if graph.spec().edges.is_empty() {
        out.push_str("  (none)\n");
    }
    let keyword = if handoffs { "when" } else { "if" };
    for edge in &graph.spec().edges {
        let to = match edge.to.single() {
            Some(to) => terminal(to),
            None => format!("{} (parallel)", terminal(&edge.to.to_string())),
        };
        let _ = write!(out, "  {} → {to}", terminal(&edge.from));
        if let Some(condition) = &edge.condition {
            let _ = write!(out, " [{keyword}: {}]", terminal(condition));
        }
        out.push('\n');
    }
    out
}

/// A Mermaid flowchart of the graph, from `START` to `END`, conditions as edge labels.
///
/// Nodes whose run can end because no edge matches get a dotted edge to `END`. With `path`
/// (the node names a run visited, in order, ending with `END` when it finished), the visited
/// nodes and the edges taken are highlighted.
pub fn render_mermaid(graph: &Graph, path: Option<&[String]>) -> String {
    let layout = Layout::new(graph, path);
    let mut out = String::from("flowchart TD\n");
    out.push_str("    graph_start([\"START\"])\n");
    let mut nested = String::new();
    for (i, node) in layout.nodes.iter().enumerate() {
        let declared = format!("n{i}[\"{}\"]", mermaid_text(&node.label()));
        match graph.subgraph(node.name) {
            Some(child) => {
                let id = format!("n{i}");
                clusters::mermaid_cluster(&mut out, &mut nested, &id, &declared, child, 1);
            }
            None => {
                let _ = writeln!(out, "    {declared}");
            }
        }
    }
    if layout.has_end {
        out.push_str("    graph_end([\"END\"])\n");
    }
    for edge in &layout.edges {
        let arrow = match (edge.dotted, edge.parallel) {
            (true, _) => "-.->",
            (false, true) => "==>",
            (false, false) => "-->",
        };
        let _ = write!(out, "    {} {arrow}", edge.from.mermaid_id());
        if let Some(label) = edge.label {
            let _ = write!(out, "|\"{}\"|", mermaid_text(label));
        }
        let _ = writeln!(out, " {}", edge.to.mermaid_id());
    }
    out.push_str(&nested);
    let missing: Vec<String> = layout
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| node.missing)
        .map(|(i, _)| format!("n{i}"))
        .collect();
    if !missing.is_empty() {
        out.push_str("    classDef missing stroke-dasharray: 5 5\n");
        let _ = writeln!(out, "    class {} missing", missing.join(","));
    }
    if layout.traced {
        let mut visited: Vec<String> = layout
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| node.visited)
            .map(|(i, _)| format!("n{i}"))
            .collect();
        visited.insert(0, "graph_start".to_owned());
        if layout.end_visited {
            visited.push("graph_end".to_owned());
        }
        out.push_str("    classDef visited fill:#fde68a,stroke:#b45309,stroke-width:2px\n");
        let _ = writeln!(out, "    class {} visited", visited.join(","));
        let taken: Vec<String> = layout
            .edges
            .iter()
            .enumerate()
            .filter(|(_, edge)| edge.taken)
            .map(|(i, _)| i.to_string())
            .collect();
        if !taken.is_empty() {
            let _ = writeln!(
                out,
                "    linkStyle {} stroke:#b45309,stroke-width:3px",
                taken.join(",")
            );
        }
    }
    out
}

/// A Graphviz digraph of the graph (render it with `dot -Tsvg`), like [`render_mermaid`]:
/// `START` and `END`, conditions as edge labels, dotted edges where no edge matching ends the
/// run, and `path` highlighted.
pub fn render_dot(graph: &Graph, path: Option<&[String]>) -> String {
    let layout = Layout::new(graph, path);
    let mut out = format!("digraph \"{}\" {{\n", dot_text(graph.name()));
    let mut nested = String::new();
    out.push_str("    rankdir=TB;\n");
    out.push_str("    node [shape=box, style=rounded, fontname=\"Helvetica\"];\n");
    out.push_str("    edge [fontname=\"Helvetica\", fontsize=10];\n");
    let _ = writeln!(
        out,
        "    graph_start [label=\"START\", shape=oval, {}];",
        dot_style(&[], layout.traced)
    );
    for (i, node) in layout.nodes.iter().enumerate() {
        let style = if node.missing {
            &["rounded", "dashed"][..]
        } else {
            &["rounded"][..]
        };
        let declared = format!(
            "n{i} [label=\"{}\", {}];",
            dot_text(&node.dot_label()),
            dot_style(style, node.visited)
        );
        match graph.subgraph(node.name) {
            Some(child) => {
                let id = format!("n{i}");
                clusters::dot_cluster(&mut out, &mut nested, &id, &declared, child, 1);
            }
            None => {
                let _ = writeln!(out, "    {declared}");
            }
        }
    }
    if layout.has_end {
        let _ = writeln!(
            out,
            "    graph_end [label=\"END\", shape=oval, {}];",
            dot_style(&[], layout.end_visited)
        );
    }
    for edge in &layout.edges {
        let mut attributes = Vec::new();
        if let Some(label) = edge.label {
            attributes.push(format!("label=\"{}\"", dot_text(label)));
        }
        if edge.dotted {
            attributes.push("style=dotted".to_owned());
        }
        if edge.parallel {
            attributes.push("style=bold".to_owned());
        }
        if edge.taken {
            attributes.push("color=\"#b45309\", penwidth=3".to_owned());
        }
        let attributes = if attributes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attributes.join(", "))
        };
        let _ = writeln!(
            out,
            "    {} -> {}{attributes};",
            edge.from.dot_id(),
            edge.to.dot_id()
        );
    }
    out.push_str(&nested);
    out.push_str("}\n");
    out
}

/// A DOT `style` (plus fill for visited nodes): start and end are filled grey, visited nodes
/// amber.
pub(super) fn dot_style(styles: &[&str], visited: bool) -> String {
    let mut styles = styles.to_vec();
    let filled = styles.is_empty() || visited;
    if filled {
        styles.push("filled");
    }
    let mut out = format!("style=\"{}\"", styles.join(","));
    if visited {
        out.push_str(", fillcolor=\"#fde68a\", color=\"#b45309\"");
    } else if filled {
        out.push_str(", fillcolor=\"#e5e7eb\"");
    }
    out
}

/// The graph as the diagrams draw it.
pub(super) struct Layout<'a> {
    pub(super) nodes: Vec<Node<'a>>,
    pub(super) edges: Vec<Edge<'a>>,
    pub(super) has_end: bool,
    /// Whether a path was given.
    traced: bool,
    end_visited: bool,
}

pub(super) struct Node<'a> {
    pub(super) name: &'a str,
    agent: &'a str,
    /// The node runs a graph (`agent` is its name).
    graph: bool,
    /// `join: all`, shown after the name.
    join: Option<Join>,
    /// `map: {over, as}`, shown after the name.
    map: Option<&'a GraphMap>,
    missing: bool,
    visited: bool,
}

impl Node<'_> {
    pub(super) fn label(&self) -> String {
        let mut label = self.plain_label();
        if let Some(join) = self.join {
            label.push_str(&format!(" ⋈ join: {join}"));
        }
        if let Some(map) = self.map {
            label.push_str(&format!(" ∀ {} in {}", map.item, map.over));
        }
        label
    }

    fn plain_label(&self) -> String {
        if self.missing {
            format!("{} (not found)", self.name)
        } else if self.graph {
            format!("{} (graph {})", self.name, self.agent)
        } else if self.agent == self.name {
            self.name.to_owned()
        } else {
            format!("{} ({})", self.name, self.agent)
        }
    }

    pub(super) fn dot_label(&self) -> String {
        let label = if self.missing {
            format!("{}\n(not found)", self.name)
        } else if self.graph {
            format!("{}\n(graph {})", self.name, self.agent)
        } else if self.agent == self.name {
            self.name.to_owned()
        } else {
            format!("{}\n({})", self.name, self.agent)
        };
        let mut label = label;
        if let Some(join) = self.join {
            label.push_str(&format!("\njoin: {join}"));
        }
        if let Some(map) = self.map {
            label.push_str(&format!("\n∀ {} in {}", map.item, map.over));
        }
        label
    }
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Point {
    Start,
    Node(usize),
    End,
}

impl Point {
    fn mermaid_id(self) -> String {
        match self {
            Point::Start => "graph_start".to_owned(),
            Point::Node(i) => format!("n{i}"),
            Point::End => "graph_end".to_owned(),
        }
    }

    fn dot_id(self) -> String {
        self.mermaid_id()
    }
}

pub(super) struct Edge<'a> {
    pub(super) from: Point,
    pub(super) to: Point,
    pub(super) label: Option<&'a str>,
    /// An implicit edge: the run ends there when no edge matches.
    pub(super) dotted: bool,
    /// One of the branches of a fan-out (`to: [a, b]`): drawn thick.
    pub(super) parallel: bool,
    taken: bool,
}

impl<'a> Layout<'a> {
    /// What to draw of `graph`; with `path`, the nodes and edges the run took are marked.
    pub(super) fn new(graph: &'a Graph, path: Option<&[String]>) -> Self {
        let index: HashMap<&str, usize> = graph
            .nodes()
            .iter()
            .enumerate()
            .rev()
            .map(|(i, node)| (node.name.as_str(), i))
            .collect();
        let mut nodes = nodes_of(graph);
        let end_of = |name: &str| {
            if name == GRAPH_END {
                Some(Point::End)
            } else {
                index.get(name).map(|&i| Point::Node(i))
            }
        };
        let mut edges = Vec::with_capacity(graph.spec().edges.len() + 1);
        if let Some(&entry) = index.get(graph.entry().name.as_str()) {
            edges.push(Edge {
                from: Point::Start,
                to: Point::Node(entry),
                label: None,
                dotted: false,
                parallel: false,
                taken: false,
            });
        }
        push_declared_edges(graph, &end_of, &mut edges);
        if !graph.is_handoff_map() {
            push_implicit_ends(graph, &mut edges);
        }
        let has_end = edges.iter().any(|edge| edge.to == Point::End);
        let mut layout = Layout {
            nodes: Vec::new(),
            edges,
            has_end,
            traced: path.is_some_and(|path| !path.is_empty()),
            end_visited: false,
        };
        if let Some(path) = path {
            layout.trace(&mut nodes, path, &end_of);
        }
        layout.nodes = nodes;
        layout
    }

    /// Marks the nodes of `path` visited and, for each step, the first edge that joins them.
    fn trace(
        &mut self,
        nodes: &mut [Node<'_>],
        path: &[String],
        end_of: &dyn Fn(&str) -> Option<Point>,
    ) {
        let mut previous = Point::Start;
        for name in path {
            let Some(current) = end_of(name) else {
                previous = Point::Start;
                continue;
            };
            match current {
                Point::Node(i) => nodes[i].visited = true,
                // A hand-off map has no END to light up.
                Point::End => self.end_visited = self.has_end,
                Point::Start => {}
            }
            if let Some(edge) = self
                .edges
                .iter_mut()
                .find(|edge| edge.from == previous && edge.to == current)
            {
                edge.taken = true;
            }
            previous = current;
        }
    }
}

/// One drawn node per node of `graph`, none visited yet.
fn nodes_of(graph: &Graph) -> Vec<Node<'_>> {
    let missing = graph.missing();
    graph
        .nodes()
        .iter()
        .map(|node| Node {
            name: &node.name,
            agent: node.runs(),
            graph: node.graph.is_some(),
            join: node.join,
            map: node.map.as_ref(),
            missing: missing.contains(&node.name),
            visited: false,
        })
        .collect()
}

/// Adds one drawn edge per target of each edge the graph declares, when both of its ends are
/// known (`end_of` finds them); the branches of a fan-out are marked parallel.
fn push_declared_edges<'a>(
    graph: &'a Graph,
    end_of: &dyn Fn(&str) -> Option<Point>,
    edges: &mut Vec<Edge<'a>>,
) {
    for edge in &graph.spec().edges {
        for target in edge.to.names() {
            if let (Some(from), Some(to)) = (end_of(&edge.from), end_of(target)) {
                edges.push(Edge {
                    from,
                    to,
                    label: edge.condition.as_deref(),
                    dotted: false,
                    parallel: edge.to.is_fan_out(),
                    taken: false,
                });
            }
        }
    }
}

/// Adds a dotted edge to END from each node where the run ends when no edge matches: no edge
/// without a condition leaves it, and none leads to END explicitly.
fn push_implicit_ends(graph: &Graph, edges: &mut Vec<Edge<'_>>) {
    for (i, node) in graph.nodes().iter().enumerate() {
        let leaving = || graph.spec().edges.iter().filter(|e| e.from == node.name);
        let has_default = leaving().any(|edge| edge.condition.is_none());
        let ends_explicitly = leaving().any(|edge| edge.to == GRAPH_END);
        if !has_default && !ends_explicitly {
            edges.push(Edge {
                from: Point::Node(i),
                to: Point::End,
                label: None,
                dotted: true,
                parallel: false,
                taken: false,
            });
        }
    }
}

/// Text for a terminal: control characters and invisible direction overrides (which can make
/// a name look like another, or move the cursor) are shown escaped; line breaks and tabs
/// become spaces so that one edge stays one line.
pub(super) fn terminal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() || is_invisible_format(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` with invisible formatting characters written out (`\u{202e}`), so that a diagram
/// cannot show one name as another.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_invisible_format(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// Zero-width and bidirectional formatting characters (Trojan Source).
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// Text inside a quoted Mermaid label. Only letters, digits, spaces and punctuation that no
/// Mermaid rule reads inside quotes are written as they are; everything else — quotes, `<`,
/// `&`, `#`, `;`, `:`, `%`, backticks, `|`, braces, non-ASCII — becomes an entity code
/// (`#38;`), which Mermaid decodes when it draws the label. Control characters become spaces,
/// invisible formatting characters `\u{…}`.
pub(super) fn mermaid_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in visible(text).chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | ' ' => out.push(c),
            '_' | '.' | ',' | '-' | '\'' | '(' | ')' | '=' | '!' | '+' | '*' | '/' | '?' | '['
            | ']' | '@' => out.push(c),
            c if c.is_control() => out.push(' '),
            c => {
                let _ = write!(out, "#{};", u32::from(c));
            }
        }
    }
    out
}

/// Text inside a quoted DOT string: `"` and `\` escaped (so Graphviz's own escapes such as
/// `\N` or `\l` cannot be written), `&` as `&amp;` (Graphviz reads entities in labels), line
/// breaks as `\n`, other control characters as spaces.
pub(super) fn dot_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in visible(text).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '&' => out.push_str("&amp;"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(
            terminal("a\u{1b}[2Jb\nc\u{202e}"),
            "a\\u{1b}[2Jb c\\u{202e}"
        );
        assert_eq!(
            mermaid_text("a && b == 'x' \"]; %% é"),
            "a #38;#38; b == 'x' #34;]#59; #37;#37; #233;"
        );
        assert_eq!(dot_text("a\"b\\N&\nc\u{7}"), "a\\\"b\\\\N&amp;\\nc ");
    }
}
