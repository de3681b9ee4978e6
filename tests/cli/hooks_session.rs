//! The session's own hook events, end to end on the strict OpenAI fake: `SessionStart` runs
//! once with a session's first turn (`source` `startup`, or `resume` for the project's
//! current session continued) and what it prints is context the model reads; `SessionEnd`
//! runs when the session ends.

use super::support::request::messages_text;
use super::support::{ServedModel, TestProject, spawn_piped, text};
use serde_json::json;
use std::io::Write as _;

/// Prints the event's input as context and logs the session's end.
const HOOK: &str = r#"#!/bin/sh
input=$(cat)
case "$input" in
  *'"hook_event_name":"SessionEnd"'*) printf '%s\n' "$input" >> ended.jsonl ;;
  *) echo "Sprint focus: payments. $input" ;;
esac
"#;

#[test]
fn session_start_adds_context_once_and_session_end_runs_at_the_end() {
    let project = TestProject::new();
    let command = json!([{"type": "command", "command": "sh hooks/session.sh"}]);
    project
        .write(
            ".agentctl/settings.json",
            &json!({
                "agents": {"defaultModel": "openai:gpt-4o-mini"},
                "hooks": {
                    "SessionStart": [{"matcher": "startup|resume", "hooks": command}],
                    "SessionEnd": [{"hooks": command}]
                }
            })
            .to_string(),
        )
        .write("hooks/session.sh", HOOK);
    project.trust();
    let model = ServedModel::openai();
    model.answer_text("Noted.");
    model.answer_text("Still payments.");
    let mut chat = project.command(&["chat", "--interactive"]);
    model.point(&mut chat);
    let mut child = spawn_piped(chat);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"What is the focus?\nAnd now?\nexit\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    let first = messages_text(&requests[0].body);
    assert!(first.contains("Sprint focus: payments."), "{first}");
    assert!(first.contains(r#"\"source\":\"startup\""#), "{first}");
    // Once per session: the second turn carries the first's context in its history only.
    let second = messages_text(&requests[1].body);
    assert_eq!(
        second.matches("Sprint focus: payments.").count(),
        1,
        "{second}"
    );
    let ended = std::fs::read_to_string(project.root.join("ended.jsonl")).unwrap();
    assert_eq!(ended.lines().count(), 1, "{ended}");
    assert!(ended.contains(r#""reason":"other""#), "{ended}");

    // The next invocation continues the project's current session: `resume`.
    model.answer_text("Resumed.");
    let output = model.run(&project, &["chat", "-p", "Where were we?"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let resumed = messages_text(&model.server.requests()[2].body);
    assert!(resumed.contains(r#"\"source\":\"resume\""#), "{resumed}");
}

/// Answers permission questions for the person: denies a command that says `deny-me`, allows
/// the rest; logs each notification.
const PERMISSION_HOOK: &str = r#"#!/bin/sh
input=$(cat)
case "$input" in
  *'"hook_event_name":"Notification"'*) printf '%s\n' "$input" >> notified.jsonl ;;
  *deny-me*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not this one"}}}' ;;
  *) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}' ;;
esac
"#;

#[test]
fn a_permission_request_hook_answers_for_the_person_and_notifications_are_sent() {
    if !super::support::has_script() {
        return;
    }
    let project = TestProject::new();
    let command = json!([{"type": "command", "command": "sh hooks/permission.sh"}]);
    project
        .write(
            ".agentctl/settings.json",
            &json!({"hooks": {
                "PermissionRequest": [{"matcher": "Bash", "hooks": command}],
                "Notification": [{"matcher": "permission_prompt", "hooks": command}]
            }})
            .to_string(),
        )
        .write("hooks/permission.sh", PERMISSION_HOOK)
        .write(
            ".agentctl/agents/worker.md",
            "---\nname: worker\ndescription: Works\nmodel: openai:gpt-4o-mini\ntools:\n  allow: [bash, write_file]\n---\nWork.\n",
        );
    project.trust();
    let model = ServedModel::openai();
    model.answer_call("b1", "bash", r#"{"command":"touch made.txt"}"#);
    model.answer_call("b2", "bash", r#"{"command":"echo deny-me > no.txt"}"#);
    model.answer_text("Done.");
    let mut command = project.terminal_command(&["run", "worker", "-p", "work"]);
    model.point(&mut command);
    let terminal = super::support::Terminal::start_command(command);
    // Nothing is asked on the terminal: the hook answered both questions.
    let (status, screen) = terminal.finish();
    assert!(status.success(), "{screen}");
    assert!(!screen.contains("[y/N]"), "{screen}");
    assert!(project.root.join("made.txt").exists(), "{screen}");
    assert!(!project.root.join("no.txt").exists(), "{screen}");
    let last = messages_text(&model.server.requests()[2].body);
    assert!(
        last.contains("denied by a PermissionRequest hook: not this one"),
        "{last}"
    );
    let notified = std::fs::read_to_string(project.root.join("notified.jsonl")).unwrap_or_default();
    assert!(
        notified.contains("agentctl needs your permission to use bash"),
        "{notified}"
    );
}
