//! The Chat Completions wire types, borrowed both ways: the request body is serialised straight
//! from the [`ModelRequest`] (no JSON tree, no copied schemas or history), and answers are read
//! into borrowed structs (no JSON tree, no map per object).
//!
//! The typed readers are the fast path only: an answer they do not take exactly as the
//! `serde_json::Value` reading in `openai.rs` would (a field of an unexpected type, an
//! `error`, no `choices[0]`) is read that way instead, so odd answers give the same results
//! and the same error messages as before.

use crate::schema::object_schema;
use agentctl_core::ToolNames;
use agentctl_core::{Effort, Message, ModelRequest, ToolCall};
use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// The request body: keys in the order the `json!` building of earlier versions gave them.
#[derive(Serialize)]
pub(super) struct Body<'a> {
    model: &'a str,
    messages: Messages<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Tools<'a>>,
    /// As `f64`: `json!(f32)` widened it, and the bytes sent stay the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

impl<'a> Body<'a> {
    pub(super) fn new(request: &'a ModelRequest, names: &'a ToolNames) -> Self {
        Self {
            model: &request.model,
            messages: Messages { request, names },
            tools: (!request.tools.is_empty()).then_some(Tools { request, names }),
            temperature: temperature(request),
            reasoning_effort: request.effort.map(Effort::as_str),
            max_tokens: request.max_tokens,
            stream: request.stream.then_some(true),
            stream_options: request.stream.then_some(StreamOptions {
                include_usage: true,
            }),
        }
    }
}

/// The body's keys before `tools`: a body offering tools is these, the shared tools and
/// [`Tail`], spliced, and sends the same bytes as [`Body`].
#[derive(Serialize)]
pub(super) struct Head<'a> {
    model: &'a str,
    messages: Messages<'a>,
}

impl<'a> Head<'a> {
    pub(super) fn new(request: &'a ModelRequest, names: &'a ToolNames) -> Self {
        Self {
            model: &request.model,
            messages: Messages { request, names },
        }
    }
}

/// The body's keys after `tools` (see [`Head`]).
#[derive(Serialize)]
pub(super) struct Tail {
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

impl Tail {
    pub(super) fn new(request: &ModelRequest) -> Self {
        Self {
            temperature: temperature(request),
            reasoning_effort: request.effort.map(Effort::as_str),
            max_tokens: request.max_tokens,
            stream: request.stream.then_some(true),
            stream_options: request.stream.then_some(StreamOptions {
                include_usage: true,
            }),
        }
    }
}

/// The request's temperature, unless it asks for a reasoning effort: OpenAI's reasoning
/// models refuse any but the default ("Unsupported value: 'temperature' does not support 0.2
/// with this model. Only the default (1) value is supported.").
fn temperature(request: &ModelRequest) -> Option<f64> {
    request
        .temperature
        .filter(|_| request.effort.is_none())
        .map(f64::from)
}

/// The request's `tools` array as JSON text.
pub(super) fn tools_json(request: &ModelRequest, names: &ToolNames) -> Vec<u8> {
    // Serialising borrowed strings and `Value`s into a `Vec` cannot fail.
    serde_json::to_vec(&Tools { request, names }).unwrap_or_default()
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

struct Messages<'a> {
    request: &'a ModelRequest,
    names: &'a ToolNames,
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let system = usize::from(self.request.system.is_some());
        let mut seq = serializer.serialize_seq(Some(system + self.request.messages.len()))?;
        if let Some(system) = &self.request.system {
            seq.serialize_element(&Plain {
                role: "system",
                content: system,
            })?;
        }
        for message in &self.request.messages {
            match message {
                Message::User { content } => seq.serialize_element(&Plain {
                    role: "user",
                    content,
                })?,
                Message::Assistant {
                    content,
                    tool_calls,
                } => seq.serialize_element(&Assistant {
                    content,
                    tool_calls,
                    names: self.names,
                })?,
                Message::Tool {
                    call_id, content, ..
                } => seq.serialize_element(&ToolResult {
                    role: "tool",
                    tool_call_id: call_id,
                    content,
                })?,
            }
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct Plain<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct ToolResult<'a> {
    role: &'static str,
    tool_call_id: &'a str,
    content: &'a str,
}

struct Assistant<'a> {
    content: &'a Option<String>,
    tool_calls: &'a [ToolCall],
    names: &'a ToolNames,
}

impl Serialize for Assistant<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // `content` may be null only beside tool calls ("expected a string, got null").
        let content = match self.content {
            None if self.tool_calls.is_empty() => Some(""),
            content => content.as_deref(),
        };
        let calls = !self.tool_calls.is_empty();
        let mut map = serializer.serialize_map(Some(2 + usize::from(calls)))?;
        map.serialize_entry("role", "assistant")?;
        map.serialize_entry("content", &content)?;
        if calls {
            map.serialize_entry(
                "tool_calls",
                &WireCalls {
                    calls: self.tool_calls,
                    names: self.names,
                },
            )?;
        }
        map.end()
    }
}

struct WireCalls<'a> {
    calls: &'a [ToolCall],
    names: &'a ToolNames,
}

impl Serialize for WireCalls<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.calls.len()))?;
        for call in self.calls {
            seq.serialize_element(&WireCall {
                id: &call.id,
                kind: "function",
                function: WireFunction {
                    name: self.names.wire(&call.name),
                    arguments: &call.arguments,
                },
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    /// The API wants the arguments as a JSON string, not an object.
    #[serde(serialize_with = "json_text")]
    arguments: &'a Value,
}

/// `value` as a string holding its JSON text, escaped as it is written (no `String` made).
fn json_text<S: Serializer>(value: &&Value, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(*value)
}

struct Tools<'a> {
    request: &'a ModelRequest,
    names: &'a ToolNames,
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.request.tools.len()))?;
        for tool in self.request.tools.iter() {
            seq.serialize_element(&WireTool {
                kind: "function",
                function: WireToolFunction {
                    name: self.names.wire(&tool.name),
                    description: &tool.description,
                    parameters: object_schema(&tool.parameters),
                },
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireToolFunction<'a>,
}

#[derive(Serialize)]
struct WireToolFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: Cow<'a, Value>,
}

/// A non-streamed answer.
#[derive(Deserialize)]
pub(super) struct Completion<'a> {
    #[serde(borrow)]
    pub choices: Vec<Choice<'a>>,
    #[serde(default)]
    pub usage: Option<Usage>,
}

#[derive(Deserialize)]
pub(super) struct Choice<'a> {
    #[serde(borrow, default)]
    pub message: Option<AnswerMessage<'a>>,
    #[serde(borrow, default)]
    pub finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
pub(super) struct AnswerMessage<'a> {
    #[serde(borrow, default)]
    pub content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool_calls: Option<Vec<AnswerCall<'a>>>,
}

#[derive(Deserialize)]
pub(super) struct AnswerCall<'a> {
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub function: Option<AnswerFunction<'a>>,
}

#[derive(Deserialize)]
pub(super) struct AnswerFunction<'a> {
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    /// `Some(Value::Null)` for `"arguments": null`, `None` when absent: the two differ.
    #[serde(default, deserialize_with = "present")]
    pub arguments: Option<Value>,
}

/// Token counts; a count that is not a `u64` sends the answer the slow way (where it reads 0).
#[derive(Deserialize)]
pub(super) struct Usage {
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    #[serde(default)]
    pub completion_tokens: Option<u64>,
}

/// One streamed chunk.
#[derive(Deserialize)]
pub(super) struct Chunk<'a> {
    /// An `error` key of any value (null included) sends the chunk the slow way.
    #[serde(default, deserialize_with = "flag")]
    pub error: bool,
    #[serde(default)]
    pub usage: Option<Usage>,
    /// The first of `choices` (a request asks for one), read without building a list.
    #[serde(borrow, default, rename = "choices", deserialize_with = "first")]
    pub choice: Option<ChunkChoice<'a>>,
}

#[derive(Deserialize)]
pub(super) struct ChunkChoice<'a> {
    #[serde(borrow, default)]
    pub delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    pub finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
pub(super) struct Delta<'a> {
    #[serde(borrow, default)]
    pub content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool_calls: Option<Vec<ChunkCall<'a>>>,
}

#[derive(Deserialize)]
pub(super) struct ChunkCall<'a> {
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub function: Option<ChunkFunction<'a>>,
}

#[derive(Deserialize)]
pub(super) struct ChunkFunction<'a> {
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub arguments: Option<Cow<'a, str>>,
}

/// The first element of a list, or `None` for an empty list or null; the rest are skipped.
fn first<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct First<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for First<T> {
        type Value = Option<T>;

        fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            formatter.write_str("a list or null")
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let first = seq.next_element()?;
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(first)
        }
    }

    deserializer.deserialize_any(First(PhantomData))
}

/// A field that is there, whatever its value (null included).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(deserializer).map(|_| true)
}
