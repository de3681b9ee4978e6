//! Custom slash commands (issue 34 item 4), end to end on the strict OpenAI fake: a Claude
//! Code command with `allowed-tools` and `model` run as `run --command NAME -- ARGS` and as
//! `/name args` in the interactive session (the expanded prompt sent, the offered tools
//! narrowed on the wire, the model switched), a Gemini CLI TOML command with `{{args}}`,
//! built-ins winning over a command of their name, and `/help` listing the commands.

use super::support::request::offered_tools;
use super::support::{ServedModel, TestProject, text};
use serde_json::Value;

const REVIEW: &str = "---\ndescription: Review a file for bugs\nallowed-tools: Read, Grep\n\
model: openai:gpt-4o\nargument-hint: FILE [FOCUS]\n---\nReview $1 with a focus on $2.\n\
Everything asked: $ARGUMENTS\n";

fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/settings.json",
            r#"{"agents": {"defaultModel": "openai:gpt-4o-mini"}}"#,
        )
        .write(".claude/commands/review.md", REVIEW)
        .write(
            ".gemini/commands/git/explain.toml",
            "description = \"Explain a git command\"\nprompt = \"\"\"Explain the git command: {{args}}\"\"\"\n",
        )
        .write(".claude/commands/help.md", "---\ndescription: Mine\n---\nNot the built-in.\n")
        .write(
            ".claude/agents/handler.md",
            "---\nname: handler\ndescription: Handles\nmodel: openai:gpt-4o-mini\n---\nYou handle.\n",
        );
    project
}

fn user_message(body: &Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    last["content"].as_str().unwrap().to_owned()
}

#[test]
fn run_command_sends_the_expanded_prompt_with_the_commands_tools_and_model() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_call("c1", "bash", r#"{"command":"rm -rf src"}"#);
    model.answer_text("Reviewed.");
    let mut command = project.command(&[
        "run",
        "--command",
        "review",
        "--",
        "src/app.py",
        "errors",
        "--format",
    ]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("Reviewed."));
    let requests = model.server.requests();
    let body = &requests[0].body;
    assert_eq!(
        user_message(body),
        "Review src/app.py with a focus on errors.\nEverything asked: src/app.py errors --format"
    );
    assert_eq!(body["model"], "gpt-4o");
    assert_eq!(offered_tools(body), ["grep", "read_file"]);
    // A call of a tool the command does not allow is refused by the same policy.
    let refused = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .to_string();
    assert!(refused.contains("not allowed"), "{refused}");
    model.server.assert_no_violations();

    // Without `--command`, the main conversation has its full tool set again.
    model.answer_text("Plain.");
    let mut command = project.command(&["chat", "-p", "hello"]);
    model.point(&mut command);
    assert!(command.output().unwrap().status.success());
    let requests = model.server.requests();
    assert!(offered_tools(&requests[2].body).contains(&"bash".to_owned()));
    assert_eq!(requests[2].body["model"], "gpt-4o-mini");
}

#[test]
fn a_named_agent_runs_a_command_narrowed_through_handoffs_and_unknown_commands_suggest() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_text("Explained.");
    let mut command = project.command(&[
        "run",
        "--agent",
        "handler",
        "--command",
        "git:explain",
        "--",
        "rebase",
        "-i",
    ]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let body = &model.server.requests()[0].body;
    assert_eq!(user_message(body), "Explain the git command: rebase -i");
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("You handle.")
    );

    // A handoff is no way around the narrowing: the target runs narrowed too.
    project
        .write(
            ".agentctl/agents/triage.md",
            "---\nname: triage\ndescription: Triage\nmodel: openai:gpt-4o-mini\nhandoffs:\n  - to: sheller\n---\nYou triage.\n",
        )
        .write(
            ".agentctl/agents/sheller.md",
            "---\nname: sheller\ndescription: Runs commands\nmodel: openai:gpt-4o-mini\ntools:\n  allow: [bash, read_file]\n---\nYou run commands.\n",
        )
        .write(
            ".claude/commands/look.md",
            "---\nallowed-tools: Read, handoff_to_sheller\n---\nLook at $ARGUMENTS\n",
        );
    model.answer_call("h1", "handoff_to_sheller", r#"{"reason":"needs a shell"}"#);
    model.answer_text("Looked.");
    let mut command = project.command(&["run", "triage", "--command", "look", "--", "src"]);
    model.point(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    assert_eq!(
        offered_tools(&requests[1].body),
        ["handoff_to_sheller", "read_file"]
    );
    assert_eq!(
        offered_tools(&requests[2].body),
        ["read_file"],
        "the target's bash is denied too"
    );
    model.server.assert_no_violations();

    let missing = project.output(&["run", "--command", "reveiw", "--", "x"]);
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("did you mean review?"),
        "{}",
        text(&missing.stderr)
    );
}

#[test]
fn slash_commands_in_the_interactive_session_and_help_lists_them() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_text("Reviewed in the session.");
    model.answer_text("Explained in the session.");
    let mut command = project.command(&["chat", "--interactive"]);
    model.point(&mut command);
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"/help\n/reveiw x\n/review src/app.py speed\n/git:explain bisect\n/exit\n")
            .unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = text(&output.stdout);
    assert!(stdout.contains("Reviewed in the session."), "{stdout}");
    assert!(stdout.contains("Explained in the session."), "{stdout}");
    // The built-in /help wins over .claude/commands/help.md, which is reported.
    assert!(
        stderr.contains("the command /help of")
            && stderr.contains("is shadowed by the built-in /help"),
        "{stderr}"
    );
    assert!(
        stderr.contains("/review FILE [FOCUS]") && stderr.contains("Review a file for bugs"),
        "{stderr}"
    );
    assert!(
        stderr.contains("/git:explain") && stderr.contains("Explain a git command"),
        "{stderr}"
    );
    assert!(
        stderr.contains("unknown command `/reveiw`") && stderr.contains("did you mean /review?"),
        "{stderr}"
    );

    let requests = model.server.requests();
    assert_eq!(requests.len(), 2, "/help never reaches the model");
    assert_eq!(
        user_message(&requests[0].body),
        "Review src/app.py with a focus on speed.\nEverything asked: src/app.py speed"
    );
    assert_eq!(offered_tools(&requests[0].body), ["grep", "read_file"]);
    assert_eq!(requests[0].body["model"], "gpt-4o");
    // The next command's turn is narrowed by nothing and uses the session's model.
    assert_eq!(
        user_message(&requests[1].body),
        "Explain the git command: bisect"
    );
    assert!(offered_tools(&requests[1].body).contains(&"bash".to_owned()));
    assert_eq!(requests[1].body["model"], "gpt-4o-mini");
    model.server.assert_no_violations();
}
