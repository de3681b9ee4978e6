//! The conversation model every provider and the agent loop speak: messages, tool calls, tool
//! specs, model requests and responses. Providers convert to and from their wire formats at the
//! edge; nothing here knows about HTTP.

use crate::effort::Effort;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::sync::Arc;

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// Instructions from the user (or an orchestrator).
    User {
        /// The text.
        content: String,
    },
    /// The model's turn: text, tool calls, or both.
    Assistant {
        /// Text the model wrote, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// Tools the model asked to call.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, answering the call with the same id.
    Tool {
        /// Id of the call answered.
        call_id: String,
        /// Name of the tool called.
        name: String,
        /// The result as text (JSON results are serialised).
        content: String,
        /// True when the tool failed; the text says why.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl Message {
    /// Bytes of the message's text, tool names, ids and call arguments (as compact JSON): the
    /// basis of the token estimates of the runtime's prompt budget and of stored messages.
    ///
    /// ```
    /// assert_eq!(agentctl_core::Message::user("abcd").content_bytes(), 4);
    /// ```
    pub fn content_bytes(&self) -> usize {
        match self {
            Message::User { content } => content.len(),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                content.as_deref().map_or(0, str::len)
                    + tool_calls
                        .iter()
                        .map(|call| call.id.len() + call.name.len() + json_len(&call.arguments))
                        .sum::<usize>()
            }
            Message::Tool {
                call_id,
                name,
                content,
                ..
            } => call_id.len() + name.len() + content.len(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant {
            content: Some(content.into()),
            tool_calls: Vec::new(),
        }
    }
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-assigned id, echoed in the matching [`Message::Tool`].
    pub id: String,
    /// Tool name as exposed to the model.
    pub name: String,
    /// Arguments as JSON (an object for well-behaved models).
    pub arguments: Value,
    /// An opaque signature the provider attached to the call, sent back with it unchanged in
    /// later requests — Gemini's `thoughtSignature`, without which Gemini 3 models refuse the
    /// next request of a tool-calling turn. `None` for providers that have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// One request to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// Provider's model id (without the `provider:` prefix).
    pub model: String,
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Conversation so far.
    pub messages: Vec<Message>,
    /// Tools the model may call, shared: every run of an agent offers the same specs, and a
    /// run's request (cloned for events and sub-steps) holds them without a copy. Build one
    /// from a `Vec` with `.into()`; change one with [`Arc::make_mut`].
    #[serde(
        default,
        skip_serializing_if = "<[ToolSpec]>::is_empty",
        serialize_with = "serialize_specs",
        deserialize_with = "deserialize_specs"
    )]
    pub tools: Arc<[ToolSpec]>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Reasoning effort, for the provider to send in its own parameter. The runtime sets it
    /// only where the model catalogue does not say the model cannot reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// Upper bound on output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Whether to stream the answer.
    #[serde(default)]
    pub stream: bool,
}

fn serialize_specs<S: Serializer>(
    specs: &Arc<[ToolSpec]>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    specs.as_ref().serialize(serializer)
}

fn deserialize_specs<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Arc<[ToolSpec]>, D::Error> {
    Vec::<ToolSpec>::deserialize(deserializer).map(Arc::from)
}

/// Token counts of one model call (or a sum of calls).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Adds another call's usage to this one.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// It hit the output token limit.
    MaxTokens,
    /// Anything else the provider reported.
    Other(String),
}

/// A complete model answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelResponse {
    /// Text of the answer, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Tool calls of the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Token usage as the provider reported it.
    #[serde(default)]
    pub usage: Usage,
    /// Why the model stopped.
    pub stop_reason: StopReason,
}

impl ModelResponse {
    /// The answer as an assistant message for the history.
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            content: self.text.clone(),
            tool_calls: self.tool_calls.clone(),
        }
    }
}

/// An incremental piece of a streamed answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ModelDelta {
    /// More answer text.
    Text {
        /// The new text.
        text: String,
    },
    /// A tool call began.
    ToolCallStart {
        /// Position of the call in the answer.
        index: usize,
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// More of a tool call's JSON arguments.
    ToolCallArguments {
        /// Position of the call in the answer.
        index: usize,
        /// The next piece of the arguments text.
        fragment: String,
    },
}

/// Length of a JSON value's compact serialisation, without allocating it.
///
/// ```
/// assert_eq!(agentctl_core::json_len(&serde_json::json!({"a": 1})), 7);
/// ```
pub fn json_len(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}
