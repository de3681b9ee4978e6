//! Each OpenAI rule: a request it accepts and one it refuses.

use crate::WireFormat;
use crate::rules::testing;
use serde_json::{Value, json};

const PATH: &str = "/v1/chat/completions";

fn valid() -> Value {
    json!({
        "model": "gpt-4o-mini",
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "read both"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}},
                {"id": "call_b", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
            ]},
            {"role": "tool", "tool_call_id": "call_a", "content": "A"},
            {"role": "tool", "tool_call_id": "call_b", "content": "B"},
            {"role": "assistant", "content": "Both read."},
            {"role": "user", "content": "thanks"},
        ],
        "tools": [{"type": "function", "function": {
            "name": "read_file", "description": "Reads a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }}],
    })
}

fn accepted(change: impl FnOnce(&mut Value)) {
    let mut body = valid();
    change(&mut body);
    testing::accepted(WireFormat::OpenAi, PATH, body);
}

fn refused(change: impl FnOnce(&mut Value), at: &str, text: &str) -> usize {
    testing::refused(WireFormat::OpenAi, PATH, valid(), change, at, text).len()
}

#[test]
fn a_well_formed_conversation_is_accepted() {
    accepted(|_| {});
    // Results may come in any order, and tools may take no parameters.
    accepted(|body| {
        let messages = body["messages"].as_array_mut().unwrap();
        messages.swap(3, 4);
        body["tools"][0]["function"]
            .as_object_mut()
            .unwrap()
            .remove("parameters");
    });
}

#[test]
fn tool_names_follow_the_pattern() {
    accepted(|body| body["tools"][0]["function"]["name"] = json!("get-sum_2"));
    refused(
        |body| body["tools"][0]["function"]["name"] = json!("mcp.everything.echo"),
        "tools[0].function.name",
        "string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'",
    );
    refused(
        |body| body["tools"][0]["function"]["name"] = json!(""),
        "tools[0].function.name",
        "string too short",
    );
}

#[test]
fn tool_names_are_at_most_64_characters() {
    accepted(|body| body["tools"][0]["function"]["name"] = json!("a".repeat(64)));
    refused(
        |body| body["tools"][0]["function"]["name"] = json!("a".repeat(65)),
        "tools[0].function.name",
        "string too long. Expected a string with maximum length 64, but got a string with length 65 instead.",
    );
}

#[test]
fn names_of_past_calls_follow_the_pattern_too() {
    refused(
        |body| body["messages"][2]["tool_calls"][0]["function"]["name"] = json!("mcp.a.b"),
        "messages[2].tool_calls[0].function.name",
        "does not match pattern",
    );
}

#[test]
fn tool_names_are_unique() {
    refused(
        |body| {
            let tool = body["tools"][0].clone();
            body["tools"].as_array_mut().unwrap().push(tool);
        },
        "tools",
        "'read_file' is declared more than once",
    );
}

#[test]
fn parameters_are_an_object_schema() {
    refused(
        |body| body["tools"][0]["function"]["parameters"] = json!({"type": "string"}),
        "tools[0].function.parameters",
        "Invalid schema for function 'read_file': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"string\"'.",
    );
    refused(
        |body| body["tools"][0]["function"]["parameters"] = json!({}),
        "tools[0].function.parameters",
        "got 'type: \"None\"'",
    );
}

#[test]
fn tool_messages_answer_the_assistant_turn_before_them() {
    refused(
        |body| {
            let messages = body["messages"].as_array_mut().unwrap();
            messages.insert(
                2,
                json!({"role": "tool", "tool_call_id": "call_a", "content": "x"}),
            );
        },
        "messages[2].role",
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    );
    refused(
        |body| body["messages"][4]["tool_call_id"] = json!("call_zzz"),
        "messages[4].tool_call_id",
        "Invalid parameter: 'tool_call_id' of 'call_zzz' not found in 'tool_calls' of previous message.",
    );
    refused(
        |body| {
            body["messages"][4]
                .as_object_mut()
                .unwrap()
                .remove("tool_call_id");
        },
        "messages[4].tool_call_id",
        "must have a 'tool_call_id'",
    );
}

#[test]
fn every_tool_call_is_answered_before_the_next_message() {
    refused(
        |body| {
            body["messages"].as_array_mut().unwrap().remove(4);
        },
        "messages[2]",
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_b",
    );
    // A user message between the calls and their results.
    let count = refused(
        |body| {
            let messages = body["messages"].as_array_mut().unwrap();
            messages.insert(3, json!({"role": "user", "content": "wait"}));
        },
        "messages[2]",
        "did not have response messages: call_a, call_b",
    );
    assert_eq!(count, 3, "and both results are orphans");
    // Calls at the very end.
    refused(
        |body| {
            body["messages"].as_array_mut().unwrap().truncate(3);
        },
        "messages[2]",
        "did not have response messages: call_a, call_b",
    );
}

#[test]
fn roles_are_known_and_messages_present() {
    refused(
        |body| body["messages"][1]["role"] = json!("robot"),
        "messages[1].role",
        "Invalid value: 'robot'. Supported values are",
    );
    refused(
        |body| body["messages"] = json!([]),
        "messages",
        "empty array",
    );
    refused(
        |body| {
            body.as_object_mut().unwrap().remove("messages");
        },
        "messages",
        "Missing required parameter: 'messages'.",
    );
}

#[test]
fn assistant_content_is_null_only_beside_tool_calls() {
    accepted(|body| body["messages"][5]["content"] = json!(""));
    refused(
        |body| body["messages"][5]["content"] = json!(null),
        "messages[5].content",
        "expected a string, got null",
    );
    refused(
        |body| body["messages"][1]["content"] = json!(null),
        "messages[1].content",
        "expected a string, got null",
    );
}

#[test]
fn call_arguments_are_a_json_string() {
    refused(
        |body| body["messages"][2]["tool_calls"][0]["function"]["arguments"] = json!({"path": "a"}),
        "messages[2].tool_calls[0].function.arguments",
        "expected a string, but got object instead",
    );
}

#[test]
fn stream_options_need_stream() {
    accepted(|body| {
        let body = body.as_object_mut().unwrap();
        body.remove("stream");
        body.remove("stream_options");
    });
    refused(
        |body| {
            body.as_object_mut().unwrap().remove("stream");
        },
        "stream_options",
        "only allowed when 'stream' is enabled",
    );
}

#[test]
fn the_path_and_the_model_are_checked() {
    let found = testing::violations(WireFormat::OpenAi, "/v1/completions", valid());
    assert_eq!(found[0].at, "path", "{found:?}");
    refused(
        |body| {
            body.as_object_mut().unwrap().remove("model");
        },
        "model",
        "you must provide a model parameter",
    );
}
