//! The cassette file format: what the scripted provider replays and the recording provider
//! writes (`agentctl-providers`), and what the test fakes serve on the wire.
//!
//! ```yaml
//! version: 1
//! model: openai:gpt-4o-mini        # informative only
//! turns:
//!   - expect: { lastUserContains: review, toolsInclude: [read_file] }
//!     response:
//!       text: I'll read it.
//!       toolCalls: [{ name: read_file, arguments: { path: src/main.rs } }]
//!       usage: { inputTokens: 12, outputTokens: 7 }
//!   - expect: { lastToolResultContains: "fn main" }
//!     response: { text: Looks fine. }
//!   - expect: { historyContains: "Handoff from code-reviewer", historyExcludes: "I'll read" }
//!     response: { text: The reviewer's findings are in the history. }
//!   - error: { status: 429, message: slow down }
//! ```
//!
//! By default each request takes the next turn, which must match (`order: strict`). With
//! `order: match` a request takes the first turn not used yet whose `expect` holds, so one
//! cassette can script several scenarios told apart by their prompts (each branch of a graph).
//!
//! This crate parses text; reading files within agentctl's input limits (size, no FIFOs or
//! devices, bounded YAML aliases) is the scripted provider's.

use agentctl_core::{Message, ModelRequest, Usage};
use agentctl_core::{ProviderError, one_line};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A whole cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Cassette {
    /// The format's version: 1.
    pub version: u32,
    /// The model the calls were recorded from (informative only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// How a request finds its turn.
    #[serde(default, skip_serializing_if = "TurnOrder::is_strict")]
    pub order: TurnOrder,
    /// The model calls, in order.
    #[serde(default)]
    pub turns: Vec<Turn>,
}

/// How a request finds its turn in a cassette.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TurnOrder {
    /// The next turn, which must match (a recorded run replayed as it happened).
    #[default]
    Strict,
    /// The first turn not used yet whose `expect` matches: one cassette for several
    /// scenarios (e.g. each branch of a graph), told apart by their requests.
    Match,
}

impl TurnOrder {
    fn is_strict(&self) -> bool {
        *self == TurnOrder::Strict
    }
}

/// One model call: what the request must look like, and the answer (or failure) to give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Turn {
    /// What the request must show.
    #[serde(default, skip_serializing_if = "Expect::is_empty")]
    pub expect: Expect,
    /// The answer (exactly one of `response` and `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ScriptedResponse>,
    /// The failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ScriptedError>,
}

/// Conditions on the request; all that are set must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Expect {
    /// The last user message contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_user_contains: Option<String>,
    /// The last tool result contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_result_contains: Option<String>,
    /// The request offers these tools (agentctl's names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools_include: Vec<String>,
    /// Some message of the request (system prompt included) contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_contains: Option<String>,
    /// No message of the request (system prompt included) contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_excludes: Option<String>,
}

/// A scripted answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedResponse {
    /// The answer's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The tools it calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ScriptedCall>,
    /// The tokens it reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// A scripted tool call; `id` defaults to `call_{turn}_{index}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedCall {
    /// The call's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool (agentctl's name).
    pub name: String,
    /// Its arguments.
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

/// A scripted failure, reported as an HTTP status error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedError {
    /// The HTTP status.
    pub status: u16,
    /// The error's message.
    #[serde(default)]
    pub message: String,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

impl Expect {
    fn is_empty(&self) -> bool {
        self == &Expect::default()
    }

    /// `Err` says what was expected and what the request had.
    pub fn check(&self, request: &ModelRequest) -> Result<(), String> {
        if let Some(wanted) = &self.last_user_contains {
            check_contains("the last user message", wanted, last_user(request))?;
        }
        if let Some(wanted) = &self.last_tool_result_contains {
            check_contains("the last tool result", wanted, last_tool_result(request))?;
        }
        if let Some(wanted) = &self.history_contains
            && !history_texts(request).any(|text| text.contains(wanted.as_str()))
        {
            return Err(format!(
                "expected a message of the request to contain {wanted:?}, but none does ({} messages)",
                request.messages.len()
            ));
        }
        if let Some(unwanted) = &self.history_excludes
            && let Some(text) = history_texts(request).find(|text| text.contains(unwanted.as_str()))
        {
            return Err(format!(
                "expected no message of the request to contain {unwanted:?}, but one is {:?}",
                one_line(text, 120)
            ));
        }
        for tool in &self.tools_include {
            if !request.tools.iter().any(|spec| &spec.name == tool) {
                let offered: Vec<&str> = request
                    .tools
                    .iter()
                    .map(|spec| spec.name.as_str())
                    .collect();
                return Err(format!(
                    "expected tool `{tool}` to be offered, but the request offers [{}]",
                    offered.join(", ")
                ));
            }
        }
        Ok(())
    }
}

fn check_contains(what: &str, wanted: &str, actual: Option<&str>) -> Result<(), String> {
    match actual {
        Some(actual) if actual.contains(wanted) => Ok(()),
        Some(actual) => Err(format!(
            "expected {what} to contain {wanted:?}, but it is {:?}",
            one_line(actual, 120)
        )),
        None => Err(format!(
            "expected {what} to contain {wanted:?}, but the request has none"
        )),
    }
}

/// Every text of a request: the system prompt, message texts and tool results.
fn history_texts(request: &ModelRequest) -> impl Iterator<Item = &str> {
    let messages = request.messages.iter().filter_map(|message| match message {
        Message::User { content } | Message::Tool { content, .. } => Some(content.as_str()),
        Message::Assistant { content, .. } => content.as_deref(),
    });
    request.system.as_deref().into_iter().chain(messages)
}

/// Text of the last user message.
pub fn last_user(request: &ModelRequest) -> Option<&str> {
    request
        .messages
        .iter()
        .rev()
        .find_map(|message| match message {
            Message::User { content } => Some(content.as_str()),
            _ => None,
        })
}

/// Text of the last tool result.
pub fn last_tool_result(request: &ModelRequest) -> Option<&str> {
    request
        .messages
        .iter()
        .rev()
        .find_map(|message| match message {
            Message::Tool { content, .. } => Some(content.as_str()),
            _ => None,
        })
}

impl Cassette {
    /// Parses and checks a cassette; errors name `origin` and the line and column.
    pub fn parse(yaml: &str, origin: &str) -> Result<Self, ProviderError> {
        let cassette: Cassette = serde_norway::from_str(yaml).map_err(|error| {
            let at = error
                .location()
                .map(|at| format!(":{}:{}", at.line(), at.column()))
                .unwrap_or_default();
            ProviderError::Script(format!(
                "{origin}{at}: invalid cassette: {}",
                one_line(&error.to_string(), 300)
            ))
        })?;
        if cassette.version != 1 {
            return Err(ProviderError::Script(format!(
                "{origin}: unsupported cassette version {} (expected 1)",
                cassette.version
            )));
        }
        for (index, turn) in cassette.turns.iter().enumerate() {
            if turn.response.is_some() == turn.error.is_some() {
                return Err(ProviderError::Script(format!(
                    "{origin}: turn {} must have exactly one of `response` and `error`",
                    index + 1
                )));
            }
        }
        Ok(cassette)
    }

    /// Serialises to YAML.
    pub fn to_yaml(&self) -> Result<String, ProviderError> {
        serde_norway::to_string(self)
            .map_err(|error| ProviderError::Script(format!("cannot write cassette: {error}")))
    }
}
