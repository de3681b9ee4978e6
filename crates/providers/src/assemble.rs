//! Assembles a streamed answer: text pieces and tool-call pieces (keyed by the wire format's own
//! index) become one [`ModelResponse`], while every piece is reported to the delta sink.

use agentctl_core::DeltaSink;
use agentctl_core::one_line;
use agentctl_core::{ModelDelta, ModelResponse, StopReason, ToolCall, Usage};
use serde_json::Value;

/// A tool call still arriving.
#[derive(Debug)]
struct PartialCall {
    key: usize,
    id: String,
    name: String,
    arguments: String,
}

/// The answer so far.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    text: String,
    calls: Vec<PartialCall>,
    /// Usage reported so far.
    pub usage: Usage,
}

/// Bytes reserved for an answer's text at its first piece.
const TEXT_START: usize = 128;

impl Assembler {
    /// More answer text.
    pub fn text(&mut self, piece: &str, on_delta: DeltaSink<'_>) {
        if piece.is_empty() {
            return;
        }
        if self.text.capacity() == 0 {
            // Room for a short answer at once: grown from a first piece's size, the text would
            // be reallocated at the second, third and fifth pieces.
            self.text.reserve(piece.len().max(TEXT_START));
        }
        self.text.push_str(piece);
        on_delta(ModelDelta::Text {
            text: piece.to_owned(),
        });
    }

    /// A piece of the tool call with wire index `key`; `id` and `name` usually come only with
    /// the first piece. A call is announced once its name is known.
    pub fn call_piece(
        &mut self,
        key: usize,
        id: Option<&str>,
        name: Option<&str>,
        fragment: &str,
        on_delta: DeltaSink<'_>,
    ) {
        let index = match self.calls.iter().position(|call| call.key == key) {
            Some(index) => index,
            None => {
                self.calls.push(PartialCall {
                    key,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[index];
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            call.id = id.to_owned();
        }
        if let Some(name) = name.filter(|name| !name.is_empty())
            && call.name.is_empty()
        {
            call.name = name.to_owned();
            if call.id.is_empty() {
                call.id = format!("call_{index}");
            }
            on_delta(ModelDelta::ToolCallStart {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
            });
            if !call.arguments.is_empty() {
                on_delta(ModelDelta::ToolCallArguments {
                    index,
                    fragment: call.arguments.clone(),
                });
            }
        }
        if !fragment.is_empty() {
            call.arguments.push_str(fragment);
            if !call.name.is_empty() {
                on_delta(ModelDelta::ToolCallArguments {
                    index,
                    fragment: fragment.to_owned(),
                });
            }
        }
    }

    /// The complete answer; `Err` says which tool's arguments are not JSON.
    pub fn finish(self, stop: StopReason) -> Result<ModelResponse, String> {
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        for (index, call) in self.calls.into_iter().enumerate() {
            let id = if call.id.is_empty() {
                format!("call_{index}")
            } else {
                call.id
            };
            tool_calls.push(ToolCall {
                arguments: parse_arguments(&call.name, &call.arguments)?,
                id,
                name: call.name,
                signature: None,
            });
        }
        Ok(response(self.text, tool_calls, self.usage, stop))
    }
}

/// Parses a tool call's JSON arguments text (empty means `{}`).
pub(crate) fn parse_arguments(tool: &str, text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|error| {
        format!(
            "tool call `{tool}` has malformed JSON arguments ({error}): {}",
            one_line(text, 120)
        )
    })
}

/// Tool-call arguments as the JSON object the APIs want in history: `null` is `{}`, and
/// anything else that is not an object (a model's mistake) is kept under `"value"`.
pub(crate) fn arguments_object(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::Null => Value::Object(Default::default()),
        other => serde_json::json!({"value": other}),
    }
}

/// Builds a response; a model that called tools is waiting for them whatever it said.
pub(crate) fn response(
    text: String,
    tool_calls: Vec<ToolCall>,
    usage: Usage,
    stop: StopReason,
) -> ModelResponse {
    let stop_reason = if !tool_calls.is_empty() && stop == StopReason::EndTurn {
        StopReason::ToolUse
    } else {
        stop
    };
    ModelResponse {
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        usage,
        stop_reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn pieces_become_calls_and_deltas() {
        let seen = Mutex::new(Vec::new());
        let sink = |delta: ModelDelta| seen.lock().unwrap().push(delta);
        let mut answer = Assembler::default();
        answer.text("Hel", &sink);
        answer.call_piece(3, Some("a"), Some("read"), "{\"pa", &sink);
        answer.call_piece(5, None, Some("list"), "", &sink);
        answer.call_piece(3, None, None, "th\":1}", &sink);
        let response = answer.finish(StopReason::EndTurn).unwrap();
        assert_eq!(response.stop_reason, StopReason::ToolUse);
        assert_eq!(
            response.tool_calls[0].arguments,
            serde_json::json!({"path": 1})
        );
        assert_eq!(response.tool_calls[1].id, "call_1");
        assert_eq!(response.tool_calls[1].arguments, serde_json::json!({}));
        assert_eq!(seen.lock().unwrap().len(), 5);
    }

    #[test]
    fn bad_arguments_name_the_tool() {
        let mut answer = Assembler::default();
        answer.call_piece(0, None, Some("grep"), "{oops", &|_| {});
        let error = answer.finish(StopReason::ToolUse).unwrap_err();
        assert!(error.contains("`grep`"), "{error}");
    }
}
