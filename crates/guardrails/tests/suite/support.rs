//! Builders for declarations, a compiled set for the `analyzer` agent, sandbox and process
//! group probes.

use agentctl_core::{Guardrail, GuardrailStage, GuardrailSubject, GuardrailVerdict, RunGuardrails};
use agentctl_guardrails::{CommandEnvironment, CompiledGuardrails, Guardrails};
use serde_json::{Value, json};
use std::path::Path;

/// The seed's analyzer output schema.
pub fn analyzer_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "analysis": {"type": "string"},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "suggestions": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["analysis", "confidence"]
    })
}

/// An output guardrail checking `schema` (policy reject).
pub fn schema(name: &str, schema: Value) -> Guardrail {
    Guardrail {
        name: name.into(),
        schema: Some(schema),
        ..Guardrail::default()
    }
}

/// An output guardrail using `validator` (policy reject).
pub fn validator(name: &str, validator: &str) -> Guardrail {
    Guardrail {
        name: name.into(),
        validator: Some(validator.into()),
        ..Guardrail::default()
    }
}

/// An output guardrail running `argv` (policy reject).
pub fn command(name: &str, argv: &[&str]) -> Guardrail {
    Guardrail {
        name: name.into(),
        command: argv.iter().map(|arg| (*arg).to_owned()).collect(),
        ..Guardrail::default()
    }
}

/// The same guardrail at the input stage.
pub fn input(guardrail: Guardrail) -> Guardrail {
    Guardrail {
        stage: GuardrailStage::Input,
        ..guardrail
    }
}

/// `guardrails` of the `analyzer` agent, compiled with the default factory.
pub fn compile(guardrails: &[Guardrail]) -> CompiledGuardrails {
    Guardrails::default()
        .compile("analyzer", guardrails, Path::new("."))
        .unwrap()
}

/// `guardrails` compiled for runs in `root` with `environment`.
pub fn compile_in(
    root: &Path,
    environment: CommandEnvironment,
    guardrails: &[Guardrail],
) -> CompiledGuardrails {
    Guardrails::new(Default::default(), environment)
        .compile("analyzer", guardrails, root)
        .unwrap()
}

/// Checks `text` as the agent's answer.
pub async fn answer(guardrails: &CompiledGuardrails, text: &str, attempt: u32) -> GuardrailVerdict {
    guardrails
        .check(GuardrailSubject::Answer { text }, attempt)
        .await
}

/// The errors of the only check of checking `text` as the answer with `guardrail`.
pub async fn errors_of(guardrail: Guardrail, text: &str) -> Vec<String> {
    let verdict = answer(&compile(&[guardrail]), text, 0).await;
    assert_eq!(verdict.checks.len(), 1);
    verdict.checks[0].errors.clone()
}

/// The environment of tests' validators: this process's `PATH` and `HOME`, plus a secret that
/// must not reach them.
pub fn test_environment() -> CommandEnvironment {
    CommandEnvironment::default().with_base_env([
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("HOME", std::env::var("HOME").unwrap_or_default()),
        ("OPENAI_API_KEY", SECRET.to_owned()),
        ("DEPLOY_TOKEN", SECRET.to_owned()),
    ])
}

/// The value of the secret variables of [`test_environment`].
pub const SECRET: &str = "never-in-a-validator-0123456789";

/// Writes an executable `sh` script `name` into `root`.
pub fn script(root: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    let path = root.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Whether Landlock confines processes here. When it cannot, the test is skipped with a
/// message, except under CI (`CI=true`), where the sandbox must work.
pub fn landlock_or_skip() -> bool {
    use agentctl_sandbox::{SandboxPolicy, SandboxStatus, probe};
    agentctl_test_support::requirement(match probe(&SandboxPolicy::default()) {
        SandboxStatus::Enforced { .. } => Ok(()),
        status => Err(format!("the sandbox is {status}")),
    })
}

/// The pid a script wrote to `path`.
pub fn read_pid(path: &Path) -> u32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}
