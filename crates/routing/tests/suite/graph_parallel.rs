//! Fan-outs, joins, reducers and maps: what compiles, and every problem located by its field.

use agentctl_core::{GraphSpec, Reducer};
use agentctl_routing::{Graph, check_spec, graph_variables};
use serde_json::{Value, json};

fn spec(value: Value) -> GraphSpec {
    serde_json::from_value(value).unwrap()
}

/// A review: intake fans out to three reviewers, `summary` joins them.
fn review(join: Value) -> Value {
    json!({
        "entry": "intake",
        "nodes": [
            {"name": "intake", "agent": "planner", "output": "change"},
            {"name": "security", "agent": "reviewer", "output": "sec"},
            {"name": "perf", "agent": "reviewer", "output": "perf_review"},
            {"name": "style", "agent": "reviewer", "output": "style_review"},
            {"name": "summary", "agent": "summarizer", "join": join}
        ],
        "edges": [
            {"from": "intake", "to": ["security", "perf", "style"]},
            {"from": "security", "to": "summary"},
            {"from": "perf", "to": "summary"},
            {"from": "style", "to": "summary"},
            {"from": "summary", "to": "END"}
        ]
    })
}

/// The errors of `value`, as `field: message`.
fn errors(value: Value) -> Vec<String> {
    check_spec(&spec(value))
        .into_iter()
        .filter(|issue| issue.is_error())
        .map(|issue| issue.to_string())
        .collect()
}

fn has(errors: &[String], field: &str, words: &str) -> bool {
    errors
        .iter()
        .any(|error| error.starts_with(&format!("{field}: ")) && error.contains(words))
}

#[test]
fn a_fan_out_and_its_join_compile_and_step() {
    for join in [json!("all"), json!("any"), json!(2)] {
        let graph = Graph::compile("review", &spec(review(join))).unwrap();
        assert_eq!(graph.join_of(0).unwrap().name, "summary");
        assert!(graph.join_of(1).is_none());
    }
    let graph = Graph::compile("review", &spec(review(json!("all")))).unwrap();
    let state = json!({"input": "x", "change": "y"});
    let variables = graph_variables(state.as_object().unwrap(), "intake", 1, None);
    let next = graph.next("intake", &variables).unwrap();
    assert_eq!(next.parallel, ["security", "perf", "style"]);
    assert!(!next.ended());
    assert_eq!(
        next.reason(),
        "edges to [security, perf, style] in parallel"
    );
}

#[test]
fn a_join_that_can_never_complete_is_located() {
    let errors = self::errors(review(json!(4)));
    assert!(
        has(
            &errors,
            "nodes[4].join",
            "join: 4 can never complete: it waits for 4 branches, and only 3"
        ),
        "{errors:?}"
    );
    let errors = self::errors(review(json!(0)));
    assert!(has(&errors, "nodes[4].join", "join: 0"), "{errors:?}");
}

#[test]
fn a_branch_that_cannot_reach_the_join_is_located() {
    let mut value = review(json!("all"));
    value["edges"][3] = json!({"from": "style", "to": "END"});
    let errors = self::errors(value);
    assert!(
        has(
            &errors,
            "edges[0].to",
            "branch `style` can never reach the join `summary`"
        ),
        "{errors:?}"
    );
}

#[test]
fn branches_that_never_meet_or_meet_twice_are_located() {
    let mut value = review(json!("all"));
    value["nodes"][4]["join"] = Value::Null;
    let errors = self::errors(value);
    assert!(has(&errors, "edges[0].to", "never meet"), "{errors:?}");

    let mut value = review(json!("all"));
    value["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "other", "agent": "x", "join": "any"}));
    value["edges"][3] = json!({"from": "style", "to": "other"});
    value["edges"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "other", "to": "END"}));
    let errors = self::errors(value);
    assert!(
        has(&errors, "edges[0].to", "different join nodes"),
        "{errors:?}"
    );
}

#[test]
fn a_join_no_fan_out_leads_to_and_bad_targets_are_located() {
    let errors = self::errors(json!({
        "entry": "a",
        "nodes": [
            {"name": "a", "agent": "x"},
            {"name": "b", "agent": "x", "join": "all"}
        ],
        "edges": [{"from": "a", "to": "b"}]
    }));
    assert!(has(&errors, "nodes[1].join", "no fan-out"), "{errors:?}");

    for (to, words) in [
        (json!([]), "is empty"),
        (
            json!(["security", "END"]),
            "END cannot be a parallel branch",
        ),
        (json!(["security", "security"]), "named twice"),
        (json!(["security", "secrity"]), "did you mean `security`?"),
    ] {
        let mut value = review(json!("all"));
        value["edges"][0]["to"] = to;
        let errors = self::errors(value);
        assert!(has(&errors, "edges[0].to", words), "{words}: {errors:?}");
    }
}

#[test]
fn a_fan_out_inside_a_branch_is_refused() {
    let mut value = review(json!("all"));
    value["edges"][1] = json!({"from": "security", "to": ["perf", "style"]});
    let errors = self::errors(value);
    assert!(
        has(&errors, "edges[1].to", "cannot split again"),
        "{errors:?}"
    );
}

#[test]
fn branches_writing_one_key_need_a_reducer() {
    let mut value = review(json!("all"));
    value["nodes"][2]["output"] = json!("sec");
    let errors = self::errors(value.clone());
    assert!(
        has(
            &errors,
            "nodes[2].output",
            "(`reducers: {sec: append}`, or `merge`, `last`)"
        ),
        "{errors:?}"
    );
    value["reducers"] = json!({"sec": "append"});
    let graph = Graph::compile("review", &spec(value)).unwrap();
    assert_eq!(graph.reducer("sec"), Some(Reducer::Append));
    assert_eq!(graph.reducer("perf_review"), None);
}

#[test]
fn reducers_for_fixed_names_or_unwritten_keys_are_reported() {
    let mut value = review(json!("all"));
    value["reducers"] = json!({"input": "merge", "nobody": "last"});
    let issues: Vec<String> = check_spec(&spec(value))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        issues.iter().any(|i| i.starts_with("reducers.input: ")),
        "{issues:?}"
    );
    assert!(
        issues
            .iter()
            .any(|i| i.starts_with("warning: reducers.nobody: ")),
        "{issues:?}"
    );
    let mut value = review(json!("all"));
    value["reducers"] = json!({"sec": "concat"});
    assert!(serde_json::from_value::<GraphSpec>(value).is_err());
}

fn mapped(over: &str, item: &str) -> Value {
    json!({
        "entry": "lister",
        "nodes": [
            {"name": "lister", "agent": "x", "output": "analysis"},
            {"name": "check", "agent": "y", "output": "checks", "map": {"over": over, "as": item}}
        ],
        "edges": [{"from": "lister", "to": "check"}, {"from": "check", "to": "END"}]
    })
}

#[test]
fn map_over_and_as_are_checked() {
    assert!(Graph::compile("m", &spec(mapped("analysis.files", "file"))).is_ok());
    assert!(Graph::compile("m", &spec(mapped("input", "line"))).is_ok());
    let errors = self::errors(mapped("report.files", "file"));
    assert!(
        has(
            &errors,
            "nodes[1].map.over",
            "`map.over` reads `report`, which no node before `check` writes (they write `analysis`)"
        ),
        "{errors:?}"
    );
    // A node cannot map over its own output: it is not written before it runs.
    let errors = self::errors(mapped("checks", "file"));
    assert!(
        has(&errors, "nodes[1].map.over", "no node before"),
        "{errors:?}"
    );
    let errors = self::errors(mapped("analysis..files", "file"));
    assert!(
        has(&errors, "nodes[1].map.over", "not a path"),
        "{errors:?}"
    );
    for item in ["analysis", "state", "two words", ""] {
        let errors = self::errors(mapped("analysis.files", item));
        assert!(has(&errors, "nodes[1].map.as", ""), "{item}: {errors:?}");
    }
    let mut value = review(json!("all"));
    value["nodes"][2]["map"] = json!({"over": "change.files", "as": "file"});
    let errors = self::errors(value);
    assert!(
        has(&errors, "nodes[2].map", "inside the branch `perf`"),
        "{errors:?}"
    );
}

#[test]
fn a_graph_file_locates_parallel_fields() {
    let text = "entry: a\nreducers: {x: append}\nnodes:\n  - {name: a, agent: p, output: x}\n  - {name: b, agent: q, output: x, join: all}\n  - {name: c, agent: q}\nedges:\n  - {from: a, to: [c]}\n  - {from: c, to: b}\n";
    let agent = agentctl_definitions::parse_graph_str(
        text,
        std::path::Path::new("g.yaml"),
        agentctl_core::Scope::Project,
    )
    .unwrap();
    assert_eq!(agent.locate("graph.nodes[1].join"), (5, 36));
    assert_eq!(agent.locate("graph.reducers.x"), (2, 12));
    let graph = agent.definition.spec.graph.as_ref().unwrap();
    assert!(
        Graph::compile("g", graph).is_ok(),
        "{:?}",
        check_spec(graph)
    );
}

#[test]
fn a_subgraph_inside_a_parallel_branch_is_refused_at_its_graph_field() {
    // As a branch's first node.
    let mut value = review(json!("all"));
    value["nodes"][2] = json!({"name": "perf", "graph": "perf-flow", "output": "perf_review"});
    let errors = self::errors(value);
    assert!(
        has(
            &errors,
            "nodes[2].graph",
            "`perf` runs a subgraph inside the branch `perf` of edges[0]"
        ),
        "{errors:?}"
    );
    // Further down a branch.
    let mut value = review(json!("all"));
    value["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "deep", "graph": "deep-flow", "output": "deep"}));
    value["edges"][2] = json!({"from": "perf", "to": "deep"});
    value["edges"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "deep", "to": "summary"}));
    let errors = self::errors(value);
    assert!(
        has(
            &errors,
            "nodes[5].graph",
            "`deep` runs a subgraph inside the branch `perf`"
        ),
        "{errors:?}"
    );
    // After the join, on the main line, it compiles.
    let mut value = review(json!("all"));
    value["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "after", "graph": "after-flow", "output": "after"}));
    value["edges"][4] = json!({"from": "summary", "to": "after"});
    value["edges"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "after", "to": "END"}));
    assert!(Graph::compile("review", &spec(value)).is_ok());
}
