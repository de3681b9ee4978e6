//! Each Anthropic rule: a request it accepts and one it refuses.

use crate::rules::testing;
use crate::{RecordedRequest, WireFormat, check_request};
use serde_json::{Value, json};

const PATH: &str = "/v1/messages";

fn valid() -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "Be brief.",
        "stream": true,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "read both"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
                {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "A"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "gone", "is_error": true},
                {"type": "text", "text": "and then?"},
            ]},
            {"role": "assistant", "content": "Done."},
            {"role": "user", "content": "thanks"},
        ],
        "tools": [{"name": "read_file", "description": "Reads a file",
                   "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}],
    })
}

fn accepted(change: impl FnOnce(&mut Value)) {
    let mut body = valid();
    change(&mut body);
    testing::accepted(WireFormat::Anthropic, PATH, body);
}

fn refused(change: impl FnOnce(&mut Value), at: &str, text: &str) -> usize {
    testing::refused(WireFormat::Anthropic, PATH, valid(), change, at, text).len()
}

#[test]
fn a_well_formed_conversation_is_accepted() {
    accepted(|_| {});
    // A final assistant message may be empty (a prefill), results may come in any order.
    accepted(|body| {
        let messages = body["messages"].as_array_mut().unwrap();
        messages.push(json!({"role": "assistant", "content": []}));
        messages[2]["content"].as_array_mut().unwrap().swap(0, 1);
    });
}

#[test]
fn tool_names_follow_the_pattern() {
    accepted(|body| body["tools"][0]["name"] = json!("mcp__everything__echo"));
    refused(
        |body| body["tools"][0]["name"] = json!("mcp.everything.echo"),
        "tools.0.custom.name",
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    );
    accepted(|body| body["tools"][0]["name"] = json!("a".repeat(64)));
    refused(
        |body| body["tools"][0]["name"] = json!("a".repeat(65)),
        "tools.0.custom.name",
        "(length 65 > 64)",
    );
    refused(
        |body| body["messages"][1]["content"][1]["name"] = json!("mcp.a.b"),
        "messages.1.content.1.tool_use.name",
        "String should match pattern",
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
        "tools: Tool names must be unique",
    );
}

#[test]
fn input_schemas_are_object_schemas() {
    refused(
        |body| {
            body["tools"][0]
                .as_object_mut()
                .unwrap()
                .remove("input_schema");
        },
        "tools.0.custom.input_schema",
        "input_schema: Field required",
    );
    refused(
        |body| body["tools"][0]["input_schema"] = json!({"properties": {}}),
        "tools.0.custom.input_schema.type",
        "Input should be 'object'",
    );
}

#[test]
fn tool_use_blocks_are_well_formed() {
    refused(
        |body| {
            body["messages"][1]["content"][1]["id"] = json!("call:1");
            body["messages"][2]["content"][0]["tool_use_id"] = json!("call:1");
        },
        "messages.1.content.1.tool_use.id",
        "String should match pattern '^[a-zA-Z0-9_-]+$'",
    );
    refused(
        |body| body["messages"][1]["content"][1]["input"] = json!(null),
        "messages.1.content.1.tool_use.input",
        "Input should be a valid dictionary",
    );
    refused(
        |body| body["messages"][0]["content"] = valid()["messages"][1]["content"].clone(),
        "messages.0.content.1.type",
        "a `tool_use` block is not allowed in a \"user\" message",
    );
}

#[test]
fn tool_use_ids_are_unique() {
    refused(
        |body| {
            body["messages"][1]["content"][2]["id"] = json!("toolu_1");
            body["messages"][2]["content"][1]["tool_use_id"] = json!("toolu_1");
        },
        "messages",
        "`tool_use` ids must be unique",
    );
}

#[test]
fn every_tool_use_is_answered_at_the_start_of_the_next_message() {
    refused(
        |body| {
            body["messages"][2]["content"]
                .as_array_mut()
                .unwrap()
                .remove(1);
        },
        "messages.1",
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
    refused(
        |body| {
            body["messages"][2]["content"]
                .as_array_mut()
                .unwrap()
                .rotate_right(1);
        },
        "messages.2.content.1",
        "`tool_result` blocks must come first in the user message",
    );
    // The calls are the last message.
    refused(
        |body| {
            body["messages"].as_array_mut().unwrap().truncate(2);
        },
        "messages.1",
        "ids were found without `tool_result` blocks immediately after: toolu_1, toolu_2",
    );
}

#[test]
fn tool_results_answer_the_previous_message() {
    refused(
        |body| body["messages"][2]["content"][1]["tool_use_id"] = json!("toolu_9"),
        "messages.2.content.1",
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    );
    refused(
        |body| body["messages"][4]["content"] = valid()["messages"][2]["content"].clone(),
        "messages.4.content.0",
        "unexpected `tool_use_id`",
    );
}

#[test]
fn roles_alternate_starting_with_the_user() {
    refused(
        |body| {
            let messages = body["messages"].as_array_mut().unwrap();
            messages.insert(4, json!({"role": "user", "content": "one more"}));
        },
        "messages.5",
        "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"user\" roles in a row",
    );
    refused(
        |body| {
            body["messages"].as_array_mut().unwrap().remove(0);
        },
        "messages",
        "first message must use the \"user\" role",
    );
    refused(
        |body| {
            let messages = body["messages"].as_array_mut().unwrap();
            messages.insert(0, json!({"role": "system", "content": "sys"}));
        },
        "messages.0.role",
        "the system prompt goes in the top-level `system` field",
    );
}

#[test]
fn content_is_not_empty() {
    refused(
        |body| body["messages"][3]["content"] = json!([]),
        "messages.3",
        "messages.3: all messages must have non-empty content except for the optional final assistant message",
    );
    refused(
        |body| body["messages"][0]["content"][0]["text"] = json!(" \n"),
        "messages.0.content.0",
        "text content blocks must contain non-whitespace text",
    );
    refused(
        |body| body["messages"][4]["content"] = json!(""),
        "messages.4.content.0",
        "non-whitespace text",
    );
}

#[test]
fn required_fields_and_headers() {
    refused(
        |body| {
            body.as_object_mut().unwrap().remove("max_tokens");
        },
        "max_tokens",
        "max_tokens: Field required",
    );
    refused(
        |body| body["temperature"] = json!(1.5),
        "temperature",
        "temperature: range: 0..1",
    );
    let mut request = RecordedRequest::post(PATH, valid());
    request
        .headers
        .retain(|(name, _)| name != "anthropic-version");
    let found = check_request(WireFormat::Anthropic, &request);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].message, "anthropic-version: header is required");
}
