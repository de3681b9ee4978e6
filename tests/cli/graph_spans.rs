//! Graph traces end to end, on the strict OpenAI fake: each parallel branch, and each element
//! of a map, is a span of its own under the graph run, side by side in time, with its node's
//! span inside.

use super::graph_parallel::{MAP, command, element_of, only_session, review_project};
use super::support::{ServedModel, check_shape, text};
use serde_json::Value;
use std::time::Duration;

#[test]
fn each_branch_is_a_span_of_its_own_side_by_side_under_the_graph_with_its_node_inside() {
    let project = review_project();
    let model = ServedModel::openai();
    for answer in ["Change.", "R1", "R2", "R3", "Summary."] {
        model.answer_text(answer);
    }
    model
        .server
        .hold_until_overlapping(2, 3, Duration::from_secs(10));
    let output = command(
        &project,
        &model,
        &[
            "graph",
            "run",
            "review",
            "-p",
            "Review my change",
            "--trace",
        ],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let session = only_session(&project);
    let spans = project.json(&["trace", "export", "--session", &session, "--format", "json"]);
    let spans = spans.as_array().unwrap();
    for span in spans {
        check_shape("trace-span", span);
    }
    let graph = spans.iter().find(|s| s["type"] == "graph").unwrap();
    let branches: Vec<&Value> = spans.iter().filter(|s| s["type"] == "branch").collect();
    assert_eq!(branches.len(), 3, "{spans:?}");
    let mut seen: Vec<(u64, String)> = branches
        .iter()
        .map(|branch| {
            assert_eq!(branch["parentId"], graph["spanId"], "under the graph run");
            assert_eq!(branch["status"], "ok");
            assert_eq!(branch["data"]["from"], "intake");
            assert_eq!(branch["data"]["of"], 3);
            let name = branch["data"]["branch"].as_str().unwrap().to_owned();
            // Its node's span is inside it.
            let nodes: Vec<&Value> = spans
                .iter()
                .filter(|s| s["type"] == "node" && s["parentId"] == branch["spanId"])
                .collect();
            assert_eq!(nodes.len(), 1, "{name}: {spans:?}");
            assert_eq!(nodes[0]["data"]["node"], name.as_str());
            (branch["data"]["index"].as_u64().unwrap(), name)
        })
        .collect();
    seen.sort();
    let expected: Vec<(u64, String)> = ["security", "perf", "style"]
        .iter()
        .enumerate()
        .map(|(i, name)| (i as u64, (*name).to_owned()))
        .collect();
    assert_eq!(seen, expected);
    // Side by side: each branch started before any of them ended.
    let start = |span: &Value| span["startTime"].as_str().unwrap().to_owned();
    let latest_start = branches.iter().map(|b| start(b)).max().unwrap();
    for branch in &branches {
        let ended = chrono::DateTime::parse_from_rfc3339(&start(branch)).unwrap()
            + chrono::Duration::microseconds(
                (branch["durationMs"].as_f64().unwrap() * 1000.0) as i64,
            );
        let latest = chrono::DateTime::parse_from_rfc3339(&latest_start).unwrap();
        assert!(ended >= latest, "the branches overlap in time");
    }
    // The intake and the join are nodes of the main line, under the graph run.
    for name in ["intake", "summary"] {
        let node = spans
            .iter()
            .find(|s| s["type"] == "node" && s["data"]["node"] == name)
            .unwrap();
        assert_eq!(node["parentId"], graph["spanId"], "{name}");
    }
    model.server.assert_no_violations();
}

#[test]
fn each_map_element_is_a_span_of_its_own_with_its_index() {
    let project = review_project();
    project.write(".agentctl/agents/checks.md", MAP);
    let model = ServedModel::routed(|request| {
        let text = match element_of(request) {
            Some(file) => format!("checked {file}"),
            None => r#"{"files": ["a.rs", "b.rs", "c.rs"]}"#.to_owned(),
        };
        agentctl_test_support::text(&text)
    });
    let output = command(
        &project,
        &model,
        &["graph", "run", "checks", "-p", "Check the repo", "--trace"],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let session = only_session(&project);
    let spans = project.json(&["trace", "export", "--session", &session, "--format", "json"]);
    let spans = spans.as_array().unwrap();
    let graph = spans.iter().find(|s| s["type"] == "graph").unwrap();
    let mut elements: Vec<(u64, &Value)> = spans
        .iter()
        .filter(|s| s["type"] == "branch")
        .map(|s| (s["data"]["index"].as_u64().unwrap(), s))
        .collect();
    elements.sort_by_key(|(index, _)| *index);
    assert_eq!(elements.len(), 3, "{spans:?}");
    for (i, (index, element)) in elements.iter().enumerate() {
        assert_eq!(*index, i as u64);
        assert_eq!(element["parentId"], graph["spanId"]);
        assert_eq!(element["data"]["from"], "check");
        assert_eq!(element["data"]["of"], 3);
        let inside = spans
            .iter()
            .filter(|s| s["type"] == "node" && s["parentId"] == element["spanId"])
            .count();
        assert_eq!(inside, 1, "the element's node run is inside it");
    }
    model.server.assert_no_violations();
}
