//! Subgraph nodes end to end, on the strict OpenAI fake and SQLite: a node runs another graph
//! with its own state under the node's output key; `kill -9` inside the subgraph and
//! `graph resume` re-run only the subgraph's unfinished node; a graph that runs itself
//! (directly or through another graph) is refused at validation, at file:line:col; the
//! parallel-review example runs offline and draws as its README shows.

use super::graph_parallel::{
    checkpoints, command, only_session, prompt_of, read_events_until, strict_agent,
};
use super::support::{ServedModel, TestProject, spawn_piped, text};
use agentctl_store::{GraphLog as _, SessionLog as _};
use serde_json::Value;
use std::time::Duration;

/// The parent: an intake, then the review subgraph, then a report.
const RELEASE: &str = "---
name: release
description: Take a change in, review it, report.
graph:
  entry: intake
  nodes:
    - {name: intake, agent: planner, output: change}
    - {name: review, graph: review-flow, output: reviews}
    - {name: report, agent: summarizer}
  edges:
    - {from: intake, to: review}
    - {from: review, to: report}
    - {from: report, to: END}
---
";

/// The subgraph: three reviewers one after the other, with its own step limit.
const REVIEW_FLOW: &str = "name: review-flow
description: Security, then performance, then style.
entry: security
maxSteps: 3
nodes:
  - {name: security, agent: reviewer, output: security}
  - {name: perf, agent: reviewer, output: perf}
  - {name: style, agent: reviewer, output: style}
edges:
  - {from: security, to: perf}
  - {from: perf, to: style}
  - {from: style, to: END}
";

fn release_project() -> TestProject {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/release.md", RELEASE)
        .write(".agentctl/graphs/review-flow.yaml", REVIEW_FLOW)
        .write(".agentctl/agents/planner.md", &strict_agent("planner"))
        .write(".agentctl/agents/reviewer.md", &strict_agent("reviewer"))
        .write(
            ".agentctl/agents/summarizer.md",
            &strict_agent("summarizer"),
        );
    project
}

#[test]
fn a_subgraph_runs_with_its_own_state_under_the_nodes_output_key() {
    let project = release_project();
    let output = project.output(&["agents", "validate", "release"]);
    assert!(output.status.success(), "{}", text(&output.stdout));
    let model = ServedModel::openai();
    model.answer_text("Change: add a login endpoint.");
    model.answer_text("SEC-OK");
    model.answer_text("PERF-OK");
    model.answer_text("STYLE-OK");
    model.answer_text("Report: ship it.");
    let output = command(
        &project,
        &model,
        &[
            "graph",
            "run",
            "release",
            "-p",
            "Review my change",
            "--format",
            "json",
        ],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    let reviews = &result["state"]["reviews"];
    assert_eq!(reviews["security"], "SEC-OK", "{result}");
    assert_eq!(reviews["perf"], "PERF-OK", "{result}");
    assert_eq!(reviews["style"], "STYLE-OK", "{result}");
    // The subgraph's keys stay in its own state, not the parent's.
    assert!(result["state"].get("security").is_none(), "{result}");
    // The first reviewer sees the change the parent's intake wrote; the report all three.
    assert!(prompt_of(&model, 1).contains("add a login endpoint"));
    let report = prompt_of(&model, 4);
    for review in ["SEC-OK", "PERF-OK", "STYLE-OK"] {
        assert!(
            report.contains(review),
            "the report misses {review}: {report}"
        );
    }
    model.server.assert_no_violations();
}

#[test]
fn kill_inside_the_subgraph_and_resume_runs_only_its_unfinished_nodes() {
    let project = release_project();
    let model = ServedModel::openai();
    model.answer_text("Change: add a login endpoint.");
    model.answer_text("SEC-OK");
    // The performance reviewer's answer never comes in time: the process is killed.
    model.server.push_delay(Duration::from_secs(120));
    let mut child = spawn_piped(command(
        &project,
        &model,
        &[
            "graph",
            "run",
            "release",
            "-p",
            "Review my change",
            "--format",
            "stream-json",
        ],
    ));
    // The intake's checkpoint, then the security review's inside the subgraph.
    assert!(read_events_until(&mut child, checkpoints(2)));
    // Wait until the performance reviewer's request is in flight.
    for _ in 0..200 {
        if model.server.requests().len() == 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert_eq!(
        model.server.requests().len(),
        3,
        "the perf review in flight"
    );
    child.kill().unwrap();
    child.wait().unwrap();

    let session = only_session(&project);
    let store = project.store();
    let latest = store.latest_checkpoint(&session, 0).unwrap().unwrap();
    assert_eq!(latest.node.as_deref(), Some("review"));
    assert_eq!(latest.next.as_deref(), Some("review"));
    let record = latest.parallel.unwrap();
    let sub = &record["subgraph"];
    assert_eq!(sub["graph"], "review-flow", "{record}");
    assert_eq!(sub["next"], "perf", "{record}");
    assert_eq!(sub["state"]["security"], "SEC-OK", "{record}");

    model.answer_text("PERF-OK");
    model.answer_text("STYLE-OK");
    model.answer_text("Report: ship it.");
    let output = command(
        &project,
        &model,
        &["graph", "resume", "--session", &session],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).trim(), "Report: ship it.");
    // intake, security, the killed perf; then perf again, style and the report — never the
    // intake or the security review again.
    let requests = model.server.requests();
    assert_eq!(requests.len(), 6);
    assert!(prompt_of(&model, 3).contains("SEC-OK"));
    let report = prompt_of(&model, 5);
    for review in ["SEC-OK", "PERF-OK", "STYLE-OK"] {
        assert!(
            report.contains(review),
            "the report misses {review}: {report}"
        );
    }
    let history = store.graph_history(&session, 0).unwrap();
    let nodes: Vec<&str> = history
        .iter()
        .filter_map(|checkpoint| checkpoint.node.as_deref())
        .collect();
    // intake; the subgraph's security and perf (style ends it: the parent's edge records it).
    assert_eq!(nodes, ["intake", "review", "review", "review", "report"]);
    model.server.assert_no_violations();
    assert!(store.session(&session).is_ok());
}

#[test]
fn a_subgraph_stops_at_its_own_max_steps() {
    let project = release_project();
    project.write(
        ".agentctl/graphs/review-flow.yaml",
        &REVIEW_FLOW.replace("maxSteps: 3", "maxSteps: 2"),
    );
    let model = ServedModel::openai();
    model.answer_text("Change.");
    model.answer_text("SEC-OK");
    model.answer_text("PERF-OK");
    let output = command(
        &project,
        &model,
        &["graph", "run", "release", "-p", "Review"],
    )
    .output()
    .unwrap();
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("graph `review-flow` stopped after 2 steps"),
        "{stderr}"
    );
    assert_eq!(model.server.requests().len(), 3);
}

#[test]
fn a_graph_that_runs_itself_is_refused_at_validation_located() {
    let project = release_project();
    // Through another graph: release → review-flow → release.
    project.write(
        ".agentctl/graphs/review-flow.yaml",
        &format!("{REVIEW_FLOW}  - {{from: style, to: again}}\n")
            .replace(
                "  - {name: style, agent: reviewer, output: style}\n",
                "  - {name: style, agent: reviewer, output: style}\n  - {name: again, graph: release}\n",
            )
            .replace("  - {from: style, to: END}\n", ""),
    );
    let output = project.output(&["agents", "validate", "release"]);
    assert!(!output.status.success());
    let stdout = text(&output.stdout) + &text(&output.stderr);
    assert!(
        stdout.contains("release.md:8:22"),
        "located at the node's graph field: {stdout}"
    );
    assert!(
        stdout.contains("which runs `release` again (release → review-flow → release)"),
        "{stdout}"
    );

    // Directly.
    project.write(
        ".agentctl/agents/release.md",
        &RELEASE.replace("graph: review-flow", "graph: release"),
    );
    let output = project.output(&["agents", "validate", "release"]);
    assert!(!output.status.success());
    let stdout = text(&output.stdout) + &text(&output.stderr);
    assert!(stdout.contains("release.md:8:22"), "{stdout}");
    assert!(
        stdout.contains("runs graph `release`, the graph it belongs to"),
        "{stdout}"
    );
    // A plain agent named by `graph:`, and a graph named by `agent:`.
    project.write(
        ".agentctl/agents/release.md",
        &RELEASE
            .replace("graph: review-flow", "graph: reviewer")
            .replace("agent: summarizer", "agent: review-flow"),
    );
    let stdout = text(&project.output(&["agents", "validate", "release"]).stdout);
    assert!(
        stdout.contains("which is a plain agent, not a graph"),
        "{stdout}"
    );
    assert!(stdout.contains("write `graph: review-flow`"), "{stdout}");
}

#[test]
fn a_subgraph_as_a_parallel_branch_is_refused_at_validation_located() {
    let project = release_project();
    project.write(
        ".agentctl/agents/release.md",
        "---
name: release
description: Fan out to a reviewer and the review subgraph.
graph:
  entry: intake
  nodes:
    - {name: intake, agent: planner, output: change}
    - {name: quick, agent: reviewer, output: quick}
    - {name: review, graph: review-flow, output: reviews}
    - {name: report, agent: summarizer, join: all}
  edges:
    - {from: intake, to: [quick, review]}
    - {from: quick, to: report}
    - {from: review, to: report}
    - {from: report, to: END}
---
",
    );
    let output = project.output(&["agents", "validate", "release"]);
    assert!(!output.status.success());
    let stdout = text(&output.stdout) + &text(&output.stderr);
    assert!(
        stdout.contains("release.md:9:22"),
        "located at the node's graph field: {stdout}"
    );
    assert!(
        stdout.contains("`review` runs a subgraph inside the branch `review` of edges[0]"),
        "{stdout}"
    );
    // `graph run` refuses it before any model call.
    let output = project.output(&["graph", "run", "release", "-p", "Review it."]);
    assert!(!output.status.success());
}

#[test]
fn visualize_draws_a_subgraph_as_a_nested_cluster() {
    let project = release_project();
    insta::assert_snapshot!(
        "release_text",
        project.transcript(&["graph", "visualize", "release"])
    );
    insta::assert_snapshot!(
        "release_mermaid",
        project.transcript(&["graph", "visualize", "release", "--format", "mermaid"])
    );
    let dot = project.output(&["graph", "visualize", "release", "--format", "dot"]);
    assert!(dot.status.success());
    insta::assert_snapshot!("release_dot", text(&dot.stdout));
}

/// The README of `examples/parallel-review`, whose Mermaid block must be what visualize draws.
const PARALLEL_README: &str = include_str!("../../examples/parallel-review/README.md");

#[test]
fn the_parallel_review_example_validates_runs_offline_and_draws_as_its_readme_shows() {
    let project = TestProject::served_example("parallel-review");
    let output = project.output(&["agents", "validate", "parallel-review"]);
    assert!(output.status.success(), "{}", text(&output.stdout));
    let output = project.output(&["run", "parallel-review", "-p", "Review src/change.diff"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let answer = text(&output.stdout);
    assert!(answer.starts_with("**Request changes.**"), "{answer}");
    for finding in ["injection", "one query per user", "find_user"] {
        assert!(
            answer.contains(finding),
            "the summary misses {finding}: {answer}"
        );
    }
    let mermaid = project.output(&[
        "graph",
        "visualize",
        "parallel-review",
        "--format",
        "mermaid",
    ]);
    assert!(mermaid.status.success());
    let drawn = text(&mermaid.stdout);
    assert!(
        PARALLEL_README.contains(&format!("```mermaid\n{drawn}```")),
        "the README's diagram is not what visualize draws:\n{drawn}"
    );
}
