//! Checking a child's answer against the `schema` of its task.

use agentctl_core::ToolError;
use jsonschema::Validator;
use serde_json::Value;

/// Violations listed per check, at most.
const MAX_VIOLATIONS: usize = 10;

/// Compiles the schema a call gave; a broken schema is the caller's error, reported before
/// anything starts.
pub(crate) fn compile(schema: &Value) -> Result<Validator, ToolError> {
    jsonschema::validator_for(schema).map_err(|error| ToolError::InvalidArguments {
        tool: "task".into(),
        message: format!("`schema` is not a valid JSON Schema: {error}"),
    })
}

/// The JSON value of an answer if it matches, else what is wrong with it.
pub(crate) fn check(validator: &Validator, answer: &str) -> Result<Value, Vec<String>> {
    let value = extract_json(answer).ok_or_else(|| {
        vec!["the answer is not a JSON value (answer with the JSON only, no prose)".to_owned()]
    })?;
    let violations: Vec<String> = validator
        .iter_errors(&value)
        .take(MAX_VIOLATIONS)
        .map(|error| {
            let path = error.instance_path().to_string();
            if path.is_empty() {
                error.to_string()
            } else {
                format!("at {path}: {error}")
            }
        })
        .collect();
    if violations.is_empty() {
        Ok(value)
    } else {
        Err(violations)
    }
}

/// The JSON value in an answer: the whole text, else the inside of a code fence, else the span
/// from the first `{`/`[` to the last `}`/`]`.
fn extract_json(answer: &str) -> Option<Value> {
    let text = answer.trim();
    if let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    if let Some(start) = text.find("```") {
        let body = &text[start + 3..];
        let body = body.split_once('\n').map_or(body, |(_, rest)| rest);
        if let Some(end) = body.find("```")
            && let Ok(value) = serde_json::from_str(body[..end].trim())
        {
            return Some(value);
        }
    }
    let start = text.find(['{', '['])?;
    let end = text.rfind(['}', ']'])?;
    (start < end)
        .then(|| serde_json::from_str(&text[start..=end]).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validator() -> Validator {
        compile(&json!({
            "type": "object",
            "properties": {"count": {"type": "integer"}},
            "required": ["count"]
        }))
        .unwrap()
    }

    #[test]
    fn accepts_bare_fenced_and_embedded_json() {
        let v = validator();
        assert_eq!(check(&v, r#"{"count": 2}"#).unwrap(), json!({"count": 2}));
        assert_eq!(
            check(&v, "```json\n{\"count\": 3}\n```").unwrap(),
            json!({"count": 3})
        );
        assert_eq!(
            check(&v, "Here it is: {\"count\": 4}. Done.").unwrap(),
            json!({"count": 4})
        );
    }

    #[test]
    fn lists_violations_with_their_path() {
        let v = validator();
        let errors = check(&v, r#"{"count": "two"}"#).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("at /count: "), "{errors:?}");
        let errors = check(&v, "{}").unwrap_err();
        assert!(errors[0].contains("count"), "{errors:?}");
        assert!(check(&v, "no json here").unwrap_err()[0].contains("not a JSON value"));
    }

    #[test]
    fn a_broken_schema_is_an_argument_error() {
        let error = compile(&json!({"type": 12})).unwrap_err();
        assert!(
            error.to_string().contains("not a valid JSON Schema"),
            "{error}"
        );
    }
}
