//! The rules of the real model APIs that the fake servers enforce before answering.
//!
//! Each wire format has its own module with the checks its API documents or is known to
//! enforce; messages follow the real APIs' wording where it is known (quoted in the modules),
//! so a test that trips a rule fails with the reason a real server would give. Every problem
//! of a request is reported, not only the first.
//!
//! ```
//! use agentctl_test_support::{RecordedRequest, WireFormat, check_request};
//! use serde_json::json;
//!
//! let request = RecordedRequest::post("/v1/chat/completions", json!({
//!     "model": "gpt-4o-mini",
//!     "messages": [{"role": "user", "content": "hi"}],
//!     "tools": [{"type": "function", "function": {"name": "mcp.everything.echo",
//!                "parameters": {"type": "object", "properties": {}}}}],
//! }));
//! let violations = check_request(WireFormat::OpenAi, &request);
//! assert_eq!(violations.len(), 1);
//! assert_eq!(violations[0].at, "tools[0].function.name");
//! assert!(violations[0].message.contains("does not match pattern"));
//! ```

mod anthropic;
mod gemini;
mod openai;
mod reasoning;

use crate::wire::{RecordedRequest, Reply, WireFormat};
use serde_json::{Value, json};
use std::fmt;

/// One rule of the real API that a request broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Number of the request (1 for the first) as the server counted it; 0 from
    /// [`check_request`].
    pub request: usize,
    /// Where in the request, in the API's own notation (`messages[2].tool_call_id`,
    /// `messages.1.content.0`, `contents[1].parts`, …).
    pub at: String,
    /// What is wrong, worded like the real API's error where that wording is known.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Checks `request` against the rules of `format`'s real API; empty when it would be accepted.
pub fn check_request(format: WireFormat, request: &RecordedRequest) -> Vec<Violation> {
    let mut checker = Checker::default();
    if request.method != "POST" {
        checker.fail(
            "method",
            format!(
                "{} {} is not an endpoint: model calls are POST",
                request.method, request.path
            ),
        );
    } else if !request.body.is_object() {
        checker.fail(
            "body",
            format!(
                "the request body is not a JSON object: {}",
                excerpt(&request.raw_body)
            ),
        );
    } else {
        match format {
            WireFormat::OpenAi => {
                openai::check(request, &mut checker);
                reasoning::openai(&request.body, &mut checker);
            }
            WireFormat::Anthropic => {
                anthropic::check(request, &mut checker);
                reasoning::anthropic(&request.body, &mut checker);
            }
            WireFormat::Gemini => gemini::check(request, &mut checker),
        }
    }
    checker.found
}

/// The 400 answer to a refused request, in the API's own error format; its message names the
/// first problem (client error messages are often cut short) and counts the others.
pub(crate) fn refusal(format: WireFormat, violations: &[Violation]) -> Reply {
    let mut message = format!(
        "strict fake {} server refused request #{}: ",
        format.label(),
        violations.first().map_or(0, |first| first.request)
    );
    let mut texts = violations
        .iter()
        .map(|violation| violation.message.as_str());
    message.push_str(texts.next().unwrap_or("(no reason)"));
    let rest: Vec<&str> = texts.collect();
    if !rest.is_empty() {
        message.push_str(&format!(" (+{} more: {})", rest.len(), rest.join("; ")));
    }
    let param = violations.first().map(|first| first.at.clone());
    let body = match format {
        WireFormat::OpenAi => json!({"error": {
            "message": message, "type": "invalid_request_error", "param": param, "code": null,
        }}),
        WireFormat::Anthropic => json!({"type": "error", "error": {
            "type": "invalid_request_error", "message": message,
        }}),
        WireFormat::Gemini => json!({"error": {
            "code": 400, "message": message, "status": "INVALID_ARGUMENT",
        }}),
    };
    Reply::json(400, &body)
}

/// Collects violations.
#[derive(Debug, Default)]
pub(crate) struct Checker {
    found: Vec<Violation>,
}

impl Checker {
    /// Records a violation at `at`.
    pub fn fail(&mut self, at: impl Into<String>, message: impl Into<String>) {
        self.found.push(Violation {
            request: 0,
            at: at.into(),
            message: message.into(),
        });
    }
}

/// A tool name rule: which characters, whether the first is restricted, how long.
pub(crate) struct NameRule {
    /// Characters allowed besides ASCII letters and digits.
    pub extra: &'static str,
    /// True when the name must start with a letter or `_`.
    pub letter_first: bool,
    /// Longest name.
    pub max: usize,
}

impl NameRule {
    /// What is wrong with `name`, if anything: `TooLong(len)` or `Pattern`.
    pub fn check(&self, name: &str) -> Option<NameProblem> {
        let mut chars = name.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| !self.letter_first || c.is_ascii_alphabetic() || c == '_');
        let chars_ok = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || self.extra.contains(c));
        if name.is_empty() {
            Some(NameProblem::Empty)
        } else if !first_ok || !chars_ok {
            Some(NameProblem::Pattern)
        } else if name.chars().count() > self.max {
            Some(NameProblem::TooLong(name.chars().count()))
        } else {
            None
        }
    }
}

/// Why a name is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameProblem {
    /// No characters.
    Empty,
    /// A character outside the rule, or a bad first character.
    Pattern,
    /// Longer than allowed (the length).
    TooLong(usize),
}

/// The string at `key` of `value`, if it is one.
pub(crate) fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The JSON type name of `value`, as error messages say it.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The start of `text`, on one line.
pub(crate) fn excerpt(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// Duplicates in `names`, in first-seen order.
pub(crate) fn duplicates<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = std::collections::BTreeSet::new();
    let mut twice = Vec::new();
    for name in names {
        if !seen.insert(name) && !twice.contains(&name) {
            twice.push(name);
        }
    }
    twice
}

/// Helpers for the validators' unit tests: one accepted request per format, and assertions that
/// a changed copy is refused for the expected reason.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Violation, check_request};
    use crate::wire::{RecordedRequest, WireFormat};
    use serde_json::Value;

    /// The violations of `body` posted to `path`.
    pub fn violations(format: WireFormat, path: &str, body: Value) -> Vec<Violation> {
        check_request(format, &RecordedRequest::post(path, body))
    }

    /// Asserts that `body` breaks no rule.
    pub fn accepted(format: WireFormat, path: &str, body: Value) {
        let found = violations(format, path, body);
        assert!(found.is_empty(), "expected no violations, got {found:#?}");
    }

    /// Asserts that `body` changed by `change` is refused at `at` with a message containing
    /// `text`, and returns every violation.
    pub fn refused(
        format: WireFormat,
        path: &str,
        mut body: Value,
        change: impl FnOnce(&mut Value),
        at: &str,
        text: &str,
    ) -> Vec<Violation> {
        change(&mut body);
        let found = violations(format, path, body);
        assert!(
            found
                .iter()
                .any(|violation| violation.at == at && violation.message.contains(text)),
            "expected a violation at `{at}` containing `{text}`, got {found:#?}"
        );
        found
    }
}
