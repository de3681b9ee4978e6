//! A cassette being replayed: the turn each request takes, and its answer.

use crate::format::{Cassette, Turn, TurnOrder, last_tool_result, last_user};
use agentctl_core::{ModelRequest, ModelResponse, ProviderError, StopReason, ToolCall, one_line};
use std::sync::{Mutex, PoisonError};

/// A cassette being replayed: which turns were used, and the turn each request takes.
///
/// The matching the scripted provider (`agentctl-providers`) does, without the provider: a fake model server (the
/// test-support crate's cassette server) answers HTTP requests from it, so a cassette replayed
/// on the wire is matched exactly as `scripted:` matches it. The cursor is behind a mutex, so
/// concurrent callers consume turns in order.
///
/// ```
/// use agentctl_core::{Message, ModelRequest};
/// use agentctl_cassette::{CassetteReplay, ReplayedTurn};
///
/// let yaml = "version: 1\nturns:\n  - expect: { lastUserContains: hello }\n    response: { text: Hi! }\n";
/// let replay = CassetteReplay::from_yaml(yaml, "inline").unwrap();
/// let request = ModelRequest {
///     model: "inline".into(),
///     system: None,
///     messages: vec![Message::user("hello")],
///     tools: Default::default(),
///     temperature: None,
///     effort: None,
///     max_tokens: None,
///     stream: false,
/// };
/// let ReplayedTurn::Response { response, .. } = replay.next(&request).unwrap() else { panic!() };
/// assert_eq!(response.text.as_deref(), Some("Hi!"));
/// assert!(replay.next(&request).is_err()); // every turn is used
/// ```
#[derive(Debug)]
pub struct CassetteReplay {
    origin: String,
    turns: Vec<Turn>,
    order: TurnOrder,
    /// Which turns were used.
    used: Mutex<Vec<bool>>,
}

/// What a request's turn says: an answer, or a failure to report as an HTTP status.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayedTurn {
    /// The model's answer; tool calls without an `id` in the cassette get `call_{turn}_{index}`.
    Response {
        /// The turn's number (1 for the first).
        turn: usize,
        /// The answer.
        response: ModelResponse,
    },
    /// An `error:` turn.
    Error {
        /// The turn's number (1 for the first).
        turn: usize,
        /// HTTP status.
        status: u16,
        /// Error message.
        message: String,
    },
}

impl CassetteReplay {
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

    /// Turns not yet used.
    pub fn remaining(&self) -> usize {
        let used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        used.iter().filter(|used| !**used).count()
    }

    /// Marks every turn unused again, as a new process replaying the cassette would start.
    pub fn rewind(&self) {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        used.iter_mut().for_each(|used| *used = false);
    }

    /// Every tool name the cassette mentions (in `toolsInclude` and in its tool calls).
    pub fn tool_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .turns
            .iter()
            .flat_map(|turn| {
                let calls = turn
                    .response
                    .iter()
                    .flat_map(|response| &response.tool_calls);
                turn.expect
                    .tools_include
                    .iter()
                    .map(String::as_str)
                    .chain(calls.map(|call| call.name.as_str()))
            })
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Takes the request's turn (the next one, which must match, with `order: strict`, the
    /// default; the first unused one that matches with `order: match`) and gives its answer.
    /// An `Err` says which turn, what was expected and what the request had.
    pub fn next(&self, request: &ModelRequest) -> Result<ReplayedTurn, ProviderError> {
        let (number, turn) = self.next_turn(request)?;
        if let Some(error) = turn.error {
            return Ok(ReplayedTurn::Error {
                turn: number,
                status: error.status,
                message: error.message,
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
        let stop_reason = if tool_calls.is_empty() {
            StopReason::EndTurn
        } else {
            StopReason::ToolUse
        };
        Ok(ReplayedTurn::Response {
            turn: number,
            response: ModelResponse {
                text: scripted.text,
                tool_calls,
                usage: scripted.usage.unwrap_or_default(),
                stop_reason,
            },
        })
    }

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
            return Err(ProviderError::Script(format!(
                "scripted:{}: no unused turn matches the request (last user message: {}){}",
                self.origin,
                last_user_excerpt(request),
                if why.is_empty() {
                    format!("; all {total} turns are used")
                } else {
                    format!("; {}", why.join("; "))
                }
            )));
        }
        let cursor = used.iter().position(|used| !used).unwrap_or(total);
        let Some(turn) = self.turns.get(cursor) else {
            return Err(ProviderError::Script(format!(
                "scripted:{}: all {total} turns are used, but another request came (last user message: {})",
                self.origin,
                last_user_excerpt(request)
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

/// The last user message, quoted and cut to a line, or `none`.
fn last_user_excerpt(request: &ModelRequest) -> String {
    last_user(request).map_or_else(
        || "none".to_owned(),
        |text| format!("{:?}", one_line(text, 80)),
    )
}

/// Splits text into at most `pieces` non-empty parts on character boundaries (how a replayed
/// answer is streamed, by the scripted provider and by the cassette server alike).
pub fn split_text(text: &str, pieces: usize) -> Vec<&str> {
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
pub fn request_hint(request: &ModelRequest) -> (Option<String>, Option<String>) {
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
