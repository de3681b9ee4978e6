//! Cassettes served on the wire: the strict OpenAI fake answering from `scripted:` cassettes.
//!
//! A request that passes the API's rules is decoded into the [`ModelRequest`] the provider
//! built it from (tool names mapped back from their wire names), then given to the
//! [`CassetteReplay`] of the cassette its `model` names, which matches it exactly as the
//! `scripted:` provider would (`order`, every `expect` condition). The turn's answer goes back
//! in the Chat Completions format: SSE when the request streams, JSON otherwise; an `error:`
//! turn as that HTTP status. A request no turn matches is refused with a 400 and recorded as a
//! violation, so the test fails naming the expectation and what came.

use crate::wire::{RecordedRequest, Reply};
use agentctl_cassette::{CassetteReplay, ReplayedTurn, split_text};
use agentctl_core::wire_tool_name;
use agentctl_core::{Message, ModelRequest, ModelResponse, StopReason, ToolCall, ToolSpec};
use serde_json::{Value, json};
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The model name under which a cassette file is served: `cassette-` and the file's stem
/// (`.agentctl/cassettes/code-reviewer.yaml` → `cassette-code-reviewer`).
///
/// ```
/// use std::path::Path;
/// let name = agentctl_test_support::cassette_model(Path::new(".agentctl/cassettes/code-reviewer.yaml"));
/// assert_eq!(name, "cassette-code-reviewer");
/// ```
pub fn cassette_model(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("cassette-{stem}")
}

/// One cassette being replayed for one client.
struct Replaying {
    replay: CassetteReplay,
    /// Agentctl tool names of the cassette by their wire names.
    originals: HashMap<String, String>,
}

impl Replaying {
    /// Reads the cassette at `path` afresh, from its first turn.
    fn read(path: &Path) -> Result<Self, String> {
        let yaml = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read cassette {}: {error}", path.display()))?;
        let replay = CassetteReplay::from_yaml(&yaml, &path.display().to_string())
            .map_err(|error| error.to_string())?;
        let originals = replay
            .tool_names()
            .into_iter()
            .map(|name| (wire_tool_name(name), name.to_owned()))
            .collect();
        Ok(Self { replay, originals })
    }
}

/// One cassette being served: a replay of its own for each client (API key), as each
/// `scripted:` process has its own.
struct Served {
    path: PathBuf,
    clients: HashMap<String, Replaying>,
}

/// The cassettes of one server, by the model name requests use.
#[derive(Default)]
pub(crate) struct CassetteBook {
    cassettes: BTreeMap<String, Served>,
}

impl CassetteBook {
    /// Serves the cassette at `path` to requests for `model`; `Err` says why it cannot be read.
    pub(crate) fn add(&mut self, model: &str, path: &Path) -> Result<(), String> {
        Replaying::read(path)?;
        let served = Served {
            path: path.to_path_buf(),
            clients: HashMap::new(),
        };
        self.cassettes.insert(model.to_owned(), served);
        Ok(())
    }

    /// Whether a cassette is served under `model`.
    pub(crate) fn serves(&self, model: &str) -> bool {
        self.cassettes.contains_key(model)
    }

    /// Every cassette starts over for every client.
    pub(crate) fn rewind(&mut self) {
        self.cassettes
            .values_mut()
            .for_each(|served| served.clients.clear());
    }

    /// The answer to an accepted request; `Err` says why none fits.
    pub(crate) fn answer(&mut self, request: &RecordedRequest) -> Result<Reply, String> {
        if !request.path.starts_with("/v1/chat/completions") {
            return Err(format!(
                "the cassette server answers POST /v1/chat/completions only, not {} {}",
                request.method, request.path
            ));
        }
        let model = request.body["model"].as_str().unwrap_or_default();
        let known: Vec<&str> = self.cassettes.keys().map(String::as_str).collect();
        let unknown = format!(
            "no cassette is served for model {model:?} (served: {})",
            known.join(", ")
        );
        let served = self.cassettes.get_mut(model).ok_or(unknown)?;
        let client = request.header("authorization").unwrap_or_default();
        let served = match served.clients.entry(client.to_owned()) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(Replaying::read(&served.path)?),
        };
        let decoded = decode_openai(&request.body, &served.originals)?;
        match served
            .replay
            .next(&decoded)
            .map_err(|error| error.to_string())?
        {
            ReplayedTurn::Error {
                status, message, ..
            } => Ok(Reply::json(
                status,
                &json!({"error": {"message": message, "type": "cassette_error"}}),
            )),
            ReplayedTurn::Response { response, .. } => Ok(openai_reply(request, &response)),
        }
    }
}

/// `response` as the answer to `request`: SSE when it streams (with the usage when asked for),
/// JSON otherwise.
pub(crate) fn openai_reply(request: &RecordedRequest, response: &ModelResponse) -> Reply {
    if request.body["stream"] == true {
        let include_usage = request.body["stream_options"]["include_usage"] == true;
        Reply::sse(openai_stream(response, include_usage))
    } else {
        Reply::json(200, &openai_json(response))
    }
}

/// Reads a Chat Completions request body back into a [`ModelRequest`], tool names mapped
/// through `originals` (wire name → agentctl name; others kept).
pub(crate) fn decode_openai(
    body: &Value,
    originals: &HashMap<String, String>,
) -> Result<ModelRequest, String> {
    let original = |wire: &str| {
        originals
            .get(wire)
            .cloned()
            .unwrap_or_else(|| wire.to_owned())
    };
    let mut system = None;
    let mut messages = Vec::new();
    let mut call_names: HashMap<String, String> = HashMap::new();
    let listed = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (index, message) in listed.iter().enumerate() {
        let content = content_text(&message["content"]);
        match message["role"].as_str().unwrap_or_default() {
            "system" | "developer" => {
                let text = content.unwrap_or_default();
                system = Some(match system {
                    Some(before) => format!("{before}\n\n{text}"),
                    None => text,
                });
            }
            "user" => messages.push(Message::User {
                content: content.unwrap_or_default(),
            }),
            "assistant" => {
                let tool_calls = decode_calls(index, message, &original)?;
                for call in &tool_calls {
                    call_names.insert(call.id.clone(), call.name.clone());
                }
                messages.push(Message::Assistant {
                    content,
                    tool_calls,
                });
            }
            "tool" => {
                let call_id = message["tool_call_id"].as_str().unwrap_or_default();
                messages.push(Message::Tool {
                    call_id: call_id.to_owned(),
                    name: call_names.get(call_id).cloned().unwrap_or_default(),
                    content: content.unwrap_or_default(),
                    is_error: false,
                });
            }
            role => return Err(format!("messages[{index}]: unknown role {role:?}")),
        }
    }
    let tools: Vec<ToolSpec> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|tool| ToolSpec {
            name: original(tool["function"]["name"].as_str().unwrap_or_default()),
            description: tool["function"]["description"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            parameters: tool["function"]["parameters"].clone(),
        })
        .collect();
    Ok(ModelRequest {
        model: body["model"].as_str().unwrap_or_default().to_owned(),
        system,
        messages,
        tools: tools.into(),
        temperature: body["temperature"].as_f64().map(|value| value as f32),
        effort: serde_json::from_value(body["reasoning_effort"].clone()).ok(),
        max_tokens: body["max_tokens"]
            .as_u64()
            .and_then(|value| u32::try_from(value).ok()),
        stream: body["stream"] == true,
    })
}

/// The tool calls of assistant message `index`, names mapped back by `original`.
fn decode_calls(
    index: usize,
    message: &Value,
    original: &dyn Fn(&str) -> String,
) -> Result<Vec<ToolCall>, String> {
    let mut tool_calls = Vec::new();
    for call in message["tool_calls"].as_array().into_iter().flatten() {
        let id = call["id"].as_str().unwrap_or_default().to_owned();
        let arguments = call["function"]["arguments"].as_str().unwrap_or("{}");
        let arguments = serde_json::from_str(arguments).map_err(|error| {
            format!("messages[{index}]: tool call {id} has arguments that are not JSON: {error}")
        })?;
        tool_calls.push(ToolCall {
            name: original(call["function"]["name"].as_str().unwrap_or_default()),
            id,
            arguments,
            signature: None,
        });
    }
    Ok(tool_calls)
}

/// A message's text: a string, or the text parts of a list joined.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
        ),
        _ => None,
    }
}

fn finish_reason(response: &ModelResponse) -> &'static str {
    match response.stop_reason {
        StopReason::ToolUse => "tool_calls",
        _ => "stop",
    }
}

fn wire_calls(response: &ModelResponse) -> Vec<(String, String, String)> {
    response
        .tool_calls
        .iter()
        .map(|call| {
            (
                call.id.clone(),
                wire_tool_name(&call.name),
                call.arguments.to_string(),
            )
        })
        .collect()
}

/// The answer as Chat Completions stream chunks: the text in three deltas, each tool call in
/// one, the finish reason, the usage when asked for, `[DONE]`.
fn openai_stream(response: &ModelResponse, include_usage: bool) -> Vec<String> {
    use crate::openai;
    let mut events: Vec<String> = response
        .text
        .as_deref()
        .map(|text| split_text(text, 3))
        .unwrap_or_default()
        .into_iter()
        .map(openai::text_chunk)
        .collect();
    for (index, (id, name, arguments)) in wire_calls(response).iter().enumerate() {
        events.push(openai::tool_call_chunk(
            index,
            Some(id),
            Some(name),
            arguments,
        ));
    }
    events.push(openai::finish_chunk(finish_reason(response)));
    if include_usage {
        events.push(openai::usage_chunk(
            response.usage.input_tokens,
            response.usage.output_tokens,
        ));
    }
    events.push(openai::done());
    events
}

/// The answer as one Chat Completions JSON body.
pub(crate) fn openai_json(response: &ModelResponse) -> Value {
    let calls: Vec<Value> = wire_calls(response)
        .into_iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": response.text});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    let usage = &response.usage;
    json!({
        "id": "chatcmpl-cassette", "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(response)}],
        "usage": {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
                  "total_tokens": usage.input_tokens + usage.output_tokens},
    })
}
