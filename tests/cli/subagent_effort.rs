//! `effort` (issue 34 item 6): an agent's reasoning effort reaches the provider in its own
//! parameter — OpenAI `reasoning_effort`, Anthropic extended thinking — on the strict fakes,
//! which refuse what the real APIs refuse; a model that does not reason gets none, and
//! `agents validate` says so at the field.

use super::support::{ServedModel, TestProject, text};
use serde_json::Value;

fn claude_agent(name: &str, model: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: the {name}\nmodel: {model}\n{extra}---\nYou are {name}.\n"
    )
}

/// The bodies of the requests the fake got, in order.
fn bodies(model: &ServedModel) -> Vec<Value> {
    model
        .server
        .requests()
        .into_iter()
        .map(|request| request.body)
        .collect()
}

#[test]
fn claude_effort_high_on_a_reasoning_model_sends_reasoning_effort() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/thinker.md",
        &claude_agent("thinker", "openai:o3", "effort: high\n"),
    );
    let model = ServedModel::openai();
    model.answer_text("Thought it through.");
    let output = model.run(&project, &["run", "thinker", "-p", "think"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let [body] = &bodies(&model)[..] else {
        panic!("{:?}", bodies(&model))
    };
    assert_eq!(body["reasoning_effort"], "high");
    assert!(
        !text(&output.stderr).contains("effort"),
        "{}",
        text(&output.stderr)
    );
    model.server.assert_no_violations();
    // Nothing to warn about in validate: the field is honoured.
    let validate = project.output(&["agents", "validate", "thinker"]);
    let stdout = text(&validate.stdout);
    assert!(validate.status.success(), "{stdout}");
    assert!(!stdout.contains("effort"), "{stdout}");
}

#[test]
fn on_a_model_that_does_not_reason_nothing_is_sent_and_validate_warns_at_the_field() {
    let project = TestProject::new();
    project.write(
        ".claude/agents/helper.md",
        &claude_agent(
            "helper",
            "openai:gpt-4o-mini",
            "tools: Read\neffort: high\n",
        ),
    );
    let model = ServedModel::openai();
    model.answer_text("Done.");
    let output = model.run(&project, &["run", "helper", "-p", "help"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(bodies(&model)[0].get("reasoning_effort").is_none());
    assert_eq!(
        stderr.matches("effort `high` is not sent").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("openai:gpt-4o-mini does not reason"),
        "{stderr}"
    );
    model.server.assert_no_violations();
    insta::assert_snapshot!(project.transcript(&["agents", "validate", "helper"]));
}

#[test]
fn a_level_the_model_does_not_accept_is_sent_as_the_nearest_and_the_flag_overrides() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/quick.md",
        "---\nname: quick\ntitle: Quick\ndescription: answers fast\nmodel: openai:o4-mini\n\
         effort: minimal\ntemperature: 0.2\n---\nBe quick.\n",
    );
    let model = ServedModel::openai();
    model.answer_text("Fast.");
    model.answer_text("Slow.");
    let output = model.run(&project, &["run", "quick", "-p", "go"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "effort `minimal` is sent as `low`, the nearest level openai:o4-mini accepts"
        ),
        "{stderr}"
    );
    let output = model.run(&project, &["run", "quick", "-p", "go", "--effort", "high"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let sent = bodies(&model);
    assert_eq!(sent[0]["reasoning_effort"], "low");
    assert_eq!(sent[1]["reasoning_effort"], "high");
    // o-series models refuse a temperature; it is not sent beside an effort.
    assert!(sent.iter().all(|body| body.get("temperature").is_none()));
    model.server.assert_no_violations();
    let validate = text(&project.output(&["agents", "validate", "quick"]).stdout);
    assert!(
        validate.contains(
            ".agentctl/agents/quick.md:6:1: field `effort`: effort `minimal` is sent as `low`"
        ),
        "{validate}"
    );
}

#[test]
fn anthropic_gets_a_valid_thinking_block_and_its_thinking_back_before_the_tool_call() {
    let project = TestProject::new();
    project.write(
        ".agentctl/agents/deep.md",
        "---\nname: deep\ntitle: Deep\ndescription: thinks hard\n\
         model: anthropic:claude-sonnet-4-5\neffort: max\ntemperature: 0.3\n\
         tools:\n  allow: [read_file]\n---\nThink.\n",
    );
    project.write("notes.txt", "the answer is 42\n");
    let model = ServedModel::anthropic();
    model
        .server
        .push_sse(agentctl_test_support::anthropic::thinking_stream(
            "I should read the notes.",
            "EqQBCkYIBxgCKkA",
            &[],
            &[("toolu_1", "read_file", r#"{"path":"notes.txt"}"#)],
        ));
    model
        .server
        .push_sse(agentctl_test_support::anthropic::stream(&["42."], &[]));
    let output = model.run(
        &project,
        &["run", "deep", "-p", "what is the answer?", "--yes"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let sent = bodies(&model);
    assert_eq!(sent.len(), 2, "{sent:?}");
    for body in &sent {
        assert_eq!(
            body["thinking"],
            serde_json::json!({"type": "enabled", "budget_tokens": 24576})
        );
        assert!(body["max_tokens"].as_u64().unwrap() > 24576, "{body}");
        assert!(body.get("temperature").is_none(), "{body}");
    }
    let assistant = &sent[1]["messages"][1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["content"][0]["type"], "thinking");
    assert_eq!(assistant["content"][0]["signature"], "EqQBCkYIBxgCKkA");
    assert_eq!(assistant["content"][1]["type"], "tool_use");
    model.server.assert_no_violations();
}

#[test]
fn a_bad_effort_is_a_located_error_in_every_spelling() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/native.md",
            "---\nname: native\ntitle: Native\ndescription: d\nmodel: openai:o3\neffort: ultra\n---\nP\n",
        )
        .write(
            ".claude/agents/claude.md",
            &claude_agent("claude", "openai:o3", "effort: High\n"),
        );
    let output = project.output(&["agents", "validate"]);
    let stdout = text(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    assert!(stdout.contains(".agentctl/agents/native.md:6:"), "{stdout}");
    assert!(stdout.contains(".claude/agents/claude.md:5:"), "{stdout}");
    assert!(
        stdout.contains("ultra") && stdout.contains("High"),
        "{stdout}"
    );
    let flag = project.output(&["run", "native", "-p", "x", "--effort", "extreme"]);
    assert_eq!(flag.status.code(), Some(2));
    assert!(
        text(&flag.stderr).contains("`extreme` is not an effort level"),
        "{}",
        text(&flag.stderr)
    );
}

#[test]
fn a_task_child_sends_its_own_effort_and_its_parent_none() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/boss.md",
            "---\nname: boss\ntitle: Boss\ndescription: the boss\nmodel: openai:gpt-5-mini\n\
             tools:\n  allow: [task]\n---\nYou are boss.\n",
        )
        .write(
            ".claude/agents/worker.md",
            &claude_agent("worker", "openai:gpt-5-mini", "effort: high\n"),
        );
    let model = ServedModel::openai();
    model.answer_call("t1", "task", r#"{"goal":"think hard","agent":"worker"}"#);
    model
        .server
        .push_json(agentctl_test_support::openai::text_response(
            "Worked it out.",
        ));
    model.answer_text("The worker worked it out.");
    let output = model.run(&project, &["run", "boss", "-p", "delegate", "--yes"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let sent = bodies(&model);
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(sent[0].get("reasoning_effort").is_none(), "{}", sent[0]);
    assert_eq!(sent[1]["reasoning_effort"], "high");
    assert!(sent[2].get("reasoning_effort").is_none(), "{}", sent[2]);
    model.server.assert_no_violations();
}

#[test]
fn a_handoff_target_runs_with_its_own_effort_not_the_flags() {
    let project = TestProject::new();
    project
        .write(
            ".agentctl/agents/front.md",
            "---\nname: front\ntitle: Front\ndescription: takes requests\nmodel: openai:gpt-5-mini\n\
             handoffs:\n  - to: expert\n---\nYou are front.\n",
        )
        .write(
            ".agentctl/agents/expert.md",
            "---\nname: expert\ntitle: Expert\ndescription: answers hard ones\n\
             model: openai:gpt-5-mini\neffort: medium\n---\nYou are expert.\n",
        );
    let model = ServedModel::openai();
    model.answer_call("h1", "handoff_to_expert", r#"{"reason":"hard"}"#);
    model.answer_text("Answered.");
    let output = model.run(
        &project,
        &["run", "front", "-p", "hard one", "--effort", "minimal"],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let sent = bodies(&model);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0]["reasoning_effort"], "minimal");
    assert_eq!(sent[1]["reasoning_effort"], "medium");
    model.server.assert_no_violations();
}
