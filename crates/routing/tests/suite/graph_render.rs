//! Drawing graphs: the seed's text form, Mermaid checked by Mermaid's own parser and DOT
//! rendered by Graphviz, run paths highlighted, hand-off maps, and names or conditions trying
//! to break out of their labels.
//!
//! The Mermaid parser runs in Node (`npm ci --prefix crates/routing/tests/mermaid`) and DOT
//! through Graphviz's `dot`. Outside CI a missing tool skips that check with a message; under
//! `CI=true` it fails the test (`.ci/run` installs both).

use super::graph::{seed_graph, seed_spec};
use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, GraphSpec, Handoff, Scope, SourceFormat,
};
use agentctl_routing::{Graph, render_dot, render_mermaid, render_text};
use serde_json::{Value, json};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value == "true")
}

/// Skips (outside CI) or fails (in CI) for a missing tool.
#[track_caller]
fn missing_tool(what: &str, install: &str) {
    assert!(!in_ci(), "{what} is required under CI=true: {install}");
    println!("skipped: {what} is not available ({install})");
}

/// Runs `program args` with `input` on stdin; `None` when the program is not installed.
fn run(program: &Path, args: &[&str], input: &str) -> Option<std::process::Output> {
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => panic!("cannot run {}: {error}", program.display()),
    };
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    Some(child.wait_with_output().unwrap())
}

/// The SVG Graphviz draws from `dot`, or `None` (after skipping) when `dot` is not installed.
#[track_caller]
fn graphviz_svg(dot: &str) -> Option<String> {
    let Some(output) = run(Path::new("dot"), &["-Tsvg"], dot) else {
        missing_tool("Graphviz `dot`", "apt-get install graphviz");
        return None;
    };
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "dot refused the graph:\n{}\n---\n{dot}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).unwrap())
}

fn mermaid_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mermaid")
}

/// What Mermaid's parser understood of `diagram` (vertices and edges, labels decoded), or
/// `None` (after skipping) when Node or the parser's package is not installed.
#[track_caller]
fn mermaid_parse(diagram: &str) -> Option<Value> {
    let dir = mermaid_dir();
    let install = "npm ci --prefix crates/routing/tests/mermaid";
    if !dir.join("node_modules/mermaid").is_dir() {
        missing_tool("the Mermaid parser", install);
        return None;
    }
    let Some(output) = run(
        Path::new("node"),
        &[dir.join("check.mjs").to_str().unwrap()],
        diagram,
    ) else {
        missing_tool("Node.js", install);
        return None;
    };
    assert!(
        output.status.success(),
        "Mermaid refused the diagram:\n{}\n---\n{diagram}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// A vertex as `(id, text)`.
type Vertex = (String, String);
/// An edge as `(start, end, text)`.
type Link = (String, String, String);

/// The vertices and edges Mermaid parsed.
fn shape(parsed: &Value) -> (Vec<Vertex>, Vec<Link>) {
    let text = |value: &Value, key: &str| value[key].as_str().unwrap().to_owned();
    let vertices = parsed["vertices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (text(v, "id"), text(v, "text")))
        .collect();
    let edges = parsed["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (text(e, "start"), text(e, "end"), text(e, "text")))
        .collect();
    (vertices, edges)
}

fn owned<const N: usize>(pairs: [(&str, &str); N]) -> Vec<(String, String)> {
    pairs.map(|(a, b)| (a.to_owned(), b.to_owned())).to_vec()
}

#[test]
fn the_text_form_is_the_seeds() {
    let text = render_text(&seed_graph());
    assert_eq!(
        text,
        "📊 Agent Graph: debug-flow\n\
         \n\
         Entry: analyzer\n\
         \n\
         Nodes:\n  \
           • analyzer (debug-analyzer)\n  \
           • fixer (code-fixer)\n  \
           • reviewer (code-reviewer)\n\
         \n\
         Edges:\n  \
           analyzer → fixer [if: analysis.can_auto_fix]\n  \
           fixer → reviewer [if: fix.applied]\n  \
           analyzer → END [if: analysis.needs_human]\n"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn unconditional_edges_have_no_if() {
    let spec: GraphSpec = serde_json::from_value(json!({"entry": "a", "nodes": [
        {"name": "a", "agent": "a"}, {"name": "b", "agent": "writer"}
    ], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "END"}]}))
    .unwrap();
    let text = render_text(&Graph::compile("plain", &spec).unwrap());
    assert!(
        text.ends_with("Nodes:\n  • a\n  • b (writer)\n\nEdges:\n  a → b\n  b → END\n"),
        "{text}"
    );
}

#[test]
fn the_seed_graph_in_mermaid() {
    let mermaid = render_mermaid(&seed_graph(), None);
    insta::assert_snapshot!(mermaid);
    let Some(parsed) = mermaid_parse(&mermaid) else {
        return;
    };
    assert_eq!(parsed["type"], "flowchart-v2");
    let (vertices, edges) = shape(&parsed);
    assert_eq!(
        vertices,
        owned([
            ("graph_start", "START"),
            ("n0", "analyzer (debug-analyzer)"),
            ("n1", "fixer (code-fixer)"),
            ("n2", "reviewer (code-reviewer)"),
            ("graph_end", "END"),
        ])
    );
    let edges: Vec<String> = edges
        .iter()
        .map(|(from, to, text)| format!("{from}->{to}:{text}"))
        .collect();
    assert_eq!(
        edges,
        [
            "graph_start->n0:",
            "n0->n1:analysis.can_auto_fix",
            "n1->n2:fix.applied",
            "n0->graph_end:analysis.needs_human",
            "n1->graph_end:",
            "n2->graph_end:",
        ]
    );
    // The ends by "no edge matched" are dotted.
    let strokes: Vec<&str> = parsed["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["stroke"].as_str().unwrap())
        .collect();
    assert_eq!(strokes[4..], ["dotted", "dotted"]);
}

#[test]
fn the_seed_graph_in_dot_renders_with_graphviz() {
    let dot = render_dot(&seed_graph(), None);
    insta::assert_snapshot!(dot);
    let Some(svg) = graphviz_svg(&dot) else {
        return;
    };
    assert_eq!(svg.matches("class=\"node\"").count(), 5, "{svg}");
    assert_eq!(svg.matches("class=\"edge\"").count(), 6, "{svg}");
    for label in [
        "analysis.can_auto_fix",
        "fix.applied",
        "analysis.needs_human",
        "START",
        "END",
    ] {
        assert!(svg.contains(&format!(">{label}</text>")), "{label}\n{svg}");
    }
    assert!(svg.contains(">(debug&#45;analyzer)</text>"), "{svg}");
}

fn seed_path() -> Vec<String> {
    ["analyzer", "fixer", "reviewer", "END"]
        .map(str::to_owned)
        .to_vec()
}

#[test]
fn a_run_path_is_highlighted() {
    let graph = seed_graph();
    let path = seed_path();
    let mermaid = render_mermaid(&graph, Some(&path));
    insta::assert_snapshot!("path_mermaid", mermaid);
    let dot = render_dot(&graph, Some(&path));
    insta::assert_snapshot!("path_dot", dot);
    if let Some(parsed) = mermaid_parse(&mermaid) {
        let visited: Vec<&str> = parsed["vertices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| {
                v["classes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c == "visited")
            })
            .map(|v| v["id"].as_str().unwrap())
            .collect();
        assert_eq!(visited, ["graph_start", "n0", "n1", "n2", "graph_end"]);
        let styled: Vec<bool> = parsed["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| !e["style"].as_array().unwrap().is_empty())
            .collect();
        // START→analyzer, analyzer→fixer, fixer→reviewer and reviewer's end.
        assert_eq!(styled, [true, true, true, false, false, true]);
    }
    if let Some(svg) = graphviz_svg(&dot) {
        let taken = "<path fill=\"none\" stroke=\"#b45309\" stroke-width=\"3\"";
        assert_eq!(svg.matches(taken).count(), 4, "{svg}");
    }
    // The analyzer's END edge, when a human was needed.
    let ended = ["analyzer", "END"].map(str::to_owned);
    let dot = render_dot(&graph, Some(&ended));
    let taken: Vec<&str> = dot
        .lines()
        .filter(|line| line.contains("penwidth=3"))
        .collect();
    assert_eq!(
        taken,
        [
            "    graph_start -> n0 [color=\"#b45309\", penwidth=3];",
            "    n0 -> graph_end [label=\"analysis.needs_human\", color=\"#b45309\", penwidth=3];",
        ]
    );
}

/// Names and conditions written to break out of their labels: quotes and brackets that close
/// a Mermaid label, arrows, `%%` comments and `%%{init}%%` directives, `classDef`/`style`
/// lines, HTML, DOT's `\N` and `\l` escapes and quoted-string ends, terminal escapes, and a
/// condition spanning lines (CEL's triple-quoted strings).
fn hostile_spec() -> GraphSpec {
    serde_json::from_value(json!({
        "entry": "a\"] --> pwned[\"x",
        "nodes": [
            {"name": "a\"] --> pwned[\"x", "agent": "agent\"]; click a call alert(1); %% <img src=x onerror=alert(1)>", "output": "a"},
            {"name": "b|c`d`#quot;&lt;", "agent": "x\\N\\l\" shape=none label=\"owned", "output": "b"},
            {"name": "style n0 fill:#f00;", "agent": "classDef x fill:#000;", "output": "c"}
        ],
        "edges": [
            {"from": "a\"] --> pwned[\"x", "to": "b|c`d`#quot;&lt;", "condition": "a == '\"| pwned --> x[\"'"},
            {"from": "b|c`d`#quot;&lt;", "to": "style n0 fill:#f00;", "condition": "b == '''\n%%{init: {\"theme\": \"dark\"}}%%\n}; edge [color=red]; \"x\" -> \"y'''"},
            {"from": "style n0 fill:#f00;", "to": "END", "condition": "c == '\u{1b}]0;title\u{7}\u{202e}' || c == '</text><script>alert(1)</script>' || c == '\\\\N'"}
        ]
    }))
    .unwrap()
}

#[test]
fn labels_cannot_break_out_in_mermaid() {
    let spec = hostile_spec();
    let graph = Graph::compile("evil\"] --> x", &spec).unwrap();
    let mermaid = render_mermaid(&graph, Some(&[spec.nodes[0].name.clone()]));
    // One statement per line, labels quoted with nothing but safe characters inside.
    for line in mermaid.lines().skip(1) {
        assert!(line.starts_with("    "), "{line:?}");
        assert!(
            !line.contains("%%") && !line.contains('<') && !line.contains('`'),
            "{line:?}"
        );
    }
    let Some(parsed) = mermaid_parse(&mermaid) else {
        return;
    };
    let (vertices, edges) = shape(&parsed);
    let label = |i: usize| format!("{} ({})", spec.nodes[i].name, spec.nodes[i].agent);
    assert_eq!(
        vertices,
        [
            ("graph_start".to_owned(), "START".to_owned()),
            ("n0".to_owned(), label(0)),
            ("n1".to_owned(), label(1)),
            ("n2".to_owned(), label(2)),
            ("graph_end".to_owned(), "END".to_owned()),
        ]
    );
    let conditions: Vec<String> = edges
        .iter()
        .skip(1)
        .take(3)
        .map(|(_, _, text)| text.clone())
        .collect();
    let expected: Vec<String> = spec
        .edges
        .iter()
        .map(|edge| {
            // Control characters are drawn as spaces, invisible ones written out.
            edge.condition
                .as_deref()
                .unwrap()
                .chars()
                .map(|c| {
                    if c.is_control() {
                        ' '.to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect::<String>()
                .replace('\u{202e}', "\\u{202e}")
        })
        .collect();
    assert_eq!(conditions, expected);
    let ends: Vec<(String, String)> = edges.into_iter().map(|(from, to, _)| (from, to)).collect();
    assert_eq!(
        ends,
        owned([
            ("graph_start", "n0"),
            ("n0", "n1"),
            ("n1", "n2"),
            ("n2", "graph_end"),
            ("n0", "graph_end"),
            ("n1", "graph_end"),
        ])
    );
}

#[test]
fn labels_cannot_break_out_in_dot() {
    let spec = hostile_spec();
    let graph = Graph::compile("evil\"] --> x", &spec).unwrap();
    let dot = render_dot(&graph, None);
    insta::assert_snapshot!("hostile_dot", dot);
    let Some(svg) = graphviz_svg(&dot) else {
        return;
    };
    assert_eq!(svg.matches("class=\"node\"").count(), 5, "{svg}");
    assert_eq!(svg.matches("class=\"edge\"").count(), 6, "{svg}");
    // Graphviz drew the text as written, escaped for SVG, with no element of its own.
    assert!(!svg.contains("<script"), "{svg}");
    assert!(!svg.contains("<img"), "{svg}");
    assert!(
        svg.contains("&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{svg}"
    );
    assert!(svg.contains("b|c`d`#quot;&amp;lt;"), "{svg}");
    assert!(
        svg.contains("x\\N\\l&quot; shape=none label=&quot;owned"),
        "{svg}"
    );
    assert!(!svg.contains(">owned<"), "{svg}");
}

#[test]
fn labels_cannot_break_out_in_text() {
    let spec = hostile_spec();
    let text = render_text(&Graph::compile("g", &spec).unwrap());
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'));
    assert!(text.contains("\\u{1b}]0;title\\u{7}\\u{202e}"), "{text}");
    // Every edge stays on one line.
    let edges = text.split("Edges:\n").nth(1).unwrap();
    assert_eq!(edges.lines().count(), 3, "{edges}");
}

fn agent(name: &str, handoffs: &[(&str, Option<&str>)]) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: name.into(),
            handoffs: handoffs
                .iter()
                .map(|(to, when)| Handoff {
                    to: (*to).into(),
                    when: when.map(str::to_owned),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        },
        system_prompt: "P".into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: format!("{name}.md").into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

#[test]
fn a_plain_agent_is_drawn_as_its_handoff_map() {
    let triage = agent(
        "triage",
        &[
            ("fixer", Some("task.kind == 'bug'")),
            ("writer", None),
            ("ghost", None),
        ],
    );
    let fixer = agent("fixer", &[("reviewer", Some("fix.applied"))]);
    let reviewer = agent(
        "reviewer",
        &[("fixer", Some("!review.approved")), ("triage", None)],
    );
    let writer = agent("writer", &[]);
    let catalogue = [fixer, reviewer, writer];
    let graph = Graph::from_handoffs(&triage, &|name| {
        catalogue.iter().find(|a| a.name() == name).cloned()
    });
    assert!(graph.is_handoff_map());
    assert_eq!(graph.missing(), ["ghost"]);
    let text = render_text(&graph);
    insta::assert_snapshot!("handoffs_text", text);
    let mermaid = render_mermaid(&graph, None);
    insta::assert_snapshot!("handoffs_mermaid", mermaid);
    let dot = render_dot(&graph, None);
    insta::assert_snapshot!("handoffs_dot", dot);
    assert!(graph.next("triage", &serde_json::Map::new()).is_err());
    if let Some(parsed) = mermaid_parse(&mermaid) {
        let (vertices, edges) = shape(&parsed);
        assert_eq!(vertices.len(), 6, "{vertices:?}");
        assert_eq!(edges.len(), 7, "{edges:?}");
        let ghost = parsed["vertices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["text"] == "ghost (not found)")
            .unwrap();
        assert_eq!(ghost["classes"], json!(["missing"]));
    }
    if let Some(svg) = graphviz_svg(&dot) {
        assert_eq!(svg.matches("class=\"node\"").count(), 6, "{svg}");
        assert!(svg.contains("stroke-dasharray"), "{svg}");
    }
    // A recorded chain drawn over the map: hand-off maps have no END to light up.
    let chain = ["triage", "fixer", "reviewer", "END"].map(str::to_owned);
    let mermaid = render_mermaid(&graph, Some(&chain));
    assert!(!mermaid.contains("graph_end"), "{mermaid}");
    assert!(
        mermaid.contains("    class graph_start,n0,n1,n4 visited\n"),
        "{mermaid}"
    );
    assert!(mermaid.contains("    linkStyle 0,1,4 stroke"), "{mermaid}");
    if let Some(parsed) = mermaid_parse(&mermaid) {
        assert_eq!(parsed["vertices"].as_array().unwrap().len(), 6);
    }
    // An empty path highlights nothing.
    assert_eq!(render_dot(&graph, Some(&[])), dot);
}

#[test]
fn the_seed_spec_round_trips_through_yaml_front_matter() {
    // What a graph agent file holds parses to the same declaration.
    let yaml = "entry: analyzer\nnodes:\n  - {name: analyzer, agent: debug-analyzer, output: analysis}\n  - {name: fixer, agent: code-fixer, output: fix}\n  - {name: reviewer, agent: code-reviewer}\nedges:\n  - {from: analyzer, to: fixer, condition: analysis.can_auto_fix}\n  - {from: fixer, to: reviewer, condition: fix.applied}\n  - {from: analyzer, to: END, condition: analysis.needs_human}\n";
    let text = format!(
        "---\nname: debug-flow\ndescription: Analyze, fix, review\ngraph:\n{}---\n",
        indent(yaml)
    );
    let agent = agentctl_definitions::parse_str(
        &text,
        Path::new("debug-flow.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap();
    assert_eq!(agent.definition.spec.graph.as_ref(), Some(&seed_spec()));
    let graph = Graph::from_definition(&agent.definition).unwrap();
    assert_eq!(render_text(&graph), render_text(&seed_graph()));
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}
