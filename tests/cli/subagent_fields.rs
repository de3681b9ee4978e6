//! Claude Code subagent fields (issue 34 item 6): each one agentctl honours, end to end on the
//! strict OpenAI fake, and each one it does not yet honour shown by `agents validate` as a
//! located "accepted, no effect" warning — never silently dropped.

use super::support::{ServedModel, TestProject, text};

fn claude_agent(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: the {name}\nmodel: openai:gpt-4o-mini\n{extra}---\nYou are {name}.\n"
    )
}

#[test]
fn an_unhonoured_field_is_a_located_accepted_no_effect_warning() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/helper.md",
        &claude_agent("helper", "tools: Read\nbackground: true\n"),
    );
    let output = project.output(&["agents", "validate", "helper"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let line = stdout
        .lines()
        .find(|line| line.contains("accepted, no effect"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains(".claude/agents/helper.md:6:"), "{line}");
    assert!(line.contains("`background`"), "{line}");
}

/// The content of the tool message answering `call_id` in the last request that has one.
fn tool_result(model: &ServedModel, call_id: &str) -> String {
    model
        .server
        .requests()
        .iter()
        .rev()
        .flat_map(|request| {
            request.body["messages"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|message| message["role"] == "tool" && message["tool_call_id"] == call_id)
        .and_then(|message| message["content"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no result of {call_id}"))
}

#[test]
fn permission_mode_plan_refuses_a_write_even_with_yes() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/planner.md",
        &claude_agent(
            "planner",
            "tools: Read, Write, Bash\npermissionMode: plan\n",
        ),
    );
    let model = ServedModel::openai();
    model.answer_call("w1", "write_file", r#"{"path":"plan.txt","content":"x"}"#);
    model.answer_call("b1", "bash", r#"{"command":"touch made.txt"}"#);
    model.answer_call("r1", "read_file", r#"{"path":".claude/agents/planner.md"}"#);
    model.answer_text("I only planned.");
    let output = model.run(&project, &["run", "planner", "-p", "plan it", "--yes"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    for id in ["w1", "b1"] {
        let refused = tool_result(&model, id);
        assert!(
            refused.contains("permission mode is `plan`"),
            "{id}: {refused}"
        );
    }
    assert!(tool_result(&model, "r1").contains("You are planner."));
    assert!(!project.root.join("plan.txt").exists());
    assert!(!project.root.join("made.txt").exists());
    model.server.assert_no_violations();
}

#[test]
fn accept_edits_writes_unasked_but_asks_for_the_rest() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/editor.md",
        &claude_agent(
            "editor",
            "tools: Write, Bash\npermissionMode: acceptEdits\n",
        ),
    );
    let model = ServedModel::openai();
    model.answer_call("w1", "write_file", r#"{"path":"notes.txt","content":"x"}"#);
    model.answer_call(
        "w2",
        "write_file",
        r#"{"path":".git/config","content":"x"}"#,
    );
    model.answer_call("b1", "bash", r#"{"command":"touch made.txt"}"#);
    model.answer_text("Edited.");
    let output = model.run(&project, &["run", "editor", "-p", "edit"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        std::fs::read_to_string(project.root.join("notes.txt")).unwrap(),
        "x"
    );
    for id in ["w2", "b1"] {
        let refused = tool_result(&model, id);
        assert!(refused.contains("nobody can approve"), "{id}: {refused}");
    }
    assert!(!project.root.join(".git/config").exists());
    assert!(!project.root.join("made.txt").exists());
}

#[test]
fn a_plan_parent_cannot_start_an_accept_edits_child_that_writes() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/boss.md",
            "---\nname: boss\ntitle: Boss\ndescription: the boss\nmodel: openai:gpt-4o-mini\n\
             permissionMode: plan\ntools:\n  allow: [task]\n---\nYou are boss.\n",
        )
        .write(
            ".claude/agents/editor.md",
            &claude_agent("editor", "tools: Write\npermissionMode: acceptEdits\n"),
        );
    let model = ServedModel::openai();
    model.answer_call("t1", "task", r#"{"goal":"write it","agent":"editor"}"#);
    model
        .server
        .push_json(agentctl_test_support::openai::tool_calls_response(&[(
            "w1",
            "write_file",
            r#"{"path":"escaped.txt","content":"x"}"#,
        )]));
    model
        .server
        .push_json(agentctl_test_support::openai::text_response("Could not."));
    model.answer_text("The editor could not write.");
    let output = model.run(&project, &["run", "boss", "-p", "delegate", "--yes"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let refused = tool_result(&model, "w1");
    assert!(refused.contains("permission mode is `plan`"), "{refused}");
    assert!(!project.root.join("escaped.txt").exists());
}

/// The text of the last user message of a request.
fn last_user_text(body: &serde_json::Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .and_then(|message| message["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn initial_prompt_opens_a_front_agents_run_but_not_a_sub_agents() {
    let project = TestProject::new();
    project
        .write(
            ".claude/agents/helper.md",
            &claude_agent(
                "helper",
                "tools: Read, Task\ninitialPrompt: Read the changelog first.\n",
            ),
        )
        .write(
            ".claude/agents/child.md",
            &claude_agent("child", "tools: Read\ninitialPrompt: CHILD INITIAL\n"),
        );
    let model = ServedModel::openai();
    model.answer_call("t1", "task", r#"{"goal":"look around","agent":"child"}"#);
    model
        .server
        .push_json(agentctl_test_support::openai::text_response("Looked."));
    model.answer_text("Done.");
    let output = model.run(&project, &["run", "helper", "-p", "Then summarise it."]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let requests = model.server.requests();
    assert_eq!(
        last_user_text(&requests[0].body),
        "Read the changelog first.\n\nThen summarise it."
    );
    let child = last_user_text(&requests[1].body);
    assert!(child.contains("look around"), "{child}");
    assert!(!child.contains("CHILD INITIAL"), "{child}");
    // Validation no longer calls it unhonoured.
    let validate = text(&project.output(&["agents", "validate", "helper"]).stdout);
    assert!(!validate.contains("accepted, no effect"), "{validate}");
}
