//! Choosing the next node: the seed's debug-flow graph over the JSON its agents answer, missing
//! keys, conditions that fail, file order and default edges, and random graphs.

use super::graph::{seed_graph, spec, state};
use agentctl_core::GraphSpec;
use agentctl_routing::state::ChainFacts;
use agentctl_routing::{ConditionOutcome, EdgeOutcome, Graph, GraphStepError, graph_variables};
use serde_json::{Map, Value, json};

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
                    .map(|i| agentctl_core::GraphNode { name: name(i), agent: "x".into(), output: None, graph: None, join: None, map: None })
                    .collect(),
                edges: edges
                    .iter()
                    .map(|&(from, to, condition)| agentctl_core::GraphEdge {
                        from: name(from),
                        to: name(to).into(),
                        condition: condition.map(|c| CONDITIONS[c].to_owned()),
                    })
                    .collect(),
                max_steps: Some(8),
                reducers: Default::default(),
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
