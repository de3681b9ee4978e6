//! Session state in the command line: `sessions show` lists it with who set each key,
//! `context NAME` shows the keys an agent may use, `agents validate` locates `when` conditions
//! that are not CEL and memory keys that cannot be, and a run's `memory_set` lands in the
//! session (an undeclared key is refused back to the model).

use super::support::request::tool_results;
use super::support::{ServedModel, TestProject, text};
use agentctl_store::{SessionLog, StateLog};
use serde_json::{Value, json};

const FIXER: &str = "---
name: fixer
description: Applies fixes.
model: openai:gpt-4o-mini
memory:
  session: [fix, analysis]
handoffs:
  - to: reviewer
    when: fix.applied
---
Apply the fix, then record it with memory_set.
";

const REVIEWER: &str = "---
name: reviewer
description: Reviews code.
---
Review.
";

fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/fixer.md", FIXER)
        .write(".agentctl/agents/reviewer.md", REVIEWER);
    project
}

/// A session whose state has `task` (set by the planner) and `fix` (set by the fixer).
fn seed(project: &TestProject) -> String {
    let store = project.store();
    let session = store.create_session(Some("fix the parser")).unwrap().id;
    store
        .set_session_state(
            &session,
            "task",
            &json!({"status": "need-review"}),
            "planner",
        )
        .unwrap();
    store
        .set_session_state(
            &session,
            "fix",
            &json!({"applied": true, "files": ["src/parser.rs"], "note": "line\nbreak \u{1b}[31m"}),
            "fixer",
        )
        .unwrap();
    session
}

fn transcript(project: &TestProject, args: &[&str], session: &str) -> String {
    project.transcript(args).replace(session, "[SESSION]")
}

macro_rules! snapshot {
    ($value:expr) => {
        insta::with_settings!({filters => vec![
            (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "[TIME]"),
            (r#""\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z""#, "[TIME]"),
            (r"\d{8}-\d{6}-[0-9a-f]{4}", "[SESSION]"),
        ]}, {
            insta::assert_snapshot!($value);
        });
    };
}

#[test]
fn sessions_show_lists_the_state() {
    let project = project();
    let session = seed(&project);
    snapshot!(transcript(
        &project,
        &["sessions", "show", &session],
        &session
    ));
    snapshot!(transcript(
        &project,
        &["sessions", "show", &session, "--format", "json"],
        &session
    ));
    let json = project.json(&["sessions", "show", &session, "--format", "json"]);
    assert_eq!(json["state"]["task"]["value"]["status"], "need-review");
    assert_eq!(json["state"]["fix"]["updatedBy"], "fixer");
    // A session without state has an empty `state` object and no text section.
    let empty = project.store().create_session(None).unwrap().id;
    let json = project.json(&["sessions", "show", &empty, "--format", "json"]);
    assert_eq!(json["state"], json!({}));
    let shown = text(&project.agentctl(&["sessions", "show", &empty]).stdout);
    assert!(!shown.contains("State:"), "{shown}");
}

#[test]
fn context_shows_the_keys_an_agent_may_use() {
    let project = project();
    let session = seed(&project);
    snapshot!(transcript(
        &project,
        &["context", "fixer", "--session", &session],
        &session
    ));
    snapshot!(transcript(
        &project,
        &[
            "context",
            "fixer",
            "--session",
            &session,
            "--format",
            "json"
        ],
        &session
    ));
    // An agent without memory keys shows no state.
    let reviewer = text(&project.agentctl(&["context", "reviewer"]).stdout);
    assert!(!reviewer.contains("State"), "{reviewer}");
    let json = project.json(&["context", "reviewer", "--format", "json"]);
    assert!(json.get("state").is_none(), "{json}");
}

#[test]
fn context_before_any_session_lists_the_keys_unset() {
    let project = project();
    let shown = text(&project.agentctl(&["context", "fixer"]).stdout);
    assert!(
        shown.ends_with(
            "State (memory_get / memory_set):\n  analysis = (not set)\n  fix = (not set)\n  task = (not set)\n"
        ),
        "{shown}"
    );
}

#[test]
fn validate_locates_bad_conditions_and_memory_keys() {
    let project = project();
    project.write(
        ".agentctl/agents/broken.md",
        "---\nname: broken\ndescription: Broken.\nmemory:\n  session: [task, fix-list, ok]\nhandoffs:\n  - to: fixer\n    when: \"task.status = 'x'\"\n  - to: reviewer\n    when: after the fix\n---\nP.\n",
    );
    snapshot!(project.transcript(&["agents", "validate", "broken"]));
    // The agent is kept out of runs, with the located errors.
    let run = project.output(&["run", "broken", "-p", "hi"]);
    assert!(!run.status.success());
    let stderr = text(&run.stderr);
    assert!(stderr.contains("handoffs[0].when"), "{stderr}");
}

#[test]
fn a_run_keeps_what_memory_set_stores() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_call(
        "call_1",
        "memory_set",
        r#"{"key":"review","value":{"done":true}}"#,
    );
    model.answer_call(
        "call_2",
        "memory_set",
        r#"{"key":"fix","value":{"applied":true,"files":["src/parser.rs"]}}"#,
    );
    model.answer_call("call_3", "memory_get", r#"{"key":"fix"}"#);
    model.answer_text("Fixed and recorded.");
    let mut command = project.command(&[
        "run",
        "fixer",
        "-p",
        "Fix the parser",
        "--approve",
        "safe,low",
        "--format",
        "json",
    ]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    let session = result["sessionId"].as_str().unwrap().to_owned();

    let requests = model.server.requests();
    assert_eq!(requests.len(), 4);
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"memory_get") && offered.contains(&"memory_set"),
        "{offered:?}"
    );
    let results = tool_results(&requests[3].body);
    assert_eq!(results.len(), 3);
    assert!(
        results[0].contains(
            "`review` is not one of your session memory keys; you may use: task, fix, analysis"
        ),
        "{results:?}"
    );
    assert!(results[1].contains("`fix` set"), "{results:?}");
    assert!(
        results[2].contains(r#"{"applied":true,"files":["src/parser.rs"]}"#),
        "{results:?}"
    );
    model.server.assert_no_violations();

    let state = project.store().state_entries(&session).unwrap();
    assert_eq!(state.len(), 1);
    assert_eq!(state[0].key, "fix");
    assert_eq!(state[0].updated_by, "fixer");
    let shown = text(&project.agentctl(&["sessions", "show", &session]).stdout);
    assert!(
        shown.contains(
            "State:\n  fix = {\"applied\":true,\"files\":[\"src/parser.rs\"]}  (set by fixer, "
        ),
        "{shown}"
    );

    // `agents tools` lists what the run offered.
    let tools = text(&project.agentctl(&["agents", "tools", "fixer"]).stdout);
    assert!(
        tools.contains("memory_get") && tools.contains("memory_set"),
        "{tools}"
    );
}
