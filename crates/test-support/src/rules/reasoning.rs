//! Reasoning parameters: OpenAI's `reasoning_effort` and Anthropic's extended `thinking`.
//!
//! The fake keeps its own list of which models reason (not agentctl's catalogue): it stands
//! for the real APIs, so a wrong catalogue entry fails a test instead of agreeing with itself.
//!
//! OpenAI, wording of its known errors:
//! - `Unsupported parameter: 'reasoning_effort' is not supported with this model.` (gpt-4o,
//!   gpt-4.1, … — only the o-series and the gpt-5 family reason);
//! - `Unsupported value: 'reasoning_effort' does not support 'minimal' with this model.
//!   Supported values are: 'low', 'medium', and 'high'.` (`minimal` is the gpt-5 family's);
//! - `Unsupported value: 'temperature' does not support 0.2 with this model. Only the default
//!   (1) value is supported.` (reasoning models).
//!
//! Anthropic (extended thinking documentation and its errors):
//! - `thinking.enabled.budget_tokens: Input should be greater than or equal to 1024`;
//! - `` `max_tokens` must be greater than `thinking.budget_tokens` ``;
//! - `` `temperature` may only be set to 1 when thinking is enabled ``;
//! - with thinking, the assistant message whose tool calls the request answers must start
//!   with its thinking blocks (`Expected `thinking` or `redacted_thinking`, but found
//!   `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a
//!   thinking block …`).

use super::{Checker, str_at};
use serde_json::Value;

const DOCS: &str = "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking";

/// The `reasoning_effort` levels an OpenAI model accepts; `None` when it does not reason.
fn openai_levels(model: &str) -> Option<&'static [&'static str]> {
    if model.starts_with("gpt-5") && !model.starts_with("gpt-5-chat") {
        Some(&["minimal", "low", "medium", "high"])
    } else if ["o1", "o3", "o4"].iter().any(|prefix| {
        model
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
    }) {
        Some(&["low", "medium", "high"])
    } else {
        None
    }
}

/// `'a', 'b', and 'c'`.
fn quoted_list(levels: &[&str]) -> String {
    let quoted: Vec<String> = levels.iter().map(|level| format!("'{level}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{}, and {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// OpenAI Chat Completions: `reasoning_effort` and `temperature` against the model.
pub(super) fn openai(body: &Value, checker: &mut Checker) {
    let levels = openai_levels(str_at(body, "model").unwrap_or_default());
    match (body.get("reasoning_effort"), levels) {
        (None, _) => {}
        (Some(_), None) => checker.fail(
            "reasoning_effort",
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        ),
        (Some(effort), Some(levels)) => {
            let value = effort.as_str().unwrap_or_default();
            if !levels.contains(&value) {
                checker.fail(
                    "reasoning_effort",
                    format!(
                        "Unsupported value: 'reasoning_effort' does not support '{value}' with \
                         this model. Supported values are: {}.",
                        quoted_list(levels)
                    ),
                );
            }
        }
    }
    if let (Some(temperature), Some(_)) = (body.get("temperature"), levels)
        && temperature.as_f64() != Some(1.0)
    {
        checker.fail(
            "temperature",
            format!(
                "Unsupported value: 'temperature' does not support {temperature} with this \
                 model. Only the default (1) value is supported."
            ),
        );
    }
}

/// Anthropic Messages: the `thinking` block, and what it rules out.
pub(super) fn anthropic(body: &Value, checker: &mut Checker) {
    let Some(thinking) = body.get("thinking") else {
        return;
    };
    match str_at(thinking, "type") {
        Some("disabled") => return,
        Some("enabled") => {}
        other => {
            checker.fail(
                "thinking.type",
                format!(
                    "thinking.type: Input tag '{}' found using 'type' does not match any of the \
                     expected tags: 'enabled', 'disabled'",
                    other.unwrap_or_default()
                ),
            );
            return;
        }
    }
    match thinking.get("budget_tokens").and_then(Value::as_u64) {
        None => checker.fail(
            "thinking.enabled.budget_tokens",
            "thinking.enabled.budget_tokens: Field required",
        ),
        Some(budget) if budget < 1024 => checker.fail(
            "thinking.enabled.budget_tokens",
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        Some(budget) => {
            if body
                .get("max_tokens")
                .and_then(Value::as_u64)
                .is_some_and(|max| max <= budget)
            {
                checker.fail(
                    "max_tokens",
                    format!(
                        "`max_tokens` must be greater than `thinking.budget_tokens`. Please \
                         consult our documentation at {DOCS}#max-tokens-and-context-window-size"
                    ),
                );
            }
        }
    }
    if let Some(temperature) = body.get("temperature")
        && temperature.as_f64() != Some(1.0)
    {
        checker.fail(
            "temperature",
            format!(
                "`temperature` may only be set to 1 when thinking is enabled. Please consult \
                 our documentation at {DOCS}#important-considerations-when-using-extended-thinking"
            ),
        );
    }
    thinking_first(body, checker);
}

/// The assistant message whose tool calls the last message answers starts with thinking.
fn thinking_first(body: &Value, checker: &mut Checker) {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return;
    };
    let answers_tools = messages.last().is_some_and(|last| {
        str_at(last, "role") == Some("user")
            && last
                .get("content")
                .and_then(Value::as_array)
                .is_some_and(|blocks| {
                    blocks
                        .iter()
                        .any(|block| str_at(block, "type") == Some("tool_result"))
                })
    });
    let Some(index) = messages.len().checked_sub(2).filter(|_| answers_tools) else {
        return;
    };
    let first = messages[index]
        .get("content")
        .and_then(Value::as_array)
        .and_then(|blocks| blocks.first())
        .and_then(|block| str_at(block, "type"))
        .unwrap_or_default();
    if !matches!(first, "thinking" | "redacted_thinking") {
        checker.fail(
            format!("messages.{index}.content.0.type"),
            format!(
                "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, \
                 but found `{first}`. When `thinking` is enabled, a final `assistant` message \
                 must start with a thinking block (preceeding the lastmost set of `tool_use` and \
                 `tool_result` blocks). We recommend you include thinking blocks from previous \
                 turns. To avoid this requirement, disable `thinking`. Please consult our \
                 documentation at {DOCS}"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing;
    use crate::wire::WireFormat;
    use serde_json::{Value, json};

    fn with(mut body: Value, extra: Value) -> Value {
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        body
    }

    fn chat(model: &str, extra: Value) -> Value {
        let body = json!({"model": model, "messages": [{"role": "user", "content": "hi"}]});
        with(body, extra)
    }

    /// The message of the one violation at `at`.
    fn refused_at(format: WireFormat, path: &str, body: Value, at: &str) -> String {
        let found = testing::violations(format, path, body);
        let at_field: Vec<_> = found.iter().filter(|v| v.at == at).collect();
        assert_eq!(at_field.len(), 1, "{found:#?}");
        at_field[0].message.clone()
    }

    #[test]
    fn openai_reasoning_effort_by_model() {
        let (format, path) = (WireFormat::OpenAi, "/v1/chat/completions");
        let effort = |level: &str| json!({ "reasoning_effort": level });
        testing::accepted(format, path, chat("o3", effort("high")));
        testing::accepted(
            format,
            path,
            chat("gpt-5-mini-2025-08-07", effort("minimal")),
        );
        testing::accepted(format, path, chat("gpt-4o", json!({"temperature": 0.2})));
        assert_eq!(
            refused_at(
                format,
                path,
                chat("gpt-4o-mini", effort("high")),
                "reasoning_effort"
            ),
            "Unsupported parameter: 'reasoning_effort' is not supported with this model."
        );
        assert_eq!(
            refused_at(
                format,
                path,
                chat("o4-mini", effort("minimal")),
                "reasoning_effort"
            ),
            "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. \
             Supported values are: 'low', 'medium', and 'high'."
        );
        let hot = chat("o3", json!({"temperature": 0.2}));
        assert!(
            refused_at(format, path, hot, "temperature")
                .ends_with("Only the default (1) value is supported.")
        );
    }

    fn messages(extra: Value) -> Value {
        let body = json!({"model": "claude-sonnet-4-5", "max_tokens": 4096,
                          "messages": [{"role": "user", "content": "hi"}]});
        with(body, extra)
    }

    fn thinking(budget: u64) -> Value {
        json!({"type": "enabled", "budget_tokens": budget})
    }

    #[test]
    fn anthropic_thinking_budget_and_temperature() {
        let (format, path) = (WireFormat::Anthropic, "/v1/messages");
        testing::accepted(format, path, messages(json!({"thinking": thinking(2048)})));
        let low = messages(json!({"thinking": thinking(512)}));
        let message = refused_at(format, path, low, "thinking.enabled.budget_tokens");
        assert!(
            message.ends_with("greater than or equal to 1024"),
            "{message}"
        );
        let over = messages(json!({"thinking": thinking(4096)}));
        let message = refused_at(format, path, over, "max_tokens");
        assert!(message.starts_with("`max_tokens` must be greater than `thinking.budget_tokens`"));
        let hot = messages(json!({"thinking": thinking(2048), "temperature": 0.5}));
        let message = refused_at(format, path, hot, "temperature");
        assert!(message.starts_with("`temperature` may only be set to 1 when thinking is enabled"));
        testing::accepted(format, path, messages(json!({"temperature": 0.5})));
    }

    #[test]
    fn anthropic_thinking_leads_the_answered_tool_calls() {
        let (format, path) = (WireFormat::Anthropic, "/v1/messages");
        let tool_loop = |first: Value| {
            messages(json!({"thinking": thinking(2048), "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [first,
                    {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}]},
            ]}))
        };
        let text = json!({"type": "text", "text": "Looking."});
        let message = refused_at(format, path, tool_loop(text), "messages.1.content.0.type");
        assert!(message.contains("but found `text`"), "{message}");
        let thought = json!({"type": "thinking", "thinking": "hm", "signature": "s"});
        testing::accepted(format, path, tool_loop(thought));
    }
}
