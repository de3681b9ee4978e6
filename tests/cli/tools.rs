//! Tools, filters and approvals end to end: `agentctl run` on cassettes with real files, and
//! `agentctl agents tools`.

use super::support::{TestProject, events, spawn_piped, text, tool_result};
use serde_json::Value;

const NOTES: &str = "alpha\nbeta: the answer is 42\ngamma\n";

/// A temporary project with one agent, one cassette and one source file.
fn project(agent: &str, cassette: &str) -> TestProject {
    let project = TestProject::new();
    project.serve_cassettes();
    project
        .write(".agentctl/agents/reader.md", agent)
        .write("cassette.yaml", cassette)
        .write("notes.txt", NOTES);
    project
}

fn agent(allow: &str) -> String {
    format!(
        "---\nname: reader\ndescription: Reads notes.\nmodel: scripted:cassette.yaml\ntools:\n  allow: {allow}\n---\n\nYou read notes.\n"
    )
}

/// Reads and greps `notes.txt`, tries to write `out.txt`, then answers with what it was told.
const READ_GREP_WRITE: &str = r#"
version: 1
turns:
  - expect: { lastUserContains: notes }
    response:
      toolCalls:
        - { id: c1, name: read_file, arguments: { path: notes.txt } }
        - { id: c2, name: grep, arguments: { pattern: "answer is \\d+", path: . } }
  - expect: { lastToolResultContains: "notes.txt:2" }
    response:
      toolCalls:
        - { id: c3, name: write_file, arguments: { path: out.txt, content: "42\n" } }
  - response:
      text: "The answer is 42; I could not save it."
"#;

#[test]
fn agent_limited_to_read_and_grep_is_refused_write_and_goes_on() {
    let project = project(&agent("[read_file, grep]"), READ_GREP_WRITE);
    let output = project.output(&[
        "run",
        "reader",
        "-p",
        "Read notes",
        "--format",
        "stream-json",
        "--yes",
    ]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    let events = events(&output);
    assert_eq!(tool_result(&events, "c1")["isError"], false);
    assert!(
        tool_result(&events, "c1")["content"]
            .as_str()
            .unwrap()
            .contains("answer is 42")
    );
    assert!(
        tool_result(&events, "c2")["content"]
            .as_str()
            .unwrap()
            .contains("notes.txt:2")
    );
    let refused = tool_result(&events, "c3");
    assert_eq!(refused["isError"], true);
    assert!(
        refused["content"]
            .as_str()
            .unwrap()
            .contains("not allowed for this agent"),
        "{refused}"
    );
    let decision = events
        .iter()
        .find(|event| event["type"] == "tool_decision" && event["id"] == "c3")
        .unwrap();
    assert_eq!(decision["decision"], "deny");
    assert_eq!(decision["by"], "policy");
    // Nothing was written, and the run finished with the model's answer.
    assert!(!project.root.join("out.txt").exists());
    let last = events.last().unwrap();
    assert_eq!(last["type"], "run_finished");
    assert_eq!(
        last["result"]["text"],
        "The answer is 42; I could not save it."
    );
}

#[test]
fn without_a_terminal_a_call_needing_approval_is_refused_at_once() {
    let project = project(&agent("[read_file, grep, write_file]"), READ_GREP_WRITE);
    let output = project.output(&["run", "reader", "-p", "Read notes"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    assert!(
        stderr.contains(
            "warning: write_file refused: denied: write_file needs approval (risk low: write_file makes changes; it is rated low) and nobody can approve it here; pass --approve safe,low (or --yes)"
        ),
        "{stderr}"
    );
    assert!(!project.root.join("out.txt").exists());
    assert!(text(&output.stdout).contains("The answer is 42"));
}

#[test]
fn approved_levels_let_the_write_through() {
    let project = project(&agent("[read_file, grep, write_file]"), READ_GREP_WRITE);
    let output = project.output(&["run", "reader", "-p", "Read notes", "--approve", "safe,low"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        std::fs::read_to_string(project.root.join("out.txt")).unwrap(),
        "42\n"
    );
    let bad = project.output(&[
        "run",
        "reader",
        "-p",
        "Read notes",
        "--approve",
        "sometimes",
    ]);
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains("sometimes"));
}

#[test]
fn agents_tools_shows_the_effective_set() {
    let project = project(&agent("[read_file, grep, write_file]"), READ_GREP_WRITE);
    let output = project.output(&["agents", "tools", "reader", "--format", "json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows: Vec<(&str, &str, &str)> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                tool["risk"].as_str().unwrap(),
                tool["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("grep", "safe", "allow"),
            ("read_file", "safe", "allow"),
            ("write_file", "low", "ask"),
        ]
    );
    assert_eq!(report["autoApprove"], serde_json::json!(["safe"]));
    let yes = project.output(&["agents", "tools", "reader", "--yes"]);
    let table = text(&yes.stdout);
    insta::assert_snapshot!(table);
    let all = project.output(&["agents", "tools", "reader", "--all", "--format", "json"]);
    let all: Value = serde_json::from_slice(&all.stdout).unwrap();
    assert_eq!(
        all["tools"].as_array().unwrap().len(),
        agentctl_core::BUILTIN_TOOLS.len() + 1,
        "the built-ins and task"
    );
}

#[test]
fn agents_tools_names_an_unknown_agent() {
    let project = project(&agent("[read_file]"), READ_GREP_WRITE);
    let output = project.output(&["agents", "tools", "redaer"]);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("did you mean `reader`"));
}

#[test]
fn escape_attempts_reach_the_model_as_tool_errors() {
    let cassette = r#"
version: 1
turns:
  - response:
      toolCalls:
        - { id: up, name: read_file, arguments: { path: ../outside.txt } }
        - { id: abs, name: read_file, arguments: { path: /etc/passwd } }
  - response: { text: done }
"#;
    let project = project(&agent("[read_file]"), cassette);
    std::fs::write(project.root.parent().unwrap().join("outside.txt"), "secret").unwrap();
    let output = project.output(&["run", "reader", "-p", "x", "--format", "stream-json"]);
    assert!(output.status.success());
    let events = events(&output);
    for id in ["up", "abs"] {
        let result = tool_result(&events, id);
        assert_eq!(result["isError"], true, "{result}");
        assert!(!result["content"].as_str().unwrap().contains("secret"));
    }
}

/// Writes a note, then tries `rm -rf build`.
const WRITE_THEN_RM: &str = r#"
version: 1
turns:
  - response:
      text: Writing the note.
      toolCalls:
        - { id: w1, name: write_file, arguments: { path: out.txt, content: "hello\n" } }
  - response:
      toolCalls:
        - { id: b1, name: bash, arguments: { command: "rm -rf build" } }
  - expect: { lastToolResultContains: "the user refused bash" }
    response: { text: Done. }
"#;

#[test]
fn on_a_terminal_the_user_is_asked_and_answers() {
    use std::io::Write as _;
    if !super::support::has_script() {
        return;
    }
    let project = project(&agent("[write_file, bash]"), WRITE_THEN_RM);
    std::fs::create_dir_all(project.root.join("build")).unwrap();
    let mut child = spawn_piped(project.terminal_command(&["run", "reader", "-p", "write a note"]));
    let mut stdin = child.stdin.take().unwrap();
    // Yes to the write, no to `rm -rf` (typed ahead: the terminal keeps the lines).
    stdin.write_all(b"y\nn\n").unwrap();
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    let screen = text(&output.stdout).replace('\r', "");
    assert!(output.status.success(), "{screen}");
    assert!(
        screen.contains("Agent `reader` wants to run `write_file`"),
        "{screen}"
    );
    assert!(
        screen.contains("risk:      low (write_file makes changes; it is rated low)"),
        "{screen}"
    );
    assert!(
        screen.contains("risk:      high (rm -rf removes files recursively)"),
        "{screen}"
    );
    assert!(
        screen.contains("warning: bash refused: denied: the user refused bash"),
        "{screen}"
    );
    assert!(screen.contains("Done."), "{screen}");
    assert_eq!(
        std::fs::read_to_string(project.root.join("out.txt")).unwrap(),
        "hello\n"
    );
    assert!(project.root.join("build").exists());
}
