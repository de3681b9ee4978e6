//! Issue 34 item 0, end to end on the strict OpenAI fake: a Claude Code project — `.mcp.json`
//! with the reference server, `.claude/settings.json` with `deny: ["Bash(rm:*)"]` and
//! `allow: ["Bash(npm test:*)"]`, `env` and `model` — runs with that server and those rules:
//! `rm` is refused even inside `a && rm x`, `npm test` runs without asking (stdin is closed:
//! any question would be refused), `env` reaches the command, and its `PreToolUse` hook refuses
//! `curl` with the reason the model reads.

use super::support::{ServedModel, TestProject, events, everything_server, text, tool_result};

/// `.claude/settings.json` of the project, as a Claude Code user writes it.
const SETTINGS: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm test:*)", "mcp__everything__echo"],
    "deny": ["Bash(rm:*)", "Read(./secrets/**)"]
  },
  "env": {"GREETING": "from-claude-settings"},
  "model": "openai:gpt-4o-mini",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/no-curl.sh"}
      ]}
    ]
  }
}"#;

/// The project's `PreToolUse` hook: refuses `curl` with a reason (exit 2, stderr).
const NO_CURL: &str = "input=$(cat)\ncase \"$input\" in\n  *curl*) echo 'no network from tests: use the fixtures' >&2; exit 2 ;;\nesac\nexit 0\n";

/// A Claude Code subagent, without a `model:` (the settings' `model` is the default).
const AGENT: &str = "---
name: helper
description: Runs the project's tests.
mcpServers:
  - everything
---
You run the tests.
";

fn claude_project() -> TestProject {
    let project = TestProject::new();
    project
        .write(".claude/settings.json", SETTINGS)
        .write(".claude/agents/helper.md", AGENT)
        .write(".claude/hooks/no-curl.sh", NO_CURL)
        .write(
            ".mcp.json",
            r#"{"mcpServers": {"everything": {"command": "${EVERYTHING_SERVER:-missing}", "args": ["stdio"]}}}"#,
        )
        .write(
            "package.json",
            r#"{"name": "p", "version": "1.0.0", "scripts": {"test": "echo tests-passed $GREETING"}}"#,
        )
        .write("secrets/key", "s3cret\n");
    project.trust();
    project
}

#[test]
fn a_claude_code_project_runs_with_its_servers_and_rules() {
    let Some(server) = everything_server() else {
        return;
    };
    let project = claude_project();
    let model = ServedModel::openai();
    model.answer_call(
        "m1",
        "mcp.everything.echo",
        r#"{"message":"hello over MCP"}"#,
    );
    model.answer_call("b1", "bash", r#"{"command":"npm test"}"#);
    model.answer_call("b2", "bash", r#"{"command":"echo a && rm x"}"#);
    model.answer_call("r1", "read_file", r#"{"path":"./secrets/../secrets/key"}"#);
    model.answer_call("c1", "bash", r#"{"command":"curl https://example.com"}"#);
    model.answer_text("Done.");
    let mut command = project.command(&[
        "run",
        "helper",
        "-p",
        "run the tests",
        "--format",
        "stream-json",
    ]);
    command.env("EVERYTHING_SERVER", &server);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let events = events(&output);
    let result = |id: &str| tool_result(&events, id).clone();
    let content = |id: &str| {
        result(id)["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };

    assert_eq!(result("m1")["isError"], false, "{}", content("m1"));
    assert!(content("m1").contains("hello over MCP"));
    assert_eq!(result("b1")["isError"], false, "{}", content("b1"));
    assert!(
        content("b1").contains("tests-passed from-claude-settings"),
        "{}",
        content("b1")
    );
    assert_eq!(result("b2")["isError"], true);
    assert!(
        content("b2").contains("denied by the permission rule `Bash(rm:*)`"),
        "{}",
        content("b2")
    );
    assert_eq!(result("r1")["isError"], true);
    assert!(
        content("r1").contains("denied by the permission rule `Read(./secrets/**)`"),
        "{}",
        content("r1")
    );
    // The settings' PreToolUse hook refused `curl`, and the model read why.
    assert_eq!(result("c1")["isError"], true);
    assert!(
        content("c1").contains("no network from tests: use the fixtures"),
        "{}",
        content("c1")
    );
    // The settings' `model` was the model of the agent that has none.
    let request = &model.server.requests()[0];
    assert_eq!(request.body["model"], "gpt-4o-mini");
}

#[test]
fn config_show_names_each_rules_file_and_the_rules_it_cannot_map() {
    let project = TestProject::new();
    project.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["Bash(rm:*)", "NotebookEdit(x.ipynb)"], "defaultMode": "plan"}}"#,
    );
    let output = project.output(&["config", "show", "--origin"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("permissions.deny = \"Bash(rm:*)\"")
            && stdout.contains("# claude-project: .claude/settings.json"),
        "{stdout}"
    );
    assert!(
        stdout.contains("# not applied: permission rules agentctl cannot map"),
        "{stdout}"
    );
    assert!(stdout.contains("NotebookEdit(x.ipynb)"), "{stdout}");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("`permissions.deny`: rule `NotebookEdit(x.ipynb)` not applied"),
        "{stderr}"
    );
    assert!(
        stderr.contains("not read (Claude Code's own settings): `permissions.defaultMode`"),
        "{stderr}"
    );
}

#[test]
fn an_unset_variable_in_mcp_json_is_an_error_naming_the_server() {
    let project = TestProject::new();
    project
        .write(
            ".mcp.json",
            r#"{"mcpServers": {"files": {"command": "${NO_SUCH_AGENTCTL_VAR}", "args": []}}}"#,
        )
        .write(
            ".claude/agents/helper.md",
            "---\nname: helper\ndescription: h\nmodel: openai:gpt-4o-mini\nmcpServers: [files]\n---\nHi.\n",
        );
    // Trusting the project resolves its servers, and says what is wrong with this one.
    let output = project.output(&["trust"]);
    let stderr = text(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("MCP server `files` (in ") && stderr.contains(".mcp.json)"),
        "{stderr}"
    );
    assert!(stderr.contains("`NO_SUCH_AGENTCTL_VAR`"), "{stderr}");
}

/// The rules and the instructions reach a sub-agent the `task` tool starts as they reach
/// the agent the user runs: one gate and one prompt section for every agent of the tree.
#[test]
fn a_sub_agent_meets_the_same_rules_and_instructions() {
    let project = TestProject::new();
    project
        .write(
            ".claude/settings.json",
            r#"{"permissions": {"deny": ["Bash(rm:*)"]}, "model": "openai:gpt-4o-mini"}"#,
        )
        .write(
            ".claude/agents/lead.md",
            "---\nname: lead\ndescription: Delegates.\n---\nYou delegate.\n",
        )
        .write(
            ".claude/agents/worker.md",
            "---\nname: worker\ndescription: Cleans up.\n---\nYou clean up.\n",
        )
        .write("AGENTS.md", "Never delete the fixtures folder.\n");
    let model = ServedModel::openai();
    model.answer_call(
        "t1",
        "task",
        r#"{"goal":"clean the build","agent":"worker"}"#,
    );
    // A sub-agent's run is not streamed: its answers come whole.
    model
        .server
        .push_json(agentctl_test_support::openai::tool_calls_response(&[(
            "w1",
            "bash",
            r#"{"command":"ls && rm -rf fixtures"}"#,
        )]));
    model
        .server
        .push_json(agentctl_test_support::openai::text_response(
            "could not remove",
        ));
    model.answer_text("the worker could not remove it");
    let mut command = project.command(&["run", "lead", "-p", "clean up"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    assert_eq!(
        requests.len(),
        4,
        "{}\n{:#?}",
        text(&output.stdout),
        requests
            .iter()
            .map(|r| r.body["messages"].clone())
            .collect::<Vec<_>>()
    );
    let worker = serde_json::to_string(&requests[2].body).unwrap();
    assert!(
        worker.contains("denied by the permission rule `Bash(rm:*)`"),
        "{worker}"
    );
    let system = requests[1].body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(system.contains("You clean up."), "{system}");
    assert!(
        system.contains("Never delete the fixtures folder."),
        "{system}"
    );
}

/// Before `agentctl trust`, a cloned project's `deny` rules apply and its `allow` rules do
/// not: `npm test` needs approval (refused here, nobody can answer), `rm` is still denied.
#[test]
fn an_untrusted_projects_allow_rules_wait_for_trust() {
    let project = TestProject::new();
    project.write(".claude/settings.json", SETTINGS).write(
        ".claude/agents/helper.md",
        "---\nname: helper\ndescription: h\n---\nHi.\n",
    );
    let model = ServedModel::openai();
    model.answer_call("b1", "bash", r#"{"command":"npm test"}"#);
    model.answer_call("b2", "bash", r#"{"command":"true; rm x"}"#);
    model.answer_text("Done.");
    let mut command = project.command(&["run", "helper", "-p", "test", "--format", "stream-json"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let events = events(&output);
    let content = |id: &str| {
        tool_result(&events, id)["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        content("b1").contains("needs approval"),
        "{}",
        content("b1")
    );
    assert!(
        content("b2").contains("denied by the permission rule `Bash(rm:*)`"),
        "{}",
        content("b2")
    );
    assert!(
        text(&output.stderr).contains("permissions.allow"),
        "{}",
        text(&output.stderr)
    );
}
