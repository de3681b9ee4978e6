//! The cassette file format shared by [`ScriptedProvider`](crate::ScriptedProvider) (replay) and
//! [`RecordingProvider`](crate::RecordingProvider) (record).
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
//! Cassette files are read through [`agentctl_config::read_input_file`]: a regular file of at
//! most [`MAX_CASSETTE_BYTES`](agentctl_config::MAX_CASSETTE_BYTES), never a FIFO or device;
//! and their YAML aliases may not expand them by more than
//! [`MAX_CASSETTE_ALIAS_VALUES`](agentctl_config::MAX_CASSETTE_ALIAS_VALUES) values.

use agentctl_config::{InputLimit, MAX_CASSETTE_ALIAS_VALUES, check_yaml_aliases, read_input_file};
use agentctl_core::ProviderError;
use agentctl_core::{Message, ModelRequest, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// A whole cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Cassette {
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// How a request finds its turn.
    #[serde(default, skip_serializing_if = "TurnOrder::is_strict")]
    pub order: TurnOrder,
    #[serde(default)]
    pub turns: Vec<Turn>,
}

/// How a request finds its turn in a cassette.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TurnOrder {
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
pub(crate) struct Turn {
    #[serde(default, skip_serializing_if = "Expect::is_empty")]
    pub expect: Expect,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ScriptedResponse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ScriptedError>,
}

/// Conditions on the request; all that are set must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Expect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_user_contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_result_contains: Option<String>,
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
pub(crate) struct ScriptedResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ScriptedCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// A scripted tool call; `id` defaults to `call_{turn}_{index}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ScriptedCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

/// A scripted failure, reported as an HTTP status error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ScriptedError {
    pub status: u16,
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
                crate::http::one_line(text, 120)
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
            crate::http::one_line(actual, 120)
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
pub(crate) fn last_user(request: &ModelRequest) -> Option<&str> {
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
pub(crate) fn last_tool_result(request: &ModelRequest) -> Option<&str> {
    request
        .messages
        .iter()
        .rev()
        .find_map(|message| match message {
            Message::Tool { content, .. } => Some(content.as_str()),
            _ => None,
        })
}

/// The name the HTTP providers send tool `name` under when no other tool of the request
/// competes for it: itself when every API accepts it, else its rewrite (`mcp.srv.tool` as
/// `mcp__srv__tool`; a long name cut, with a hash). For a fake server that replays a cassette,
/// whose tool names are agentctl's, to read and answer requests in wire names.
///
/// ```
/// assert_eq!(agentctl_providers::wire_tool_name("read_file"), "read_file");
/// assert_eq!(agentctl_providers::wire_tool_name("mcp.srv.echo"), "mcp__srv__echo");
/// ```
pub fn wire_tool_name(name: &str) -> String {
    crate::tool_names::ToolNames::new([name])
        .wire(name)
        .to_owned()
}

impl Cassette {
    /// The text of a cassette file, read within the input limits.
    pub fn read_file(path: &Path) -> Result<String, ProviderError> {
        read_input_file(path, InputLimit::CASSETTE)
            .map_err(|error| ProviderError::Script(format!("cannot read cassette {error}")))
    }

    /// Parses and checks a cassette; errors name `origin` and the line and column.
    pub fn parse(yaml: &str, origin: &str) -> Result<Self, ProviderError> {
        check_yaml_aliases(yaml, MAX_CASSETTE_ALIAS_VALUES).map_err(|error| {
            ProviderError::Script(format!(
                "{origin}:{}:{}: invalid cassette: {error}",
                error.line, error.column
            ))
        })?;
        let cassette: Cassette = serde_norway::from_str(yaml).map_err(|error| {
            let at = error
                .location()
                .map(|at| format!(":{}:{}", at.line(), at.column()))
                .unwrap_or_default();
            ProviderError::Script(format!(
                "{origin}{at}: invalid cassette: {}",
                crate::http::one_line(&error.to_string(), 300)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Reads on another thread, so that a regression fails the test instead of hanging it.
    fn read_or_hang(path: &Path) -> Result<String, ProviderError> {
        let path = path.to_path_buf();
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = send.send(Cassette::read_file(&path));
        });
        receive
            .recv_timeout(Duration::from_secs(60))
            .expect("reading the cassette hung")
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_cassette_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("c.yaml");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let error = read_or_hang(&fifo).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "cannot read cassette {}: is a FIFO, not a regular file",
                fifo.display()
            )
        );
    }

    #[test]
    fn an_oversized_cassette_is_refused_without_being_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.yaml");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(64 << 30)
            .unwrap();
        let error = read_or_hang(&path).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "cannot read cassette {}: is 64 GiB; cassettes are limited to 16 MiB",
                path.display()
            )
        );
    }

    #[test]
    fn an_alias_bomb_is_refused_before_it_expands() {
        let items = vec!["x"; 2000].join(",");
        let refs = vec!["*a"; 1000].join(",");
        let yaml = format!(
            "version: 1\nturns:\n  - response:\n      text: hi\n      toolCalls:\n        - name: t\n          arguments: {{a: &a [{items}], b: [{refs}]}}\n"
        );
        let error = Cassette::parse(&yaml, "bomb.yaml").unwrap_err().to_string();
        assert!(error.starts_with("bomb.yaml:7:"), "{error}");
        assert!(error.contains("more than 1000000 values"), "{error}");
        // Ordinary reuse is fine.
        let reuse = "version: 1\nturns:\n  - response: &r {text: hi}\n  - response: *r\n";
        assert_eq!(Cassette::parse(reuse, "r.yaml").unwrap().turns.len(), 2);
    }
}
