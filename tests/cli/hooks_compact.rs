//! `PreCompact` hooks (issue 34 item 3), end to end on the strict OpenAI fake with a real shell
//! script as the hook: an automatic compaction (the workspace outgrew `gpt-4`'s 8k window)
//! runs the hooks matched on `auto` first, with Claude Code's input (`trigger`,
//! `custom_instructions`, the agent's real `permission_mode`); one that exits 2 holds the
//! compaction back (no summary is asked of the model) and the run goes on; Gemini CLI's
//! `PreCompress` hooks are advisory and cannot; `sessions compact` runs the `manual` ones, and
//! one that blocks refuses it.

use super::support::request::messages_text;
use super::support::{ServedModel, TestProject, text};
use agentctl_core::Message;
use agentctl_store::{ContextScope, MessageLog as _, NewMessage, SessionLog as _};
use agentctl_test_support::openai;
use serde_json::{Value, json};

/// Logs its input; exits 2 (with a reason) when the project has a `hold` file.
const HOOK: &str = r#"#!/bin/sh
input=$(cat)
mkdir -p hooklog
printf '%s\n' "$input" >> hooklog/compact.jsonl
if [ -f hold ]; then
  echo "a migration is half done: keep every message" >&2
  exit 2
fi
exit 0
"#;

/// A project whose `settings` file (`.agentctl/settings.json` or `.gemini/settings.json`)
/// runs the hook on `event` for `matcher`, with a `writer` agent on `gpt-4` (an 8k window)
/// in permission mode `plan`.
fn project(settings: &str, event: &str, matcher: &str) -> TestProject {
    let project = TestProject::new();
    let hooks = json!({event: [{"matcher": matcher, "hooks": [
        {"type": "command", "command": "sh hooks/compact.sh"}]}]});
    project
        .write(settings, &json!({"hooks": hooks}).to_string())
        .write("hooks/compact.sh", HOOK)
        .write(
            ".agentctl/agents/writer.md",
            "---\nname: writer\ndescription: Writes\nmodel: openai:gpt-4\npermissionMode: plan\n---\nWrite.\n",
        );
    project.trust();
    project
}

/// Two runs of `writer` in the project's current session: the first's long prompt makes
/// the workspace outgrow the window before the second. Returns the second's output.
fn two_runs(project: &TestProject, model: &ServedModel, compacts: bool) -> std::process::Output {
    model.answer_text("Noted.");
    let long = "lorem ipsum dolor ".repeat(1800);
    let first = model.run(project, &["run", "writer", "-p", &long]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    if compacts {
        // A summary is asked for without streaming.
        model.server.push_json(openai::text_response(
            "Summary: the user pasted lorem ipsum.",
        ));
    }
    model.answer_text("Done.");
    model.run(project, &["run", "writer", "-p", "What now?"])
}

fn logged(project: &TestProject) -> Vec<Value> {
    std::fs::read_to_string(project.root.join("hooklog/compact.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn an_automatic_compaction_runs_the_pre_compact_hooks_first() {
    let project = project(".agentctl/settings.json", "PreCompact", "auto");
    let model = ServedModel::openai();
    let output = two_runs(&project, &model, true);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let logged = logged(&project);
    assert_eq!(logged.len(), 1, "{logged:?}");
    let input = &logged[0];
    assert_eq!(input["hook_event_name"], "PreCompact");
    assert_eq!(input["trigger"], "auto");
    assert_eq!(input["custom_instructions"], "");
    assert_eq!(input["permission_mode"], "plan");
    assert_eq!(input["agent_name"], "writer");
    // The summary was asked for after the hook, and the run read it.
    let requests = model.server.requests();
    assert_eq!(requests.len(), 3);
    let last = messages_text(&requests[2].body);
    assert!(
        last.contains("Summary: the user pasted lorem ipsum."),
        "{last}"
    );
}

#[test]
fn a_pre_compact_hook_that_exits_2_holds_an_automatic_compaction_back() {
    let project = project(".agentctl/settings.json", "PreCompact", "auto");
    project.write("hold", "");
    let model = ServedModel::openai();
    // The strict fake answers two requests only: a summary request would fail the run.
    let output = two_runs(&project, &model, false);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("compaction held back by a PreCompact hook: a migration is half done"),
        "{stderr}"
    );
    assert_eq!(model.server.requests().len(), 2);
    assert_eq!(logged(&project).len(), 1);
}

#[test]
fn a_manual_matcher_does_not_fire_on_an_automatic_compaction() {
    let project = project(".agentctl/settings.json", "PreCompact", "manual");
    project.write("hold", "");
    let model = ServedModel::openai();
    let output = two_runs(&project, &model, true);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(logged(&project).is_empty());
}

#[test]
fn gemini_pre_compress_hooks_are_advisory() {
    let project = project(".gemini/settings.json", "PreCompress", "auto");
    project.write("hold", "");
    let model = ServedModel::openai();
    let output = two_runs(&project, &model, true);
    assert!(output.status.success(), "{}", text(&output.stderr));
    // It ran, and its exit code 2 did not stop the compaction.
    assert_eq!(logged(&project)[0]["trigger"], "auto");
    assert_eq!(model.server.requests().len(), 3);
}

/// A recorded session with two messages in the main workspace.
fn seeded(project: &TestProject) -> String {
    let store = project.store();
    let session = store.create_session(Some("draft")).unwrap().id;
    let message =
        |scope: ContextScope, text: &str| NewMessage::new(scope, None, Message::user(text));
    store
        .append_messages(
            &session,
            None,
            &[
                message(ContextScope::Main, "draft the release notes"),
                message(ContextScope::Main, "then the changelog"),
            ],
        )
        .unwrap();
    session
}

#[test]
fn sessions_compact_runs_the_manual_hooks_and_one_that_blocks_refuses_it() {
    let project = project(".agentctl/settings.json", "PreCompact", "manual");
    let session = seeded(&project);
    let model = ServedModel::openai();
    project.write("hold", "");
    let args = [
        "sessions",
        "compact",
        session.as_str(),
        "--model",
        "openai:gpt-4o-mini",
    ];
    let refused = model.run(&project, &args);
    assert!(!refused.status.success());
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("a PreCompact hook held the compaction back: a migration is half done"),
        "{stderr}"
    );
    assert!(model.server.requests().is_empty());

    std::fs::remove_file(project.root.join("hold")).unwrap();
    model.server.push_json(openai::text_response(
        "Summary: release notes, then the changelog.",
    ));
    let compacted = model.run(&project, &args);
    assert!(compacted.status.success(), "{}", text(&compacted.stderr));
    assert!(
        text(&compacted.stdout).contains("Compacted main"),
        "{}",
        text(&compacted.stdout)
    );
    let logged = logged(&project);
    assert_eq!(logged.len(), 2);
    assert_eq!(logged[1]["trigger"], "manual");
    assert_eq!(logged[1]["session_id"], session.as_str());
}
