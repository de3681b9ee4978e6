//! `schema:` guardrails: accepted forms, error wording, drafts.

use super::support::{analyzer_schema, errors_of, schema};
use agentctl_guardrails::JsonSchemaCheck;
use serde_json::json;

#[tokio::test]
async fn the_seed_analyzer_errors_are_worded_as_specified() {
    let guardrail = || schema("valid-json-output", analyzer_schema());
    assert_eq!(
        errors_of(guardrail(), r#"{"analysis": "ok", "suggestions": "a, b"}"#).await,
        [
            "Missing required field: confidence",
            "Invalid type for suggestions: expected array, got string",
        ]
    );
    assert_eq!(
        errors_of(guardrail(), r#"{"analysis":"x","confidence":1.7}"#).await,
        ["/confidence: 1.7 is greater than the maximum of 1"]
    );
    assert_eq!(
        errors_of(guardrail(), r#"["not", "an", "object"]"#).await,
        ["Invalid type: expected object, got array"]
    );
    assert_eq!(
        errors_of(
            guardrail(),
            r#"{"analysis": 3, "confidence": 0.5, "suggestions": [1]}"#
        )
        .await,
        [
            "Invalid type for analysis: expected string, got integer",
            "Invalid type for suggestions/0: expected string, got integer",
        ]
    );
}

#[tokio::test]
async fn bare_and_fenced_answers_pass() {
    let guardrail = || schema("valid-json-output", analyzer_schema());
    let good = r#"{"analysis": "ok", "confidence": 0.9, "suggestions": ["a"]}"#;
    for text in [
        good.to_owned(),
        format!("\n{good}\n"),
        format!("```json\n{good}\n```"),
        format!("Here is the analysis:\n\n```json\n{good}\n```\n\nLet me know."),
        format!("Result:\n```\n{good}\n```"),
    ] {
        assert!(errors_of(guardrail(), &text).await.is_empty(), "{text}");
    }
}

#[tokio::test]
async fn answers_that_are_not_one_json_document_say_what_was_found() {
    let guardrail = || schema("valid-json-output", analyzer_schema());
    assert_eq!(
        errors_of(guardrail(), "The analysis is fine, confidence high.").await,
        [
            "expected a bare JSON document or exactly one ```json fenced block, found prose without JSON"
        ]
    );
    assert_eq!(
        errors_of(guardrail(), "```json\n{}\n```\nor\n```json\n{}\n```").await,
        [
            "expected a bare JSON document or exactly one ```json fenced block, found 2 fenced JSON blocks: keep only one"
        ]
    );
    assert_eq!(
        errors_of(
            guardrail(),
            "{\n  \"analysis\": \"ok\"\n  \"confidence\": 1\n}"
        )
        .await,
        ["invalid JSON at line 3, column 3: expected `,` or `}`"]
    );
    assert_eq!(
        errors_of(guardrail(), "Sure!\n```json\n{\"analysis\": 'ok'}\n```").await,
        ["the fenced JSON block is not valid JSON: line 3, column 14: expected value"]
    );
}

#[tokio::test]
async fn draft_7_schemas_work() {
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"score": {"type": "number", "exclusiveMaximum": 10}},
        "type": "object",
        "properties": {"score": {"$ref": "#/definitions/score"}},
        "required": ["score"],
        "additionalProperties": false
    });
    assert!(
        errors_of(schema("scored", draft7.clone()), r#"{"score": 3}"#)
            .await
            .is_empty()
    );
    assert_eq!(
        errors_of(schema("scored", draft7), r#"{"score": 10, "extra": true}"#).await,
        [
            "/score: 10 is greater than or equal to the maximum of 10",
            "Additional properties are not allowed ('extra' was unexpected)",
        ]
    );
}

#[test]
fn other_crates_check_values_and_texts_with_the_same_wording() {
    let check = JsonSchemaCheck::compile(&analyzer_schema()).unwrap();
    assert_eq!(check.schema(), &analyzer_schema());
    assert_eq!(
        check.check_value(&json!({"analysis": "x"})).unwrap_err(),
        ["Missing required field: confidence"]
    );
    let value = check
        .check_text("```json\n{\"analysis\": \"x\", \"confidence\": 0}\n```")
        .unwrap();
    assert_eq!(value["confidence"], 0);
    let error = JsonSchemaCheck::compile(&json!({"type": "objekt"})).unwrap_err();
    assert!(error.starts_with("/type: "), "{error}");
}
