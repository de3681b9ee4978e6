//! Tool policy shared by `run` and `agents tools`: the built-in tools, the risk classifier
//! with the settings' overrides, and the approval policy from settings and flags.

use crate::args::ApprovalArgs;
use agentctl_core::Settings;
use agentctl_runtime::ToolRegistry;
use agentctl_tools::{ApprovalPolicy, RiskClassifier, register_builtin_tools};

/// The registry of built-in tools.
pub(crate) fn builtin_registry() -> ToolRegistry {
    let mut tools = ToolRegistry::new();
    register_builtin_tools(&mut tools);
    tools
}

/// The classifier with `tools.risk` overrides from the settings.
pub(crate) fn classifier(settings: &Settings) -> anyhow::Result<RiskClassifier> {
    Ok(RiskClassifier::from_settings(settings)?)
}

/// `approvals.autoApprove`, replaced by `--approve` and widened by `--yes`.
pub(crate) fn policy(settings: &Settings, args: &ApprovalArgs) -> anyhow::Result<ApprovalPolicy> {
    let policy = ApprovalPolicy::from_settings(&settings.approvals)?;
    let levels = args
        .approve
        .as_deref()
        .map(ApprovalPolicy::parse_levels)
        .transpose()?;
    Ok(policy.with_cli(levels.as_deref(), args.yes))
}
