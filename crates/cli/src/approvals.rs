//! Tool set and policy shared by `run`, `agents tools` and `mcp serve`: the built-in tools plus
//! an agent's MCP tools, the risk classifier with the settings' overrides, and the approval
//! policy from settings and flags.

use crate::args::ApprovalArgs;
use agentctl_core::{AgentDefinition, Settings};
use agentctl_mcp::McpManager;
use agentctl_runtime::ToolRegistry;
use agentctl_tools::{ApprovalPolicy, Approver, Gate, RiskClassifier, register_builtin_tools};
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

/// The registry of built-in tools.
pub(crate) fn builtin_registry() -> ToolRegistry {
    let mut tools = ToolRegistry::new();
    register_builtin_tools(&mut tools);
    tools
}

/// Which MCP tools [`agent_registry`] adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum McpTools {
    /// Those the agent's allow and deny lists let through.
    Allowed,
    /// Every tool of the servers the agent names (for listings of refused tools too).
    Candidates,
}

/// The built-in tools plus the MCP tools of the servers `agent` names, starting those servers.
/// A server that cannot start is a warning on stderr (naming it and the cause); its tools are
/// missing and everything else works.
pub(crate) async fn agent_registry(
    manager: &McpManager,
    agent: &AgentDefinition,
    which: McpTools,
) -> ToolRegistry {
    let mut registry = builtin_registry();
    let (tools, warnings) = match which {
        McpTools::Allowed => manager.tools_for_agent(agent).await,
        McpTools::Candidates => manager.candidate_tools_for_agent(agent).await,
    };
    let mut err = std::io::stderr().lock();
    for warning in warnings {
        let _ = writeln!(err, "warning: {warning}");
    }
    for tool in tools {
        registry.register_arc(tool);
    }
    registry
}

/// The classifier with `tools.risk` overrides from the settings.
pub(crate) fn classifier(settings: &Settings) -> anyhow::Result<RiskClassifier> {
    Ok(RiskClassifier::from_settings(settings)?)
}

/// The approval gate of the settings and flags, asking `approver` when a call needs a yes;
/// `bash` commands are rated as run in `root`.
pub(crate) fn gate(
    settings: &Settings,
    args: &ApprovalArgs,
    approver: Arc<dyn Approver>,
    root: &Path,
) -> anyhow::Result<Gate> {
    let classifier = classifier(settings)?.with_project_root(root);
    Ok(Gate::new(policy(settings, args)?, approver).with_classifier(classifier))
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
