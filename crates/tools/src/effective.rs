//! The effective tool set of an agent, for `agentctl agents tools NAME`.

use crate::approval::{ApprovalPolicy, Decision};
use crate::risk::RiskClassifier;
use agentctl_core::AgentDefinition;
use agentctl_runtime::{RiskLevel, Tool, ToolDecision, ToolFilter, ToolPatternError};
use serde::Serialize;
use std::sync::Arc;

/// What a tool call would meet before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EffectiveDecision {
    /// Runs without asking.
    Allow,
    /// Asks the user first.
    Ask,
    /// Refused.
    Deny,
}

/// One tool as an agent sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EffectiveTool {
    /// Tool name.
    pub name: String,
    /// Its risk by name (for `bash`, each command is rated again when called).
    pub risk: RiskLevel,
    /// Whether it changes anything.
    pub mutating: bool,
    /// Whether the agent's allow and deny lists let it through.
    pub allowed: bool,
    /// What a call would meet.
    pub decision: EffectiveDecision,
    /// Why.
    pub reason: String,
}

/// Every tool of `all_tools`, sorted by name, with what `agent` may do with it.
pub fn effective_tools(
    agent: &AgentDefinition,
    all_tools: &[Arc<dyn Tool>],
    classifier: &RiskClassifier,
    policy: &ApprovalPolicy,
) -> Result<Vec<EffectiveTool>, ToolPatternError> {
    let filter = ToolFilter::new(&agent.spec.tools)?;
    let mut tools: Vec<EffectiveTool> = all_tools
        .iter()
        .map(|tool| {
            let name = tool.name();
            let allowed = filter.decide(name) == ToolDecision::Allow;
            let mut risk = classifier.tool_risk(name, tool.risk());
            if name == "bash" {
                risk.reason = format!("{}; each command is rated when called", risk.reason);
            }
            let level = risk.level;
            let (decision, reason) = match policy.decide(name, risk, allowed) {
                Decision::Allow => (
                    EffectiveDecision::Allow,
                    format!("{level} is auto-approved"),
                ),
                Decision::Deny { reason } => (EffectiveDecision::Deny, reason),
                Decision::NeedsApproval { reason, .. } => (EffectiveDecision::Ask, reason),
            };
            EffectiveTool {
                name: name.to_owned(),
                risk: level,
                mutating: tool.is_mutating(),
                allowed,
                decision,
                reason,
            }
        })
        .collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(tools)
}
