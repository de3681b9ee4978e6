//! OpenAI Chat Completions (`POST …/chat/completions`).
//!
//! Rules and wording, from the API reference and the errors it is known to return:
//! - function names: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum
//!   length of 64" — `Invalid 'tools[0].function.name': string does not match pattern. Expected
//!   a string that matches the pattern '^[a-zA-Z0-9_-]+$'.` / `string too long`; the names of
//!   past calls (`messages[i].tool_calls[j].function.name`) are checked the same way;
//! - `parameters` "described as a JSON Schema object": `Invalid schema for function 'x': schema
//!   must be a JSON Schema of 'type: "object"', got 'type: "None"'.`;
//! - `Invalid parameter: messages with role 'tool' must be a response to a preceeding message
//!   with 'tool_calls'.` (the API's spelling), `Invalid parameter: 'tool_call_id' of 'x' not
//!   found in 'tool_calls' of previous message.`, and `An assistant message with 'tool_calls'
//!   must be followed by tool messages responding to each 'tool_call_id'. The following
//!   tool_call_ids did not have response messages: …`;
//! - assistant `content` is "required unless `tool_calls` … is specified"
//!   (`Invalid value for 'content': expected a string, got null.`), and call arguments are a
//!   JSON *string*;
//! - `The 'stream_options' parameter is only allowed when 'stream' is enabled.`

use super::{Checker, NameProblem, NameRule, duplicates, kind, str_at};
use crate::wire::RecordedRequest;
use serde_json::Value;

const NAMES: NameRule = NameRule {
    extra: "_-",
    letter_first: false,
    max: 64,
};

const ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
];

pub(super) fn check(request: &RecordedRequest, checker: &mut Checker) {
    if !request.path.ends_with("/chat/completions") {
        checker.fail(
            "path",
            format!(
                "Invalid URL (POST {}): Chat Completions is POST …/chat/completions",
                request.path
            ),
        );
        return;
    }
    let body = &request.body;
    if str_at(body, "model").is_none_or(str::is_empty) {
        checker.fail("model", "you must provide a model parameter");
    }
    if body.get("stream_options").is_some() && body.get("stream") != Some(&Value::Bool(true)) {
        checker.fail(
            "stream_options",
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        );
    }
    if let Some(tools) = body.get("tools") {
        check_tools(tools, checker);
    }
    match body.get("messages") {
        None => checker.fail("messages", "Missing required parameter: 'messages'."),
        Some(Value::Array(messages)) if messages.is_empty() => checker.fail(
            "messages",
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        ),
        Some(Value::Array(messages)) => check_messages(messages, checker),
        Some(other) => checker.fail(
            "messages",
            format!(
                "Invalid type for 'messages': expected an array, but got {} instead.",
                kind(other)
            ),
        ),
    }
}

fn check_name(at: &str, name: Option<&str>, checker: &mut Checker) {
    let Some(name) = name else {
        checker.fail(at, format!("Missing required parameter: '{at}'."));
        return;
    };
    match NAMES.check(name) {
        None => {}
        Some(NameProblem::Empty) => checker.fail(at, format!("Invalid '{at}': string too short. Expected a string with minimum length 1, but got an empty string instead.")),
        Some(NameProblem::Pattern) => checker.fail(at, format!("Invalid '{at}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' (got '{name}').")),
        Some(NameProblem::TooLong(len)) => checker.fail(at, format!("Invalid '{at}': string too long. Expected a string with maximum length 64, but got a string with length {len} instead.")),
    }
}

fn check_tools(tools: &Value, checker: &mut Checker) {
    let Some(tools) = tools.as_array() else {
        checker.fail(
            "tools",
            format!(
                "Invalid type for 'tools': expected an array, but got {} instead.",
                kind(tools)
            ),
        );
        return;
    };
    for (i, tool) in tools.iter().enumerate() {
        if str_at(tool, "type") != Some("function") {
            checker.fail(
                format!("tools[{i}].type"),
                format!("Invalid value for 'tools[{i}].type': expected 'function'."),
            );
        }
        let function = tool.get("function").unwrap_or(&Value::Null);
        let name = str_at(function, "name");
        check_name(&format!("tools[{i}].function.name"), name, checker);
        if let Some(parameters) = function.get("parameters") {
            let kind_of = parameters.get("type").and_then(Value::as_str);
            if !parameters.is_object() || kind_of != Some("object") {
                checker.fail(
                    format!("tools[{i}].function.parameters"),
                    format!(
                        "Invalid schema for function '{}': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{}\"'.",
                        name.unwrap_or_default(),
                        kind_of.unwrap_or("None")
                    ),
                );
            }
        }
    }
    let names = tools
        .iter()
        .filter_map(|tool| tool.pointer("/function/name").and_then(Value::as_str));
    for name in duplicates(names) {
        checker.fail(
            "tools",
            format!("Invalid 'tools': function name '{name}' is declared more than once; tool names must be unique."),
        );
    }
}

/// An assistant turn's tool calls still waiting for `tool` messages.
struct Waiting {
    index: usize,
    ids: Vec<String>,
    unanswered: Vec<String>,
}

fn check_messages(messages: &[Value], checker: &mut Checker) {
    let mut waiting: Option<Waiting> = None;
    for (i, message) in messages.iter().enumerate() {
        let Some(role) = str_at(message, "role") else {
            checker.fail(
                format!("messages[{i}].role"),
                format!("Missing required parameter: 'messages[{i}].role'."),
            );
            continue;
        };
        if !ROLES.contains(&role) {
            checker.fail(format!("messages[{i}].role"), format!("Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."));
            continue;
        }
        if role == "tool" {
            check_tool_message(i, message, waiting.as_mut(), checker);
            continue;
        }
        if let Some(done) = waiting.take() {
            unanswered(&done, checker);
        }
        let content = message.get("content").unwrap_or(&Value::Null);
        let has_calls = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .is_some_and(|calls| !calls.is_empty());
        let content_ok = match content {
            Value::String(_) | Value::Array(_) => true,
            Value::Null => role == "assistant" && has_calls,
            _ => false,
        };
        if !content_ok {
            checker.fail(
                format!("messages[{i}].content"),
                format!(
                    "Invalid value for 'messages[{i}].content': expected a string, got {}.",
                    kind(content)
                ),
            );
        }
        if role == "assistant" && has_calls {
            waiting = Some(check_tool_calls(i, message, checker));
        }
    }
    if let Some(done) = waiting {
        unanswered(&done, checker);
    }
}

/// An assistant turn's `tool_calls`, returning the ids it is waiting on.
fn check_tool_calls(i: usize, message: &Value, checker: &mut Checker) -> Waiting {
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut ids = Vec::new();
    for (j, call) in calls.iter().enumerate() {
        let at = format!("messages[{i}].tool_calls[{j}]");
        match str_at(call, "id") {
            Some(id) if !id.is_empty() => ids.push(id.to_owned()),
            _ => checker.fail(
                format!("{at}.id"),
                format!("Missing required parameter: '{at}.id'."),
            ),
        }
        if str_at(call, "type") != Some("function") {
            checker.fail(
                format!("{at}.type"),
                format!("Invalid value for '{at}.type': expected 'function'."),
            );
        }
        let function = call.get("function").unwrap_or(&Value::Null);
        check_name(
            &format!("{at}.function.name"),
            str_at(function, "name"),
            checker,
        );
        match function.get("arguments") {
            Some(Value::String(_)) => {}
            other => checker.fail(
                format!("{at}.function.arguments"),
                format!(
                    "Invalid type for '{at}.function.arguments': expected a string, but got {} instead.",
                    other.map_or("nothing", kind)
                ),
            ),
        }
    }
    Waiting {
        index: i,
        unanswered: ids.clone(),
        ids,
    }
}

fn check_tool_message(
    i: usize,
    message: &Value,
    waiting: Option<&mut Waiting>,
    checker: &mut Checker,
) {
    if !matches!(
        message.get("content"),
        Some(Value::String(_) | Value::Array(_))
    ) {
        checker.fail(
            format!("messages[{i}].content"),
            format!("Invalid value for 'messages[{i}].content': expected a string."),
        );
    }
    let Some(id) = str_at(message, "tool_call_id") else {
        checker.fail(format!("messages[{i}].tool_call_id"), "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.");
        return;
    };
    let Some(waiting) = waiting else {
        checker.fail(format!("messages[{i}].role"), "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.");
        return;
    };
    if waiting.ids.iter().any(|known| known == id) {
        waiting.unanswered.retain(|open| open != id);
    } else {
        checker.fail(
            format!("messages[{i}].tool_call_id"),
            format!("Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message."),
        );
    }
}

fn unanswered(waiting: &Waiting, checker: &mut Checker) {
    if waiting.unanswered.is_empty() {
        return;
    }
    checker.fail(
        format!("messages[{}]", waiting.index),
        format!(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
            waiting.unanswered.join(", ")
        ),
    );
}

#[cfg(test)]
mod tests;
