//! An agent's guardrails, compiled: [`CompiledGuardrails`] checks a phase's subject with all
//! its guardrails at once and decides what the run does next.

mod repair;

use crate::builtin::Builtin;
use crate::command::CommandCheck;
use crate::json::JsonSchemaCheck;
use crate::validator::{Validator, ValidatorInput};
use agentctl_core::{
    DEFAULT_VALIDATOR_TIMEOUT_SECS, GuardrailAction, GuardrailCheck, GuardrailFailure,
    GuardrailPhase, GuardrailPolicy, GuardrailStage, GuardrailSubject, GuardrailVerdict,
    GuardrailViolation, RunGuardrails,
};
use async_trait::async_trait;
use futures_util::FutureExt as _;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

/// Errors kept per check, at most.
const MAX_ERRORS: usize = 20;
/// Characters of one error, at most.
const MAX_ERROR_CHARS: usize = 500;

/// What one guardrail runs.
pub(crate) enum Check {
    Schema(Arc<JsonSchemaCheck>),
    Builtin(Builtin),
    Registered {
        name: String,
        validator: Arc<dyn Validator>,
    },
    Command(CommandCheck),
}

/// One compiled guardrail.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) stage: GuardrailStage,
    pub(crate) policy: GuardrailPolicy,
    pub(crate) parallel: bool,
    pub(crate) repairs_allowed: u32,
    pub(crate) check: Check,
}

impl Entry {
    fn phase(&self) -> GuardrailPhase {
        match (self.stage, self.parallel) {
            (GuardrailStage::Input, false) => GuardrailPhase::Input,
            (GuardrailStage::Input, true) => GuardrailPhase::ParallelInput,
            (GuardrailStage::Output, _) => GuardrailPhase::Output,
        }
    }

    /// Runs the check on `text`; errors are one line each and bounded.
    async fn run(&self, text: &str, agent: &str) -> Result<(), Vec<String>> {
        let outcome = match &self.check {
            Check::Schema(schema) => schema.check_text(text).map(|_| ()),
            Check::Builtin(builtin) => builtin.check(text),
            Check::Registered { name, validator } => {
                let input = ValidatorInput::new(text, agent, &self.name, self.stage);
                registered(name, validator.as_ref(), &input).await
            }
            Check::Command(command) => command.check(text).await,
        };
        outcome.map_err(bounded)
    }
}

/// Runs a registered validator: a panic or a validator that never answers fails the check
/// instead of the run.
async fn registered(
    name: &str,
    validator: &dyn Validator,
    input: &ValidatorInput<'_>,
) -> Result<(), Vec<String>> {
    let limit = Duration::from_secs(DEFAULT_VALIDATOR_TIMEOUT_SECS);
    // A hand-written `validate` may panic before it returns its future, too.
    let checked = match std::panic::catch_unwind(AssertUnwindSafe(|| validator.validate(input))) {
        Ok(future) => AssertUnwindSafe(future).catch_unwind().boxed(),
        Err(panic) => futures_util::future::ready(Err(panic)).boxed(),
    };
    match tokio::time::timeout(limit, checked).await {
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(Ok(Err(errors))) if errors.is_empty() => Err(vec![format!(
            "the validator `{name}` rejected the text without saying why"
        )]),
        Ok(Ok(Err(errors))) => Err(errors),
        Ok(Err(panic)) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            Err(vec![format!(
                "the validator `{name}` failed (it panicked: {why}); the check cannot pass until it is fixed"
            )])
        }
        Err(_) => Err(vec![format!(
            "the validator `{name}` did not answer within {DEFAULT_VALIDATOR_TIMEOUT_SECS} s"
        )]),
    }
}

/// At most [`MAX_ERRORS`] errors of one line and [`MAX_ERROR_CHARS`] characters each.
fn bounded(errors: Vec<String>) -> Vec<String> {
    let total = errors.len();
    let mut kept: Vec<String> = errors
        .into_iter()
        .take(MAX_ERRORS)
        .map(|error| {
            let line = if error.contains(['\n', '\r']) {
                error.split_whitespace().collect::<Vec<_>>().join(" ")
            } else {
                error
            };
            if line.chars().count() <= MAX_ERROR_CHARS {
                line
            } else {
                let mut short: String = line.chars().take(MAX_ERROR_CHARS).collect();
                short.push('…');
                short
            }
        })
        .collect();
    if total > MAX_ERRORS {
        kept.push(format!("… and {} more errors", total - MAX_ERRORS));
    }
    kept
}

/// An agent's guardrails, ready to check its runs (made by
/// [`Guardrails`](crate::Guardrails)).
///
/// [`check`](RunGuardrails::check) runs every guardrail of the subject's phase concurrently,
/// reports each in declaration order, and decides:
///
/// - a failing `reject` guardrail ends the run with a [`GuardrailViolation`] listing every
///   failing guardrail that is not `warn`;
/// - else a failing `repair` guardrail asks the model again with a
///   [`Repair`](GuardrailAction::Repair) prompt, until its `maxRepairs` are used up, when
///   the run ends as for `reject`;
/// - failing `warn` guardrails are reported and the run goes on.
pub struct CompiledGuardrails {
    agent: String,
    entries: Vec<Entry>,
}

impl std::fmt::Debug for CompiledGuardrails {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledGuardrails")
            .field("agent", &self.agent)
            .field(
                "guardrails",
                &self
                    .entries
                    .iter()
                    .map(|entry| entry.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl CompiledGuardrails {
    pub(crate) fn new(agent: String, entries: Vec<Entry>) -> Self {
        Self { agent, entries }
    }

    /// The agent they belong to.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// Names of the guardrails, in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|entry| entry.name.as_str())
    }
}

#[async_trait]
impl RunGuardrails for CompiledGuardrails {
    fn covers(&self, phase: GuardrailPhase) -> bool {
        self.entries.iter().any(|entry| entry.phase() == phase)
    }

    async fn check(&self, subject: GuardrailSubject<'_>, attempt: u32) -> GuardrailVerdict {
        let phase = subject.phase();
        let entries: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|entry| entry.phase() == phase)
            .collect();
        if entries.is_empty() {
            return GuardrailVerdict::proceed();
        }
        let text = subject.text();
        let outcomes = futures_util::future::join_all(
            entries.iter().map(|entry| entry.run(&text, &self.agent)),
        )
        .await;
        let checks: Vec<GuardrailCheck> = entries
            .iter()
            .zip(outcomes)
            .map(|(entry, outcome)| GuardrailCheck {
                name: entry.name.clone(),
                stage: entry.stage,
                policy: entry.policy,
                passed: outcome.is_ok(),
                errors: outcome.err().unwrap_or_default(),
            })
            .collect();
        let action = self.decide(&subject, &entries, &checks, attempt);
        GuardrailVerdict { checks, action }
    }
}

impl CompiledGuardrails {
    /// What the run does after `checks` (one per entry of `entries`).
    fn decide(
        &self,
        subject: &GuardrailSubject<'_>,
        entries: &[&Entry],
        checks: &[GuardrailCheck],
        attempt: u32,
    ) -> GuardrailAction {
        let failing: Vec<(&Entry, &GuardrailCheck)> = entries
            .iter()
            .copied()
            .zip(checks)
            .filter(|(_, check)| !check.passed)
            .collect();
        let rejected = failing.iter().any(|(entry, _)| {
            entry.policy == GuardrailPolicy::Reject
                || (entry.policy == GuardrailPolicy::Repair && attempt >= entry.repairs_allowed)
        });
        if rejected {
            let stage = match subject.phase() {
                GuardrailPhase::Output => GuardrailStage::Output,
                _ => GuardrailStage::Input,
            };
            return GuardrailAction::Reject(GuardrailViolation {
                agent: self.agent.clone(),
                stage,
                failures: failing
                    .iter()
                    .filter(|(entry, _)| entry.policy != GuardrailPolicy::Warn)
                    .map(|(_, check)| GuardrailFailure {
                        name: check.name.clone(),
                        errors: check.errors.clone(),
                    })
                    .collect(),
                repairs: attempt,
            });
        }
        let to_repair: Vec<repair::Failed<'_>> = failing
            .iter()
            .filter(|(entry, _)| entry.policy == GuardrailPolicy::Repair)
            .map(|(entry, check)| repair::Failed {
                name: &entry.name,
                schema: match &entry.check {
                    Check::Schema(schema) => Some(schema.schema()),
                    _ => None,
                },
                errors: &check.errors,
            })
            .collect();
        if to_repair.is_empty() {
            GuardrailAction::Proceed
        } else {
            GuardrailAction::Repair {
                prompt: repair::prompt(subject, &to_repair),
            }
        }
    }
}
