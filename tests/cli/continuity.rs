//! Context carried over between invocations (seed 002 §3.3.2 and §3.6 DoD scenario 3): a run
//! that names no session continues the project's current one, so the main conversation and
//! each isolated agent remember their own earlier turns, and neither sees the other's.

use super::support::request::messages_text;
use super::support::{ServedModel, TestProject, text};
use serde_json::Value;
use std::io::Write as _;
use std::process::Stdio;

/// Seed 002's debug-analyzer, as a Gemini CLI agent file (isolated by default).
const ANALYZER: &str = "---
name: debug-analyzer
description: Analyzes bugs
model: openai:gpt-4o-mini
---
You analyze bugs.
";

fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/settings.json",
            r#"{"agents": {"defaultModel": "openai:gpt-4o-mini"}}"#,
        )
        .write(".gemini/agents/debug-analyzer.md", ANALYZER);
    project
}

/// `agentctl ARGS` on `model`, which must succeed.
fn run(project: &TestProject, model: &ServedModel, args: &[&str]) -> std::process::Output {
    let output = model.run(project, args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    output
}

#[test]
fn seed_dod3_main_and_agent_each_remember_their_own_conversation() {
    let project = project();
    let model = ServedModel::openai();
    // $ gemini "I'm working on feature X"
    model.answer_text("Noted: feature X.");
    let main = run(&project, &model, &["I'm working on feature X"]);
    assert!(
        text(&main.stderr).contains("the main conversation answers"),
        "{}",
        text(&main.stderr)
    );
    // $ gemini agents run debug-analyzer -p "Analyze this bug"
    model.answer_text("The bug: a null session after login.");
    run(
        &project,
        &model,
        &["agents", "run", "debug-analyzer", "-p", "Analyze this bug"],
    );
    // $ gemini "What was I working on?"
    model.answer_text("You are working on feature X.");
    let again = run(&project, &model, &["What was I working on?"]);
    assert_eq!(text(&again.stdout), "You are working on feature X.\n");
    // $ gemini agents run debug-analyzer --interactive   You: What did we discuss?
    model.answer_text("We discussed analyzing a bug: a null session after login.");
    let mut command = project.command(&["agents", "run", "debug-analyzer", "--interactive"]);
    model.point(&mut command);
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"What did we discuss?\nexit\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("We discussed analyzing a bug"));

    let requests = model.server.requests();
    assert_eq!(requests.len(), 4);
    // The agent did not see the main conversation.
    assert!(!messages_text(&requests[1].body).contains("feature X"));
    // The main conversation remembers feature X; the agent's own turns are not in it.
    let main_again = messages_text(&requests[2].body);
    assert!(
        main_again.contains("I'm working on feature X"),
        "{main_again}"
    );
    assert!(main_again.contains("Noted: feature X."), "{main_again}");
    assert!(!main_again.contains("Analyze this bug"), "{main_again}");
    // The agent remembers its own conversation, and still not the main one.
    let agent_again = messages_text(&requests[3].body);
    assert!(agent_again.contains("Analyze this bug"), "{agent_again}");
    assert!(
        agent_again.contains("a null session after login"),
        "{agent_again}"
    );
    assert!(!agent_again.contains("feature X"), "{agent_again}");
    model.server.assert_no_violations();

    // All four were one session: the project's current one.
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    assert_eq!(sessions.as_array().map(Vec::len), Some(1), "{sessions}");
    assert_eq!(sessions[0]["runCount"], 4, "{sessions}");
}

#[test]
fn new_starts_fresh_and_becomes_current() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_text("Noted: feature X.");
    run(
        &project,
        &model,
        &["chat", "-p", "I'm working on feature X"],
    );
    model.answer_text("I don't know yet.");
    run(
        &project,
        &model,
        &["chat", "--new", "-p", "What was I working on?"],
    );
    model.answer_text("Still nothing.");
    run(&project, &model, &["chat", "-p", "And now?"]);
    let requests = model.server.requests();
    assert!(!messages_text(&requests[1].body).contains("feature X"));
    assert!(!messages_text(&requests[2].body).contains("feature X"));
    assert!(messages_text(&requests[2].body).contains("What was I working on?"));
    // `sessions list` marks the current one.
    let listed = project.json(&["sessions", "list", "--format", "json"]);
    let current: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|session| session["current"] == true)
        .collect();
    assert_eq!(current.len(), 1, "{listed}");
    assert_eq!(current[0]["runCount"], 2, "{listed}");
    let table = text(&project.output(&["sessions", "list"]).stdout);
    let id = current[0]["sessionId"].as_str().unwrap();
    assert!(table.contains(&format!("* {id}")), "{table}");
    assert!(table.contains("* current: a run or chat that names no session continues it"));
    // The pointer is personal: kept out of git beside the databases.
    let ignore = std::fs::read_to_string(project.root.join(".agentctl/.gitignore")).unwrap();
    assert!(
        ignore.lines().any(|line| line == "current-session"),
        "{ignore}"
    );
}

#[test]
fn a_shared_postgres_store_continues_this_projects_session_not_the_latest_anyones() {
    if agentctl_test_support::postgres_url().is_none() {
        return;
    }
    let database = agentctl_store_suite::Backend::Postgres.fresh();
    let (mine, theirs) = (project(), project());
    let model = ServedModel::openai();
    let run_on = |project: &TestProject, prompt: &str| {
        let mut command = project.command(&["chat", "-p", prompt]);
        command.env("AGENTCTL_DATABASE_URL", &database.location);
        model.point(&mut command);
        let output = command.output().unwrap();
        assert!(output.status.success(), "{}", text(&output.stderr));
    };
    model.answer_text("Noted: feature X.");
    run_on(&mine, "I'm working on feature X");
    model.answer_text("Noted: feature Y.");
    run_on(&theirs, "I'm working on feature Y");
    model.answer_text("Feature X.");
    run_on(&mine, "What was I working on?");
    let last = messages_text(&model.server.requests()[2].body);
    assert!(
        last.contains("feature X") && !last.contains("feature Y"),
        "{last}"
    );
}
