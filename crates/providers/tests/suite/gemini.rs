//! Gemini native API over HTTP.

use super::common::{
    CLASHING_WIRE, Deltas, KEY, LONG_NAME, LONG_WIRE, check_display, check_wire_names, mcp_request,
    options, provider_at, request,
};
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

fn provider(server: &FakeServer) -> std::sync::Arc<dyn agentctl_core::ModelProvider> {
    provider_at(
        "gemini",
        ProviderKind::Gemini,
        &server.base_url(),
        &options(),
    )
}

#[tokio::test]
async fn mcp_tool_names_go_out_portable_and_come_back_as_they_were() {
    let server = FakeServer::gemini().await;
    server.push_json(gemini::chunk(
        None,
        &[
            ("mcp__everything__echo", json!({"text": "again"})),
            (LONG_WIRE, json!({})),
            (CLASHING_WIRE, json!({})),
            ("a__b", json!({})),
            ("mcp__not__offered", json!({})),
        ],
        true,
    ));
    let response = provider(&server)
        .complete(&mcp_request("call_0", false), &|_| {})
        .await
        .unwrap();
    let names: Vec<&str> = response
        .tool_calls
        .iter()
        .map(|call| call.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "mcp.everything.echo",
            LONG_NAME,
            "a.b",
            "a__b",
            "mcp__not__offered"
        ]
    );
    let sent = server.single_request();
    check_wire_names(
        sent.body["tools"][0]["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect(),
    );
    let contents = &sent.body["contents"];
    assert_eq!(
        contents[1]["parts"][0]["functionCall"]["name"],
        "mcp__everything__echo"
    );
    assert_eq!(
        contents[2]["parts"][0],
        json!({"functionResponse": {"name": "mcp__everything__echo", "response": {"result": "Echo: hi"}}})
    );
    // The next user text joins the function responses' turn.
    assert_eq!(
        contents[2]["parts"][1],
        json!({"text": "now the long one and both a's"})
    );
}

#[tokio::test]
async fn streamed_mcp_tool_calls_are_announced_under_their_own_names() {
    let server = FakeServer::gemini().await;
    server.push_sse([gemini::sse(&gemini::chunk(
        None,
        &[(LONG_WIRE, json!({"text": "x"}))],
        true,
    ))]);
    let deltas = Deltas::default();
    let response = provider(&server)
        .complete(&mcp_request("call_0", true), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(response.tool_calls[0].name, LONG_NAME);
    assert!(deltas.all().contains(&ModelDelta::ToolCallStart {
        index: 0,
        id: "call_1".into(),
        name: LONG_NAME.into()
    }));
}

#[tokio::test]
async fn tool_schemas_are_sent_in_geminis_subset() {
    let server = FakeServer::gemini().await;
    server.push_json(gemini::chunk(Some("ok"), &[], true));
    let mut request = request("run it", false);
    // What schemars writes for a struct with an optional field and a nested enum, and a tool
    // without arguments.
    std::sync::Arc::make_mut(&mut request.tools)[0].parameters = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "BashArgs",
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command."},
            "timeout_secs": {"type": ["integer", "null"], "format": "uint64", "minimum": 0},
            "mode": {"$ref": "#/$defs/Mode"},
        },
        "required": ["command"],
        "additionalProperties": false,
        "$defs": {"Mode": {"oneOf": [{"type": "string", "const": "fast"}, {"type": "string", "const": "slow"}]}},
    });
    let mut tools = request.tools.to_vec();
    tools.push(agentctl_core::ToolSpec {
        name: "now".into(),
        description: "The time".into(),
        parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
    });
    request.tools = tools.into();
    provider(&server).complete(&request, &|_| {}).await.unwrap();
    let declarations = server.single_request().body["tools"][0]["functionDeclarations"].clone();
    assert_eq!(
        declarations[0]["parameters"],
        json!({
            "title": "BashArgs",
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command."},
                "timeout_secs": {"nullable": true, "type": "integer", "format": "uint64", "minimum": 0},
                "mode": {"anyOf": [{"type": "string", "enum": ["fast"]}, {"type": "string", "enum": ["slow"]}]},
            },
            "required": ["command"],
        })
    );
    assert_eq!(
        declarations[1],
        json!({"name": "now", "description": "The time"})
    );
}

#[tokio::test]
async fn a_free_form_object_argument_goes_as_json_schema() {
    let server = FakeServer::gemini().await;
    server.push_json(gemini::chunk(Some("ok"), &[], true));
    let mut request = request("run it", false);
    // schemars' `HashMap<String, String>`: Gemini's subset has no way to say it.
    let schema = json!({
        "type": "object",
        "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}},
    });
    std::sync::Arc::make_mut(&mut request.tools)[0].parameters = schema.clone();
    provider(&server).complete(&request, &|_| {}).await.unwrap();
    let declaration = server.single_request().body["tools"][0]["functionDeclarations"][0].clone();
    assert_eq!(declaration["parametersJsonSchema"], schema);
    assert!(declaration.get("parameters").is_none());
}

#[tokio::test]
async fn empty_turns_are_left_out() {
    let server = FakeServer::gemini().await;
    server.push_json(gemini::chunk(Some("ok"), &[], true));
    let mut request = request("first", false);
    request.system = Some(String::new());
    request.messages.push(Message::Assistant {
        content: None,
        tool_calls: vec![],
    });
    request.messages.push(Message::user("second"));
    provider(&server).complete(&request, &|_| {}).await.unwrap();
    let sent = server.single_request();
    assert_eq!(
        sent.body["contents"],
        json!([{"role": "user", "parts": [{"text": "first"}, {"text": "second"}]}])
    );
    assert!(sent.body.get("systemInstruction").is_none());
}

#[tokio::test]
async fn a_request_the_api_would_refuse_fails_with_its_reason() {
    let server = FakeServer::gemini().await;
    let mut request = request("hi", false);
    // A result with no call before it.
    request.messages.push(Message::Tool {
        call_id: "call_0".into(),
        name: "read_file".into(),
        content: "x".into(),
        is_error: false,
    });
    let error = provider(&server)
        .complete(&request, &|_| {})
        .await
        .unwrap_err();
    assert!(
        check_display(&error).contains(
            "HTTP 400: strict fake Gemini server refused request #1: Please ensure that function response turn comes immediately after a function call turn."
        ),
        "{error}"
    );
    assert_eq!(server.take_violations()[0].at, "contents[0]");
}

#[tokio::test]
async fn gemini_3_gets_each_calls_thought_signature_back() {
    let server = FakeServer::gemini().await;
    let mut call = gemini::chunk(None, &[("read_file", json!({"path": "x"}))], true);
    call["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = json!("c2lnLTE=");
    server.push_sse([gemini::sse(&call)]);
    let mut request = request("read x", true);
    request.model = "gemini-3-pro-preview".into();
    let response = provider(&server).complete(&request, &|_| {}).await.unwrap();
    assert_eq!(
        response.tool_calls[0].signature.as_deref(),
        Some("c2lnLTE=")
    );

    request.messages.push(response.to_message());
    request.messages.push(Message::Tool {
        call_id: "call_0".into(),
        name: "read_file".into(),
        content: "X".into(),
        is_error: false,
    });
    server.push_sse([gemini::sse(&gemini::chunk(Some("It says X."), &[], true))]);
    let answer = provider(&server).complete(&request, &|_| {}).await.unwrap();
    assert_eq!(answer.text.as_deref(), Some("It says X."));
    let sent = server.requests();
    assert_eq!(
        sent[1].body["contents"][1]["parts"][0],
        json!({"functionCall": {"name": "read_file", "args": {"path": "x"}}, "thoughtSignature": "c2lnLTE="})
    );

    // A call Gemini did not make (another provider's, before a handoff) has no signature: it
    // goes with the placeholder Gemini takes for such calls, which the API accepts.
    let Some(Message::Assistant { tool_calls, .. }) = request.messages.get_mut(1) else {
        panic!("{:?}", request.messages)
    };
    tool_calls[0].signature = None;
    server.push_sse([gemini::sse(&gemini::chunk(Some("It says X."), &[], true))]);
    provider(&server).complete(&request, &|_| {}).await.unwrap();
    assert_eq!(
        server.requests()[2].body["contents"][1]["parts"][0]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
    // Earlier models get nothing added.
    request.model = "gemini-2.5-flash".into();
    server.push_sse([gemini::sse(&gemini::chunk(Some("It says X."), &[], true))]);
    provider(&server).complete(&request, &|_| {}).await.unwrap();
    let sent = server.requests();
    assert!(
        sent[3].body["contents"][1]["parts"][0]
            .get("thoughtSignature")
            .is_none()
    );
}

#[tokio::test]
async fn a_signature_goes_back_byte_for_byte_and_a_malformed_one_is_not_kept() {
    let server = FakeServer::gemini().await;
    // Quotes, a newline, markup and non-ASCII: escaped on the wire, the same text back.
    let odd = "a\"b\\c\n</part>{\"x\":1} é";
    let mut call = gemini::chunk(
        None,
        &[
            ("read_file", json!({"path": "x"})),
            ("read_file", json!({"path": "y"})),
        ],
        true,
    );
    call["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = json!(odd);
    // Not a string: not a signature the provider keeps (nor sends back as it came).
    call["candidates"][0]["content"]["parts"][1]["thoughtSignature"] = json!({"forged": true});
    server.push_sse([gemini::sse(&call)]);
    let mut request = request("read x and y", true);
    request.model = "gemini-3-flash".into();
    let response = provider(&server).complete(&request, &|_| {}).await.unwrap();
    assert_eq!(response.tool_calls[0].signature.as_deref(), Some(odd));
    assert_eq!(response.tool_calls[1].signature, None);

    request.messages.push(response.to_message());
    for (id, content) in [("call_0", "X"), ("call_1", "Y")] {
        request.messages.push(Message::Tool {
            call_id: id.into(),
            name: "read_file".into(),
            content: content.into(),
            is_error: false,
        });
    }
    server.push_sse([gemini::sse(&gemini::chunk(Some("Done."), &[], true))]);
    provider(&server).complete(&request, &|_| {}).await.unwrap();
    let parts = &server.requests()[1].body["contents"][1]["parts"];
    assert_eq!(parts[0]["thoughtSignature"], odd);
    // A parallel call after the first needs none, and gets none.
    assert!(parts[1].get("thoughtSignature").is_none(), "{parts}");
}
