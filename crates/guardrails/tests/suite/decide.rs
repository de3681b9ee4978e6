//! What a phase's checks decide, and the repair prompt.

use super::support::{analyzer_schema, answer, compile, input, schema, validator};
use agentctl_core::{
    Guardrail, GuardrailAction, GuardrailFailure, GuardrailPhase, GuardrailPolicy, GuardrailStage,
    GuardrailSubject, GuardrailViolation, RunGuardrails,
};
use agentctl_guardrails::{Guardrails, ValidatorRegistry};
use serde_json::json;
use std::path::Path;

fn repair(guardrail: Guardrail) -> Guardrail {
    Guardrail {
        policy: GuardrailPolicy::Repair,
        ..guardrail
    }
}

fn warn(guardrail: Guardrail) -> Guardrail {
    Guardrail {
        policy: GuardrailPolicy::Warn,
        ..guardrail
    }
}

fn max_length(name: &str, limit: usize) -> Guardrail {
    Guardrail {
        max_length: Some(limit),
        ..validator(name, "max-length")
    }
}

const BAD: &str = r#"{"analysis": "ok", "suggestions": "a, b"}"#;
const GOOD: &str = r#"{"analysis": "ok", "confidence": 0.5}"#;

fn prompt_of(action: GuardrailAction) -> String {
    match action {
        GuardrailAction::Repair { prompt } => prompt,
        other => panic!("expected a repair, got {other:?}"),
    }
}

#[tokio::test]
async fn the_seed_repair_prompt() {
    let guardrails = compile(&[repair(schema("valid-json-output", analyzer_schema()))]);
    let verdict = answer(&guardrails, BAD, 0).await;
    assert!(!verdict.checks[0].passed);
    insta::assert_snapshot!(prompt_of(verdict.action));
}

#[tokio::test]
async fn a_repair_prompt_for_other_validators_and_for_several() {
    let guardrails = compile(&[repair(max_length("short", 10))]);
    let verdict = answer(&guardrails, "far too long an answer", 0).await;
    insta::assert_snapshot!("other_validator", prompt_of(verdict.action));

    let guardrails = compile(&[
        repair(schema("valid-json-output", analyzer_schema())),
        repair(max_length("short", 10)),
        repair(Guardrail {
            pattern: Some("TODO".into()),
            ..validator("no-todo", "not-regex")
        }),
    ]);
    let verdict = answer(&guardrails, BAD, 0).await;
    insta::assert_snapshot!("several", prompt_of(verdict.action));
}

#[tokio::test]
async fn a_handoff_payload_repair_asks_to_hand_off_again() {
    let guardrails = compile(&[repair(schema(
        "fix-request",
        json!({"type": "object", "required": ["file", "line"], "properties": {"line": {"type": "integer"}}}),
    ))]);
    let payload = json!({"file": "auth.ts", "line": "forty-five"});
    let verdict = guardrails
        .check(
            GuardrailSubject::Handoff {
                to: "code-fixer",
                text: "Handing over.",
                payload: &payload,
            },
            0,
        )
        .await;
    assert_eq!(
        verdict.checks[0].errors,
        ["Invalid type for line: expected integer, got string"]
    );
    insta::assert_snapshot!(prompt_of(verdict.action));
}

#[tokio::test]
async fn repair_until_max_repairs_then_reject_with_the_count() {
    let guardrails = compile(&[repair(Guardrail {
        max_repairs: Some(2),
        ..schema("valid-json-output", analyzer_schema())
    })]);
    for attempt in 0..2 {
        let verdict = answer(&guardrails, BAD, attempt).await;
        assert!(matches!(verdict.action, GuardrailAction::Repair { .. }));
    }
    let verdict = answer(&guardrails, BAD, 2).await;
    let GuardrailAction::Reject(violation) = verdict.action else {
        panic!("{:?}", verdict.action)
    };
    assert_eq!(
        violation,
        GuardrailViolation {
            agent: "analyzer".into(),
            stage: GuardrailStage::Output,
            failures: vec![GuardrailFailure {
                name: "valid-json-output".into(),
                errors: vec![
                    "Missing required field: confidence".into(),
                    "Invalid type for suggestions: expected array, got string".into(),
                ],
            }],
            repairs: 2,
        }
    );
    assert_eq!(
        violation.to_string(),
        "guardrail violation: valid-json-output rejected the output of `analyzer` after 2 repair attempts: Missing required field: confidence; Invalid type for suggestions: expected array, got string"
    );
    assert_eq!(
        answer(&guardrails, GOOD, 2).await.action,
        GuardrailAction::Proceed
    );
    // The default is two repairs; zero means reject at once.
    let none = compile(&[repair(Guardrail {
        max_repairs: Some(0),
        ..schema("valid-json-output", analyzer_schema())
    })]);
    assert!(matches!(
        answer(&none, BAD, 0).await.action,
        GuardrailAction::Reject(GuardrailViolation { repairs: 0, .. })
    ));
}

#[tokio::test]
async fn reject_beats_repair_and_lists_every_failure_but_warnings() {
    let guardrails = compile(&[
        repair(schema("valid-json-output", analyzer_schema())),
        warn(max_length("short", 5)),
        Guardrail {
            pattern: Some("suggestions".into()),
            ..validator("no-suggestions", "not-regex")
        },
        validator("is-json", "json"),
    ]);
    let verdict = answer(&guardrails, BAD, 1).await;
    let names: Vec<(&str, bool)> = verdict
        .checks
        .iter()
        .map(|check| (check.name.as_str(), check.passed))
        .collect();
    assert_eq!(
        names,
        [
            ("valid-json-output", false),
            ("short", false),
            ("no-suggestions", false),
            ("is-json", true)
        ]
    );
    let GuardrailAction::Reject(violation) = verdict.action else {
        panic!("{:?}", verdict.action)
    };
    let failed: Vec<&str> = violation.failures.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(failed, ["valid-json-output", "no-suggestions"]);
    assert_eq!(violation.repairs, 1);
    assert_eq!(violation.guardrail(), "valid-json-output");
}

#[tokio::test]
async fn warnings_proceed_and_are_reported() {
    let guardrails = compile(&[warn(max_length("short", 5)), validator("is-json", "json")]);
    let verdict = answer(&guardrails, GOOD, 0).await;
    assert_eq!(verdict.action, GuardrailAction::Proceed);
    assert!(!verdict.checks[0].passed);
    assert_eq!(verdict.checks[0].policy, GuardrailPolicy::Warn);
    assert_eq!(
        verdict.checks[0].errors,
        ["the text is 37 characters long; at most 5 are allowed"]
    );
    assert!(verdict.checks[1].passed && verdict.checks[1].errors.is_empty());
}

#[tokio::test]
async fn each_phase_runs_its_own_guardrails() {
    let guardrails = compile(&[
        input(max_length("prompt-size", 10)),
        input(Guardrail {
            parallel: true,
            ..validator("no-keys", "contains-secret")
        }),
        validator("is-json", "json"),
    ]);
    assert!(guardrails.covers(GuardrailPhase::Input));
    assert!(guardrails.covers(GuardrailPhase::ParallelInput));
    assert!(guardrails.covers(GuardrailPhase::Output));
    let only_output = compile(&[validator("is-json", "json")]);
    assert!(!only_output.covers(GuardrailPhase::Input));
    assert_eq!(
        only_output
            .check(
                GuardrailSubject::Input {
                    prompt: "x",
                    parallel: false
                },
                0
            )
            .await,
        agentctl_core::GuardrailVerdict::proceed()
    );

    let prompt = "a prompt longer than ten";
    let verdict = guardrails
        .check(
            GuardrailSubject::Input {
                prompt,
                parallel: false,
            },
            0,
        )
        .await;
    assert_eq!(verdict.checks.len(), 1);
    assert_eq!(verdict.checks[0].name, "prompt-size");
    let GuardrailAction::Reject(violation) = verdict.action else {
        panic!("{:?}", verdict.action)
    };
    assert_eq!(violation.stage, GuardrailStage::Input);

    let verdict = guardrails
        .check(
            GuardrailSubject::Input {
                prompt,
                parallel: true,
            },
            0,
        )
        .await;
    assert_eq!(verdict.checks.len(), 1);
    assert_eq!(verdict.checks[0].name, "no-keys");
    assert_eq!(verdict.action, GuardrailAction::Proceed);

    // A handoff's payload is what output guardrails read.
    let payload = json!({"file": "a.rs"});
    let verdict = guardrails
        .check(
            GuardrailSubject::Handoff {
                to: "fixer",
                text: "not json",
                payload: &payload,
            },
            0,
        )
        .await;
    assert_eq!(verdict.checks.len(), 1);
    assert!(verdict.checks[0].passed);
}

#[tokio::test]
async fn the_checks_of_a_phase_run_concurrently() {
    // Each validator waits for the other: only concurrent checks finish.
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(2));
    let mut registry = ValidatorRegistry::new();
    for name in ["first", "second"] {
        registry
            .register(name, Meet(std::sync::Arc::clone(&barrier)))
            .unwrap();
    }
    let guardrails = Guardrails::new(registry, Default::default())
        .compile(
            "analyzer",
            &[validator("a", "first"), validator("b", "second")],
            Path::new("."),
        )
        .unwrap();
    let verdict = answer(&guardrails, "x", 0).await;
    assert!(verdict.checks.iter().all(|check| check.passed));
}

struct Meet(std::sync::Arc<tokio::sync::Barrier>);

#[async_trait::async_trait]
impl agentctl_guardrails::Validator for Meet {
    async fn validate(
        &self,
        _input: &agentctl_guardrails::ValidatorInput<'_>,
    ) -> Result<(), Vec<String>> {
        self.0.wait().await;
        Ok(())
    }
}
