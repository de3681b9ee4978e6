//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`): OpenAI itself, Ollama,
//! vLLM, llama.cpp, Gemini's OpenAI endpoint and any `kind: openai` provider in settings.
//!
//! Streaming uses `stream_options.include_usage`; tool-call arguments arrive in pieces keyed by
//! `index` and are parsed as JSON once the stream ends.

use crate::assemble::{self, Assembler};
use crate::http::{HttpClient, Target};
use crate::schema::object_schema;
use crate::tool_names::ToolNames;
use agentctl_core::{DeltaSink, ModelProvider, ProviderError};
use agentctl_core::{Message, ModelRequest, ModelResponse, StopReason, ToolCall, Usage};
use async_trait::async_trait;
use serde_json::{Map, Value, json};

/// A Chat Completions endpoint.
#[derive(Debug)]
pub(crate) struct OpenAiProvider {
    http: HttpClient,
    base_url: String,
}

impl OpenAiProvider {
    pub fn new(http: HttpClient, base_url: &str) -> Self {
        Self {
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
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
            url: format!("{}/chat/completions", self.base_url),
        };
        let names = ToolNames::for_request(request);
        let body = request_body(request, &names);
        if !request.stream {
            let value = self.http.post_json(&target, &body).await?;
            return parse_response(&value, &names)
                .map_err(|message| self.http.malformed(&target, message));
        }
        let mut answer = Assembler::default();
        let mut finish_reason: Option<String> = None;
        self.http
            .post_sse(&target, &body, |event| {
                if event.is_done() {
                    return Ok(true);
                }
                let value: Value = serde_json::from_str(&event.data).map_err(|error| {
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

/// Builds the Chat Completions request body, tools under their wire names.
pub(crate) fn request_body(request: &ModelRequest, names: &ToolNames) -> Value {
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
                // `content` may be null only beside tool calls ("expected a string, got null").
                let content = match content {
                    None if tool_calls.is_empty() => Some(""),
                    content => content.as_deref(),
                };
                let mut entry = json!({"role": "assistant", "content": content});
                if !tool_calls.is_empty() {
                    entry["tool_calls"] = tool_calls
                        .iter()
                        .map(|call| wire_call(call, names))
                        .collect();
                }
                entry
            }
            Message::Tool {
                call_id, content, ..
            } => {
                json!({"role": "tool", "tool_call_id": call_id, "content": content})
            }
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
                    "parameters": object_schema(&tool.parameters),
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

fn wire_call(call: &ToolCall, names: &ToolNames) -> Value {
    // The API wants the arguments as a JSON string, not an object.
    json!({"id": call.id, "type": "function", "function": {
        "name": names.wire(&call.name), "arguments": call.arguments.to_string(),
    }})
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
    use agentctl_core::ToolSpec;

    #[test]
    fn history_is_converted_to_chat_messages() {
        let request = ModelRequest {
            model: "m".into(),
            system: Some("be brief".into()),
            messages: vec![
                Message::user("hi"),
                Message::Assistant {
                    content: None,
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "ls".into(),
                        arguments: json!({"p": "."}),
                    }],
                },
                Message::Tool {
                    call_id: "c1".into(),
                    name: "ls".into(),
                    content: "a b".into(),
                    is_error: false,
                },
            ],
            tools: vec![ToolSpec {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({}),
            }],
            temperature: None,
            max_tokens: Some(5),
            stream: true,
        };
        let body = request_body(&request, &ToolNames::for_request(&request));
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "be brief"})
        );
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{\"p\":\".\"}"
        );
        assert_eq!(
            body["messages"][3],
            json!({"role": "tool", "tool_call_id": "c1", "content": "a b"})
        );
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
        assert_eq!(body["tools"][0]["type"], "function");
    }
}
