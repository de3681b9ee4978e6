//! An approval question as the terminal asks it: the call, its risk and its arguments (long
//! values clipped), then `[y]es, [n]o, [a]lways`.

use agentctl_session::tools::{ApprovalAnswer, ApprovalRequest};
use serde_json::Value;

/// Longest argument listing shown in the prompt, in lines.
const MAX_ARGUMENT_LINES: usize = 40;
/// Longest string value shown in the prompt, in characters.
const MAX_STRING_CHARS: usize = 2_000;

/// The prompt text the terminal approver shows; a pure function so it can be snapshot-tested.
pub(crate) fn render_prompt(request: &ApprovalRequest) -> String {
    let shown = clip_strings(&request.arguments);
    let pretty = serde_json::to_string_pretty(&shown).unwrap_or_else(|_| shown.to_string());
    let lines: Vec<&str> = pretty.lines().collect();
    let mut arguments = String::new();
    for line in lines.iter().take(MAX_ARGUMENT_LINES) {
        arguments.push_str("    ");
        arguments.push_str(line);
        arguments.push('\n');
    }
    if lines.len() > MAX_ARGUMENT_LINES {
        arguments.push_str(&format!(
            "    … ({} more lines)\n",
            lines.len() - MAX_ARGUMENT_LINES
        ));
    }
    format!(
        "Agent `{agent}` wants to run `{tool}`\n  risk:      {risk} ({reason})\n  arguments:\n{arguments}Allow? [y]es, [n]o, [a]lways allow {tool} this session: ",
        agent = request.agent,
        tool = request.tool,
        risk = request.risk,
        reason = request.reason,
    )
}

fn clip_strings(value: &Value) -> Value {
    match value {
        Value::String(text) if text.chars().count() > MAX_STRING_CHARS => {
            let head: String = text.chars().take(MAX_STRING_CHARS).collect();
            let rest = text.chars().count() - MAX_STRING_CHARS;
            Value::String(format!("{head}… ({rest} more characters)"))
        }
        Value::Array(items) => Value::Array(items.iter().map(clip_strings).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), clip_strings(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Parses an answer line: `y`/`yes`, `n`/`no`, `a`/`always`; anything else is `None`.
pub(crate) fn parse_answer(line: &str) -> Option<ApprovalAnswer> {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(ApprovalAnswer::Once),
        "n" | "no" => Some(ApprovalAnswer::Deny),
        "a" | "always" => Some(ApprovalAnswer::AlwaysThisSession),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_core::RiskLevel;
    use serde_json::json;

    #[test]
    fn the_question_names_the_call_its_risk_and_its_arguments() {
        let request = ApprovalRequest {
            call_id: "call_1".into(),
            agent: "reviewer".into(),
            tool: "bash".into(),
            risk: RiskLevel::High,
            reason: "rm -rf removes files recursively".into(),
            arguments: json!({"command": "rm -rf target", "timeout_secs": 60}),
        };
        assert_eq!(
            render_prompt(&request),
            "Agent `reviewer` wants to run `bash`\n  risk:      high (rm -rf removes files recursively)\n  arguments:\n    {\n      \"command\": \"rm -rf target\",\n      \"timeout_secs\": 60\n    }\nAllow? [y]es, [n]o, [a]lways allow bash this session: "
        );
        let long = ApprovalRequest {
            arguments: json!({"content": "x".repeat(MAX_STRING_CHARS + 5)}),
            ..request
        };
        assert!(render_prompt(&long).contains("… (5 more characters)"));
    }

    #[test]
    fn answers_are_read_in_words_or_letters() {
        assert_eq!(parse_answer(" Y "), Some(ApprovalAnswer::Once));
        assert_eq!(
            parse_answer("always"),
            Some(ApprovalAnswer::AlwaysThisSession)
        );
        assert_eq!(parse_answer("no"), Some(ApprovalAnswer::Deny));
        assert_eq!(parse_answer("maybe"), None);
    }
}
