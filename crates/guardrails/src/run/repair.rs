//! The repair prompt: the next user message when `repair` guardrails failed, in the same
//! conversation as the answer it asks to fix.

use agentctl_core::GuardrailSubject;
use serde_json::Value;
use std::fmt::Write as _;

/// Characters of a pretty-printed schema repeated in the prompt; a longer schema is left out
/// (the errors still say what to fix).
const MAX_SCHEMA_CHARS: usize = 16 * 1024;
/// Errors listed in the prompt, over all guardrails.
const MAX_PROMPT_ERRORS: usize = 40;

/// A failing `repair` guardrail.
pub(super) struct Failed<'a> {
    pub(super) name: &'a str,
    /// Its schema, for `schema:` guardrails.
    pub(super) schema: Option<&'a Value>,
    pub(super) errors: &'a [String],
}

/// One prompt covering every failing guardrail of `failed` (not empty).
pub(super) fn prompt(subject: &GuardrailSubject<'_>, failed: &[Failed<'_>]) -> String {
    let names = names(failed);
    let guardrail = if failed.len() == 1 {
        "guardrail"
    } else {
        "guardrails"
    };
    let schemas: Vec<(&str, &Value)> = failed
        .iter()
        .filter_map(|failed| failed.schema.map(|schema| (failed.name, schema)))
        .collect();
    let handoff_to = match subject {
        GuardrailSubject::Handoff { to, .. } => Some(*to),
        _ => None,
    };
    let mut text = match handoff_to {
        Some(to) => {
            format!("The payload of your handoff to `{to}` did not pass the {guardrail} {names}.")
        }
        None => format!("Your answer did not pass the {guardrail} {names}."),
    };
    match schemas.len() {
        0 => {}
        1 => text.push_str(" Fix it to match the schema."),
        _ => text.push_str(" Fix it to match the schemas."),
    }
    text.push_str("\n\n");
    for (name, schema) in &schemas {
        if schemas.len() == 1 {
            text.push_str("Schema:\n");
        } else {
            let _ = writeln!(text, "Schema of `{name}`:");
        }
        let pretty = serde_json::to_string_pretty(schema).unwrap_or_else(|_| schema.to_string());
        if pretty.chars().count() <= MAX_SCHEMA_CHARS {
            let _ = write!(text, "```json\n{pretty}\n```\n\n");
        } else {
            let _ = write!(
                text,
                "(too long to repeat here: {} characters; the errors say what to fix)\n\n",
                pretty.chars().count()
            );
        }
    }
    text.push_str("Errors:\n");
    let mut listed = 0usize;
    let total: usize = failed.iter().map(|failed| failed.errors.len()).sum();
    'all: for failed_one in failed {
        for error in failed_one.errors {
            if listed == MAX_PROMPT_ERRORS {
                break 'all;
            }
            listed += 1;
            if failed.len() == 1 {
                let _ = writeln!(text, "- {error}");
            } else {
                let _ = writeln!(text, "- `{}`: {error}", failed_one.name);
            }
        }
    }
    if total > listed {
        let _ = writeln!(text, "- … and {} more", total - listed);
    }
    text.push('\n');
    match handoff_to {
        Some(to) => {
            let _ = write!(text, "Hand off to `{to}` again, with a corrected payload.");
        }
        None if !schemas.is_empty() => text.push_str("Return only the fixed JSON output."),
        None => text.push_str("Write your answer again so that it passes."),
    }
    text
}

/// `` `a` ``, `` `a` and `b` ``, `` `a`, `b` and `c` ``.
fn names(failed: &[Failed<'_>]) -> String {
    let quoted: Vec<String> = failed
        .iter()
        .map(|failed| format!("`{}`", failed.name))
        .collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
