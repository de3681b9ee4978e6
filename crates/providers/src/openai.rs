//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`): OpenAI itself, Ollama,
//! vLLM, llama.cpp, Gemini's OpenAI endpoint and any `kind: openai` provider in settings.
//!
//! Streaming uses `stream_options.include_usage`; tool-call arguments arrive in pieces keyed by
//! `index` and are parsed as JSON once the stream ends.

use crate::assemble::{self, Assembler};
use crate::http::{HttpClient, ParsedUrl, RequestBody, Target};
use crate::shared_tools::SharedTools;
use crate::tool_names::ToolNames;
use agentctl_core::{DeltaSink, ModelProvider, ProviderError};
use agentctl_core::{ModelRequest, ModelResponse, StopReason, ToolCall, Usage};
use async_trait::async_trait;
use bytes::Bytes;
use serde_json::{Map, Value};
use std::borrow::Cow;

mod wire;

/// A Chat Completions endpoint.
#[derive(Debug)]
pub(crate) struct OpenAiProvider {
    http: HttpClient,
    /// `{base}/chat/completions`, built once.
    url: String,
    /// `url` parsed, when it parses (else each request reports why).
    parsed_url: Option<ParsedUrl>,
    /// The tool sets of the runs, serialised once each.
    tools: SharedTools,
}

impl OpenAiProvider {
    pub fn new(http: HttpClient, base_url: &str) -> Self {
        let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
        Self {
            http,
            parsed_url: ParsedUrl::parse(&url),
            url,
            tools: SharedTools::default(),
        }
    }
}

#[async_trait]
impl ModelProvider for OpenAiProvider {
    fn name(&self) -> &str {
        self.http.provider()
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        let target = Target {
            model: &request.model,
            url: Cow::Borrowed(&self.url),
            parsed: self.parsed_url.as_ref(),
        };
        let names = ToolNames::for_request(request);
        let body = self.request_body(request, &names);
        if !request.stream {
            let bytes = self.http.post_bytes(&target, body).await?;
            return match fast_response(&bytes, &names) {
                Some(answer) => answer,
                None => parse_response(&self.http.parse_json(&target, &bytes)?, &names),
            }
            .map_err(|message| self.http.malformed(&target, message));
        }
        let mut answer = Assembler::default();
        let mut finish_reason: Option<String> = None;
        self.http
            .post_sse(&target, body, |event| {
                if event.is_done() {
                    return Ok(true);
                }
                if fast_chunk(
                    event.data,
                    &names,
                    &mut answer,
                    &mut finish_reason,
                    on_delta,
                ) {
                    return Ok(false);
                }
                let value: Value = serde_json::from_str(event.data).map_err(|error| {
                    self.http.malformed(
                        &target,
                        format!("bad stream event ({error}): {}", event.data),
                    )
                })?;
                if let Some(error) = value.get("error") {
                    return Err(self
                        .http
                        .malformed(&target, format!("stream error: {error}")));
                }
                apply_chunk(&value, &names, &mut answer, &mut finish_reason, on_delta);
                Ok(false)
            })
            .await?;
        answer
            .finish(stop_reason(finish_reason.as_deref()))
            .map_err(|message| self.http.malformed(&target, message))
    }
}

impl OpenAiProvider {
    /// The request body as [`request_bytes`] writes it, the tools spliced in from their one
    /// serialised copy.
    fn request_body(&self, request: &ModelRequest, names: &ToolNames) -> RequestBody {
        if request.tools.is_empty() {
            return request_bytes(request, names).into();
        }
        let tools = self
            .tools
            .bytes(&request.tools, names, || wire::tools_json(request, names));
        // `{"model":…,"messages":[…]` `,"tools":` TOOLS `,"temperature":…}`: the same bytes
        // as the whole body, which has the keys in this order.
        let mut head = Vec::with_capacity(body_capacity(request));
        // Serialising borrowed strings and `Value`s into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut head, &wire::Head::new(request, names));
        head.pop();
        head.extend_from_slice(br#","tools":"#);
        let mut tail = serde_json::to_vec(&wire::Tail::new(request)).unwrap_or_default();
        let tail = if tail.len() <= 2 {
            Bytes::from_static(b"}")
        } else {
            tail[0] = b',';
            Bytes::from(tail)
        };
        RequestBody::from_parts([Bytes::from(head), tools, tail])
    }
}

/// The Chat Completions request body as JSON text, tools under their wire names.
pub(crate) fn request_bytes(request: &ModelRequest, names: &ToolNames) -> Bytes {
    let mut bytes = Vec::with_capacity(body_capacity(request));
    // Serialising borrowed strings and `Value`s into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut bytes, &wire::Body::new(request, names));
    Bytes::from(bytes)
}

/// About the length of a request body without its tools: the messages' text plus room for
/// the JSON around each. Sized from the request rather than fixed, so a long conversation is
/// not copied step by step as the buffer grows, and a short one does not take a large block.
fn body_capacity(request: &ModelRequest) -> usize {
    let messages: usize = request
        .messages
        .iter()
        .map(|message| message.content_bytes() + 64)
        .sum();
    let system = request.system.as_ref().map_or(0, String::len);
    128 + request.model.len() + system + messages
}

/// A non-streamed answer read the fast way: `None` when it must be read as a `Value` (see
/// [`wire`]).
fn fast_response(bytes: &[u8], names: &ToolNames) -> Option<Result<ModelResponse, String>> {
    let completion: wire::Completion<'_> = serde_json::from_slice(bytes).ok()?;
    let usage = typed_usage(completion.usage.as_ref());
    let choice = completion.choices.into_iter().next()?;
    let (text, calls) = match choice.message {
        Some(message) => (message.content, message.tool_calls.unwrap_or_default()),
        None => (None, Vec::new()),
    };
    let mut tool_calls = Vec::with_capacity(calls.len());
    for (index, call) in calls.into_iter().enumerate() {
        let (name, arguments) = match call.function {
            Some(function) => (function.name, function.arguments),
            None => (None, None),
        };
        let name = names
            .original(name.as_deref().unwrap_or_default())
            .to_owned();
        let arguments = match arguments {
            Some(Value::String(text)) => match assemble::parse_arguments(&name, &text) {
                Ok(arguments) => arguments,
                Err(message) => return Some(Err(message)),
            },
            Some(other) => other,
            None => Value::Object(Map::new()),
        };
        let id = match call.id.as_deref() {
            None | Some("") => format!("call_{index}"),
            Some(id) => id.to_owned(),
        };
        tool_calls.push(ToolCall {
            id,
            name,
            arguments,
        });
    }
    let stop = stop_reason(choice.finish_reason.as_deref());
    let text = text.map(Cow::into_owned).unwrap_or_default();
    Some(Ok(assemble::response(text, tool_calls, usage, stop)))
}

/// Applies a streamed chunk read the fast way; false when it must be read as a `Value`.
fn fast_chunk(
    data: &str,
    names: &ToolNames,
    answer: &mut Assembler,
    finish_reason: &mut Option<String>,
    on_delta: DeltaSink<'_>,
) -> bool {
    let Ok(chunk) = serde_json::from_str::<wire::Chunk<'_>>(data) else {
        return false;
    };
    if chunk.error {
        return false;
    }
    if chunk.usage.is_some() {
        answer.usage = typed_usage(chunk.usage.as_ref());
    }
    let Some(choice) = chunk.choice else {
        return true;
    };
    if let Some(delta) = choice.delta {
        if let Some(text) = &delta.content {
            answer.text(text, on_delta);
        }
        for (position, call) in delta.tool_calls.unwrap_or_default().into_iter().enumerate() {
            let key = call.index.map_or(position, |index| index as usize);
            let (name, fragment) = match call.function {
                Some(function) => (function.name, function.arguments),
                None => (None, None),
            };
            answer.call_piece(
                key,
                call.id.as_deref(),
                name.as_deref().map(|name| names.original(name)),
                fragment.as_deref().unwrap_or_default(),
                on_delta,
            );
        }
    }
    if let Some(reason) = choice.finish_reason {
        *finish_reason = Some(reason.into_owned());
    }
    true
}

fn typed_usage(usage: Option<&wire::Usage>) -> Usage {
    Usage {
        input_tokens: usage.and_then(|usage| usage.prompt_tokens).unwrap_or(0),
        output_tokens: usage.and_then(|usage| usage.completion_tokens).unwrap_or(0),
    }
}

/// Parses a non-streamed answer, tool names back to agentctl's.
fn parse_response(value: &Value, names: &ToolNames) -> Result<ModelResponse, String> {
    let choice = value.pointer("/choices/0").ok_or_else(|| {
        format!(
            "no `choices[0]` in {}",
            crate::http::one_line(&value.to_string(), 200)
        )
    })?;
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut tool_calls = Vec::new();
    for (index, call) in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = names.original(str_at(call, "/function/name")).to_owned();
        let arguments = match call.pointer("/function/arguments") {
            Some(Value::String(text)) => assemble::parse_arguments(&name, text)?,
            Some(other) => other.clone(),
            None => Value::Object(Map::new()),
        };
        let id = match str_at(call, "/id") {
            "" => format!("call_{index}"),
            id => id.to_owned(),
        };
        tool_calls.push(ToolCall {
            id,
            name,
            arguments,
        });
    }
    let stop = stop_reason(choice.get("finish_reason").and_then(Value::as_str));
    Ok(assemble::response(text, tool_calls, usage(value), stop))
}

/// Applies one streamed chunk.
fn apply_chunk(
    value: &Value,
    names: &ToolNames,
    answer: &mut Assembler,
    finish_reason: &mut Option<String>,
    on_delta: DeltaSink<'_>,
) {
    if value.get("usage").is_some_and(Value::is_object) {
        answer.usage = usage(value);
    }
    let Some(choice) = value.pointer("/choices/0") else {
        return;
    };
    if let Some(delta) = choice.get("delta") {
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            answer.text(text, on_delta);
        }
        for (position, call) in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let key = call
                .get("index")
                .and_then(Value::as_u64)
                .map_or(position, |index| index as usize);
            answer.call_piece(
                key,
                call.get("id").and_then(Value::as_str),
                call.pointer("/function/name")
                    .and_then(Value::as_str)
                    .map(|name| names.original(name)),
                call.pointer("/function/arguments")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                on_delta,
            );
        }
    }
    if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
        *finish_reason = Some(reason.to_owned());
    }
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn usage(value: &Value) -> Usage {
    let count = |pointer: &str| value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: count("/usage/prompt_tokens"),
        output_tokens: count("/usage/completion_tokens"),
    }
}

fn stop_reason(reason: Option<&str>) -> StopReason {
    match reason {
        None | Some("stop") => StopReason::EndTurn,
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_core::{Message, ModelDelta, ToolSpec};
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
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
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
                            arguments: json!({"p": ".", "deep": {"z": 1, "a": [true, null]}}),
                        },
                        ToolCall {
                            id: "c2".into(),
                            name: "mcp.srv.tool".into(),
                            arguments: json!("odd"),
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
            for (temperature, max_tokens) in [(Some(0.2), Some(5)), (None, None)] {
                let mut request = request(stream);
                request.temperature = temperature;
                request.max_tokens = max_tokens;
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
}
