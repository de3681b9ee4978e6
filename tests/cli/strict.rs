//! The command line against strict fakes of the real APIs: what `agentctl run`, a resumed
//! session after a tool-calling turn, a `task` sub-agent and `mcp serve` send is what OpenAI
//! accepts (the fake refuses unanswered tool calls, orphan tool results, bad tool names…).

use super::support::{ServedModel, TestProject, spawn_piped, text};
use agentctl_test_support::openai;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};

const AGENT: &str = "---
name: reader
description: Reads notes and answers.
model: openai:gpt-4o-mini
tools:
  allow: [read_file, task]
---
You read the project's notes and answer briefly.
";

fn project() -> TestProject {
    let project = TestProject::new();
    project
        .write(".agentctl/agents/reader.md", AGENT)
        .write("notes.txt", "hello from the notes\n");
    project
}

/// The roles of a request's messages, in order.
fn roles(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["role"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_run_with_a_tool_call_then_a_resumed_turn_send_valid_requests() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_call("call_1", "read_file", r#"{"path":"notes.txt"}"#);
    model.answer_text("The notes say hello.");
    let first = model.run(&project, &["run", "reader", "-p", "Read the notes"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(text(&first.stdout).contains("The notes say hello."));

    model.answer_text("Still hello.");
    let second = model.run(&project, &["run", "reader", "--continue", "-p", "And now?"]);
    assert!(second.status.success(), "{}", text(&second.stderr));
    let requests = model.server.requests();
    assert_eq!(requests.len(), 3);
    // The resumed turn carries the tool call and its result, paired, before the new prompt.
    assert_eq!(
        roles(&requests[2].body),
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
    let call = &requests[2].body["messages"][2]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "read_file");
    assert_eq!(requests[2].body["messages"][3]["tool_call_id"], call["id"]);
    model.server.assert_no_violations();
}

#[test]
fn a_task_sub_agent_sends_valid_requests() {
    let project = project();
    let model = ServedModel::openai();
    model.answer_call(
        "call_task",
        "task",
        r#"{"goal":"Read notes.txt and say what it says"}"#,
    );
    // The sub-agent does not stream: its answer comes whole.
    model
        .server
        .push_json(agentctl_test_support::openai::text_response(
            "It says hello from the notes.",
        ));
    model.answer_text("The sub-agent found: hello.");
    let output = model.run(&project, &["run", "reader", "-p", "Delegate the reading"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("The sub-agent found: hello."));
    let requests = model.server.requests();
    assert_eq!(requests.len(), 3);
    // The child's request starts from its goal; the parent's last one carries the task result.
    assert!(
        requests[1].body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("Read notes.txt and say what it says")
    );
    assert_eq!(
        roles(&requests[2].body),
        ["system", "user", "assistant", "tool"]
    );
    // The child answered: its answer, not an error, is the task's result.
    let result = requests[2].body["messages"][3]["content"].as_str().unwrap();
    assert!(
        result.starts_with("It says hello from the notes."),
        "{result}"
    );
    model.server.assert_no_violations();
}

/// One JSON-RPC message on the server's stdin.
fn send(stdin: &mut impl Write, message: &Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

#[test]
fn mcp_serve_runs_an_agent_with_valid_requests() {
    let project = project();
    let model = ServedModel::openai();
    // `mcp serve` does not stream: the answers come whole.
    model.server.push_json(openai::tool_calls_response(&[(
        "call_1",
        "read_file",
        r#"{"path":"notes.txt"}"#,
    )]));
    model
        .server
        .push_json(openai::text_response("Served: the notes say hello."));
    let mut command = project.command(&["mcp", "serve", "--agents", "reader"]);
    model.point(&mut command);
    let mut child = spawn_piped(command);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "strict-test", "version": "1"}}}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "reader", "arguments": {"prompt": "Read the notes"}}}),
    );
    let mut answer = Value::Null;
    let mut line = String::new();
    while stdout.read_line(&mut line).unwrap() > 0 {
        let message: Value = serde_json::from_str(&line).unwrap();
        line.clear();
        if message["id"] == 2 {
            answer = message;
            break;
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success());
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(
        answer.to_string().contains("Served: the notes say hello."),
        "{answer}"
    );
    assert_eq!(model.server.requests().len(), 2);
    model.server.assert_no_violations();
}
