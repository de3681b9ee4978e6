//! Anthropic Messages API over HTTP.

use super::common::{
    CLASHING_WIRE, Deltas, KEY, LONG_NAME, LONG_WIRE, check_display, check_wire_names, mcp_request,
    options, provider_at, request,
};
use agentctl_core::ProviderError;
use agentctl_core::{Message, ModelDelta, ProviderKind, StopReason, ToolCall};
use agentctl_test_support::{FakeServer, anthropic, sse_event};
use serde_json::json;

#[tokio::test]
async fn non_streaming_text_and_tool_call() {
    let server = FakeServer::anthropic().await;
    let provider = provider_at(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base_url(),
        &options(),
    );
    server.push_json(anthropic::response(
        Some("Let me look."),
        &[("toolu_1", "read_file", json!({"path": "a.rs"}))],
    ));
    let response = provider
        .complete(&request("read a.rs", false), &|_| {})
        .await
        .unwrap();
    assert_eq!(response.text.as_deref(), Some("Let me look."));
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.tool_calls,
        [ToolCall {
            id: "toolu_1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "a.rs"}),
            signature: None
        }]
    );
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (10, 5)
    );
    let sent = server.single_request();
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert!(sent.header("authorization").is_none());
    assert_eq!(sent.body["system"], "You are terse.");
    assert_eq!(sent.body["max_tokens"], 4096);
    assert_eq!(
        sent.body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "read a.rs"}]}])
    );
    assert_eq!(sent.body["tools"][0]["input_schema"]["type"], "object");
}

#[tokio::test]
async fn streaming_text_and_tool_call() {
    let server = FakeServer::anthropic().await;
    let provider = provider_at(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base_url(),
        &options(),
    );
    server.push_sse(anthropic::stream(
        &["Let ", "me look."],
        &[("toolu_1", "read_file", "{\"path\": \"a.rs\"}")],
    ));
    let deltas = Deltas::default();
    let response = provider
        .complete(&request("read a.rs", true), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(deltas.texts(), ["Let ", "me look."]);
    assert!(deltas.all().contains(&ModelDelta::ToolCallStart {
        index: 0,
        id: "toolu_1".into(),
        name: "read_file".into()
    }));
    assert_eq!(response.text.as_deref(), Some("Let me look."));
    assert_eq!(response.tool_calls[0].arguments, json!({"path": "a.rs"}));
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (10, 5)
    );
    assert_eq!(server.single_request().body["stream"], true);
}

#[tokio::test]
async fn tool_results_round_trip() {
    let server = FakeServer::anthropic().await;
    let provider = provider_at(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base_url(),
        &options(),
    );
    server.push_sse(anthropic::stream(&["Fine."], &[]));
    let mut request = request("read both", true);
    request.messages.push(Message::Assistant {
        content: None,
        tool_calls: vec![
            ToolCall {
                id: "toolu_1".into(),
                name: "read_file".into(),
                arguments: json!({"path": "a"}),
                signature: None,
            },
            ToolCall {
                id: "toolu_2".into(),
                name: "read_file".into(),
                arguments: json!({"path": "b"}),
                signature: None,
            },
        ],
    });
    request.messages.push(Message::Tool {
        call_id: "toolu_1".into(),
        name: "read_file".into(),
        content: "A".into(),
        is_error: false,
    });
    request.messages.push(Message::Tool {
        call_id: "toolu_2".into(),
        name: "read_file".into(),
        content: "gone".into(),
        is_error: true,
    });
    let response = provider.complete(&request, &|_| {}).await.unwrap();
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let messages = server.single_request().body["messages"].clone();
    assert_eq!(messages.as_array().unwrap().len(), 3);
    assert_eq!(
        messages[1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "b"}})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "A"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "gone", "is_error": true},
        ]})
    );
}

#[tokio::test]
async fn stream_error_event_is_reported() {
    let server = FakeServer::anthropic().await;
    let provider = provider_at(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base_url(),
        &options(),
    );
    server.push_sse([sse_event(
        "error",
        &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    )]);
    let error = provider
        .complete(&request("hi", true), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProviderError::Status { status: 529, .. }),
        "{error:?}"
    );
    assert!(check_display(&error).contains("Overloaded"));
}

#[tokio::test]
async fn unauthorized_names_the_key_variable() {
    let server = FakeServer::anthropic().await;
    let provider = provider_at(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base_url(),
        &options(),
    );
    server.push_status(403, None);
    let error = provider
        .complete(&request("hi", false), &|_| {})
        .await
        .unwrap_err();
    assert!(
        check_display(&error).ends_with("HTTP 403: fake status 403 — check ANTHROPIC_API_KEY"),
        "{error}"
    );
}

fn provider(server: &FakeServer) -> std::sync::Arc<dyn agentctl_core::ModelProvider> {
    provider_at(
        "anthropic",
        ProviderKind::Anthropic,
        &server.base_url(),
        &options(),
    )
}

#[tokio::test]
async fn mcp_tool_names_go_out_portable_and_come_back_as_they_were() {
    let server = FakeServer::anthropic().await;
    server.push_json(anthropic::response(
        None,
        &[
            ("toolu_2", "mcp__everything__echo", json!({"text": "again"})),
            ("toolu_3", LONG_WIRE, json!({})),
            ("toolu_4", CLASHING_WIRE, json!({})),
            ("toolu_5", "mcp__not__offered", json!({})),
        ],
    ));
    let response = provider(&server)
        .complete(&mcp_request("toolu_1", false), &|_| {})
        .await
        .unwrap();
    let names: Vec<&str> = response
        .tool_calls
        .iter()
        .map(|call| call.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["mcp.everything.echo", LONG_NAME, "a.b", "mcp__not__offered"]
    );
    let sent = server.single_request();
    check_wire_names(
        sent.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect(),
    );
    assert_eq!(
        sent.body["messages"][1]["content"][0],
        json!({"type": "tool_use", "id": "toolu_1", "name": "mcp__everything__echo", "input": {"text": "hi"}})
    );
    // The result and the next user text share one user message, results first.
    assert_eq!(
        sent.body["messages"][2]["content"][0]["type"],
        "tool_result"
    );
    assert_eq!(sent.body["messages"][2]["content"][1]["type"], "text");
}

#[tokio::test]
async fn streamed_mcp_tool_calls_are_announced_under_their_own_names() {
    let server = FakeServer::anthropic().await;
    server.push_sse(anthropic::stream(
        &[],
        &[("toolu_2", LONG_WIRE, "{\"text\": \"x\"}")],
    ));
    let deltas = Deltas::default();
    let response = provider(&server)
        .complete(&mcp_request("toolu_1", true), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(response.tool_calls[0].name, LONG_NAME);
    assert!(deltas.all().contains(&ModelDelta::ToolCallStart {
        index: 0,
        id: "toolu_2".into(),
        name: LONG_NAME.into()
    }));
}

#[tokio::test]
async fn empty_turns_and_text_are_left_out() {
    let server = FakeServer::anthropic().await;
    server.push_json(anthropic::response(Some("ok"), &[]));
    let mut request = request("first", false);
    request.system = Some(" ".into());
    request.messages.push(Message::Assistant {
        content: Some(String::new()),
        tool_calls: vec![],
    });
    request.messages.push(Message::user("second"));
    request.messages.push(Message::user(""));
    std::sync::Arc::make_mut(&mut request.tools)[0].parameters = json!({});
    provider(&server).complete(&request, &|_| {}).await.unwrap();
    let sent = server.single_request();
    assert_eq!(
        sent.body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "first"}, {"type": "text", "text": "second"}]}])
    );
    assert!(sent.body.get("system").is_none());
    assert_eq!(
        sent.body["tools"][0]["input_schema"],
        json!({"type": "object", "properties": {}})
    );
}

#[tokio::test]
async fn a_user_message_before_tool_results_goes_after_them_and_foreign_ids_are_fixed() {
    let server = FakeServer::anthropic().await;
    server.push_json(anthropic::response(Some("ok"), &[]));
    let mut request = request("read", false);
    request.messages.push(Message::Assistant {
        content: None,
        tool_calls: vec![ToolCall {
            // An id from another provider earlier in the session.
            id: "functions.read_file:0".into(),
            name: "read_file".into(),
            arguments: json!(null),
            signature: None,
        }],
    });
    request
        .messages
        .push(Message::user("(the user typed while the tool ran)"));
    request.messages.push(Message::Tool {
        call_id: "functions.read_file:0".into(),
        name: "read_file".into(),
        content: "A".into(),
        is_error: false,
    });
    provider(&server).complete(&request, &|_| {}).await.unwrap();
    let messages = server.single_request().body["messages"].clone();
    assert_eq!(messages[1]["content"][0]["input"], json!({}));
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][1]["type"], "text");
    let id = messages[1]["content"][0]["id"].as_str().unwrap();
    assert!(id.starts_with("functions_read_file_0_"), "{id}");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], id);
}

#[tokio::test]
async fn a_request_the_api_would_refuse_fails_with_its_reason() {
    let server = FakeServer::anthropic().await;
    let mut request = request("hi", false);
    request.temperature = Some(1.5);
    let error = provider(&server)
        .complete(&request, &|_| {})
        .await
        .unwrap_err();
    assert!(
        check_display(&error).ends_with(
            "HTTP 400: strict fake Anthropic server refused request #1: temperature: range: 0..1 (got 1.5)"
        ),
        "{error}"
    );
    assert_eq!(server.take_violations()[0].at, "temperature");
}
