//! Checking a child's answer against the `schema` of its task, with the guardrails' JSON
//! extraction and error wording ([`JsonSchemaCheck`]): the answer is a bare JSON value or one
//! ` ```json ` block.

use agentctl_core::ToolError;
use agentctl_guardrails::JsonSchemaCheck;
use serde_json::Value;

/// Compiles the schema a call gave; a broken schema is the caller's error, reported before
/// anything starts.
pub(crate) fn compile(schema: &Value) -> Result<JsonSchemaCheck, ToolError> {
    JsonSchemaCheck::compile(schema).map_err(|error| ToolError::InvalidArguments {
        tool: "task".into(),
        message: format!("`schema` is not a valid JSON Schema: {error}"),
    })
}

/// The JSON value of an answer if it matches, else what is wrong with it.
pub(crate) fn check(validator: &JsonSchemaCheck, answer: &str) -> Result<Value, Vec<String>> {
    validator.check_text(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validator() -> JsonSchemaCheck {
        compile(&json!({
            "type": "object",
            "properties": {"count": {"type": "integer"}},
            "required": ["count"]
        }))
        .unwrap()
    }

    #[test]
    fn accepts_bare_and_fenced_json() {
        let v = validator();
        assert_eq!(check(&v, r#"{"count": 2}"#).unwrap(), json!({"count": 2}));
        assert_eq!(
            check(&v, "```json\n{\"count\": 3}\n```").unwrap(),
            json!({"count": 3})
        );
        assert_eq!(
            check(&v, "Here it is:\n```json\n{\"count\": 4}\n```\nDone.").unwrap(),
            json!({"count": 4})
        );
    }

    #[test]
    fn lists_violations_with_their_path() {
        let v = validator();
        assert_eq!(
            check(&v, r#"{"count": "two"}"#).unwrap_err(),
            ["Invalid type for count: expected integer, got string"]
        );
        assert_eq!(
            check(&v, "{}").unwrap_err(),
            ["Missing required field: count"]
        );
        // JSON inside prose is not an answer: the child was asked for the JSON only.
        assert_eq!(
            check(&v, "Here it is: {\"count\": 4}. Done.").unwrap_err(),
            [
                "expected a bare JSON document or exactly one ```json fenced block, found prose without JSON"
            ]
        );
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
