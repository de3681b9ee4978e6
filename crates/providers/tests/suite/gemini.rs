//! Gemini native API over HTTP.

use super::common::{Deltas, KEY, options, provider_at, request};
use agentctl_core::{Message, ModelDelta, ProviderKind, StopReason};
use agentctl_test_support::{FakeServer, gemini};
use serde_json::json;

#[tokio::test]
async fn non_streaming_function_call_and_result_round_trip() {
    let server = FakeServer::gemini().await;
    let provider = provider_at(
        "gemini",
        ProviderKind::Gemini,
        &server.base_url(),
        &options(),
    );
    server.push_json(gemini::chunk(
        Some("Reading."),
        &[("read_file", json!({"path": "a.rs"}))],
        true,
    ));
    let mut request = request("read a.rs", false);
    let response = provider.complete(&request, &|_| {}).await.unwrap();
    assert_eq!(response.text.as_deref(), Some("Reading."));
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(response.tool_calls[0].id, "call_0");
    assert_eq!(response.tool_calls[0].arguments, json!({"path": "a.rs"}));
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (10, 5)
    );

    request.messages.push(response.to_message());
    request.messages.push(Message::Tool {
        call_id: "call_0".into(),
        name: "read_file".into(),
        content: "fn main() {}".into(),
        is_error: false,
    });
    server.push_json(gemini::chunk(
        Some("It is empty."),
        &[("read_file", json!({"path": "b.rs"}))],
        true,
    ));
    let second = provider.complete(&request, &|_| {}).await.unwrap();
    // Ids keep counting across the conversation.
    assert_eq!(second.tool_calls[0].id, "call_1");

    let sent = server.requests();
    assert_eq!(sent[0].path, "/v1beta/models/test-model:generateContent");
    assert_eq!(sent[0].header("x-goog-api-key"), Some(KEY));
    assert_eq!(
        sent[0].body["systemInstruction"],
        json!({"parts": [{"text": "You are terse."}]})
    );
    let parameters = &sent[0].body["tools"][0]["functionDeclarations"][0]["parameters"];
    assert_eq!(
        parameters,
        &json!({"type": "object", "properties": {"path": {"type": "string"}}})
    );
    let contents = &sent[1].body["contents"];
    assert_eq!(contents[1]["role"], "model");
    assert_eq!(
        contents[1]["parts"][1],
        json!({"functionCall": {"name": "read_file", "args": {"path": "a.rs"}}})
    );
    assert_eq!(
        contents[2],
        json!({"role": "user", "parts": [{"functionResponse": {"name": "read_file", "response": {"result": "fn main() {}"}}}]})
    );
}

#[tokio::test]
async fn streaming_text_and_function_call() {
    let server = FakeServer::gemini().await;
    let provider = provider_at(
        "gemini",
        ProviderKind::Gemini,
        &server.base_url(),
        &options(),
    );
    server.push_sse([
        gemini::sse(&gemini::chunk(Some("Hel"), &[], false)),
        gemini::sse(&gemini::chunk(Some("lo"), &[], false)),
        gemini::sse(&gemini::chunk(
            None,
            &[("read_file", json!({"path": "x"}))],
            true,
        )),
    ]);
    let deltas = Deltas::default();
    let response = provider
        .complete(&request("hi", true), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(deltas.texts(), ["Hel", "lo"]);
    assert!(deltas.all().contains(&ModelDelta::ToolCallStart {
        index: 0,
        id: "call_0".into(),
        name: "read_file".into()
    }));
    assert_eq!(response.text.as_deref(), Some("Hello"));
    assert_eq!(response.tool_calls[0].arguments, json!({"path": "x"}));
    assert_eq!(
        server.single_request().path,
        "/v1beta/models/test-model:streamGenerateContent?alt=sse"
    );
}
