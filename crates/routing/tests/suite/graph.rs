//! Graphs: every check of a declaration, located by field, and the transitions of the seed's
//! debug-flow graph over the JSON its agents answer.

use agentctl_core::{AgentDefinition, GraphSpec, Scope, SourceFormat};
use agentctl_routing::state::ChainFacts;
use agentctl_routing::{
    ConditionOutcome, EdgeOutcome, Graph, GraphStepError, IssueSeverity, NodeAgent, check_spec,
    graph_variables,
};
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

fn spec(value: Value) -> GraphSpec {
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

fn state(value: Value) -> Map<String, Value> {
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
fn the_seed_as_written_warns_that_no_node_stores_what_its_conditions_read() {
    let mut spec = seed_spec();
    for node in &mut spec.nodes {
        node.output = None;
    }
    let graph = Graph::compile("debug-flow", &spec).unwrap();
    let warnings: Vec<String> = graph.warnings().iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "warning: edges[0].condition: reads `analysis`, which no node stores, so it is never set (nodes store `analyzer`, `fixer`, `reviewer`): give the node whose answer it is `output: analysis`",
            "warning: edges[1].condition: reads `fix`, which no node stores, so it is never set (nodes store `analyzer`, `fixer`, `reviewer`): give the node whose answer it is `output: fix`",
            "warning: edges[2].condition: reads `analysis`, which no node stores, so it is never set (nodes store `analyzer`, `fixer`, `reviewer`): give the node whose answer it is `output: analysis`",
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
            "nodes[2].agent: node `c` runs `other-flow`, which is a graph agent: graphs cannot be nodes of other graphs yet; name a plain agent",
            "nodes[3].agent: node `d` runs `nobody`, and no agent has that name",
            "nodes[4].agent: node `e` runs `hot`, which cannot run: hot.md:4:1: field `temperature`: temperature 7 is outside 0..=2",
        ]
    );
}

/// The variables after `node` answered `answer` (the text of its final message).
fn after(
    node: &str,
    output_key: &str,
    answer: &str,
    mut state: Map<String, Value>,
) -> Map<String, Value> {
    let output = ChainFacts::output(answer);
    state.insert(output_key.to_owned(), output.clone());
    graph_variables(&state, node, 1, Some(&output))
}

#[test]
fn the_seed_graph_goes_to_the_fixer_when_the_analyzer_can_fix() {
    let graph = seed_graph();
    let input = state(json!({"input": "the login page crashes"}));
    let variables = after(
        "analyzer",
        "analysis",
        "```json\n{\"can_auto_fix\": true, \"needs_human\": false}\n```",
        input,
    );
    let next = graph.next("analyzer", &variables).unwrap();
    assert_eq!(next.to.as_deref(), Some("fixer"));
    assert_eq!(next.edge, Some(0));
    assert_eq!(next.condition.as_deref(), Some("analysis.can_auto_fix"));
    assert_eq!(next.reason(), "edge to `fixer` [if: analysis.can_auto_fix]");
    assert!(!next.ended());
    assert_eq!(
        next.considered,
        [EdgeOutcome {
            edge: 0,
            to: "fixer".into(),
            condition: Some("analysis.can_auto_fix".into()),
            outcome: ConditionOutcome::True,
        }]
    );

    let variables = after(
        "fixer",
        "fix",
        "{\"applied\": true, \"files\": [\"src/login.rs\"]}",
        state(json!({"input": "x", "analysis": {"can_auto_fix": true}})),
    );
    let next = graph.next("fixer", &variables).unwrap();
    assert_eq!(next.to.as_deref(), Some("reviewer"));
    assert_eq!(next.edge, Some(1));

    let next = graph.next("reviewer", &variables).unwrap();
    assert!(next.ended());
    assert_eq!(next.edge, None);
    assert_eq!(next.reason(), "`reviewer` has no outgoing edges");
}

#[test]
fn the_seed_graph_ends_when_a_human_is_needed() {
    let graph = seed_graph();
    let variables = after(
        "analyzer",
        "analysis",
        "{\"can_auto_fix\": false, \"needs_human\": true}",
        Map::new(),
    );
    let next = graph.next("analyzer", &variables).unwrap();
    assert!(next.ended());
    assert_eq!(next.edge, Some(2));
    assert_eq!(next.reason(), "edge to END [if: analysis.needs_human]");
    let outcomes: Vec<&ConditionOutcome> = next.considered.iter().map(|c| &c.outcome).collect();
    assert_eq!(
        outcomes,
        [&ConditionOutcome::False, &ConditionOutcome::True]
    );
}

#[test]
fn missing_keys_count_as_false_and_say_why_the_graph_ended() {
    let graph = seed_graph();
    let variables = after(
        "analyzer",
        "analysis",
        "{\"can_auto_fix\": false}",
        Map::new(),
    );
    let next = graph.next("analyzer", &variables).unwrap();
    assert!(next.ended());
    assert_eq!(next.edge, None);
    assert_eq!(
        next.reason(),
        "no edge from `analyzer` matched: `analysis.can_auto_fix` is false; \
         `analysis.needs_human`: `analysis` has no field `needs_human`"
    );
    assert_eq!(
        next.considered[1].outcome,
        ConditionOutcome::Missing("`analysis` has no field `needs_human`".into())
    );

    // The analyzer answered in prose: `analysis` is a string, which has no fields. That is
    // not a missing key but a type error, named with the node and the edge.
    let variables = after(
        "analyzer",
        "analysis",
        "I could not find the bug.",
        Map::new(),
    );
    let error = graph.next("analyzer", &variables).unwrap_err();
    assert!(matches!(error, GraphStepError::Condition { edge: 0, .. }));
    assert_eq!(
        error.to_string(),
        "graph `debug-flow`, node `analyzer`, edges[0] (to fixer): condition \
         `analysis.can_auto_fix`: `analysis` is a string, not a map: it has no fields"
    );

    // Nothing stored at all.
    let next = graph
        .next("fixer", &graph_variables(&Map::new(), "fixer", 2, None))
        .unwrap();
    assert_eq!(
        next.reason(),
        "no edge from `fixer` matched: `fix.applied`: no state key `fix`"
    );
    // `fix.applied` false.
    let variables = after("fixer", "fix", "{\"applied\": false}", Map::new());
    let next = graph.next("fixer", &variables).unwrap();
    assert_eq!(
        next.reason(),
        "no edge from `fixer` matched: `fix.applied` is false"
    );
}

#[test]
fn conditions_that_are_not_booleans_stop_the_graph() {
    let graph = Graph::compile(
        "scores",
        &spec(json!({"entry": "a", "nodes": [{"name": "a", "agent": "x", "output": "analysis"}], "edges": [
            {"from": "a", "to": "END", "condition": "analysis.score"},
        ]})),
    )
    .unwrap();
    let variables = graph_variables(&state(json!({"analysis": {"score": 3}})), "a", 1, None);
    let error = graph.next("a", &variables).unwrap_err();
    let GraphStepError::Condition {
        node,
        edge,
        to,
        error: cause,
        ..
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!((node.as_str(), *edge, to.as_str()), ("a", 0, "END"));
    assert_eq!(cause.expression, "analysis.score");
    assert!(
        error
            .to_string()
            .starts_with("graph `scores`, node `a`, edges[0] (to END): condition `analysis.score`: evaluates to an int (3), not a boolean"),
        "{error}"
    );
}

#[test]
fn the_first_true_edge_in_file_order_wins_and_a_default_edge_catches_the_rest() {
    let graph = Graph::compile(
        "review-loop",
        &spec(json!({"entry": "fixer", "maxSteps": 6, "nodes": [
            {"name": "fixer", "agent": "code-fixer", "output": "fix"},
            {"name": "reviewer", "agent": "code-reviewer", "output": "review"}
        ], "edges": [
            {"from": "fixer", "to": "reviewer"},
            {"from": "reviewer", "to": "END", "condition": "review.approved"},
            {"from": "reviewer", "to": "END", "condition": "step >= 5 && last == review && node == 'reviewer'"},
            {"from": "reviewer", "to": "fixer"}
        ]})),
    )
    .unwrap();
    assert_eq!(graph.max_steps(), 6);
    let next = graph
        .next("fixer", &graph_variables(&Map::new(), "fixer", 1, None))
        .unwrap();
    assert_eq!(
        (next.to.as_deref(), next.reason().as_str()),
        (Some("reviewer"), "edge to `reviewer`")
    );
    let review = json!({"approved": false});
    let mut store = Map::new();
    store.insert("review".into(), review.clone());
    let next = graph
        .next(
            "reviewer",
            &graph_variables(&store, "reviewer", 2, Some(&review)),
        )
        .unwrap();
    assert_eq!(next.to.as_deref(), Some("fixer"));
    assert_eq!(next.edge, Some(3));
    assert_eq!(next.considered.len(), 3);
    let next = graph
        .next(
            "reviewer",
            &graph_variables(&store, "reviewer", 5, Some(&review)),
        )
        .unwrap();
    assert_eq!((next.ended(), next.edge), (true, Some(2)));
    assert_eq!(
        graph.next("nobody", &store).unwrap_err().to_string(),
        "graph `review-loop` has no node `nobody`"
    );
}

#[test]
fn fixed_names_win_over_state_keys() {
    let store = state(json!({"node": "impostor", "step": 99, "state": 1, "input": "hi"}));
    let variables = graph_variables(&store, "analyzer", 3, None);
    assert_eq!(variables["node"], "analyzer");
    assert_eq!(variables["step"], 3);
    assert_eq!(variables["last"], Value::Null);
    assert_eq!(variables["input"], "hi");
    assert_eq!(variables["state"]["node"], "impostor");
}

#[test]
fn transitions_serialize_for_checkpoints() {
    let graph = seed_graph();
    let variables = after(
        "analyzer",
        "analysis",
        "{\"can_auto_fix\": false}",
        Map::new(),
    );
    let next = graph.next("analyzer", &variables).unwrap();
    let value = serde_json::to_value(&next).unwrap();
    assert_eq!(
        value,
        json!({
            "from": "analyzer", "to": null, "edge": null,
            "considered": [
                {"edge": 0, "to": "fixer", "condition": "analysis.can_auto_fix", "outcome": "false"},
                {"edge": 2, "to": "END", "condition": "analysis.needs_human", "outcome": "missing",
                 "reason": "`analysis` has no field `needs_human`"}
            ]
        })
    );
    let back: agentctl_routing::Transition = serde_json::from_value(value).unwrap();
    assert_eq!(back, next);
}

mod random {
    use super::*;
    use proptest::prelude::*;

    const CONDITIONS: [&str; 5] = ["s.a", "s.b", "!s.a", "s.missing", "step > 2"];

    /// A node name: one of five, END, or one that is not declared.
    fn name(i: usize) -> String {
        match i {
            0..=4 => format!("n{i}"),
            5 => "END".to_owned(),
            _ => "ghost".to_owned(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Any graph either compiles or says why; one that compiles steps only to its own
        /// nodes or END, and every run of it stays within maxSteps.
        #[test]
        fn random_graphs_compile_or_explain(
            count in 0usize..5,
            edges in proptest::collection::vec((0usize..7, 0usize..7, proptest::option::of(0usize..5)), 0..10),
            entry in 0usize..7,
            a in any::<bool>(),
            b in any::<bool>(),
        ) {
            let spec = GraphSpec {
                entry: name(entry),
                nodes: (0..count)
                    .map(|i| agentctl_core::GraphNode { name: name(i), agent: "x".into(), output: None })
                    .collect(),
                edges: edges
                    .iter()
                    .map(|&(from, to, condition)| agentctl_core::GraphEdge {
                        from: name(from),
                        to: name(to),
                        condition: condition.map(|c| CONDITIONS[c].to_owned()),
                    })
                    .collect(),
                max_steps: Some(8),
            };
            let graph = match Graph::compile("random", &spec) {
                Ok(graph) => graph,
                Err(issues) => {
                    prop_assert!(issues.errors().count() > 0);
                    for issue in &issues.0 {
                        prop_assert!(!issue.field.is_empty() && !issue.message.is_empty());
                    }
                    return Ok(());
                }
            };
            let store = state(json!({"s": {"a": a, "b": b}}));
            let mut at = graph.entry().name.clone();
            for step in 1..=graph.max_steps() {
                let next = graph.next(&at, &graph_variables(&store, &at, step, None)).unwrap();
                let Some(to) = next.to else { break };
                prop_assert!(graph.node(&to).is_some());
                at = to;
            }
        }
    }
}
