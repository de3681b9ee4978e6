//! Unit tests of the OpenAI wire format: request bodies, streamed and whole answers.

use super::*;
use agentctl_core::{Effort, Message, ModelDelta, ToolSpec};
use serde_json::json;
use std::sync::Mutex;

/// The body as earlier versions built it, through a `Value` tree: the typed body must
/// send the same bytes.
fn reference_body(request: &ModelRequest, names: &ToolNames) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &request.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.messages {
        messages.push(match message {
            Message::User { content } => json!({"role": "user", "content": content}),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let content = match content {
                    None if tool_calls.is_empty() => Some(""),
                    content => content.as_deref(),
                };
                let mut entry = json!({"role": "assistant", "content": content});
                if !tool_calls.is_empty() {
                    entry["tool_calls"] = tool_calls
                        .iter()
                        .map(|call| {
                            json!({"id": call.id, "type": "function", "function": {
                                "name": names.wire(&call.name), "arguments": call.arguments.to_string(),
                            }})
                        })
                        .collect();
                }
                entry
            }
            Message::Tool {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        });
    }
    let mut body = json!({"model": request.model, "messages": messages});
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": names.wire(&tool.name),
                    "description": tool.description,
                    "parameters": crate::schema::object_schema(&tool.parameters),
                }})
            })
            .collect();
    }
    if let Some(temperature) = request.temperature.filter(|_| request.effort.is_none()) {
        body["temperature"] = json!(temperature);
    }
    if let Some(effort) = request.effort {
        body["reasoning_effort"] = json!(effort.as_str());
    }
    if let Some(max_tokens) = request.max_tokens {
        body["max_tokens"] = json!(max_tokens);
    }
    if request.stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

fn request(stream: bool) -> ModelRequest {
    ModelRequest {
        model: "m".into(),
        system: Some("be brief \"now\"\n".into()),
        messages: vec![
            Message::user("hi ✓"),
            Message::Assistant {
                content: None,
                tool_calls: vec![
                    ToolCall {
                        id: "c1".into(),
                        name: "ls".into(),
                        arguments: json!({"p": ".", "deep": {"z": 1, "a": [true, null]}}), signature: None,
                    },
                    ToolCall {
                        id: "c2".into(),
                        name: "mcp.srv.tool".into(),
                        arguments: json!("odd"), signature: None,
                    },
                ],
            },
            Message::Tool {
                call_id: "c1".into(),
                name: "ls".into(),
                content: "a b".into(),
                is_error: false,
            },
            Message::Assistant {
                content: None,
                tool_calls: vec![],
            },
            Message::Assistant {
                content: Some("done".into()),
                tool_calls: vec![],
            },
        ],
        tools: vec![
            ToolSpec {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({}),
            },
            ToolSpec {
                name: "mcp.srv.tool".into(),
                description: "remote".into(),
                parameters: json!({"type": "object", "properties": {"b": {"type": "string"}, "a": {}}, "required": ["b"]}),
            },
            ToolSpec {
                name: "none".into(),
                description: String::new(),
                parameters: Value::Null,
            },
        ].into(),
        temperature: Some(0.2),
        effort: None,
        max_tokens: Some(5),
        stream,
    }
}

#[test]
fn the_typed_body_sends_the_same_bytes() {
    for stream in [false, true] {
        let mut request = request(stream);
        let names = ToolNames::for_request(&request);
        let reference = serde_json::to_vec(&reference_body(&request, &names)).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&request_bytes(&request, &names)),
            String::from_utf8_lossy(&reference)
        );
        request.temperature = None;
        request.max_tokens = None;
        request.system = None;
        request.tools = Default::default();
        let names = ToolNames::for_request(&request);
        let reference = serde_json::to_vec(&reference_body(&request, &names)).unwrap();
        assert_eq!(
            request_bytes(&request, &names).as_ref(),
            reference.as_slice()
        );
    }
}

#[test]
fn effort_is_reasoning_effort_and_drops_the_temperature() {
    let mut request = request(false);
    request.temperature = Some(0.2);
    request.effort = Some(Effort::Minimal);
    let names = ToolNames::for_request(&request);
    let body: serde_json::Value = serde_json::from_slice(&request_bytes(&request, &names)).unwrap();
    assert_eq!(body["reasoning_effort"], "minimal");
    assert!(body.get("temperature").is_none(), "{body}");
    let reference = serde_json::to_vec(&reference_body(&request, &names)).unwrap();
    assert_eq!(
        request_bytes(&request, &names).as_ref(),
        reference.as_slice()
    );
    request.effort = None;
    let body: serde_json::Value = serde_json::from_slice(&request_bytes(&request, &names)).unwrap();
    assert!(body.get("reasoning_effort").is_none());
    assert_eq!(body["temperature"], 0.2f32 as f64);
}

#[test]
fn a_body_with_shared_tools_sends_the_same_bytes() {
    let http = HttpClient::new(
        "test",
        "TEST_KEY",
        Vec::new(),
        &Default::default(),
        &crate::ProviderOptions::default(),
    )
    .unwrap();
    let provider = OpenAiProvider::new(http, "http://localhost");
    for stream in [false, true] {
        for (temperature, max_tokens, effort) in [
            (Some(0.2), Some(5), None),
            (None, None, None),
            (Some(0.2), None, Some(Effort::High)),
        ] {
            let mut request = request(stream);
            request.temperature = temperature;
            request.max_tokens = max_tokens;
            request.effort = effort;
            let names = ToolNames::for_request(&request);
            let whole = request_bytes(&request, &names);
            let spliced = provider.request_body(&request, &names);
            assert_eq!(
                String::from_utf8_lossy(&spliced.to_vec()),
                String::from_utf8_lossy(&whole)
            );
            assert_eq!(spliced.len(), whole.len());
        }
    }
    // Without tools, one part as before.
    let mut request = request(false);
    request.tools = Default::default();
    let names = ToolNames::for_request(&request);
    assert_eq!(
        provider.request_body(&request, &names).to_vec(),
        request_bytes(&request, &names).to_vec()
    );
}

#[test]
fn tool_call_arguments_travel_as_their_json_text() {
    // Escaped as they are written: quotes, backslashes, control and non-ASCII characters.
    let arguments = json!({"q": "say \"hi\"\\n", "nl": "a\nb\t\u{1}", "u": "✓ \u{2028} 😀"});
    let mut request = request(false);
    request.messages[1] = Message::Assistant {
        content: None,
        tool_calls: vec![ToolCall {
            id: "c1".into(),
            name: "ls".into(),
            arguments: arguments.clone(),
            signature: None,
        }],
    };
    let bytes = request_bytes(&request, &ToolNames::for_request(&request));
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    let text = body["messages"][2]["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap();
    assert_eq!(text, arguments.to_string());
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), arguments);
}

#[test]
fn history_is_converted_to_chat_messages() {
    let request = request(true);
    let bytes = request_bytes(&request, &ToolNames::for_request(&request));
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "be brief \"now\"\n"})
    );
    assert_eq!(
        body["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{\"p\":\".\",\"deep\":{\"z\":1,\"a\":[true,null]}}"
    );
    assert_eq!(
        body["messages"][2]["tool_calls"][1]["function"]["name"],
        "mcp__srv__tool"
    );
    assert_eq!(
        body["messages"][3],
        json!({"role": "tool", "tool_call_id": "c1", "content": "a b"})
    );
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(
        body["tools"][0]["function"]["parameters"],
        json!({"type": "object", "properties": {}})
    );
}

/// What the `Value` reading makes of an answer.
fn slow(answer: &str, names: &ToolNames) -> Result<ModelResponse, String> {
    parse_response(&serde_json::from_str(answer).unwrap(), names)
}

#[test]
fn fast_and_value_readings_agree() {
    let names = ToolNames::new(["mcp.srv.tool", "ls"]);
    let answers = [
        r#"{"choices":[{"message":{"content":"Hi \u00e9","tool_calls":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
        r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"a","function":{"name":"mcp__srv__tool","arguments":"{\"x\":1}"}},{"function":{"name":"ls","arguments":{"y":2}}},{"id":"","function":{"name":"ls","arguments":null}},{"function":{"name":"ls"}},{}]},"finish_reason":"tool_calls"}]}"#,
        r#"{"choices":[{"message":{"content":"x"},"finish_reason":"length"}],"usage":null}"#,
        r#"{"choices":[{}]}"#,
        r#"{"choices":[{"message":null,"finish_reason":"content_filter"}],"usage":{"prompt_tokens":2}}"#,
    ];
    for answer in answers {
        let fast = fast_response(answer.as_bytes(), &names).expect(answer);
        assert_eq!(fast, slow(answer, &names), "{answer}");
    }
    // What the fast reading leaves to the `Value` one (whose results stand as before).
    let odd = [
        r#"{"choices":[]}"#,
        r#"{"choices":[{"message":{"content":5}}]}"#,
        r#"{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1.5}}"#,
        r#"{"choices":[{"message":{"tool_calls":[{"id":7,"function":{"name":"ls"}}]}}]}"#,
        r#"{"choices":{"0":{}}}"#,
        r#"[1]"#,
    ];
    for answer in odd {
        assert!(
            fast_response(answer.as_bytes(), &names).is_none(),
            "{answer}"
        );
    }
    let bad = r#"{"choices":[{"message":{"tool_calls":[{"function":{"name":"ls","arguments":"{oops"}}]}}]}"#;
    assert_eq!(
        fast_response(bad.as_bytes(), &names).unwrap(),
        slow(bad, &names)
    );
    assert!(slow(bad, &names).unwrap_err().contains("`ls`"));
}

/// Applies `chunks` the fast way where it can (else the `Value` way) or always the
/// `Value` way; returns the answer and the deltas.
fn stream(chunks: &[&str], fast: bool) -> (Result<ModelResponse, String>, Vec<ModelDelta>) {
    let names = ToolNames::new(["mcp.srv.tool"]);
    let deltas = Mutex::new(Vec::new());
    let sink = |delta: ModelDelta| deltas.lock().unwrap().push(delta);
    let mut answer = Assembler::default();
    let mut finish = None;
    for chunk in chunks {
        if fast && fast_chunk(chunk, &names, &mut answer, &mut finish, &sink) {
            continue;
        }
        let value: Value = serde_json::from_str(chunk).unwrap();
        apply_chunk(&value, &names, &mut answer, &mut finish, &sink);
    }
    let result = answer.finish(stop_reason(finish.as_deref()));
    (result, deltas.into_inner().unwrap())
}

#[test]
fn fast_and_value_chunks_agree() {
    let chunks = [
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"He"},"finish_reason":null}]}"#,
        r#"{"choices":[{"delta":{"content":"llo \n"}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"c","function":{"name":"mcp__srv__tool","arguments":"{\"a\""}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":":1}"}},{"function":{"name":"x"}}]}}]}"#,
        r#"{"choices":[{"delta":null,"finish_reason":"tool_calls"}]}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2}}"#,
        r#"{"choices":null,"usage":null}"#,
        r#"{"usage":{"prompt_tokens":1.5}}"#,
        r#"{"choices":[{"delta":{"content":7}}]}"#,
    ];
    assert_eq!(stream(&chunks, true), stream(&chunks, false));
    assert!(!fast_chunk(
        r#"{"error":null}"#,
        &ToolNames::default(),
        &mut Assembler::default(),
        &mut None,
        &|_| {}
    ));
}
