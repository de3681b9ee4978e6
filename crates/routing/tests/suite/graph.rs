//! Graphs: every check of a declaration, located by field (transitions are in `graph_step`).

use agentctl_core::{AgentDefinition, GraphSpec, Scope, SourceFormat};
use agentctl_routing::{Graph, IssueSeverity, NodeAgent, check_spec};
use serde_json::{Map, Value, json};

/// The seed's debug-flow graph (seed 002 §4.1.5), with the output keys its conditions read.
pub(crate) fn seed_spec() -> GraphSpec {
    spec(json!({
        "entry": "analyzer",
        "nodes": [
            {"name": "analyzer", "agent": "debug-analyzer", "output": "analysis"},
            {"name": "fixer", "agent": "code-fixer", "output": "fix"},
            {"name": "reviewer", "agent": "code-reviewer"}
        ],
        "edges": [
            {"from": "analyzer", "to": "fixer", "condition": "analysis.can_auto_fix"},
            {"from": "fixer", "to": "reviewer", "condition": "fix.applied"},
            {"from": "analyzer", "to": "END", "condition": "analysis.needs_human"}
        ]
    }))
}

pub(crate) fn seed_graph() -> Graph {
    Graph::compile("debug-flow", &seed_spec()).unwrap()
}

pub(crate) fn spec(value: Value) -> GraphSpec {
    serde_json::from_value(value).unwrap()
}

/// Every issue of a spec as `field: message` lines (`warning: ` first for warnings).
fn issues(value: Value) -> Vec<String> {
    check_spec(&spec(value))
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Asserts `issues` are exactly the `expected` prefixes, in order.
#[track_caller]
fn assert_issues(value: Value, expected: &[&str]) {
    let found = issues(value);
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (issue, prefix) in found.iter().zip(expected) {
        assert!(
            issue.starts_with(prefix),
            "{issue}\n  does not start with\n{prefix}"
        );
    }
}

pub(crate) fn state(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[test]
fn the_seed_graph_compiles_without_warnings() {
    let graph = seed_graph();
    assert_eq!(graph.name(), "debug-flow");
    assert_eq!(graph.entry().name, "analyzer");
    assert_eq!(graph.node("fixer").unwrap().agent, "code-fixer");
    assert!(graph.node("END").is_none());
    assert_eq!(graph.nodes().len(), 3);
    assert_eq!(graph.max_steps(), 25);
    assert_eq!(graph.spec(), &seed_spec());
    assert!(graph.warnings().is_empty(), "{:?}", graph.warnings());
    assert!(!graph.is_handoff_map());
}

#[test]
fn the_seed_as_written_stores_each_answer_where_its_conditions_read_it() {
    let mut spec = seed_spec();
    for node in &mut spec.nodes {
        node.output = None;
    }
    let graph = Graph::compile("debug-flow", &spec).unwrap();
    assert!(graph.warnings().is_empty(), "{:?}", graph.warnings());
    let keys: Vec<&str> = graph.nodes().iter().map(|node| node.output_key()).collect();
    assert_eq!(keys, ["analysis", "fix", "reviewer"]);
}

#[test]
fn a_key_no_node_can_store_is_still_a_warning() {
    let mut spec = seed_spec();
    for node in &mut spec.nodes {
        node.output = None;
    }
    // Two keys after the analyzer: which one its answer is cannot be told.
    spec.edges[2].condition = Some("diagnosis.needs_human".to_owned());
    let graph = Graph::compile("debug-flow", &spec).unwrap();
    let warnings: Vec<String> = graph.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "warning: edges[0].condition: reads `analysis`, which no node stores, so it is never set (nodes store `analyzer`, `fix`, `reviewer`): give the node whose answer it is `output: analysis`",
            "warning: edges[2].condition: reads `diagnosis`, which no node stores, so it is never set (nodes store `analyzer`, `fix`, `reviewer`): give the node whose answer it is `output: diagnosis`",
        ]
    );
    assert!(
        graph
            .warnings()
            .iter()
            .all(|w| w.severity == IssueSeverity::Warning)
    );
}

#[test]
fn structure_errors_are_located() {
    assert_issues(
        json!({"entry": "", "nodes": []}),
        &[
            "nodes: the graph has no nodes",
            "entry: no entry: name the node the graph starts at",
        ],
    );
    assert_issues(
        json!({"entry": "analyser", "nodes": [{"name": "analyzer", "agent": "a"}]}),
        &["entry: the entry `analyser` is not a node; did you mean `analyzer`?"],
    );
    assert_issues(
        json!({"entry": "END", "nodes": [{"name": "a", "agent": "x"}]}),
        &["entry: the graph cannot start at END"],
    );
    assert_issues(
        json!({"entry": "a", "nodes": [
            {"name": "a", "agent": "x"},
            {"name": "a", "agent": "y", "output": "other"},
            {"name": "END", "agent": "z", "output": "z"},
            {"name": " ", "agent": "", "output": "w"},
            {"name": "b\u{1b}[2J", "agent": "x", "output": "v"}
        ]}),
        &[
            "nodes[1].name: nodes[0] is already called `a`: node names are unique",
            "nodes[2].name: `END` is where edges stop (`to: END`): a node cannot be called that",
            "nodes[3].name: the node has no name",
            "nodes[3].agent: node ` ` names no agent to run",
            "nodes[4].name: the node name b\\u{1b}[2J holds control characters",
        ],
    );
    assert_issues(
        json!({"entry": "a", "nodes": [{"name": "a", "agent": "x"}], "edges": [
            {"from": "END", "to": "a"},
            {"from": "a", "to": "fixr"},
            {"from": "ghost", "to": "END"}
        ]}),
        &[
            "edges[0].from: an edge cannot leave END",
            "edges[1].to: no node named `fixr` (or END)",
            "edges[2].from: no node named `ghost`",
        ],
    );
    assert_issues(
        json!({"entry": "a", "nodes": [{"name": "a", "agent": "x"}], "maxSteps": 0}),
        &["maxSteps: maxSteps is 0"],
    );
}

#[test]
fn condition_syntax_errors_keep_their_column() {
    let found = issues(
        json!({"entry": "a", "nodes": [{"name": "a", "agent": "x", "output": "task"}], "edges": [
            {"from": "a", "to": "END", "condition": "task.status = 'x'"},
            {"from": "a", "to": "END", "condition": "after the fix"},
            {"from": "a", "to": "END", "condition": ""}
        ]}),
    );
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found[0].starts_with(
            "edges[0].condition: invalid condition `task.status = 'x'`: token recognition error at: '= ' (compare with `==`) at column 13; a condition is a CEL expression over the graph state"
        ),
        "{}",
        found[0]
    );
    assert!(
        found[1].starts_with("edges[1].condition: invalid condition `after the fix`: "),
        "{}",
        found[1]
    );
    assert!(
        found[2].starts_with("edges[2].condition: invalid condition ``: the condition is empty"),
        "{}",
        found[2]
    );
}

#[test]
fn output_keys_are_readable_names_that_do_not_collide() {
    assert_issues(
        json!({"entry": "a", "nodes": [
            {"name": "a", "agent": "x", "output": "fix-list"},
            {"name": "b", "agent": "x", "output": "in"},
            {"name": "c", "agent": "x", "output": "state"},
            {"name": "input", "agent": "x"},
            {"name": "d", "agent": "x", "output": "result"},
            {"name": "e", "agent": "x", "output": "result"},
            {"name": "result", "agent": "x"},
            {"name": "code-fixer", "agent": "x"},
            {"name": "f", "agent": "x", "output": "__proto"}
        ], "edges": [
            {"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "c", "to": "input"},
            {"from": "input", "to": "d"}, {"from": "d", "to": "e"}, {"from": "e", "to": "result"},
            {"from": "result", "to": "code-fixer"}, {"from": "code-fixer", "to": "f"}
        ]}),
        &[
            "nodes[0].output: `fix-list` is not a valid output key",
            "nodes[1].output: `in` is reserved by the CEL language",
            "nodes[2].output: the output would be stored under `state`, a name conditions already have (input, state, last, node, step): choose another key",
            "nodes[3].name: the output would be stored under `input`, a name conditions already have (input, state, last, node, step): give the node an `output:` key",
            "nodes[5].output: nodes[4] (`d`) already stores its output under `result`",
            "nodes[6].name: nodes[4] (`d`) already stores its output under `result`",
            "nodes[8].output: `__proto` is reserved by the CEL language",
        ],
    );
}

#[test]
fn unreachable_nodes_and_nodes_that_never_end_are_errors() {
    assert_issues(
        json!({"entry": "a", "nodes": [
            {"name": "a", "agent": "x"},
            {"name": "orphan", "agent": "x"},
            {"name": "behind", "agent": "x"}
        ], "edges": [
            {"from": "a", "to": "END"},
            {"from": "a", "to": "behind", "condition": "a.go"}
        ]}),
        &[
            "warning: edges[1]: never taken: edges[0] leaves `a` first and has no condition",
            "nodes[1].name: node `orphan` is unreachable: no edge that can be taken leads to it from the entry `a`",
            "nodes[2].name: node `behind` is unreachable",
        ],
    );
    // A loop with no way out: `spin` always goes to `again`, which always comes back.
    assert_issues(
        json!({"entry": "a", "nodes": [
            {"name": "a", "agent": "x"},
            {"name": "spin", "agent": "x"},
            {"name": "again", "agent": "x"}
        ], "edges": [
            {"from": "a", "to": "spin", "condition": "a.go"},
            {"from": "spin", "to": "again"},
            {"from": "again", "to": "spin"},
            {"from": "spin", "to": "END", "condition": "spin.done"}
        ]}),
        &[
            "warning: edges[3]: never taken: edges[1] leaves `spin` first",
            "nodes[1].name: node `spin` can never reach END: edges[1] always leads on and every path from there loops; add an edge to END or give edges[1] a condition",
            "nodes[2].name: node `again` can never reach END: edges[2] always leads on",
        ],
    );
    // Loops that can end are fine: a condition on the way back, or an END edge first.
    assert_issues(
        json!({"entry": "fixer", "nodes": [
            {"name": "fixer", "agent": "x", "output": "fix"},
            {"name": "reviewer", "agent": "y", "output": "review"}
        ], "edges": [
            {"from": "fixer", "to": "reviewer"},
            {"from": "reviewer", "to": "END", "condition": "review.approved"},
            {"from": "reviewer", "to": "fixer"}
        ]}),
        &[],
    );
    // A self-loop without a condition never ends.
    assert_issues(
        json!({"entry": "a", "nodes": [{"name": "a", "agent": "x"}], "edges": [{"from": "a", "to": "a"}]}),
        &["nodes[0].name: node `a` can never reach END"],
    );
}

#[test]
fn compile_fails_only_on_errors() {
    let bad = spec(json!({"entry": "nope", "nodes": [{"name": "a", "agent": "x"}]}));
    let error = Graph::compile("g", &bad).unwrap_err();
    assert_eq!(error.errors().count(), 1);
    assert_eq!(error.to_string(), "entry: the entry `nope` is not a node");
    // Warnings alone compile, and stay readable.
    let warned = spec(
        json!({"entry": "a", "nodes": [{"name": "a", "agent": "x"}], "edges": [
            {"from": "a", "to": "END"}, {"from": "a", "to": "a", "condition": "true"}
        ]}),
    );
    let graph = Graph::compile("g", &warned).unwrap();
    assert_eq!(graph.warnings().len(), 1);
    assert_eq!(graph.warnings()[0].field, "edges[1]");
}

#[test]
fn from_definition_needs_a_graph_block() {
    let mut agent = AgentDefinition {
        spec: Default::default(),
        system_prompt: "Helps.".into(),
        source: agentctl_core::AgentSource {
            format: SourceFormat::Native,
            path: "helper.md".into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    };
    agent.spec.name = "helper".into();
    let error = Graph::from_definition(&agent).unwrap_err();
    assert_eq!(
        error.to_string(),
        "graph: agent `helper` has no `graph:` block: it is a plain agent, not a graph"
    );
    agent.spec.name = "debug-flow".into();
    agent.spec.graph = Some(seed_spec());
    let graph = Graph::from_definition(&agent).unwrap();
    assert_eq!(graph.name(), "debug-flow");
}

#[test]
fn node_agents_are_checked_against_the_catalogue() {
    let graph = Graph::compile(
        "g",
        &spec(json!({"entry": "a", "nodes": [
            {"name": "a", "agent": "debug-analyzer"},
            {"name": "b", "agent": "code-fixr"},
            {"name": "c", "agent": "other-flow"},
            {"name": "d", "agent": "nobody"},
            {"name": "e", "agent": "hot"}
        ], "edges": [
            {"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "c", "to": "d"},
            {"from": "d", "to": "e"}
        ]})),
    )
    .unwrap();
    let found: Vec<String> = graph
        .check_agents(&|name| match name {
            "debug-analyzer" => NodeAgent::Agent,
            "other-flow" => NodeAgent::Graph,
            "hot" => NodeAgent::Unusable {
                reason: "hot.md:4:1: field `temperature`: temperature 7 is outside 0..=2".into(),
            },
            "code-fixr" => NodeAgent::Unknown {
                similar: vec!["code-fixer".into()],
            },
            _ => NodeAgent::Unknown {
                similar: Vec::new(),
            },
        })
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "nodes[1].agent: node `b` runs `code-fixr`, and no agent has that name; did you mean `code-fixer`?",
            "nodes[2].agent: node `c` runs `other-flow`, which is a graph agent: write `graph: other-flow` to run it as a subgraph",
            "nodes[3].agent: node `d` runs `nobody`, and no agent has that name",
            "nodes[4].agent: node `e` runs `hot`, which cannot run: hot.md:4:1: field `temperature`: temperature 7 is outside 0..=2",
        ]
    );
}
