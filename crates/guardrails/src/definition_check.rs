//! The guardrails' check of agent definitions, registered with `agentctl-definitions`: every
//! `guardrails:` declaration compiles (schemas, patterns, commands, policies), by the rules
//! the factory compiles with, each problem located at its field in the file.

use crate::declare::check_declarations;
use crate::validator::ValidatorRegistry;
use agentctl_definitions::{Check, CheckStage, Diagnostic, LoadedAgent, SemanticCheck, Severity};

/// `guardrails usable`, for a [`Checks`](agentctl_definitions::Checks) set: an agent's
/// guardrails compile, and — when validating, given the program's validators — every
/// `validator:` named exists. While agents load, names of registered validators are left to
/// the run (the program may register them later).
///
/// ```
/// use agentctl_core::{Scope, Settings, SourceFormat};
/// use agentctl_definitions::{Checks, parse_str, validate};
/// use agentctl_guardrails::GuardrailsCheck;
/// use std::path::Path;
///
/// let text = "---\nname: a\ndescription: d\nguardrails:\n  - name: g\n---\nP\n";
/// let agent = parse_str(text, Path::new("a.md"), SourceFormat::Native, Scope::Project)?;
/// let report = validate(&agent, &Settings::default(), &Checks::new().with(GuardrailsCheck::default()));
/// let check = report.checks.iter().find(|c| c.name == "guardrails usable").unwrap();
/// assert!(check.diagnostics[0].to_string().starts_with("a.md:5:5: field `guardrails[0]`: nothing to check"));
/// # Ok::<(), agentctl_definitions::DefinitionError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct GuardrailsCheck {
    validators: ValidatorRegistry,
}

impl GuardrailsCheck {
    /// The check knowing the program's own `validators` (an empty registry by default).
    pub fn new(validators: ValidatorRegistry) -> Self {
        Self { validators }
    }
}

impl SemanticCheck for GuardrailsCheck {
    fn name(&self) -> &'static str {
        "guardrails"
    }

    fn check(&self, agent: &LoadedAgent, stage: CheckStage<'_>) -> Option<Check> {
        let validators = match stage {
            CheckStage::Load => None,
            CheckStage::Validate { .. } => Some(&self.validators),
            // Guardrails name no other agent.
            _ => return None,
        };
        let guardrails = &agent.definition.spec.guardrails;
        if guardrails.is_empty() {
            return None;
        }
        let diagnostics: Vec<Diagnostic> = check_declarations(agent.name(), guardrails, validators)
            .into_iter()
            .map(|problem| agent.diagnostic(Severity::Error, &problem.field, problem.message))
            .collect();
        let note = diagnostics.is_empty().then(|| {
            let names: Vec<&str> = guardrails.iter().map(|g| g.name.as_str()).collect();
            names.join(", ")
        });
        Some(Check::new("guardrails usable", diagnostics, note))
    }
}
