//! Gemini native API: `POST {base}/v1beta/models/{model}:generateContent` and
//! `:streamGenerateContent?alt=sse`.
//!
//! Gemini has no tool-call ids: calls get ids `call_{n}`, `n` counting every call of the
//! conversation so ids stay unique and stable across turns, and results go back as
//! `functionResponse` parts matched by tool name. A call's `thoughtSignature` is kept on its
//! [`ToolCall::signature`] and sent back on the same part: Gemini 3 models refuse a turn's
//! next request without it. Tool parameters are rewritten into Gemini's OpenAPI subset (see
//! [`crate::schema::gemini_schema`]).

use crate::assemble;
use crate::http::{HttpClient, Target};
use crate::schema::{GeminiParameters, gemini_schema};
use agentctl_core::{DeltaSink, ModelProvider, ProviderError};
use agentctl_core::{Effort, EffortStyle, EffortSupport, ModelCatalogue, ToolNames};
use agentctl_core::{
    Message, ModelDelta, ModelRequest, ModelResponse, StopReason, ToolCall, Usage,
};
use async_trait::async_trait;
use serde_json::{Value, json};

/// A Gemini endpoint.
#[derive(Debug)]
pub(crate) struct GeminiProvider {
    http: HttpClient,
    base_url: String,
}

impl GeminiProvider {
    pub fn new(http: HttpClient, base_url: &str) -> Self {
        Self {
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
        }
    }
}

#[async_trait]
impl ModelProvider for GeminiProvider {
    fn name(&self) -> &str {
        self.http.provider()
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        let model = request
            .model
            .strip_prefix("models/")
            .unwrap_or(&request.model);
        let method = if request.stream {
            "streamGenerateContent?alt=sse"
        } else {
            "generateContent"
        };
        let url = format!("{}/v1beta/models/{model}:{method}", self.base_url);
        let target = Target {
            model: &request.model,
            url: url.into(),
            parsed: None,
        };
        let names = ToolNames::for_request(request);
        // As text, the `Value` tree (a copy of every tool schema) dropped before the await.
        let body = crate::http::json_body(&request_body(request, &names));
        let first_id = previous_calls(request);
        let mut answer = Answer {
            next_id: first_id,
            ..Answer::default()
        };
        if !request.stream {
            let bytes = self.http.post_bytes(&target, body).await?;
            let value = self.http.parse_json(&target, &bytes)?;
            answer.apply(&value, &names, &|_| {});
        } else {
            self.http
                .post_sse(&target, body, |event| {
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
                    answer.apply(&value, &names, on_delta);
                    Ok(false)
                })
                .await?;
        }
        if !answer.saw_candidate {
            return Err(self
                .http
                .malformed(&target, "no candidates in the answer".to_owned()));
        }
        Ok(assemble::response(
            answer.text,
            answer.tool_calls,
            answer.usage,
            answer.stop,
        ))
    }
}

/// The answer so far (a non-streamed answer is one chunk).
#[derive(Debug)]
struct Answer {
    text: String,
    tool_calls: Vec<ToolCall>,
    usage: Usage,
    stop: StopReason,
    next_id: usize,
    saw_candidate: bool,
}

impl Default for Answer {
    fn default() -> Self {
        Self {
            text: String::new(),
            tool_calls: Vec::new(),
            usage: Usage::default(),
            stop: StopReason::EndTurn,
            next_id: 0,
            saw_candidate: false,
        }
    }
}

impl Answer {
    fn apply(&mut self, chunk: &Value, names: &ToolNames, on_delta: DeltaSink<'_>) {
        if let Some(usage) = chunk.get("usageMetadata") {
            let count = |name: &str| usage.get(name).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Usage {
                input_tokens: count("promptTokenCount"),
                output_tokens: count("candidatesTokenCount") + count("thoughtsTokenCount"),
            };
        }
        let Some(candidate) = chunk.pointer("/candidates/0") else {
            return;
        };
        self.saw_candidate = true;
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            // Thought summaries are not part of the answer.
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            if let Some(text) = part.get("text").and_then(Value::as_str)
                && !text.is_empty()
            {
                self.text.push_str(text);
                on_delta(ModelDelta::Text {
                    text: text.to_owned(),
                });
            }
            if let Some(call) = part.get("functionCall") {
                let index = self.tool_calls.len();
                let id = format!("call_{}", self.next_id);
                self.next_id += 1;
                let name = names
                    .original(call.get("name").and_then(Value::as_str).unwrap_or_default())
                    .to_owned();
                let arguments = call.get("args").cloned().unwrap_or_else(|| json!({}));
                on_delta(ModelDelta::ToolCallStart {
                    index,
                    id: id.clone(),
                    name: name.clone(),
                });
                on_delta(ModelDelta::ToolCallArguments {
                    index,
                    fragment: arguments.to_string(),
                });
                self.tool_calls.push(ToolCall {
                    id,
                    name,
                    arguments,
                    // Gemini 3 refuses the turn's next request without it (on the call's part).
                    signature: part
                        .get("thoughtSignature")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                });
            }
        }
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
            self.stop = match reason {
                "STOP" => StopReason::EndTurn,
                "MAX_TOKENS" => StopReason::MaxTokens,
                other => StopReason::Other(other.to_lowercase()),
            };
        }
    }
}

/// Number of tool calls already in the history: the first new call's id number.
fn previous_calls(request: &ModelRequest) -> usize {
    request
        .messages
        .iter()
        .map(|message| match message {
            Message::Assistant { tool_calls, .. } => tool_calls.len(),
            _ => 0,
        })
        .sum()
}

/// What Gemini takes in place of a signature on a call it did not make (history from another
/// model, as after a handoff): Gemini 3 refuses a step of the current turn whose first call
/// carries none.
const UNSIGNED: &str = "skip_thought_signature_validator";

/// Whether `model` checks the signatures of its calls: Gemini 3 and later.
fn signs_calls(model: &str) -> bool {
    let major = model
        .strip_prefix("gemini-")
        .and_then(|rest| rest.split(['.', '-']).next());
    major.and_then(|major| major.parse::<u32>().ok()) >= Some(3)
}

/// Builds the `generateContent` request body, tools under their wire names. Messages with
/// nothing in them are left out ("contents.parts must not be empty").
pub(crate) fn request_body(request: &ModelRequest, names: &ToolNames) -> Value {
    let signed = signs_calls(&request.model);
    let mut contents: Vec<Value> = Vec::new();
    for message in &request.messages {
        let (role, parts) = message_parts(message, names, signed);
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(existing) = last["parts"].as_array_mut() {
                    existing.extend(parts);
                }
            }
            _ => contents.push(json!({"role": role, "parts": parts})),
        }
    }
    let mut body = json!({"contents": contents});
    if let Some(system) = request.system.as_deref().and_then(text_part) {
        body["systemInstruction"] = json!({"parts": [system]});
    }
    if !request.tools.is_empty() {
        body["tools"] = json!([{"functionDeclarations": declarations(request, names)}]);
    }
    let mut config = serde_json::Map::new();
    if let Some(temperature) = request.temperature {
        config.insert("temperature".into(), json!(temperature));
    }
    if let Some(max_tokens) = request.max_tokens {
        config.insert("maxOutputTokens".into(), json!(max_tokens));
    }
    if let Some(effort) = request.effort {
        config.insert(
            "thinkingConfig".into(),
            thinking_config(&request.model, effort),
        );
    }
    if !config.is_empty() {
        body["generationConfig"] = Value::Object(config);
    }
    body
}

/// An effort as Gemini's `thinkingConfig`: Gemini 3 takes a `thinkingLevel` (`low`, `high`),
/// Gemini 2.5 a `thinkingBudget` in tokens ([`Effort::budget_tokens`], within every 2.5
/// model's range). A model the catalogue does not know is taken by its name (`gemini-3…`).
fn thinking_config(model: &str, effort: Effort) -> Value {
    let by_level = match ModelCatalogue::builtin().effort("gemini", model) {
        EffortSupport::Reasons { style, .. } => style == EffortStyle::ThinkingLevel,
        _ => model.starts_with("gemini-3"),
    };
    if by_level {
        let level = match effort {
            Effort::Minimal | Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High | Effort::Xhigh | Effort::Max => "high",
        };
        json!({"thinkingLevel": level})
    } else {
        json!({"thinkingBudget": effort.budget_tokens()})
    }
}

/// A message as Gemini's role and parts (tool calls signed as they came; a step's first
/// call made by another model with the placeholder when the model signs its calls).
fn message_parts(message: &Message, names: &ToolNames, signed: bool) -> (&'static str, Vec<Value>) {
    match message {
        Message::User { content } => ("user", text_part(content).into_iter().collect()),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut parts: Vec<Value> =
                content.as_deref().and_then(text_part).into_iter().collect();
            parts.extend(tool_calls.iter().enumerate().map(|(index, call)| {
                let mut part = json!({"functionCall": {"name": names.wire(&call.name),
                                        "args": assemble::arguments_object(&call.arguments)}});
                // Back on the part it came with, unchanged; a step's first call made by
                // another model goes with the placeholder Gemini takes for such calls.
                match &call.signature {
                    Some(signature) => {
                        part["thoughtSignature"] = Value::String(signature.clone());
                    }
                    None if signed && index == 0 => {
                        part["thoughtSignature"] = Value::from(UNSIGNED);
                    }
                    None => {}
                }
                part
            }));
            ("model", parts)
        }
        Message::Tool {
            name,
            content,
            is_error,
            ..
        } => {
            // `response` must be an object: JSON object results go as they are.
            let response = match serde_json::from_str::<Value>(content) {
                Ok(Value::Object(object)) if !is_error => Value::Object(object),
                _ if *is_error => json!({"error": content}),
                _ => json!({"result": content}),
            };
            let part =
                json!({"functionResponse": {"name": names.wire(name), "response": response}});
            ("user", vec![part])
        }
    }
}

/// The request's tools as function declarations, under their wire names.
fn declarations(request: &ModelRequest, names: &ToolNames) -> Vec<Value> {
    request
        .tools
        .iter()
        .map(|tool| {
            let mut declaration =
                json!({"name": names.wire(&tool.name), "description": tool.description});
            match gemini_schema(&tool.parameters) {
                GeminiParameters::None => {}
                GeminiParameters::Subset(schema) => declaration["parameters"] = schema,
                GeminiParameters::JsonSchema(schema) => {
                    declaration["parametersJsonSchema"] = schema;
                }
            }
            declaration
        })
        .collect()
}

/// A text part, unless the text is empty.
fn text_part(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"text": text}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemini_3_and_later_check_call_signatures() {
        for model in [
            "gemini-3-pro-preview",
            "gemini-3.1-flash",
            "gemini-10-ultra",
        ] {
            assert!(signs_calls(model), "{model}");
        }
        for model in [
            "gemini-2.5-flash",
            "gemini-pro",
            "gemini-exp-1206",
            "learnlm-2.0",
        ] {
            assert!(!signs_calls(model), "{model}");
        }
    }

    #[test]
    fn tool_results_become_function_responses() {
        let request = ModelRequest {
            model: "gemini-2.5-flash".into(),
            system: None,
            messages: vec![
                Message::user("go"),
                Message::Assistant {
                    content: None,
                    tool_calls: vec![ToolCall {
                        id: "call_0".into(),
                        name: "ls".into(),
                        arguments: json!({}),
                        signature: None,
                    }],
                },
                Message::Tool {
                    call_id: "call_0".into(),
                    name: "ls".into(),
                    content: "a\nb".into(),
                    is_error: false,
                },
            ],
            tools: Default::default(),
            temperature: Some(0.5),
            effort: None,
            max_tokens: None,
            stream: false,
        };
        let body = request_body(&request, &ToolNames::for_request(&request));
        assert_eq!(body["contents"][1]["role"], "model");
        assert_eq!(
            body["contents"][2]["parts"][0],
            json!({"functionResponse": {"name": "ls", "response": {"result": "a\nb"}}})
        );
        assert_eq!(body["generationConfig"], json!({"temperature": 0.5}));
        assert_eq!(previous_calls(&request), 1);
    }

    #[test]
    fn effort_is_a_thinking_budget_or_level() {
        let body = |model: &str, effort| {
            let request = ModelRequest {
                model: model.into(),
                system: None,
                messages: vec![Message::user("go")],
                tools: Default::default(),
                temperature: None,
                effort: Some(effort),
                max_tokens: None,
                stream: false,
            };
            request_body(&request, &ToolNames::for_request(&request))["generationConfig"].clone()
        };
        assert_eq!(
            body("gemini-2.5-flash", Effort::High),
            json!({"thinkingConfig": {"thinkingBudget": 16384}})
        );
        assert_eq!(
            body("gemini-3-pro-preview", Effort::Low),
            json!({"thinkingConfig": {"thinkingLevel": "low"}})
        );
        assert_eq!(
            body("gemini-3-flash", Effort::Max),
            json!({"thinkingConfig": {"thinkingLevel": "high"}})
        );
    }
}
