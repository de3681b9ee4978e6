//! A compiled JSON Schema and its errors as one-line messages: [`JsonSchemaCheck`].

use super::extract::extract_json;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;
use std::fmt::Write as _;

/// Errors listed per check, at most; the rest are counted in a last line.
pub const MAX_SCHEMA_ERRORS: usize = 20;

/// Characters of one error message, at most: messages quote the offending value, which may be
/// a whole answer.
const MAX_ERROR_CHARS: usize = 300;

/// A JSON Schema, compiled once, that checks values and model texts.
///
/// The draft is the one its `$schema` names (draft 4, 6, 7, 2019-09 or 2020-12), else
/// 2020-12. References are resolved within the schema only: nothing is fetched.
///
/// Errors are one line each, located by the JSON pointer of the offending value:
/// `Missing required field: confidence` (nested: `Missing required field: /meta/confidence`),
/// `Invalid type for suggestions: expected array, got string` (at the root: `Invalid type:
/// expected object, got string`), and for every other keyword the validator's message after
/// the location: `/confidence: 1.7 is greater than the maximum of 1`.
///
/// ```
/// use agentctl_guardrails::JsonSchemaCheck;
/// use serde_json::json;
///
/// let check = JsonSchemaCheck::compile(&json!({
///     "type": "object",
///     "properties": {
///         "analysis": {"type": "string"},
///         "confidence": {"type": "number", "minimum": 0, "maximum": 1},
///         "suggestions": {"type": "array"}
///     },
///     "required": ["analysis", "confidence"]
/// }))
/// .unwrap();
/// assert_eq!(
///     check.check_text(r#"{"analysis": "ok", "suggestions": "a, b"}"#).unwrap_err(),
///     [
///         "Missing required field: confidence",
///         "Invalid type for suggestions: expected array, got string",
///     ]
/// );
/// let value = check.check_text("```json\n{\"analysis\": \"ok\", \"confidence\": 0.5}\n```");
/// assert_eq!(value.unwrap()["confidence"], 0.5);
/// ```
pub struct JsonSchemaCheck {
    schema: Value,
    validator: Validator,
}

impl std::fmt::Debug for JsonSchemaCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonSchemaCheck")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl JsonSchemaCheck {
    /// Compiles `schema`. The error is one line: where in the schema and what is wrong
    /// (`/type: 12 is not valid under any of the schemas listed in the 'anyOf' keyword`).
    pub fn compile(schema: &Value) -> Result<Self, String> {
        let validator = jsonschema::validator_for(schema).map_err(|error| format_error(&error))?;
        Ok(Self {
            schema: schema.clone(),
            validator,
        })
    }

    /// The schema as written.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Checks a value: `Ok` when it matches, else at most [`MAX_SCHEMA_ERRORS`] one-line
    /// errors (and a last line counting those left out).
    pub fn check_value(&self, value: &Value) -> Result<(), Vec<String>> {
        let mut errors = Vec::new();
        let mut more = 0usize;
        for error in self.validator.iter_errors(value) {
            if errors.len() < MAX_SCHEMA_ERRORS {
                errors.push(format_error(&error));
            } else {
                more += 1;
            }
        }
        if more > 0 {
            errors.push(format!(
                "… and {more} more error{}",
                if more == 1 { "" } else { "s" }
            ));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Checks a model's text: its JSON document (see [`extract_json`]) must match. Returns the
    /// document; the error is the extraction's (one line) or the schema's.
    pub fn check_text(&self, text: &str) -> Result<Value, Vec<String>> {
        let (value, _) = extract_json(text).map_err(|error| vec![error])?;
        self.check_value(&value)?;
        Ok(value)
    }
}

/// One validation error as one line (see [`JsonSchemaCheck`]).
fn format_error(error: &ValidationError<'_>) -> String {
    let path = error.instance_path().as_str();
    let message = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = match property {
                Value::String(name) => name.replace('~', "~0").replace('/', "~1"),
                other => other.to_string(),
            };
            if path.is_empty() {
                format!("Missing required field: {name}")
            } else {
                format!("Missing required field: {path}/{name}")
            }
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(expected) => expected.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|expected| expected.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let got = type_name(error.instance());
            match path.strip_prefix('/') {
                Some(field) => format!("Invalid type for {field}: expected {expected}, got {got}"),
                None => format!("Invalid type: expected {expected}, got {got}"),
            }
        }
        _ if path.is_empty() => error.to_string(),
        _ => format!("{path}: {error}"),
    };
    shorten(message)
}

/// The JSON type of `value` as schemas name it; whole numbers are `integer`.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `message` cut to [`MAX_ERROR_CHARS`] characters, on one line.
fn shorten(message: String) -> String {
    let one_line = if message.contains(['\n', '\r']) {
        message.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        message
    };
    if one_line.chars().count() <= MAX_ERROR_CHARS {
        return one_line;
    }
    let mut short: String = one_line.chars().take(MAX_ERROR_CHARS).collect();
    let _ = write!(short, "…");
    short
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_errors_are_located() {
        let check = JsonSchemaCheck::compile(&json!({
            "type": "object",
            "properties": {
                "meta": {
                    "type": "object",
                    "properties": {"tags": {"type": "array"}, "a/b": {"type": ["string", "null"]}},
                    "required": ["confidence"]
                }
            }
        }))
        .unwrap();
        let errors = check
            .check_value(&json!({"meta": {"tags": "x", "a/b": 3}}))
            .unwrap_err();
        assert_eq!(
            errors,
            [
                "Missing required field: /meta/confidence",
                "Invalid type for meta/tags: expected array, got string",
                "Invalid type for meta/a~1b: expected null or string, got integer",
            ]
        );
        assert_eq!(
            check.check_value(&json!("x")).unwrap_err(),
            ["Invalid type: expected object, got string"]
        );
    }

    #[test]
    fn errors_are_capped_and_short() {
        let check = JsonSchemaCheck::compile(&json!({
            "type": "array",
            "items": {"type": "string", "maxLength": 3}
        }))
        .unwrap();
        let many: Vec<Value> = (0..30).map(|_| json!("a".repeat(1000))).collect();
        let errors = check.check_value(&Value::Array(many)).unwrap_err();
        assert_eq!(errors.len(), MAX_SCHEMA_ERRORS + 1);
        assert_eq!(errors[MAX_SCHEMA_ERRORS], "… and 10 more errors");
        assert!(errors[0].starts_with("/0: \"aaa"), "{}", errors[0]);
        assert!(errors[0].chars().count() <= MAX_ERROR_CHARS + 1);
    }

    #[test]
    fn a_broken_schema_is_one_line() {
        let error = JsonSchemaCheck::compile(&json!({"type": 12})).unwrap_err();
        assert!(error.starts_with("/type: "), "{error}");
        assert!(!error.contains('\n'));
    }
}
