//! `agentctl run` recording into sessions: the review-then-fix workflow across two runs,
//! `--session` / `--continue`, persistence turned off, and a run killed mid-way.

use super::support::{FIX, REVIEW, TestProject, wait_for};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;

/// Sets `agents.KEY` in the example's settings.
fn set_agents_setting(example: &TestProject, key: &str, value: Value) {
    let settings = example.root.join(".agentctl/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    settings["agents"][key] = value;
    example.write(".agentctl/settings.json", &settings.to_string());
}

#[test]
fn review_then_fix_shares_the_findings_but_not_the_reviewers_turns() {
    let example = TestProject::served_example("review-fix");
    let review = example.json(REVIEW);
    let session = review["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(review["contextMode"], "isolated");
    // The fixer's cassette checks its request: the handoff is there, the reviewer's own turns
    // are not (historyContains / historyExcludes).
    let fix = example.json(FIX);
    assert_eq!(fix["sessionId"], session.as_str());
    assert_eq!(fix["contextMode"], "shared");
    let stats = std::fs::read_to_string(example.root.join("src/stats.py")).unwrap();
    assert!(
        stats.contains("return sum(values) / len(values)"),
        "{stats}"
    );
    assert!(
        stats.contains("ordered[middle - 1] + ordered[middle]"),
        "{stats}"
    );

    let shown = example.json(&["sessions", "show", &session, "--format", "json"]);
    let timeline: Vec<(&str, &str, &str)> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["contextScope"].as_str().unwrap(),
                m["role"].as_str().unwrap(),
                m["agent"].as_str().unwrap_or("user"),
            )
        })
        .collect();
    assert_eq!(
        timeline,
        [
            ("agent:code-reviewer", "user", "user"),
            ("main", "assistant", "code-reviewer"),
            ("main", "user", "user"),
            ("main", "assistant", "bug-fixer"),
        ],
        "{shown:#}"
    );
    // Everything, tool steps included, is kept.
    let all = example.json(&["sessions", "show", &session, "--all", "--format", "json"]);
    let hidden = all["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["visible"] == false)
        .count();
    assert!(hidden >= 8, "{all:#}");
    let runs = all["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|run| run["status"] == "completed"));
}

#[test]
fn runs_continue_the_current_session_unless_told_otherwise() {
    let example = TestProject::served_example("review-fix");
    let session_of = |args: &[&str]| {
        let mut command = REVIEW.to_vec();
        command.extend(args);
        example.json(&command)["sessionId"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let first = session_of(&[]);
    // Seed 002 §3.3.2: the next invocation continues the project's current session.
    assert_eq!(session_of(&[]), first);
    let fresh = session_of(&["--new"]);
    assert_ne!(fresh, first);
    // The new session is now the current one; `--session` picks any.
    assert_eq!(session_of(&[]), fresh);
    assert_eq!(session_of(&["--session", &first]), first);
    assert_eq!(
        session_of(&[]),
        first,
        "the most recently active session is current"
    );
    let sessions = example.json(&["sessions", "list", "--format", "json"]);
    assert_eq!(sessions.as_array().unwrap().len(), 2);
    let unknown = example.output(&["run", "code-reviewer", "-p", "x", "--session", "nope"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("nope"));
    let both = example.output(&["run", "code-reviewer", "-p", "x", "--new", "--continue"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn continue_session_off_starts_a_session_per_run() {
    let example = TestProject::served_example("review-fix");
    set_agents_setting(&example, "continueSession", Value::Bool(false));
    let first = example.json(REVIEW)["sessionId"].clone();
    let second = example.json(REVIEW)["sessionId"].clone();
    assert_ne!(first, second);
    let mut resume = REVIEW.to_vec();
    resume.push("--continue");
    assert_eq!(example.json(&resume)["sessionId"], second);
}

#[test]
fn persistence_off_writes_no_session() {
    let example = TestProject::served_example("review-fix");
    set_agents_setting(&example, "contextPersistence", Value::Bool(false));
    let review = example.json(REVIEW);
    assert!(review["sessionId"].is_null());
    assert!(!example.root.join(".agentctl/sessions.db").exists());
}

#[test]
fn shared_context_refused_by_settings_is_a_clear_error() {
    let example = TestProject::served_example("review-fix");
    set_agents_setting(&example, "allowSharedContext", Value::Bool(false));
    let output = example.output(&["run", "code-reviewer", "-p", "x", "--context", "shared"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("allowSharedContext"), "{stderr}");
}

#[test]
fn a_killed_run_leaves_a_readable_resumable_session() {
    let example = TestProject::served_example("review-fix");
    example.write(
        ".agentctl/cassettes/slow.yaml",
        "version: 1\nturns:\n  - response:\n      text: Reading first.\n      toolCalls:\n        - { id: r1, name: read_file, arguments: { path: src/stats.py } }\n  - response:\n      toolCalls:\n        - { id: s1, name: bash, arguments: { command: sleep 30 } }\n  - response: { text: never }\n",
    );
    example.write(
        ".agentctl/agents/sleeper.md",
        "---\nname: sleeper\ndescription: Sleeps.\nmodel: scripted:.agentctl/cassettes/slow.yaml\ncontextMode: shared\n---\n\nSleep.\n",
    );
    let mut child = example
        .command(&["run", "sleeper", "-p", "take a nap", "--yes"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the first turn (read_file and its result) is in the store.
    let db = example.root.join(".agentctl/sessions.db");
    let going = wait_for(Duration::from_secs(20), || {
        if !db.exists() {
            return None;
        }
        let output = example.output(&["sessions", "list", "--format", "json"]);
        let list: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        (list[0]["messageCount"].as_u64().unwrap_or(0) >= 3).then_some(())
    });
    assert!(going.is_some(), "the run never got going");
    child.kill().unwrap();
    child.wait().unwrap();

    let sessions = example.json(&["sessions", "list", "--format", "json"]);
    let session = sessions[0]["sessionId"].as_str().unwrap().to_owned();
    // Resuming marks the killed run interrupted and appends a new run.
    let resumed = example.json(&[
        "run",
        "code-reviewer",
        "--continue",
        "-p",
        "Review src/stats.py",
        "--format",
        "json",
    ]);
    assert_eq!(resumed["sessionId"], session.as_str());
    let shown = example.json(&["sessions", "show", &session, "--all", "--format", "json"]);
    let statuses: Vec<&str> = shown["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["interrupted", "completed"]);
    // The killed run's first turn is intact: the call and its result.
    let messages = shown["messages"].as_array().unwrap();
    assert!(messages.iter().any(|m| m["role"] == "tool"), "{shown:#}");
}

#[test]
fn two_tasks_in_one_turn_run_as_hidden_sub_agents_and_hand_back_summaries() {
    let example = TestProject::served_example("review-fix");
    example.write(
        ".agentctl/agents/lead.md",
        "---\nname: lead\ndescription: Splits work.\nmodel: scripted:lead.yaml\ntools:\n  allow: [task]\n---\n\nDelegate.\n",
    );
    example.write(
        ".agentctl/agents/helper.md",
        "---\nname: helper\ndescription: Summarises files.\nmodel: scripted:helper.yaml\ntools:\n  allow: [read_file]\n---\n\nSummarise.\n",
    );
    // One task at a time per agent (a busy agent takes no second task): the second helper is
    // its own agent, on the same script.
    example.write(
        ".agentctl/agents/helper-two.md",
        "---\nname: helper-two\ndescription: Summarises files.\nmodel: scripted:helper.yaml\ntools:\n  allow: [read_file]\n---\n\nSummarise.\n",
    );
    example.write(
        "lead.yaml",
        r#"version: 1
turns:
  - expect: { toolsInclude: [task], historyContains: "| helper | available | read_code |" }
    response:
      toolCalls:
        - { id: t1, name: task, arguments: { goal: Summarise stats.py, resources: [src/stats.py], agent: helper } }
        - { id: t2, name: task, arguments: { goal: Summarise the tests, resources: [src/test_stats.py], agent: helper-two } }
  - expect: { historyContains: "helper says" }
    response: { text: Both helpers reported. }
"#,
    );
    example.write(
        "helper.yaml",
        "version: 1\nturns:\n  - expect: { lastUserContains: Summarise }\n    response: { text: helper says one }\n  - expect: { lastUserContains: Summarise }\n    response: { text: helper says two }\n",
    );
    let run = example.json(&[
        "run",
        "lead",
        "-p",
        "Summarise the project",
        "--format",
        "json",
    ]);
    assert_eq!(run["text"], "Both helpers reported.");
    let session = run["sessionId"].as_str().unwrap().to_owned();

    let timeline = example.json(&["sessions", "show", &session, "--format", "json"]);
    let mut visible: Vec<String> = timeline["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{} {}",
                m["contextScope"].as_str().unwrap(),
                m["agent"].as_str().unwrap_or("user")
            )
        })
        .collect();
    // The two summaries come in the order the tasks ended.
    visible[1..3].sort();
    assert_eq!(
        visible,
        [
            "agent:lead user",
            "main helper",
            "main helper-two",
            "main lead"
        ],
        "{timeline:#}"
    );
    let all = example.json(&["sessions", "show", &session, "--all", "--format", "json"]);
    let runs = all["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{all:#}");
    let parent = runs[0]["runId"].clone();
    for child in &runs[1..] {
        assert_eq!(child["parentRunId"], parent);
        assert!(
            child["contextScope"]
                .as_str()
                .unwrap()
                .starts_with("sub:helper")
        );
    }
    let sub_steps = all["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["contextScope"].as_str().unwrap().starts_with("sub:"))
        .inspect(|m| assert_eq!(m["visible"], false))
        .count();
    assert!(sub_steps >= 4, "{all:#}");
}
