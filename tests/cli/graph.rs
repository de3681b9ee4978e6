//! Graphs end to end: seed 002's debug-flow graph on cassettes (both branches, replay,
//! visualize), and on the strict OpenAI fake: kill -9 mid-node and resume, time travel with
//! `--from-step`, the `maxSteps` limit.

use super::graph_parallel::read_events_until;
use super::support::{ServedModel, TestProject, events, spawn_piped, text, wait_for};
use agentctl_store::{GraphLog as _, SessionLog as _};
use serde_json::Value;
use std::time::Duration;

const CRASH: &str = "Fix this bug: the dashboard crashes after login";
const DOUBLE_CHARGE: &str = "Customers were charged twice for one order";

fn filters() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\(\d+ ms\)", "([N] ms)");
    settings.add_filter(r"\d{8}-\d{6}-[0-9a-f]{4}", "[SESSION]");
    settings.add_filter(r"Duration: \d+\.\ds", "Duration: [D]s");
    settings
}

fn only_session(project: &TestProject) -> String {
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    sessions[0]["sessionId"].as_str().unwrap().to_owned()
}

#[test]
fn the_fix_branch_runs_analyzer_fixer_reviewer_and_replays_from_the_store() {
    let project = TestProject::served_example("debug-flow");
    filters().bind(|| {
        insta::assert_snapshot!(
            "debug_flow_fix_branch",
            project.transcript(&["run", "debug-flow", "-p", CRASH])
        );
    });
    let fixed = std::fs::read_to_string(project.root.join("src/auth.ts")).unwrap();
    assert!(fixed.contains("if (!user.profile)"), "{fixed}");
    let session = only_session(&project);
    // Replay reads the store only: the cassettes are gone, it still works.
    std::fs::remove_dir_all(project.root.join(".agentctl/cassettes")).unwrap();
    filters().bind(|| {
        insta::assert_snapshot!(
            "debug_flow_replay",
            project.transcript(&["graph", "replay", "--session", &session])
        );
        // The seed's spelling.
        let seed = project.output(&["agents", "graph", "replay", "--session", &session]);
        assert!(seed.status.success(), "{}", text(&seed.stderr));
    });
    let replay = project.json(&["graph", "replay", "--session", &session, "--format", "json"]);
    let nodes: Vec<&str> = replay["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["node"].as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["analyzer", "fixer", "reviewer"]);
    assert_eq!(replay["totals"]["agents"], 3);
    assert_eq!(replay["totals"]["handoffs"], 2);
}

#[test]
fn the_needs_human_branch_ends_after_the_analyzer() {
    let project = TestProject::served_example("debug-flow");
    let output = project.output(&["graph", "run", "debug-flow", "-p", DOUBLE_CHARGE]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("[analyzer → END]"), "{stderr}");
    assert!(!stderr.contains("[fixer]"), "{stderr}");
    let answer: Value = serde_json::from_str(&text(&output.stdout)).unwrap();
    assert_eq!(answer["needs_human"], true);
    let json = project.output(&[
        "graph",
        "run",
        "debug-flow",
        "-p",
        DOUBLE_CHARGE,
        "--format",
        "json",
    ]);
    // A second run in a new process: the cassette's turns are fresh again.
    let outcome: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(outcome["lastNode"], "analyzer");
    assert_eq!(outcome["state"]["analysis"]["can_auto_fix"], false);
}

#[test]
fn stream_json_has_node_edge_and_checkpoint_events() {
    let project = TestProject::served_example("debug-flow");
    let output = project.agentctl(&[
        "graph",
        "run",
        "debug-flow",
        "-p",
        CRASH,
        "--format",
        "stream-json",
    ]);
    let kinds: Vec<String> = events(&output)
        .iter()
        .filter(|event| event["type"] != "run")
        .map(|event| match event["type"].as_str().unwrap() {
            "node_started" => format!("node {}", event["node"].as_str().unwrap()),
            "edge_taken" => format!("edge {}", event["to"].as_str().unwrap()),
            "checkpoint_saved" => format!("checkpoint {}", event["step"]),
            other => other.to_owned(),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "graph_started",
            "node analyzer",
            "node_finished",
            "edge fixer",
            "checkpoint 1",
            "node fixer",
            "node_finished",
            "edge reviewer",
            "checkpoint 2",
            "node reviewer",
            "node_finished",
            "edge END",
            "checkpoint 3",
            "graph_finished",
        ]
    );
}

#[test]
fn visualize_draws_text_mermaid_and_dot() {
    let project = TestProject::served_example("debug-flow");
    insta::assert_snapshot!(
        "debug_flow_text",
        project.transcript(&["graph", "visualize", "debug-flow"])
    );
    insta::assert_snapshot!(
        "debug_flow_mermaid",
        project.transcript(&["graph", "visualize", "debug-flow", "--format", "mermaid"])
    );
    let dot = project.output(&[
        "agents",
        "graph",
        "visualize",
        "debug-flow",
        "--format",
        "dot",
    ]);
    assert!(dot.status.success());
    insta::assert_snapshot!("debug_flow_dot", text(&dot.stdout));
    render_with_graphviz(&dot.stdout);
}

/// Renders DOT with Graphviz: required under CI, skipped with a message without `dot`.
fn render_with_graphviz(dot: &[u8]) {
    use std::io::Write as _;
    let spawned = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(error) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: Graphviz `dot` is not installed ({error}); .ci/run installs it");
            return;
        }
        Err(error) => panic!("Graphviz `dot` is required under CI: {error}"),
    };
    child.stdin.take().unwrap().write_all(dot).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("<svg"));
}

/// Three nodes on the strict fake, each answering JSON.
const STRICT_GRAPH: &str = "---
name: pipeline
description: Plans, builds and checks.
graph:
  entry: plan
  nodes:
    - { name: plan, agent: planner }
    - { name: build, agent: builder }
    - { name: check, agent: checker }
  edges:
    - { from: plan, to: build }
    - { from: build, to: check, condition: build.done }
---
A pipeline.
";

fn strict_agent(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name}.\nmodel: openai:gpt-4o-mini\ntools:\n  allow: []\n---\nAnswer with JSON.\n"
    )
}

fn strict_project() -> TestProject {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/pipeline.md", STRICT_GRAPH)
        .write(".agentctl/agents/planner.md", &strict_agent("planner"))
        .write(".agentctl/agents/builder.md", &strict_agent("builder"))
        .write(".agentctl/agents/checker.md", &strict_agent("checker"));
    project
}

fn graph_command(
    project: &TestProject,
    model: &ServedModel,
    args: &[&str],
) -> std::process::Command {
    let mut command = project.command(args);
    model.point(&mut command);
    command
}

#[test]
fn a_graph_killed_mid_node_resumes_without_re_running_finished_nodes() {
    let project = strict_project();
    let model = ServedModel::openai();
    model.answer_text(r#"{"steps": ["a", "b"]}"#);
    // The builder's first request never gets an answer in time: the process is killed.
    model.server.push_delay(Duration::from_secs(120));
    let mut child = spawn_piped(graph_command(
        &project,
        &model,
        &[
            "graph",
            "run",
            "pipeline",
            "-p",
            "Ship it",
            "--format",
            "stream-json",
        ],
    ));
    assert!(read_events_until(&mut child, |event| {
        event["type"] == "node_started" && event["node"] == "build"
    }));
    // The builder's request is in flight.
    assert!(
        wait_for(Duration::from_secs(20), || (model.server.requests().len()
            == 2)
            .then_some(()))
        .is_some()
    );
    child.kill().unwrap();
    child.wait().unwrap();

    let session = only_session(&project);
    let store = project.store();
    let branches = store.graph_branches(&session).unwrap();
    assert_eq!(branches.len(), 1);
    assert_eq!(branches[0].last_step, 1, "only the planner finished");

    model.answer_text(r#"{"done": true}"#);
    model.answer_text(r#"{"ok": true}"#);
    let output = graph_command(
        &project,
        &model,
        &["graph", "resume", "--session", &session],
    )
    .output()
    .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("resumed at step 1 (build next)"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("[plan]"),
        "the planner ran again: {stderr}"
    );
    assert_eq!(text(&output.stdout).trim(), r#"{"ok": true}"#);
    // plan once, the killed build, build again, check.
    assert_eq!(model.server.requests().len(), 4);
    model.server.assert_no_violations();
    let history = store.graph_history(&session, 0).unwrap();
    let nodes: Vec<Option<&str>> = history.iter().map(|c| c.node.as_deref()).collect();
    assert_eq!(nodes, [None, Some("plan"), Some("build"), Some("check")]);
    // A finished graph cannot be resumed, only re-run from an earlier step.
    let again = graph_command(
        &project,
        &model,
        &["graph", "resume", "--session", &session],
    )
    .output()
    .unwrap();
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("already finished"),
        "{}",
        text(&again.stderr)
    );
    assert!(store.session(&session).is_ok());
}

#[test]
fn from_step_re_runs_into_a_new_branch_and_keeps_the_original() {
    let project = strict_project();
    let model = ServedModel::openai();
    model.answer_text(r#"{"steps": ["a"]}"#);
    model.answer_text(r#"{"done": true, "try": 1}"#);
    model.answer_text(r#"{"ok": false}"#);
    let first = graph_command(
        &project,
        &model,
        &["graph", "run", "pipeline", "-p", "Ship it"],
    )
    .output()
    .unwrap();
    assert!(first.status.success(), "{}", text(&first.stderr));
    let session = only_session(&project);

    model.answer_text(r#"{"done": true, "try": 2}"#);
    model.answer_text(r#"{"ok": true}"#);
    let fork = graph_command(
        &project,
        &model,
        &["graph", "resume", "--session", &session, "--from-step", "1"],
    )
    .output()
    .unwrap();
    let stderr = text(&fork.stderr);
    assert!(fork.status.success(), "{stderr}");
    assert!(
        stderr.contains("branch 1, from step 1 (build next)"),
        "{stderr}"
    );
    assert_eq!(text(&fork.stdout).trim(), r#"{"ok": true}"#);
    // The fork asked the builder with the planner's state, not the first build's.
    let requests = model.server.requests();
    let fork_prompt = requests[3].body["messages"].to_string();
    assert!(fork_prompt.contains("steps"), "{fork_prompt}");
    assert!(!fork_prompt.contains("try"), "{fork_prompt}");

    let original = project.json(&[
        "graph",
        "replay",
        "--session",
        &session,
        "--branch",
        "0",
        "--format",
        "json",
    ]);
    assert!(
        original["nodes"][1]["items"]
            .to_string()
            .contains("\\\"try\\\": 1")
    );
    assert_eq!(original["nodes"].as_array().unwrap().len(), 3);
    let branch = project.json(&[
        "graph",
        "replay",
        "--session",
        &session,
        "--branch",
        "1",
        "--format",
        "json",
    ]);
    let nodes: Vec<(&str, bool)> = branch["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            (
                node["node"].as_str().unwrap(),
                node["inherited"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(nodes, [("plan", true), ("build", false), ("check", false)]);
    assert!(
        branch["nodes"][1]["items"]
            .to_string()
            .contains("\\\"try\\\": 2")
    );
    model.server.assert_no_violations();
}

#[test]
fn a_loop_stops_at_max_steps_with_the_path() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/loop.md",
            "---\nname: loop\ndescription: Loops.\ngraph:\n  entry: write\n  maxSteps: 3\n  nodes:\n    \
             - { name: write, agent: writer }\n    - { name: judge, agent: judge }\n  edges:\n    \
             - { from: write, to: judge }\n    - { from: judge, to: write, condition: judge.again }\n---\nLoops.\n",
        )
        .write(".agentctl/agents/writer.md", &strict_agent("writer"))
        .write(".agentctl/agents/judge.md", &strict_agent("judge"));
    let model = ServedModel::openai();
    model.answer_text("draft");
    model.answer_text(r#"{"again": true}"#);
    model.answer_text("draft 2");
    let output = graph_command(&project, &model, &["graph", "run", "loop", "-p", "Write"])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("graph `loop` stopped after 3 steps (maxSteps) without reaching END: write → judge → write"),
        "{stderr}"
    );
    assert_eq!(model.server.requests().len(), 3);
}

#[test]
fn a_failing_node_stops_the_graph_and_names_it() {
    let project = strict_project();
    let model = ServedModel::openai();
    model.answer_text(r#"{"steps": []}"#);
    model.server.push_status(400, None);
    let output = graph_command(
        &project,
        &model,
        &["graph", "run", "pipeline", "-p", "Ship it"],
    )
    .output()
    .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("node `build` (agent `builder`) failed"),
        "{stderr}"
    );
}

#[test]
fn graph_commands_explain_bad_input() {
    let project = TestProject::served_example("debug-flow");
    let not_graph = project.output(&["graph", "run", "debug-analyzer", "-p", "x"]);
    assert!(
        text(&not_graph.stderr).contains("is an agent, not a graph"),
        "{}",
        text(&not_graph.stderr)
    );
    let no_session = project.output(&["graph", "replay", "--session", "20990101-000000-abcd"]);
    assert!(!no_session.status.success());
    let list = project.output(&["graph", "list"]);
    assert!(
        text(&list.stdout).contains("debug-flow  (3 nodes from analyzer)"),
        "{}",
        text(&list.stdout)
    );
}

#[test]
fn agents_validate_locates_every_problem_of_a_graph_file() {
    let project = TestProject::served_example("debug-flow");
    project.write(
        ".agentctl/graphs/broken.yaml",
        "name: broken\ndescription: A broken graph.\nentry: start\nnodes:\n  \
         - { name: start, agent: debug-analyzr }\n  - { name: lonely, agent: code-fixer }\n  \
         - { name: spin, agent: code-fixer }\nedges:\n  \
         - { from: start, to: spin, condition: \"analysis.can_auto_fix &&\" }\n  \
         - { from: spin, to: spin }\n",
    );
    insta::assert_snapshot!(project.transcript(&["agents", "validate", "broken"]));
    // It does not run, with the same located errors.
    let run = project.output(&["graph", "run", "broken", "-p", "x"]);
    assert!(!run.status.success());
    assert!(
        text(&run.stderr).contains("broken.yaml:9:30"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn hostile_node_output_is_masked_and_cannot_drive_the_terminal() {
    let project = strict_project();
    let model = ServedModel::openai();
    // A planner that echoes the API key and writes terminal control sequences.
    model.answer_text("{\"steps\": [\"sk-test-strict-fake\", \"\u{1b}]0;pwned\u{7}\u{1b}[2J\"]}");
    model.answer_text(r#"{"done": false}"#);
    let output = graph_command(
        &project,
        &model,
        &["graph", "run", "pipeline", "-p", "Ship it"],
    )
    .output()
    .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert!(!stderr.contains("sk-test-strict-fake"), "{stderr}");
    let session = only_session(&project);
    // The checkpoint and the replay hold the masked value, not the key.
    let store = project.store();
    let history = store.graph_history(&session, 0).unwrap();
    let state = history.last().unwrap().state.to_string();
    assert!(!state.contains("sk-test-strict-fake"), "{state}");
    let replay = project.output(&["graph", "replay", "--session", &session]);
    let shown = text(&replay.stdout);
    assert!(
        !shown.contains('\u{1b}') && !shown.contains("sk-test-strict-fake"),
        "{shown:?}"
    );
    // The builder was not asked with the key either.
    let asked = model.server.requests()[1].body["messages"].to_string();
    assert!(!asked.contains("sk-test-strict-fake"), "{asked}");
}
