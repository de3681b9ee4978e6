//! A command's `allowed-tools` with argument patterns (issue 34 items 3–4), end to end on the
//! strict OpenAI fake: `Bash(git diff:*)` offers `bash` but lets only `git diff …` lines run —
//! through the permission rules' own matching, so `git diff; rm -rf src`, `git diff $(curl x)`
//! and `git push` are refused for the turn, even with every level approved — and
//! `Read(./docs/**)` reads under `docs/` only, whatever the spelling of a path outside it.

use super::support::request::offered_tools;
use super::support::request::tool_message;
use super::support::{ServedModel, TestProject, text};

const DIFF: &str = "---\ndescription: Explain the working tree's changes\n\
allowed-tools: Bash(git diff:*), Read(./docs/**)\n---\nExplain the changes: $ARGUMENTS\n";

fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/settings.json",
            r#"{"agents": {"defaultModel": "openai:gpt-4o-mini"}}"#,
        )
        .write(".claude/commands/diff.md", DIFF)
        .write("docs/guide.md", "the guide\n")
        .write("secrets/key.txt", "sk-not-for-you\n");
    project
}

#[test]
fn a_bash_pattern_in_allowed_tools_lets_only_matching_commands_run() {
    let project = project();
    let model = ServedModel::openai();
    let calls = [
        ("c1", r#"{"command":"git diff --stat"}"#),
        ("c2", r#"{"command":"git diff; touch pwned.txt"}"#),
        ("c3", r#"{"command":"git push origin main"}"#),
        ("c4", r#"{"command":"git diff $(touch pwned2.txt)"}"#),
        ("c5", r#"{"command":"touch pwned3.txt"}"#),
    ];
    for (id, arguments) in calls {
        model.answer_call(id, "bash", arguments);
    }
    model.answer_text("Explained.");
    // Every level approved: the pattern alone keeps the other commands out.
    let output = model.run(
        &project,
        &["run", "--yes", "--command", "diff", "--", "briefly"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    let mut offered = offered_tools(&requests[0].body);
    offered.sort();
    assert_eq!(offered, ["bash", "read_file"]);
    let last = &requests[5].body;
    let ran = tool_message(last, "c1");
    assert!(!ran.contains("allowed-tools"), "{ran}");
    for id in ["c2", "c3", "c4", "c5"] {
        let refused = tool_message(last, id);
        assert!(
            refused.contains("allowed-tools let bash run only as Bash(git diff:*)"),
            "{id}: {refused}"
        );
    }
    for file in ["pwned.txt", "pwned2.txt", "pwned3.txt"] {
        assert!(!project.root.join(file).exists(), "{file}");
    }
    model.server.assert_no_violations();
}

#[test]
fn a_read_pattern_in_allowed_tools_reads_under_its_folder_only() {
    let project = project();
    let model = ServedModel::openai();
    let root = project.root.display().to_string();
    let outside = [
        "secrets/key.txt".to_owned(),
        "docs/../secrets/key.txt".to_owned(),
        format!("{root}/secrets/key.txt"),
        format!("{root}//secrets//key.txt"),
        "/proc/self/cwd/secrets/key.txt".to_owned(),
    ];
    model.answer_call("r0", "read_file", r#"{"path":"docs/guide.md"}"#);
    for (index, path) in outside.iter().enumerate() {
        let arguments = serde_json::json!({ "path": path }).to_string();
        model.answer_call(&format!("r{}", index + 1), "read_file", &arguments);
    }
    model.answer_text("Read.");
    let output = model.run(
        &project,
        &["run", "--yes", "--command", "diff", "--", "docs"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    let last = &requests[outside.len() + 1].body;
    assert!(tool_message(last, "r0").contains("the guide"));
    for index in 1..=outside.len() {
        let result = tool_message(last, &format!("r{index}"));
        assert!(!result.contains("sk-not-for-you"), "{result}");
        assert!(result.contains("denied"), "r{index}: {result}");
    }
}
