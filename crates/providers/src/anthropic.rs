//! Anthropic Messages API (`POST {base}/v1/messages`).
//!
//! The system prompt is top-level; tool calls are `tool_use` blocks and their results
//! `tool_result` blocks inside user messages (consecutive ones merged, since the API wants
//! user and assistant turns to alternate). Streams are typed SSE events. A request's effort is
//! extended thinking ([`thinking`]).

mod thinking;

use crate::assemble::{self, Assembler};
use crate::http::{HttpClient, Target};
use crate::schema::object_schema;
use agentctl_core::{DeltaSink, ModelProvider, ProviderError};
use agentctl_core::{Message, ModelRequest, ModelResponse, StopReason, ToolCall, Usage};
use agentctl_core::{ToolNames, portable_id};
use async_trait::async_trait;
use serde_json::{Value, json};

/// Output limit sent when the request sets none (the API requires one).
const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A Messages API endpoint.
#[derive(Debug)]
pub(crate) struct AnthropicProvider {
    http: HttpClient,
    base_url: String,
}

impl AnthropicProvider {
    pub fn new(http: HttpClient, base_url: &str) -> Self {
        Self {
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
        }
    }
}

#[async_trait]
impl ModelProvider for AnthropicProvider {
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
            url: format!("{}/v1/messages", self.base_url).into(),
            parsed: None,
        };
        let names = ToolNames::for_request(request);
        // As text, the `Value` tree (a copy of every tool schema) dropped before the await.
        let body = crate::http::json_body(&request_body(request, &names));
        if !request.stream {
            let bytes = self.http.post_bytes(&target, body).await?;
            let value = self.http.parse_json(&target, &bytes)?;
            return parse_response(&value, &names)
                .map_err(|message| self.http.malformed(&target, message));
        }
        let mut answer = Assembler::default();
        let mut thoughts = thinking::Thoughts::default();
        let mut stop: Option<String> = None;
        self.http
            .post_sse(&target, body, |event| {
                let value: Value = serde_json::from_str(event.data).map_err(|error| {
                    self.http.malformed(
                        &target,
                        format!("bad stream event ({error}): {}", event.data),
                    )
                })?;
                let read = (&mut answer, &mut thoughts, &mut stop);
                match stream_event(read, &value, &names, on_delta) {
                    Streamed::More => Ok(false),
                    Streamed::Done => Ok(true),
                    Streamed::Error => Err(stream_error(&self.http, &target, &value)),
                }
            })
            .await?;
        let mut response = answer
            .finish(stop_reason(stop.as_deref()))
            .map_err(|message| self.http.malformed(&target, message))?;
        thinking::attach(&thoughts.into_blocks(), &mut response.tool_calls);
        Ok(response)
    }
}

/// Where a stream is after one of its events.
enum Streamed {
    /// Read on.
    More,
    /// `message_stop`: the answer is whole.
    Done,
    /// An `error` event.
    Error,
}

/// Takes one event of a Messages API stream into `answer` (and the stop reason into `stop`).
fn stream_event(
    (answer, thoughts, stop): (&mut Assembler, &mut thinking::Thoughts, &mut Option<String>),
    value: &Value,
    names: &ToolNames,
    on_delta: DeltaSink<'_>,
) -> Streamed {
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match kind {
        "message_start" => {
            answer.usage = usage(value.pointer("/message/usage"), answer.usage);
        }
        "content_block_start" => {
            let block = value.get("content_block").cloned().unwrap_or(Value::Null);
            let index = block_index(value);
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let id = block.get("id").and_then(Value::as_str);
                    let name = block
                        .get("name")
                        .and_then(Value::as_str)
                        .map(|name| names.original(name));
                    answer.call_piece(index, id, name, "", on_delta);
                }
                Some("text") => {
                    let text = block.get("text").and_then(Value::as_str);
                    answer.text(text.unwrap_or_default(), on_delta);
                }
                _ => thoughts.start(index, &block),
            }
        }
        "content_block_delta" => {
            let delta = value.get("delta").cloned().unwrap_or(Value::Null);
            let index = block_index(value);
            match delta.get("type").and_then(Value::as_str) {
                Some("text_delta") => {
                    let text = delta.get("text").and_then(Value::as_str);
                    answer.text(text.unwrap_or_default(), on_delta);
                }
                Some("input_json_delta") => {
                    let piece = delta.get("partial_json").and_then(Value::as_str);
                    answer.call_piece(index, None, None, piece.unwrap_or_default(), on_delta);
                }
                Some(kind @ ("thinking_delta" | "signature_delta")) => {
                    let field = kind.trim_end_matches("_delta");
                    let piece = delta.get(field).and_then(Value::as_str);
                    thoughts.delta(index, field, piece.unwrap_or_default());
                }
                _ => {}
            }
        }
        "message_delta" => {
            if let Some(reason) = value.pointer("/delta/stop_reason").and_then(Value::as_str) {
                *stop = Some(reason.to_owned());
            }
            answer.usage = usage(value.get("usage"), answer.usage);
        }
        "message_stop" => return Streamed::Done,
        "error" => return Streamed::Error,
        _ => {}
    }
    Streamed::More
}

fn block_index(value: &Value) -> usize {
    value.get("index").and_then(Value::as_u64).unwrap_or(0) as usize
}

/// An `error` event: overloaded and rate-limit errors keep their retryable statuses.
fn stream_error(http: &HttpClient, target: &Target<'_>, value: &Value) -> ProviderError {
    let kind = value
        .pointer("/error/type")
        .and_then(Value::as_str)
        .unwrap_or("error");
    let message = value
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or(kind);
    let status = match kind {
        "overloaded_error" => 529,
        "rate_limit_error" => 429,
        "api_error" => 500,
        _ => return http.malformed(target, format!("stream error {kind}: {message}")),
    };
    ProviderError::Status {
        provider: http.provider().to_owned(),
        model: target.model.to_owned(),
        status,
        message: format!("{kind}: {message}"),
        hint: String::new(),
        retry_after: None,
    }
}

/// Builds the Messages request body, tools under their wire names.
///
/// What the API refuses is avoided here: empty text blocks and messages with nothing in them
/// ("all messages must have non-empty content"), two messages of one role in a row, text before
/// the `tool_result` blocks of a user message (they must come first), a `tool_use` input that is
/// not an object, call ids with characters it refuses (from another provider earlier in the
/// session), and an empty system prompt.
pub(crate) fn request_body(request: &ModelRequest, names: &ToolNames) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    for message in &request.messages {
        let (role, blocks) = match message {
            Message::User { content } => ("user", text_block(content).into_iter().collect()),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks = if request.effort.is_some() {
                    thinking::replay(tool_calls.first())
                } else {
                    Vec::new()
                };
                blocks.extend(content.as_deref().and_then(text_block));
                blocks.extend(tool_calls.iter().map(|call| {
                    json!({"type": "tool_use", "id": portable_id(&call.id), "name": names.wire(&call.name),
                           "input": assemble::arguments_object(&call.arguments)})
                }));
                ("assistant", blocks)
            }
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } => {
                let mut block = json!({"type": "tool_result", "tool_use_id": portable_id(call_id), "content": content});
                if *is_error {
                    block["is_error"] = json!(true);
                }
                ("user", vec![block])
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(content) = last["content"].as_array_mut() {
                    content.extend(blocks);
                    // Results first, in their order; then the rest, in theirs.
                    content.sort_by_key(|block| block["type"] != "tool_result");
                }
            }
            _ => messages.push(json!({"role": role, "content": blocks})),
        }
    }
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages,
    });
    if let Some(system) = request
        .system
        .as_deref()
        .filter(|text| !text.trim().is_empty())
    {
        body["system"] = json!(system);
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|tool| {
                json!({"name": names.wire(&tool.name), "description": tool.description,
                       "input_schema": object_schema(&tool.parameters).into_owned()})
            })
            .collect();
    }
    if let Some(temperature) = request.temperature {
        body["temperature"] = json!(temperature);
    }
    if request.stream {
        body["stream"] = json!(true);
    }
    thinking::apply(&mut body, request, DEFAULT_MAX_TOKENS);
    body
}

/// A text block, unless the text is blank ("text content blocks must contain non-whitespace text").
fn text_block(text: &str) -> Option<Value> {
    (!text.trim().is_empty()).then(|| json!({"type": "text", "text": text}))
}

fn parse_response(value: &Value, names: &ToolNames) -> Result<ModelResponse, String> {
    let content = value
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            format!(
                "no `content` in {}",
                agentctl_core::one_line(&value.to_string(), 200)
            )
        })?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    let mut thoughts = Vec::new();
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            Some("tool_use") => tool_calls.push(ToolCall {
                id: block
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                name: names
                    .original(
                        block
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                    )
                    .to_owned(),
                arguments: block.get("input").cloned().unwrap_or_else(|| json!({})),
                signature: None,
            }),
            _ if thinking::is_thinking(block) => thoughts.push(block.clone()),
            _ => {}
        }
    }
    thinking::attach(&thoughts, &mut tool_calls);
    let stop = stop_reason(value.get("stop_reason").and_then(Value::as_str));
    Ok(assemble::response(
        text,
        tool_calls,
        usage(value.get("usage"), Usage::default()),
        stop,
    ))
}

/// Reads a `usage` object; counts it lacks keep their previous values (streams report input
/// tokens at the start and output tokens at the end).
fn usage(value: Option<&Value>, previous: Usage) -> Usage {
    let count = |name: &str| {
        value
            .and_then(|usage| usage.get(name))
            .and_then(Value::as_u64)
    };
    Usage {
        input_tokens: count("input_tokens").unwrap_or(previous.input_tokens),
        output_tokens: count("output_tokens").unwrap_or(previous.output_tokens),
    }
}

fn stop_reason(reason: Option<&str>) -> StopReason {
    match reason {
        None | Some("end_turn" | "stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_are_merged_into_one_user_message() {
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "ls".into(),
            arguments: json!({}),
            signature: None,
        };
        let result = |id: &str| Message::Tool {
            call_id: id.into(),
            name: "ls".into(),
            content: "x".into(),
            is_error: id == "b",
        };
        let request = ModelRequest {
            model: "claude".into(),
            system: Some("sys".into()),
            messages: vec![
                Message::user("go"),
                Message::Assistant {
                    content: Some("ok".into()),
                    tool_calls: vec![call("a"), call("b")],
                },
                result("a"),
                result("b"),
            ],
            tools: Default::default(),
            temperature: None,
            effort: None,
            max_tokens: None,
            stream: false,
        };
        let body = request_body(&request, &ToolNames::for_request(&request));
        assert_eq!(body["max_tokens"], 4096);
        assert_eq!(body["system"], "sys");
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["content"][1]["type"], "tool_use");
        assert_eq!(messages[2]["content"].as_array().unwrap().len(), 2);
        assert_eq!(messages[2]["content"][1]["is_error"], true);
    }

    #[test]
    fn an_answers_thinking_comes_back_first_in_its_message() {
        let names = ToolNames::default();
        let answer = json!({"content": [
            {"type": "thinking", "thinking": "Which folder?", "signature": "EqQB"},
            {"type": "redacted_thinking", "data": "xyz"},
            {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}},
        ], "stop_reason": "tool_use"});
        let response = parse_response(&answer, &names).unwrap();
        let mut request = ModelRequest {
            model: "claude-sonnet-4-5".into(),
            system: None,
            messages: vec![
                Message::user("go"),
                response.to_message(),
                Message::Tool {
                    call_id: "toolu_1".into(),
                    name: "ls".into(),
                    content: "a".into(),
                    is_error: false,
                },
            ],
            tools: Default::default(),
            temperature: Some(0.2),
            effort: Some(agentctl_core::Effort::Medium),
            max_tokens: None,
            stream: false,
        };
        let body = request_body(&request, &ToolNames::for_request(&request));
        let content = body["messages"][1]["content"].as_array().unwrap();
        let kinds: Vec<&str> = content
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["thinking", "redacted_thinking", "tool_use"]);
        assert_eq!(content[0]["signature"], "EqQB");
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 8192})
        );
        assert_eq!(body["max_tokens"], 4096 + 8192);
        assert!(body.get("temperature").is_none());
        // Without an effort, no thinking is sent, and none is replayed.
        request.effort = None;
        let body = request_body(&request, &ToolNames::for_request(&request));
        assert_eq!(body["messages"][1]["content"][0]["type"], "tool_use");
        assert!(body.get("thinking").is_none());
    }
}
