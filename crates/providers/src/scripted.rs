//! The scripted provider: replays a YAML cassette (model string `scripted:PATH`), so agent runs
//! and tests work offline and deterministically.

use crate::cassette::{Cassette, Turn, TurnOrder, last_tool_result, last_user};
use crate::http::one_line;
use agentctl_core::{DeltaSink, ModelProvider, ProviderError};
use agentctl_core::{ModelDelta, ModelRequest, ModelResponse, StopReason, ToolCall};
use async_trait::async_trait;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// Answers model calls from a cassette, one turn per call, in order.
///
/// The cursor is shared by every caller of one instance (behind a mutex), so concurrent use is
/// safe and still consumes turns in order. A request that fails the turn's `expect` matcher, or
/// comes after the last turn, gets a [`ProviderError::Script`] saying which turn, what was
/// expected and what the request had. `error:` turns come back as [`ProviderError::Status`],
/// without retries.
///
/// ```
/// use agentctl_core::{Message, ModelProvider, ModelRequest};
/// use agentctl_providers::ScriptedProvider;
///
/// let yaml = r#"
/// version: 1
/// turns:
///   - expect: { lastUserContains: hello }
///     response: { text: Hi there! }
/// "#;
/// let provider = ScriptedProvider::from_yaml(yaml, "inline").unwrap();
/// let request = ModelRequest {
///     model: "inline".into(),
///     system: None,
///     messages: vec![Message::user("hello")],
///     tools: Default::default(),
///     temperature: None,
///     max_tokens: None,
///     stream: false,
/// };
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let response = runtime.block_on(provider.complete(&request, &|_| {})).unwrap();
/// assert_eq!(response.text.as_deref(), Some("Hi there!"));
/// assert!(runtime.block_on(provider.complete(&request, &|_| {})).is_err()); // exhausted
/// ```
#[derive(Debug)]
pub struct ScriptedProvider {
    origin: String,
    turns: Vec<Turn>,
    order: TurnOrder,
    /// Which turns were used.
    used: Mutex<Vec<bool>>,
}

impl ScriptedProvider {
    /// Parses a cassette; `origin` (a path or a label) names it in errors.
    pub fn from_yaml(yaml: &str, origin: &str) -> Result<Self, ProviderError> {
        let cassette = Cassette::parse(yaml, origin)?;
        Ok(Self {
            origin: origin.to_owned(),
            used: Mutex::new(vec![false; cassette.turns.len()]),
            turns: cassette.turns,
            order: cassette.order,
        })
    }

    /// Reads a cassette file: a regular file of at most 16 MiB (FIFOs and devices are refused
    /// unread).
    pub fn from_file(path: &Path) -> Result<Self, ProviderError> {
        let yaml = Cassette::read_file(path)?;
        Self::from_yaml(&yaml, &path.display().to_string())
    }

    /// Turns not yet used.
    pub fn remaining(&self) -> usize {
        let used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        used.iter().filter(|used| !**used).count()
    }

    /// Takes the request's turn: the next one, which must match (`order: strict`, the
    /// default), or the first unused one that matches (`order: match`).
    fn next_turn(&self, request: &ModelRequest) -> Result<(usize, Turn), ProviderError> {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        let total = self.turns.len();
        if self.order == TurnOrder::Match {
            let unused: Vec<usize> = (0..total).filter(|&index| !used[index]).collect();
            let mut why = Vec::new();
            for &index in &unused {
                match self.turns[index].expect.check(request) {
                    Ok(()) => {
                        used[index] = true;
                        return Ok((index + 1, self.turns[index].clone()));
                    }
                    Err(reason) => why.push(format!("turn {}: {reason}", index + 1)),
                }
            }
            let last = last_user(request).map_or_else(
                || "none".to_owned(),
                |text| format!("{:?}", one_line(text, 80)),
            );
            return Err(ProviderError::Script(format!(
                "scripted:{}: no unused turn matches the request (last user message: {last}){}",
                self.origin,
                if why.is_empty() {
                    format!("; all {total} turns are used")
                } else {
                    format!("; {}", why.join("; "))
                }
            )));
        }
        let cursor = used.iter().position(|used| !used).unwrap_or(total);
        let Some(turn) = self.turns.get(cursor) else {
            let last = last_user(request).map_or_else(
                || "none".to_owned(),
                |text| format!("{:?}", one_line(text, 80)),
            );
            return Err(ProviderError::Script(format!(
                "scripted:{}: all {total} turns are used, but another request came (last user message: {last})",
                self.origin
            )));
        };
        let number = cursor + 1;
        turn.expect.check(request).map_err(|why| {
            ProviderError::Script(format!(
                "scripted:{}: turn {number} of {total}: {why}",
                self.origin
            ))
        })?;
        used[cursor] = true;
        Ok((number, turn.clone()))
    }
}

#[async_trait]
impl ModelProvider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        let (number, turn) = self.next_turn(request)?;
        if let Some(error) = turn.error {
            return Err(ProviderError::Status {
                provider: "scripted".to_owned(),
                model: request.model.clone(),
                status: error.status,
                message: error.message,
                hint: format!(" (scripted turn {number})"),
                retry_after: None,
            });
        }
        let scripted = turn.response.unwrap_or_default();
        let tool_calls: Vec<ToolCall> = scripted
            .tool_calls
            .into_iter()
            .enumerate()
            .map(|(index, call)| ToolCall {
                id: call.id.unwrap_or_else(|| format!("call_{number}_{index}")),
                name: call.name,
                arguments: call.arguments,
                signature: None,
            })
            .collect();
        if request.stream {
            if let Some(text) = &scripted.text {
                for piece in split_text(text, 3) {
                    on_delta(ModelDelta::Text {
                        text: piece.to_owned(),
                    });
                }
            }
            for (index, call) in tool_calls.iter().enumerate() {
                on_delta(ModelDelta::ToolCallStart {
                    index,
                    id: call.id.clone(),
                    name: call.name.clone(),
                });
                on_delta(ModelDelta::ToolCallArguments {
                    index,
                    fragment: call.arguments.to_string(),
                });
            }
        }
        let stop_reason = if tool_calls.is_empty() {
            StopReason::EndTurn
        } else {
            StopReason::ToolUse
        };
        Ok(ModelResponse {
            text: scripted.text.filter(|text| !text.is_empty()),
            tool_calls,
            usage: scripted.usage.unwrap_or_default(),
            stop_reason,
        })
    }
}

/// Splits text into at most `pieces` non-empty parts on character boundaries.
fn split_text(text: &str, pieces: usize) -> Vec<&str> {
    let chars = text.chars().count();
    let size = chars.div_ceil(pieces.max(1)).max(1);
    let mut parts = Vec::new();
    let mut start = 0;
    for (count, (offset, _)) in text.char_indices().enumerate() {
        if count > 0 && count % size == 0 {
            parts.push(&text[start..offset]);
            start = offset;
        }
    }
    if start < text.len() {
        parts.push(&text[start..]);
    }
    parts
}

/// A short excerpt of what a request was about, for recorded `expect` matchers.
pub(crate) fn request_hint(request: &ModelRequest) -> (Option<String>, Option<String>) {
    let excerpt = |text: &str| {
        let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
        Some(line.chars().take(60).collect::<String>())
    };
    match request.messages.last() {
        Some(agentctl_core::Message::Tool { .. }) => {
            (None, last_tool_result(request).and_then(excerpt))
        }
        _ => (last_user(request).and_then(excerpt), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_split_on_char_boundaries() {
        assert_eq!(split_text("héllo wörld", 3), vec!["héll", "o wö", "rld"]);
        assert_eq!(split_text("ab", 3), vec!["a", "b"]);
        assert_eq!(split_text("", 3), Vec::<&str>::new());
    }
}
