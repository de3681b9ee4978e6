//! [`Guardrails`]: the [`GuardrailFactory`] the runtime asks for each run's guardrails.

use crate::command::{CommandCheck, CommandEnvironment, timeout_of};
use crate::declare::{Declared, check_declarations, declare};
use crate::run::{Check, CompiledGuardrails, Entry};
use crate::validator::ValidatorRegistry;
use agentctl_core::{
    AgentDefinition, DEFAULT_VALIDATOR_TIMEOUT_SECS, Guardrail, GuardrailFactory,
    GuardrailSpecError, RunGuardrails,
};
use std::path::Path;
use std::sync::Arc;

/// Compiles agents' `guardrails:` declarations into checks: JSON Schemas, the built-in
/// validators, the validators of its [`ValidatorRegistry`] and `command:` validators run in
/// its [`CommandEnvironment`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use agentctl_core::{
///     Guardrail, GuardrailAction, GuardrailPolicy, GuardrailSubject, RunGuardrails,
/// };
/// use agentctl_guardrails::Guardrails;
/// use serde_json::json;
///
/// let declared = [Guardrail {
///     name: "valid-json-output".into(),
///     schema: Some(json!({"type": "object", "required": ["confidence"]})),
///     policy: GuardrailPolicy::Repair,
///     ..Guardrail::default()
/// }];
/// let guardrails = Guardrails::default()
///     .compile("analyzer", &declared, ".".as_ref())
///     .unwrap();
///
/// let verdict = guardrails.check(GuardrailSubject::Answer { text: "{}" }, 0).await;
/// assert_eq!(verdict.checks[0].errors, ["Missing required field: confidence"]);
/// let GuardrailAction::Repair { prompt } = verdict.action else { panic!() };
/// assert!(prompt.ends_with("Return only the fixed JSON output."));
///
/// let fixed = r#"{"confidence": 0.9}"#;
/// let verdict = guardrails.check(GuardrailSubject::Answer { text: fixed }, 1).await;
/// assert_eq!(verdict.action, GuardrailAction::Proceed);
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Guardrails {
    registry: ValidatorRegistry,
    environment: Arc<CommandEnvironment>,
}

impl Guardrails {
    /// A factory knowing the validators of `registry` and running `command:` validators in
    /// `environment`.
    pub fn new(registry: ValidatorRegistry, environment: CommandEnvironment) -> Self {
        Self {
            registry,
            environment: Arc::new(environment),
        }
    }

    /// The registered validators.
    pub fn registry(&self) -> &ValidatorRegistry {
        &self.registry
    }

    /// Where `command:` validators run.
    pub fn environment(&self) -> &CommandEnvironment {
        &self.environment
    }

    /// Every problem of `guardrails` ([`check_declarations`] with this factory's registry).
    pub fn check_declarations(
        &self,
        agent: &str,
        guardrails: &[Guardrail],
    ) -> Vec<GuardrailSpecError> {
        check_declarations(agent, guardrails, Some(&self.registry))
    }

    /// Compiles `agent`'s `guardrails` for runs in `working_dir` (where `command:` validators
    /// run and relative programs are found). The error is the first problem
    /// [`check_declarations`] reports.
    pub fn compile(
        &self,
        agent: &str,
        guardrails: &[Guardrail],
        working_dir: &Path,
    ) -> Result<CompiledGuardrails, GuardrailSpecError> {
        let declared = declare(agent, guardrails, Some(&self.registry)).map_err(|problems| {
            problems
                .into_iter()
                .next()
                .unwrap_or_else(|| GuardrailSpecError {
                    agent: agent.to_owned(),
                    field: "guardrails".into(),
                    message: "cannot be compiled".into(),
                })
        })?;
        let entries = guardrails
            .iter()
            .zip(declared)
            .map(|(guardrail, declared)| Entry {
                name: guardrail.name.clone(),
                stage: guardrail.stage,
                policy: guardrail.policy,
                parallel: guardrail.parallel,
                repairs_allowed: guardrail.repairs_allowed(),
                check: match declared {
                    Declared::Schema(schema) => Check::Schema(schema),
                    Declared::Builtin(builtin) => Check::Builtin(builtin),
                    Declared::Registered { name, validator } => {
                        Check::Registered { name, validator }
                    }
                    Declared::Command(argv) => Check::Command(CommandCheck {
                        argv,
                        timeout: timeout_of(
                            guardrail
                                .timeout_seconds
                                .unwrap_or(DEFAULT_VALIDATOR_TIMEOUT_SECS),
                        ),
                        environment: Arc::clone(&self.environment),
                        working_dir: working_dir.to_path_buf(),
                    }),
                },
            })
            .collect();
        Ok(CompiledGuardrails::new(agent.to_owned(), entries))
    }
}

impl GuardrailFactory for Guardrails {
    fn guardrails(
        &self,
        agent: &AgentDefinition,
        working_dir: &Path,
    ) -> Result<Option<Arc<dyn RunGuardrails>>, GuardrailSpecError> {
        if agent.spec.guardrails.is_empty() {
            return Ok(None);
        }
        let compiled = self.compile(agent.name(), &agent.spec.guardrails, working_dir)?;
        Ok(Some(Arc::new(compiled)))
    }
}
