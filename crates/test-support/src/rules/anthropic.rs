//! Anthropic Messages (`POST /v1/messages`).
//!
//! Rules and wording, from the API reference and the errors it is known to return:
//! - tool names: "Must match the regex `^[a-zA-Z0-9_-]{1,64}$`" (tool use docs) —
//!   `tools.0.custom.name: String should match pattern '…'`; `tools: Tool names must be
//!   unique.`; `input_schema` is an object schema (`type: "object"`);
//! - `tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`, and `tool_use` ids must be
//!   unique;
//! - `messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: X.
//!   Each `tool_use` block must have a corresponding `tool_result` block in the next message.`
//!   — the results must open the next user message, before any text;
//! - `messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: X. Each
//!   `tool_result` block must have a corresponding `tool_use` block in the previous message.`;
//! - `messages: roles must alternate between "user" and "assistant"`, the first message is the
//!   user's, roles are only `user`/`assistant` (the system prompt is the top-level `system`).
//!   Today's API combines consecutive turns of one role instead of refusing them, but a
//!   `tool_result` after text in such a combined turn is still refused, so the fake holds
//!   providers to the strict form, which is what they send;
//! - `messages.N: all messages must have non-empty content except for the optional final
//!   assistant message`, `text content blocks must contain non-whitespace text`;
//! - `max_tokens: Field required`, and the `anthropic-version` header is required.

use super::{Checker, NameProblem, NameRule, duplicates, kind, str_at};
use crate::wire::RecordedRequest;
use serde_json::Value;

const NAMES: NameRule = NameRule {
    extra: "_-",
    letter_first: false,
    max: 64,
};

const IDS: NameRule = NameRule {
    extra: "_-",
    letter_first: false,
    max: usize::MAX,
};

pub(super) fn check(request: &RecordedRequest, checker: &mut Checker) {
    if request.path != "/v1/messages" {
        checker.fail(
            "path",
            format!(
                "Not Found: POST {} (the Messages API is POST /v1/messages)",
                request.path
            ),
        );
        return;
    }
    if request.header("anthropic-version").is_none() {
        checker.fail("anthropic-version", "anthropic-version: header is required");
    }
    let body = &request.body;
    if str_at(body, "model").is_none_or(str::is_empty) {
        checker.fail("model", "model: Field required");
    }
    match body.get("max_tokens") {
        None => checker.fail("max_tokens", "max_tokens: Field required"),
        Some(value) if value.as_u64().is_none_or(|tokens| tokens == 0) => checker.fail(
            "max_tokens",
            format!("max_tokens: Input should be a positive integer (got {value})"),
        ),
        Some(_) => {}
    }
    if let Some(temperature) = body.get("temperature")
        && !temperature
            .as_f64()
            .is_some_and(|value| (0.0..=1.0).contains(&value))
    {
        checker.fail(
            "temperature",
            format!("temperature: range: 0..1 (got {temperature})"),
        );
    }
    if let Some(system) = body.get("system")
        && !(system.is_string() || system.is_array())
    {
        checker.fail(
            "system",
            format!(
                "system: Input should be a valid string or a list of text blocks (got {})",
                kind(system)
            ),
        );
    }
    if let Some(tools) = body.get("tools") {
        check_tools(tools, checker);
    }
    match body.get("messages").and_then(Value::as_array) {
        None => checker.fail("messages", "messages: Field required"),
        Some(messages) if messages.is_empty() => {
            checker.fail("messages", "messages: at least one message is required");
        }
        Some(messages) => check_messages(messages, checker),
    }
}

fn check_name(at: &str, name: Option<&str>, checker: &mut Checker) {
    match name.map(|name| (name, NAMES.check(name))) {
        None => checker.fail(at, format!("{at}: Field required")),
        Some((_, None)) => {}
        Some((name, Some(problem))) => {
            let why = match problem {
                NameProblem::TooLong(len) => format!(" (length {len} > 64)"),
                NameProblem::Empty | NameProblem::Pattern => format!(" (got '{name}')"),
            };
            checker.fail(
                at,
                format!("{at}: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'{why}"),
            );
        }
    }
}

fn check_tools(tools: &Value, checker: &mut Checker) {
    let Some(tools) = tools.as_array() else {
        checker.fail(
            "tools",
            format!("tools: Input should be a valid list (got {})", kind(tools)),
        );
        return;
    };
    for (i, tool) in tools.iter().enumerate() {
        let at = format!("tools.{i}.custom");
        check_name(&format!("{at}.name"), str_at(tool, "name"), checker);
        match tool.get("input_schema") {
            None => checker.fail(
                format!("{at}.input_schema"),
                format!("{at}.input_schema: Field required"),
            ),
            Some(schema) if str_at(schema, "type") != Some("object") => checker.fail(
                format!("{at}.input_schema.type"),
                format!(
                    "{at}.input_schema.type: Input should be 'object' (got {})",
                    schema
                        .get("type")
                        .map_or("nothing".into(), Value::to_string)
                ),
            ),
            Some(_) => {}
        }
    }
    let names = tools.iter().filter_map(|tool| str_at(tool, "name"));
    for name in duplicates(names) {
        checker.fail(
            "tools",
            format!("tools: Tool names must be unique ('{name}' is declared more than once)."),
        );
    }
}

/// The content of a message as blocks (a string is one text block).
fn blocks(message: &Value) -> Vec<Value> {
    match message.get("content") {
        Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
        Some(Value::Array(blocks)) => blocks.clone(),
        _ => Vec::new(),
    }
}

fn check_messages(messages: &[Value], checker: &mut Checker) {
    // `tool_use` ids of the previous (assistant) message.
    let mut previous_uses: Vec<String> = Vec::new();
    let mut all_uses: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let role = str_at(message, "role").unwrap_or_default();
        match role {
            "user" | "assistant" => {}
            "system" => checker.fail(format!("messages.{i}.role"), format!("messages.{i}.role: Input should be 'user' or 'assistant' (the system prompt goes in the top-level `system` field, not in a message)")),
            other => checker.fail(format!("messages.{i}.role"), format!("messages.{i}.role: Input should be 'user' or 'assistant' (got '{other}')")),
        }
        if i == 0 && role != "user" {
            checker.fail(
                "messages",
                "messages: first message must use the \"user\" role",
            );
        }
        if i > 0 && str_at(&messages[i - 1], "role") == Some(role) {
            checker.fail(
                format!("messages.{i}"),
                format!("messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"{role}\" roles in a row (messages {} and {i})", i - 1),
            );
        }
        if !matches!(
            message.get("content"),
            Some(Value::String(_) | Value::Array(_))
        ) {
            checker.fail(
                format!("messages.{i}.content"),
                format!("messages.{i}.content: Field required (a string or a list of blocks)"),
            );
        }
        let blocks = blocks(message);
        let is_final_assistant = i + 1 == messages.len() && role == "assistant";
        if blocks.is_empty() && !is_final_assistant {
            checker.fail(format!("messages.{i}"), format!("messages.{i}: all messages must have non-empty content except for the optional final assistant message"));
        }
        check_blocks(i, role, &blocks, checker);
        if role == "user" {
            check_results(i, &blocks, &previous_uses, checker);
        } else if !previous_uses.is_empty() {
            missing_results(i - 1, &previous_uses, checker);
        }
        previous_uses = if role == "assistant" {
            uses(&blocks)
        } else {
            Vec::new()
        };
        all_uses.extend(previous_uses.iter().cloned());
    }
    if !previous_uses.is_empty() {
        missing_results(messages.len() - 1, &previous_uses, checker);
    }
    for id in duplicates(all_uses.iter().map(String::as_str)) {
        checker.fail(
            "messages",
            format!("messages: `tool_use` ids must be unique (`{id}` is used more than once)"),
        );
    }
}

fn uses(blocks: &[Value]) -> Vec<String> {
    blocks
        .iter()
        .filter(|block| str_at(block, "type") == Some("tool_use"))
        .filter_map(|block| str_at(block, "id").map(str::to_owned))
        .collect()
}

/// Block by block: types allowed for the role, non-blank text, well-formed `tool_use`s.
fn check_blocks(i: usize, role: &str, blocks: &[Value], checker: &mut Checker) {
    for (j, block) in blocks.iter().enumerate() {
        let at = format!("messages.{i}.content.{j}");
        match (str_at(block, "type").unwrap_or_default(), role) {
            ("text", _) => {
                if str_at(block, "text").is_none_or(|text| text.trim().is_empty()) {
                    checker.fail(
                        &at,
                        format!("{at}: text content blocks must contain non-whitespace text"),
                    );
                }
            }
            ("tool_use", "assistant") => {
                match str_at(block, "id") {
                    Some(id) if IDS.check(id).is_none() => {}
                    id => checker.fail(format!("{at}.tool_use.id"), format!("{at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$' (got {id:?})")),
                }
                check_name(
                    &format!("{at}.tool_use.name"),
                    str_at(block, "name"),
                    checker,
                );
                if !block.get("input").is_some_and(Value::is_object) {
                    checker.fail(
                        format!("{at}.tool_use.input"),
                        format!(
                            "{at}.tool_use.input: Input should be a valid dictionary (got {})",
                            block.get("input").map_or("nothing", kind)
                        ),
                    );
                }
            }
            ("tool_result", "user") => {
                if let Some(content) = block.get("content")
                    && !(content.is_string() || content.is_array())
                {
                    checker.fail(
                        format!("{at}.tool_result.content"),
                        format!(
                            "{at}.tool_result.content: Input should be a valid string or list of blocks (got {})",
                            kind(content)
                        ),
                    );
                }
            }
            ("image" | "document", "user") | ("thinking" | "redacted_thinking", "assistant") => {}
            (other, role) => checker.fail(
                format!("{at}.type"),
                format!("{at}.type: a `{other}` block is not allowed in a \"{role}\" message"),
            ),
        }
    }
}

/// A user message after an assistant turn: its `tool_result` blocks come first and answer
/// exactly that turn's `tool_use` blocks.
fn check_results(i: usize, blocks: &[Value], uses: &[String], checker: &mut Checker) {
    let leading = blocks
        .iter()
        .take_while(|block| str_at(block, "type") == Some("tool_result"))
        .count();
    let mut answered = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        if str_at(block, "type") != Some("tool_result") {
            continue;
        }
        let id = str_at(block, "tool_use_id").unwrap_or_default();
        if !uses.iter().any(|known| known == id) {
            checker.fail(
                format!("messages.{i}.content.{j}"),
                format!("messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."),
            );
        } else if j >= leading {
            checker.fail(
                format!("messages.{i}.content.{j}"),
                format!("messages.{i}.content.{j}: `tool_result` blocks must come first in the user message, before any other content (this one, for {id}, follows a `{}` block)", str_at(&blocks[j - 1], "type").unwrap_or("?")),
            );
        } else {
            answered.push(id);
        }
    }
    let missing: Vec<String> = uses
        .iter()
        .filter(|id| !answered.contains(&id.as_str()))
        .cloned()
        .collect();
    if !missing.is_empty() && i > 0 {
        missing_results(i - 1, &missing, checker);
    }
}

fn missing_results(index: usize, ids: &[String], checker: &mut Checker) {
    checker.fail(
        format!("messages.{index}"),
        format!("messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", ids.join(", ")),
    );
}

#[cfg(test)]
mod tests;
