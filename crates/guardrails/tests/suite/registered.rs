//! Validators a program registers: by name, through `custom`, and when they panic.

use super::support::{answer, validator};
use agentctl_core::{GuardrailAction, GuardrailStage};
use agentctl_guardrails::{
    CompiledGuardrails, Guardrails, Validator, ValidatorInput, ValidatorRegistry, validator_fn,
};
use async_trait::async_trait;
use std::path::Path;
use std::sync::{Arc, Mutex};

fn compile_with(
    registry: ValidatorRegistry,
    guardrails: &[agentctl_core::Guardrail],
) -> CompiledGuardrails {
    Guardrails::new(registry, Default::default())
        .compile("analyzer", guardrails, Path::new("."))
        .unwrap()
}

/// Records what it was asked.
struct Recorder(Arc<Mutex<Vec<String>>>);

#[async_trait]
impl Validator for Recorder {
    async fn validate(&self, input: &ValidatorInput<'_>) -> Result<(), Vec<String>> {
        self.0.lock().unwrap().push(format!(
            "{} {} {} {}",
            input.agent, input.guardrail, input.stage, input.text
        ));
        if input.text.contains("ticket") {
            Ok(())
        } else {
            Err(vec!["cite the ticket".into()])
        }
    }
}

#[tokio::test]
async fn a_registered_validator_is_named_or_found_through_custom() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut registry = ValidatorRegistry::new();
    registry
        .register("cites-ticket", Recorder(Arc::clone(&seen)))
        .unwrap()
        .register(
            "house-style",
            validator_fn(|input| {
                if input.text.starts_with(char::is_uppercase) {
                    Ok(())
                } else {
                    Err(vec!["start with a capital letter".into()])
                }
            }),
        )
        .unwrap();
    let guardrails = compile_with(
        registry,
        &[
            validator("ticket", "cites-ticket"),
            validator("house-style", "custom"),
        ],
    );
    let verdict = answer(&guardrails, "see ticket 4", 0).await;
    assert!(verdict.checks[0].passed);
    assert_eq!(verdict.checks[1].errors, ["start with a capital letter"]);
    let verdict = answer(&guardrails, "Done", 0).await;
    assert_eq!(verdict.checks[0].errors, ["cite the ticket"]);
    assert!(verdict.checks[1].passed);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "analyzer ticket output see ticket 4",
            "analyzer ticket output Done"
        ]
    );
    let direct = ValidatorInput::new("x", "a", "g", GuardrailStage::Input);
    assert_eq!(direct.stage, GuardrailStage::Input);
}

struct Panics;

#[async_trait]
impl Validator for Panics {
    async fn validate(&self, _input: &ValidatorInput<'_>) -> Result<(), Vec<String>> {
        panic!("index out of bounds in the house rules");
    }
}

#[tokio::test]
async fn a_panicking_validator_fails_its_check_not_the_run() {
    let mut registry = ValidatorRegistry::new();
    registry
        .register("fragile", Panics)
        .unwrap()
        .register("silent", validator_fn(|_| Err(Vec::new())))
        .unwrap();
    let guardrails = compile_with(
        registry,
        &[
            validator("fragile", "fragile"),
            validator("silent", "silent"),
        ],
    );
    let verdict = answer(&guardrails, "anything", 0).await;
    assert_eq!(
        verdict.checks[0].errors,
        [
            "the validator `fragile` failed (it panicked: index out of bounds in the house rules); the check cannot pass until it is fixed"
        ]
    );
    assert_eq!(
        verdict.checks[1].errors,
        ["the validator `silent` rejected the text without saying why"]
    );
    assert!(matches!(verdict.action, GuardrailAction::Reject(_)));
}
