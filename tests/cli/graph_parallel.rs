//! Parallel graph branches end to end, on the strict OpenAI fake: a review fans out to three
//! reviewers whose model calls overlap (the fake holds each answer until all three arrived),
//! the join sees all three; `kill -9` after two of three branches finished and `graph resume`
//! (on SQLite, and on PostgreSQL when a test server is given)
//! runs only the third, then the join; validation of fan-outs located in the file.

use super::support::{ServedModel, TestProject, spawn_piped, text};
use agentctl_store::{GraphLog as _, SessionStore};
use agentctl_store_suite::{Backend, FreshStore};
use agentctl_test_support::postgres_url;
use serde_json::Value;
use std::io::{BufRead as _, BufReader};
use std::process::Child;
use std::sync::Arc;
use std::time::Duration;

/// The review graph: a planner fans out to three reviewers, joined by a summary.
const REVIEW: &str = "---
name: review
description: Three reviews of one change, joined.
graph:
  entry: intake
  nodes:
    - {name: intake, agent: planner, output: change}
    - {name: security, agent: reviewer, output: security_review}
    - {name: perf, agent: reviewer, output: perf_review}
    - {name: style, agent: reviewer, output: style_review}
    - {name: summary, agent: summarizer, join: all}
  edges:
    - {from: intake, to: [security, perf, style]}
    - {from: security, to: summary}
    - {from: perf, to: summary}
    - {from: style, to: summary}
    - {from: summary, to: END}
---
";

pub(super) fn strict_agent(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name}.\nmodel: openai:gpt-4o-mini\ntools:\n  allow: []\n---\nAnswer briefly.\n"
    )
}

pub(super) fn review_project() -> TestProject {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/review.md", REVIEW)
        .write(".agentctl/agents/planner.md", &strict_agent("planner"))
        .write(".agentctl/agents/reviewer.md", &strict_agent("reviewer"))
        .write(
            ".agentctl/agents/summarizer.md",
            &strict_agent("summarizer"),
        );
    project
}

pub(super) fn command(
    project: &TestProject,
    model: &ServedModel,
    args: &[&str],
) -> std::process::Command {
    let mut command = project.command(args);
    model.point(&mut command);
    command
}

pub(super) fn only_session(project: &TestProject) -> String {
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    sessions[0]["sessionId"].as_str().unwrap().to_owned()
}

/// Reads `child`'s `stream-json` events until `done` holds for one (true) or the stream ends
/// (false). The child keeps its stdout open, so it can go on writing until it is killed.
pub(super) fn read_events_until(child: &mut Child, mut done: impl FnMut(&Value) -> bool) -> bool {
    let stdout = child.stdout.as_mut().expect("the child's stdout is piped");
    BufReader::new(stdout).lines().any(|line| {
        let event: Value = serde_json::from_str(&line.unwrap()).unwrap();
        done(&event)
    })
}

/// For [`read_events_until`]: true at the `n`th `checkpoint_saved` event.
pub(super) fn checkpoints(n: usize) -> impl FnMut(&Value) -> bool {
    let mut saved = 0;
    move |event| {
        saved += usize::from(event["type"] == "checkpoint_saved");
        saved == n
    }
}

/// The last user message of recorded request `index`.
pub(super) fn prompt_of(model: &ServedModel, index: usize) -> String {
    let body = model.server.requests()[index].body.clone();
    let messages = body["messages"].as_array().unwrap();
    messages
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .and_then(|message| message["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn three_reviewers_run_at_once_and_the_join_sees_all_three() {
    let project = review_project();
    let model = ServedModel::openai();
    model.answer_text("Change: add a login endpoint.");
    model.answer_text("REVIEW-ONE");
    model.answer_text("REVIEW-TWO");
    model.answer_text("REVIEW-THREE");
    model.answer_text("All three reviews agree.");
    // The intake's call passes alone; the three reviewers' (requests 2 to 4) are answered
    // only once all three are in flight at once.
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
            "--format",
            "stream-json",
        ],
    )
    .output()
    .unwrap();
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    assert_eq!(requests.len(), 5, "intake, three reviewers, the join");
    assert!(model.server.max_in_flight() >= 3, "the reviews overlapped");
    let join = prompt_of(&model, 4);
    for review in ["REVIEW-ONE", "REVIEW-TWO", "REVIEW-THREE"] {
        assert!(join.contains(review), "the join misses {review}: {join}");
    }
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let edge = events
        .iter()
        .find(|event| event["type"] == "edge_taken" && event["from"] == "intake")
        .unwrap();
    assert_eq!(edge["to"], "[security, perf, style]");

    // The replay shows which branch each reviewer ran in.
    let session = only_session(&project);
    let replay = project.output(&["graph", "replay", "--session", &session]);
    let replay = text(&replay.stdout);
    assert!(
        replay.contains("of intake's fan-out, joining at summary"),
        "{replay}"
    );

    // Time travel into the parallel section: from the checkpoint of the first reviewer to
    // finish, a new branch runs the other two reviewers and the join, nothing else.
    model.answer_text("REVIEW-X");
    model.answer_text("REVIEW-Y");
    model.answer_text("Forked summary.");
    let fork = command(
        &project,
        &model,
        &["graph", "resume", "--session", &session, "--from-step", "2"],
    )
    .output()
    .unwrap();
    assert!(fork.status.success(), "{}", text(&fork.stderr));
    assert_eq!(text(&fork.stdout).trim(), "Forked summary.");
    assert_eq!(
        model.server.requests().len(),
        8,
        "two reviewers and the join"
    );
    let store = project.store();
    assert_eq!(store.graph_branches(&session).unwrap().len(), 2);
    assert_eq!(
        store.graph_history(&session, 0).unwrap().len(),
        6,
        "the original stays"
    );
    model.server.assert_no_violations();
}

#[test]
fn visualize_draws_branches_joins_and_maps() {
    let project = review_project();
    project.write(".agentctl/agents/checks.md", MAP);
    insta::assert_snapshot!(
        "review_text",
        project.transcript(&["graph", "visualize", "review"])
    );
    insta::assert_snapshot!(
        "review_mermaid",
        project.transcript(&["graph", "visualize", "review", "--format", "mermaid"])
    );
    let dot = project.output(&["graph", "visualize", "review", "--format", "dot"]);
    assert!(dot.status.success());
    insta::assert_snapshot!("review_dot", text(&dot.stdout));
    insta::assert_snapshot!(
        "checks_text",
        project.transcript(&["graph", "visualize", "checks"])
    );
}

#[test]
fn kill_after_two_of_three_branches_and_resume_runs_only_the_third() {
    kill_and_resume(None);
}

/// The same on a PostgreSQL store (`AGENTCTL_TEST_DATABASE_URL`; without a server it passes).
#[test]
fn kill_and_resume_on_postgres_runs_only_the_unfinished_branch() {
    if postgres_url().is_none() {
        return;
    }
    kill_and_resume(Some(&Backend::Postgres.fresh()));
}

/// Kills a fan-out after two of its three branches finished, then resumes it, in the
/// project's SQLite store or in `database`.
fn kill_and_resume(database: Option<&FreshStore>) {
    let project = review_project();
    let on_database = |mut command: std::process::Command| {
        if let Some(database) = database {
            command.env("AGENTCTL_DATABASE_URL", &database.location);
        }
        command
    };
    let model = ServedModel::openai();
    model.answer_text("Change: add a login endpoint.");
    model.answer_text("REVIEW-A");
    model.answer_text("REVIEW-B");
    // The third reviewer's answer never comes in time: the process is killed.
    model.server.push_delay(Duration::from_secs(120));
    let mut child = spawn_piped(on_database(command(
        &project,
        &model,
        &[
            "graph",
            "run",
            "review",
            "-p",
            "Review my change",
            "--format",
            "stream-json",
        ],
    )));
    // The intake's checkpoint, then one per finished reviewer.
    assert!(read_events_until(&mut child, checkpoints(3)));
    assert_eq!(
        model.server.requests().len(),
        4,
        "the third review in flight"
    );
    child.kill().unwrap();
    child.wait().unwrap();

    let store: Arc<dyn SessionStore> = match database {
        Some(database) => database.store.clone(),
        None => Arc::new(project.store()),
    };
    let session = store.list_sessions().unwrap()[0].id.clone();
    let latest = store.latest_checkpoint(&session, 0).unwrap().unwrap();
    let parallel = latest.parallel.clone().unwrap();
    let statuses: Vec<&str> = parallel["fanout"]["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|branch| branch["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses.iter().filter(|status| **status == "done").count(),
        2,
        "{parallel}"
    );
    assert_eq!(
        statuses
            .iter()
            .filter(|status| **status == "running")
            .count(),
        1,
        "{parallel}"
    );
    assert_eq!(latest.next.as_deref(), Some("summary"));

    model.answer_text("REVIEW-C");
    model.answer_text("Summary of A, B and C.");
    let output = on_database(command(
        &project,
        &model,
        &["graph", "resume", "--session", &session],
    ))
    .output()
    .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout).trim(), "Summary of A, B and C.");
    // intake, two reviews, the killed one; then exactly one review again and the join.
    let requests = model.server.requests();
    assert_eq!(requests.len(), 6);
    let join = prompt_of(&model, 5);
    for review in ["REVIEW-A", "REVIEW-B", "REVIEW-C"] {
        assert!(join.contains(review), "the join misses {review}: {join}");
    }
    let history = store.graph_history(&session, 0).unwrap();
    let nodes: Vec<&str> = history
        .iter()
        .filter_map(|checkpoint| checkpoint.node.as_deref())
        .collect();
    assert_eq!(nodes.len(), 5, "{nodes:?}");
    assert_eq!(nodes[0], "intake");
    assert_eq!(nodes[4], "summary");
    let mut reviewers = nodes[1..4].to_vec();
    reviewers.sort_unstable();
    assert_eq!(reviewers, ["perf", "security", "style"]);
    model.server.assert_no_violations();
    assert!(store.session(&session).is_ok());
    assert_eq!(
        project.root.join(".agentctl/sessions.db").exists(),
        database.is_none(),
        "the checkpoints went to the store the run was given"
    );
}

#[test]
fn validation_locates_fan_out_problems_in_the_file() {
    let project = review_project();
    // Two reviewers write one key and no reducer says how; a join waits for 4 of 3.
    project.write(
        ".agentctl/agents/review.md",
        &REVIEW
            .replace("output: perf_review", "output: security_review")
            .replace("join: all", "join: 4"),
    );
    let output = project.output(&["agents", "validate", "review"]);
    assert!(!output.status.success());
    let stdout = text(&output.stdout) + &text(&output.stderr);
    assert!(
        stdout.contains("reducers: {security_review: append}"),
        "{stdout}"
    );
    assert!(stdout.contains("review.md:9:"), "{stdout}");
    assert!(stdout.contains("join: 4 can never complete"), "{stdout}");
    assert!(stdout.contains("review.md:11:"), "{stdout}");

    // With a reducer, both reviews are kept under the one key.
    project.write(
        ".agentctl/agents/review.md",
        &REVIEW
            .replace("output: perf_review", "output: security_review")
            .replace(
                "graph:\n",
                "graph:\n  reducers: {security_review: append}\n",
            ),
    );
    let output = project.output(&["agents", "validate", "review"]);
    assert!(output.status.success(), "{}", text(&output.stdout));
}

/// A graph that maps a checker over the files a lister found.
pub(super) const MAP: &str = "---
name: checks
description: Check every file the lister finds.
graph:
  entry: lister
  nodes:
    - {name: lister, agent: planner, output: analysis}
    - name: check
      agent: reviewer
      output: checks
      map: {over: analysis.files, as: file}
  edges:
    - {from: lister, to: check}
    - {from: check, to: END}
---
";

/// The `file` a map element's prompt shows, from the node's state.
pub(super) fn element_of(request: &agentctl_core::ModelRequest) -> Option<String> {
    request.messages.iter().find_map(|message| match message {
        agentctl_core::Message::User { content } => {
            let at = content.find("\"file\": \"")? + "\"file\": \"".len();
            let rest = &content[at..];
            Some(rest[..rest.find('"')?].to_owned())
        }
        _ => None,
    })
}

#[test]
fn a_map_over_five_files_keeps_their_order_and_runs_two_at_once() {
    let project = review_project();
    project.write(".agentctl/agents/checks.md", MAP).write(
        ".agentctl/settings.json",
        r#"{"agents": {"maxParallel": 2}}"#,
    );
    let model = ServedModel::routed(|request| {
        let text = match element_of(request) {
            Some(file) => format!("checked {file}"),
            None => r#"{"files": ["a.rs", "b.rs", "c.rs", "d.rs", "e.rs"]}"#.to_owned(),
        };
        agentctl_test_support::text(&text)
    });
    // The first two elements' calls must overlap: the map runs them at once.
    model
        .server
        .hold_until_overlapping(2, 2, Duration::from_secs(10));
    let output = command(
        &project,
        &model,
        &[
            "graph",
            "run",
            "checks",
            "-p",
            "Check the repo",
            "--format",
            "json",
        ],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        model.server.requests().len(),
        6,
        "the lister, then five checks"
    );
    assert_eq!(model.server.max_in_flight(), 2, "maxParallel: 2");
    let session = only_session(&project);
    let store = project.store();
    let latest = store.latest_checkpoint(&session, 0).unwrap().unwrap();
    assert_eq!(
        latest.state["checks"],
        serde_json::json!([
            "checked a.rs",
            "checked b.rs",
            "checked c.rs",
            "checked d.rs",
            "checked e.rs"
        ])
    );
    assert!(latest.parallel.is_none());
    // One checkpoint per element (the last one carries the map's output), after the lister's.
    let history = store.graph_history(&session, 0).unwrap();
    assert_eq!(history.len(), 7, "input, lister, five elements");
    model.server.assert_no_violations();
}

#[test]
fn a_map_over_a_key_no_earlier_node_writes_is_located() {
    let project = review_project();
    project.write(
        ".agentctl/agents/checks.md",
        &MAP.replace("over: analysis.files", "over: report.files"),
    );
    let output = project.output(&["agents", "validate", "checks"]);
    assert!(!output.status.success());
    let stdout = text(&output.stdout) + &text(&output.stderr);
    assert!(stdout.contains("checks.md:11:"), "{stdout}");
    assert!(
        stdout.contains("which no node before `check` writes"),
        "{stdout}"
    );
}

#[test]
fn a_model_written_list_cannot_run_a_map_past_max_steps_or_be_something_else() {
    let project = review_project();
    // The lister is model output: a list of 500 "files" must not become 500 model calls.
    project.write(
        ".agentctl/agents/checks.md",
        &MAP.replace("  entry: lister\n", "  entry: lister\n  maxSteps: 6\n"),
    );
    let model = ServedModel::routed(|request| {
        let text = match element_of(request) {
            Some(file) => format!("checked {file}"),
            None => {
                let files: Vec<String> = (0..500).map(|i| format!("f{i}.rs")).collect();
                serde_json::json!({ "files": files }).to_string()
            }
        };
        agentctl_test_support::text(&text)
    });
    let output = command(&project, &model, &["graph", "run", "checks", "-p", "Check"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("stopped after 6 steps (maxSteps)"),
        "{stderr}"
    );
    // The lister, then at most the five steps left (four in flight at most, by default).
    assert!(
        model.server.requests().len() <= 6,
        "{}",
        model.server.requests().len()
    );

    // A "list" that is an object stops the graph with what was found, naming the node.
    let model = ServedModel::openai();
    model.answer_text(r#"{"files": {"not": "a list"}}"#);
    let output = command(&project, &model, &["graph", "run", "checks", "-p", "Check"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("node `check`: `map.over: analysis.files` is an object, not a list"),
        "{stderr}"
    );
    assert_eq!(model.server.requests().len(), 1);
}

#[test]
fn join_any_runs_after_the_first_branch_and_cancels_the_others() {
    let project = review_project();
    project.write(
        ".agentctl/agents/review.md",
        &REVIEW.replace("join: all", "join: any"),
    );
    let model = ServedModel::openai();
    model.answer_text("Change: add a login endpoint.");
    model.answer_text("FIRST-REVIEW");
    // The two other reviewers would take two minutes: the join does not wait for them.
    model.server.push_delay(Duration::from_secs(120));
    model.server.push_delay(Duration::from_secs(120));
    model.answer_text("Summary of the first review.");
    let started = std::time::Instant::now();
    let output = command(
        &project,
        &model,
        &["graph", "run", "review", "-p", "Review"],
    )
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the join waited"
    );
    assert_eq!(text(&output.stdout).trim(), "Summary of the first review.");
    assert!(prompt_of(&model, 4).contains("FIRST-REVIEW"));
    let session = only_session(&project);
    let store = project.store();
    let history = store.graph_history(&session, 0).unwrap();
    let joined = history
        .iter()
        .rev()
        .find_map(|checkpoint| checkpoint.parallel.clone())
        .unwrap();
    let mut statuses: Vec<&str> = joined["fanout"]["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|branch| branch["status"].as_str().unwrap())
        .collect();
    statuses.sort_unstable();
    assert_eq!(statuses, ["cancelled", "cancelled", "done"], "{joined}");
    assert_eq!(joined["fanout"]["joined"], true);
}
