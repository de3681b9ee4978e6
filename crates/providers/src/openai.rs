//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`): OpenAI itself, Ollama,
//! vLLM, llama.cpp, Gemini's OpenAI endpoint and any `kind: openai` provider in settings.
//!
//! Streaming uses `stream_options.include_usage`; tool-call arguments arrive in pieces keyed by
//! `index` and are parsed as JSON once the stream ends.

use crate::assemble::{self, Assembler};
use crate::http::{HttpClient, ParsedUrl, RequestBody, Target};
use crate::shared_tools::SharedTools;
use agentctl_core::ToolNames;
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
            signature: None,
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
            agentctl_core::one_line(&value.to_string(), 200)
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
            signature: None,
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
mod tests;
