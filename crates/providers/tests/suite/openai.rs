//! OpenAI-compatible Chat Completions over HTTP.

use super::common::{
    CLASHING_WIRE, Deltas, KEY, LONG_NAME, LONG_WIRE, check_display, check_wire_names, mcp_request,
    options, provider_at, request,
};
use agentctl_core::ProviderError;
use agentctl_core::{Message, ModelDelta, ModelRef, ProviderKind, Settings, StopReason, ToolCall};
use agentctl_providers::{Env, ProviderOptions, RetryPolicy, build_provider};
use agentctl_test_support::{FakeServer, Reply, openai};
use serde_json::json;
use std::time::{Duration, Instant};

/// An OpenAI-compatible fake server and a provider pointed at it.
pub(super) async fn setup(
    options: &ProviderOptions,
) -> (FakeServer, std::sync::Arc<dyn agentctl_core::ModelProvider>) {
    let server = FakeServer::openai().await;
    let provider = provider_at("openai", ProviderKind::Openai, &server.base_url(), options);
    (server, provider)
}

#[tokio::test]
async fn non_streaming_text() {
    let (server, provider) = setup(&options()).await;
    server.push_json(openai::text_response("Hi there"));
    let deltas = Deltas::default();
    let response = provider
        .complete(&request("hello", false), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(response.text.as_deref(), Some("Hi there"));
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (10, 5)
    );
    assert!(deltas.all().is_empty());
    let sent = server.single_request();
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(sent.body["model"], "test-model");
    assert_eq!(
        sent.body["messages"][0],
        json!({"role": "system", "content": "You are terse."})
    );
    assert_eq!(
        sent.body["messages"][1],
        json!({"role": "user", "content": "hello"})
    );
    assert_eq!(sent.body["tools"][0]["function"]["name"], "read_file");
    assert!(sent.body.get("stream").is_none());
}

#[tokio::test]
async fn streaming_text_deltas_arrive_in_order() {
    let (server, provider) = setup(&options()).await;
    server.push_sse([
        openai::text_chunk("Hel"),
        openai::text_chunk("lo, "),
        openai::text_chunk("wörld"),
        openai::finish_chunk("stop"),
        openai::usage_chunk(7, 3),
        openai::done(),
    ]);
    let deltas = Deltas::default();
    let response = provider
        .complete(&request("hello", true), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(deltas.texts(), ["Hel", "lo, ", "wörld"]);
    assert_eq!(response.text.as_deref(), Some("Hello, wörld"));
    assert_eq!(
        (response.usage.input_tokens, response.usage.output_tokens),
        (7, 3)
    );
    let sent = server.single_request();
    assert_eq!(sent.body["stream"], true);
    assert_eq!(sent.body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn several_tool_calls_streamed_in_pieces() {
    let (server, provider) = setup(&options()).await;
    server.push_sse([
        openai::text_chunk("Reading both."),
        openai::tool_call_chunk(0, Some("call_a"), Some("read_file"), ""),
        openai::tool_call_chunk(0, None, None, "{\"pa"),
        openai::tool_call_chunk(1, Some("call_b"), Some("read_file"), "{\"path\":"),
        openai::tool_call_chunk(0, None, None, "th\":\"a.rs\"}"),
        openai::tool_call_chunk(1, None, None, "\"b.rs\"}"),
        openai::finish_chunk("tool_calls"),
        openai::done(),
    ]);
    let deltas = Deltas::default();
    let response = provider
        .complete(&request("read", true), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.tool_calls,
        vec![
            ToolCall {
                id: "call_a".into(),
                name: "read_file".into(),
                arguments: json!({"path": "a.rs"}),
                signature: None
            },
            ToolCall {
                id: "call_b".into(),
                name: "read_file".into(),
                arguments: json!({"path": "b.rs"}),
                signature: None
            },
        ]
    );
    let starts: Vec<usize> = deltas
        .all()
        .iter()
        .filter_map(|delta| match delta {
            ModelDelta::ToolCallStart { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [0, 1]);
    let fragments: String = deltas
        .all()
        .iter()
        .filter_map(|delta| match delta {
            ModelDelta::ToolCallArguments { index: 0, fragment } => Some(fragment.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(fragments, "{\"path\":\"a.rs\"}");
}

#[tokio::test]
async fn malformed_streamed_arguments_name_the_tool() {
    let (server, provider) = setup(&options()).await;
    server.push_sse([
        openai::tool_call_chunk(0, Some("c"), Some("grep"), "{\"q\": "),
        openai::done(),
    ]);
    let error = provider
        .complete(&request("x", true), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProviderError::Malformed { .. }),
        "{error:?}"
    );
    assert!(check_display(&error).contains("`grep`"));
}

#[tokio::test]
async fn tool_results_are_sent_back() {
    let (server, provider) = setup(&options()).await;
    server.push_json(openai::text_response("Both files are fine."));
    let mut request = request("read", false);
    request.messages.push(Message::Assistant {
        content: Some("Reading.".into()),
        tool_calls: vec![
            ToolCall {
                id: "call_a".into(),
                name: "read_file".into(),
                arguments: json!({"path": "a.rs"}),
                signature: None,
            },
            ToolCall {
                id: "call_b".into(),
                name: "read_file".into(),
                arguments: json!({"path": "b.rs"}),
                signature: None,
            },
        ],
    });
    for (id, content) in [("call_a", "fn a() {}"), ("call_b", "no such file")] {
        let is_error = id == "call_b";
        request.messages.push(Message::Tool {
            call_id: id.into(),
            name: "read_file".into(),
            content: content.into(),
            is_error,
        });
    }
    provider.complete(&request, &|_| {}).await.unwrap();
    let messages = server.single_request().body["messages"].clone();
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["content"], "Reading.");
    assert_eq!(
        messages[2]["tool_calls"][1],
        json!({"id": "call_b", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"b.rs\"}"}})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_a", "content": "fn a() {}"})
    );
    assert_eq!(
        messages[4],
        json!({"role": "tool", "tool_call_id": "call_b", "content": "no such file"})
    );
}

#[tokio::test]
async fn rate_limit_is_retried_after_retry_after() {
    let mut options = options();
    options.retry.max_delay = Duration::from_secs(3);
    let (server, provider) = setup(&options).await;
    server.push_status(429, Some(1));
    server.push_json(openai::text_response("ok"));
    let started = Instant::now();
    let response = provider
        .complete(&request("hi", false), &|_| {})
        .await
        .unwrap();
    assert_eq!(response.text.as_deref(), Some("ok"));
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_until_attempts_run_out() {
    let (server, provider) = setup(&options()).await;
    for _ in 0..3 {
        server.push_status(500, None);
    }
    server.push_json(openai::text_response("never reached"));
    let error = provider
        .complete(&request("hi", true), &|_| {})
        .await
        .unwrap_err();
    assert!(matches!(error, ProviderError::Status { status: 500, .. }));
    assert!(error.is_retryable());
    assert_eq!(
        check_display(&error),
        "openai: model `test-model` request failed with HTTP 500: fake status 500"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_body_with_tools_is_sent_whole_with_its_length_on_every_attempt() {
    let (server, provider) = setup(&options()).await;
    server.push_status(500, None);
    server.push_json(openai::text_response("ok"));
    let request = request("hi", false);
    provider.complete(&request, &|_| {}).await.unwrap();
    // A second request offering the same shared specs sends them from the same serialised copy.
    server.push_json(openai::text_response("ok"));
    provider.complete(&request, &|_| {}).await.unwrap();
    let sent = server.requests();
    assert_eq!(sent.len(), 3);
    for attempt in &sent {
        assert_eq!(attempt.raw_body, sent[0].raw_body);
        let length = attempt.raw_body.len().to_string();
        assert_eq!(attempt.header("content-length"), Some(length.as_str()));
        assert_eq!(attempt.header("transfer-encoding"), None);
        assert_eq!(attempt.body["tools"][0]["function"]["name"], "read_file");
        assert_eq!(attempt.body["model"], "test-model");
    }
}

#[tokio::test]
async fn requests_name_their_host_once() {
    let (server, provider) = setup(&options()).await;
    server.push_json(openai::text_response("Hi"));
    server.push_json(openai::text_response("Hi again"));
    for _ in 0..2 {
        provider
            .complete(&request("hello", false), &|_| {})
            .await
            .unwrap();
    }
    // `http://127.0.0.1:PORT/v1`: the host and port, as the client would have written them.
    let base = server.base_url();
    let authority = base
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/v1"))
        .unwrap();
    for sent in server.requests() {
        assert_eq!(sent.header("host"), Some(authority));
        let hosts = sent
            .headers
            .iter()
            .filter(|(name, _)| name.eq_ignore_ascii_case("host"))
            .count();
        assert_eq!(hosts, 1, "{:?}", sent.headers);
    }
}

#[tokio::test]
async fn a_redirect_is_reported_not_followed() {
    let mut options = options();
    options.retry = RetryPolicy::none();
    let (server, provider) = setup(&options).await;
    // Followed, this would send the request elsewhere (as a GET, without its body).
    let elsewhere = format!("{}/elsewhere", server.base_url());
    server.push(Reply::raw(301, "text/plain", "Moved Permanently").header("location", &elsewhere));
    let error = provider
        .complete(&request("hi", false), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProviderError::Status { status: 301, .. }),
        "{error:?}"
    );
    assert!(
        check_display(&error).contains("the API redirected the request; check the base URL"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_endless_stream_line_is_stopped_not_held() {
    let (server, provider) = setup(&options()).await;
    // 17 MiB of one `data:` line that never ends.
    let body = format!("data: {}", "x".repeat(17 << 20));
    server.push_raw(200, "text/event-stream", &body);
    let error = provider
        .complete(&request("hi", true), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ProviderError::Malformed { message, .. }
            if message.contains("a stream event longer than 16 MiB")),
        "{error:?}"
    );
}

#[tokio::test]
async fn malformed_json_body() {
    let (server, provider) = setup(&options()).await;
    server.push_raw(200, "application/json", "{\"choices\": [oops");
    let error = provider
        .complete(&request("hi", false), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProviderError::Malformed { .. }),
        "{error:?}"
    );
    let text = check_display(&error);
    assert!(
        text.starts_with("openai: model `test-model` sent a malformed response: expected JSON"),
        "{text}"
    );
    assert!(text.contains("[oops"), "{text}");
}

#[tokio::test]
async fn unauthorized_names_the_key_variable() {
    let (server, provider) = setup(&options()).await;
    server.push_status(401, None);
    let error = provider
        .complete(&request("hi", false), &|_| {})
        .await
        .unwrap_err();
    assert!(!error.is_retryable());
    assert_eq!(
        check_display(&error),
        "openai: model `test-model` request failed with HTTP 401: fake status 401 — check OPENAI_API_KEY"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn not_found_suggests_model_and_base_url() {
    let (server, provider) = setup(&options()).await;
    server.push_status(404, None);
    let error = provider
        .complete(&request("hi", false), &|_| {})
        .await
        .unwrap_err();
    assert!(check_display(&error).ends_with("— check the model name and base URL"));
}

#[tokio::test]
async fn missing_key_is_reported_before_any_request() {
    let server = FakeServer::openai().await;
    let options = ProviderOptions {
        env: Env::from_pairs::<&str, &str>([]),
        ..options()
    };
    let mut settings = Settings::default();
    settings.providers.insert(
        "openai".into(),
        agentctl_core::ProviderConfig {
            base_url: Some(server.base_url()),
            ..Default::default()
        },
    );
    let model = ModelRef {
        provider: "openai".into(),
        model: "gpt-test".into(),
    };
    let error = build_provider(&model, &settings, &options).err().unwrap();
    assert_eq!(
        check_display(&error),
        "openai: no API key for model `gpt-test`: set OPENAI_API_KEY"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn ollama_and_custom_endpoints_need_no_key() {
    let server = FakeServer::openai().await;
    let options = ProviderOptions {
        env: Env::from_pairs([("OPENAI_API_KEY", KEY)]),
        ..options()
    };
    for name in ["ollama", "vllm"] {
        server.push_json(openai::text_response("local"));
        let provider = provider_at(name, ProviderKind::Openai, &server.base_url(), &options);
        assert_eq!(provider.name(), name);
        provider
            .complete(&request("hi", false), &|_| {})
            .await
            .unwrap();
    }
    // The OpenAI key is not sent to other endpoints.
    assert!(
        server
            .requests()
            .iter()
            .all(|sent| sent.header("authorization").is_none())
    );
}

#[tokio::test]
async fn connection_refused_is_a_connection_error() {
    let base = {
        let server = FakeServer::openai().await;
        server.base_url()
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    let options = ProviderOptions {
        retry: RetryPolicy::none(),
        ..options()
    };
    let provider = provider_at("openai", ProviderKind::Openai, &base, &options);
    let error = provider
        .complete(&request("hi", false), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProviderError::Connection { .. }),
        "{error:?}"
    );
    let text = check_display(&error);
    println!("{text}");
    assert!(text.contains(&base), "{text}");
}

#[tokio::test]
async fn mcp_tool_names_go_out_portable_and_come_back_as_they_were() {
    let (server, provider) = setup(&options()).await;
    server.push_json(openai::tool_calls_response(&[
        ("call_2", "mcp__everything__echo", r#"{"text":"again"}"#),
        ("call_3", LONG_WIRE, r#"{"text":"long"}"#),
        ("call_4", CLASHING_WIRE, "{}"),
        ("call_5", "a__b", "{}"),
        ("call_6", "mcp__not__offered", "{}"),
    ]));
    let response = provider
        .complete(&mcp_request("call_1", false), &|_| {})
        .await
        .unwrap();
    let names: Vec<&str> = response
        .tool_calls
        .iter()
        .map(|call| call.name.as_str())
        .collect();
    // What the model invents stays as it said it, for an "unknown tool" error naming it.
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
        sent.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
            .collect(),
    );
    assert_eq!(
        sent.body["messages"][2]["tool_calls"][0]["function"]["name"],
        "mcp__everything__echo"
    );
    server.assert_no_violations();
}

#[tokio::test]
async fn streamed_mcp_tool_calls_are_announced_under_their_own_names() {
    let (server, provider) = setup(&options()).await;
    server.push_sse([
        openai::tool_call_chunk(0, Some("call_2"), Some(LONG_WIRE), "{\"text\":"),
        openai::tool_call_chunk(0, None, None, "\"x\"}"),
        openai::tool_call_chunk(1, Some("call_3"), Some("mcp__everything__echo"), "{}"),
        openai::finish_chunk("tool_calls"),
        openai::done(),
    ]);
    let deltas = Deltas::default();
    let response = provider
        .complete(&mcp_request("call_1", true), &deltas.sink())
        .await
        .unwrap();
    assert_eq!(response.tool_calls[0].name, LONG_NAME);
    assert_eq!(response.tool_calls[1].name, "mcp.everything.echo");
    let started: Vec<String> = deltas
        .all()
        .into_iter()
        .filter_map(|delta| match delta {
            ModelDelta::ToolCallStart { name, .. } => Some(name),
            _ => None,
        })
        .collect();
    assert_eq!(started, [LONG_NAME, "mcp.everything.echo"]);
}

#[tokio::test]
async fn an_empty_assistant_turn_is_sent_with_empty_content() {
    let (server, provider) = setup(&options()).await;
    server.push_json(openai::text_response("ok"));
    let mut request = request("first", false);
    request.messages.push(Message::Assistant {
        content: None,
        tool_calls: vec![],
    });
    request.messages.push(Message::user("second"));
    provider.complete(&request, &|_| {}).await.unwrap();
    let messages = server.single_request().body["messages"].clone();
    assert_eq!(messages[2], json!({"role": "assistant", "content": ""}));
}

#[tokio::test]
async fn a_tool_without_parameters_gets_an_object_schema() {
    let (server, provider) = setup(&options()).await;
    server.push_json(openai::text_response("ok"));
    let mut request = request("what time is it", false);
    std::sync::Arc::make_mut(&mut request.tools)[0].parameters = json!({});
    provider.complete(&request, &|_| {}).await.unwrap();
    assert_eq!(
        server.single_request().body["tools"][0]["function"]["parameters"],
        json!({"type": "object", "properties": {}})
    );
}

#[tokio::test]
async fn a_request_the_api_would_refuse_fails_with_its_reason() {
    let (server, provider) = setup(&options()).await;
    server.push_json(openai::text_response("never sent"));
    let mut request = request("hi", false);
    // A result whose call is not in the history: the real API answers 400.
    request.messages.push(Message::Tool {
        call_id: "call_gone".into(),
        name: "read_file".into(),
        content: "x".into(),
        is_error: false,
    });
    let error = provider.complete(&request, &|_| {}).await.unwrap_err();
    assert!(
        matches!(error, ProviderError::Status { status: 400, .. }),
        "{error:?}"
    );
    assert_eq!(
        check_display(&error),
        "openai: model `test-model` request failed with HTTP 400: strict fake OpenAI server refused request #1: Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    );
    let violations = server.take_violations();
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].at, "messages[2].role");
    assert_eq!(server.pending(), 1, "a refused request uses no reply");
}
