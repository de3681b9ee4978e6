//! The full set of agent-definition checks: `agentctl-definitions` checks syntax and field
//! values, and the crates that own an engine register the rest (guardrail declarations,
//! CEL conditions and memory keys, graphs). Every place that discovers or validates agents —
//! [`Project::discover`](crate::Project::discover), agents defined in code, `agents validate`
//! and `agents list` — uses this set, so they all find the same problems.

use agentctl_definitions::Checks;
use agentctl_guardrails::{GuardrailsCheck, ValidatorRegistry};
use agentctl_routing::RoutingCheck;

/// Every semantic check of agent definitions, in report order: `guardrails usable`, then the
/// routing checks (`when` conditions and memory keys with the field values, `graph valid`).
///
/// ```
/// use agentctl_core::{Scope, Settings, SourceFormat};
/// use std::path::Path;
///
/// let text = "---\nname: a\ndescription: d\nhandoffs:\n  - to: b\n    when: after the fix\n---\nP\n";
/// let agent = agentctl_definitions::parse_str(text, Path::new("a.md"), SourceFormat::Native, Scope::Project)?;
/// let report = agentctl_definitions::validate(&agent, &Settings::default(), &agentctl_session::semantic_checks());
/// assert!(!report.valid);
/// assert!(report.diagnostics().any(|d| d.to_string().starts_with("a.md:6:5: field `handoffs[0].when`: invalid condition")));
/// # Ok::<(), agentctl_definitions::DefinitionError>(())
/// ```
pub fn semantic_checks() -> Checks {
    semantic_checks_with(ValidatorRegistry::new())
}

/// [`semantic_checks`] for a program that registers its own guardrail `validators`: when
/// validating, a `validator:` naming one of them exists.
pub fn semantic_checks_with(validators: ValidatorRegistry) -> Checks {
    Checks::new()
        .with(GuardrailsCheck::new(validators))
        .with(RoutingCheck)
}
