//! The hook through which an approval policy sees every tool call before it runs.
//!
//! The agent loop asks a [`CallGate`] in two steps so that front ends can show the question:
//! [`CallGate::assess`] decides what it can without a person (allow, deny, or "ask"); for
//! "ask" the loop emits `approval_requested` and then awaits [`CallGate::ask`]. Every final
//! outcome is a [`DecisionRecord`] and becomes a `tool_decision` event.
//!
//! A runtime without a gate runs every call the agent's allow and deny lists let through; the
//! `agentctl-tools` crate provides the gate with risk levels and approvals.

use crate::tool::{RiskLevel, Tool};
use agentctl_core::ToolCall;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// A call the model asked for, as the gate sees it.
#[derive(Clone, Copy)]
pub struct PendingCall<'a> {
    /// The agent making the call.
    pub agent: &'a str,
    /// The call: id, tool name and arguments.
    pub call: &'a ToolCall,
    /// The tool that would run.
    pub tool: &'a dyn Tool,
}

impl std::fmt::Debug for PendingCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingCall")
            .field("agent", &self.agent)
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

/// The final outcome of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The call runs.
    Allow,
    /// The call is refused.
    Deny,
}

/// Who decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The agent's tool list or the auto-approve levels.
    Policy,
    /// The user, now or earlier in the session ("always").
    User,
    /// Nobody could be asked: no terminal.
    NonTerminal,
}

/// One decision about one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// The tool called.
    pub tool: String,
    /// The call's risk.
    pub risk: RiskLevel,
    /// Allow or deny.
    pub decision: Verdict,
    /// Why; for a denial, the text the model receives as the tool result.
    pub reason: String,
    /// Who decided.
    pub by: DecidedBy,
}

impl DecisionRecord {
    /// A decision made by policy, without asking anybody.
    pub fn by_policy(
        tool: impl Into<String>,
        risk: RiskLevel,
        decision: Verdict,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            tool: tool.into(),
            risk,
            decision,
            reason: reason.into(),
            by: DecidedBy::Policy,
        }
    }

    /// True when the call may run.
    pub fn is_allowed(&self) -> bool {
        self.decision == Verdict::Allow
    }

    /// The tool result to give the model instead of running the call, when denied.
    pub fn denial(&self) -> Option<&str> {
        (self.decision == Verdict::Deny).then_some(self.reason.as_str())
    }
}

/// What a gate can say without asking anybody.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assessment {
    /// Decided: run or refuse.
    Decided(DecisionRecord),
    /// A person must answer; `reason` says why the call is that risky.
    Ask {
        /// The call's risk.
        risk: RiskLevel,
        /// Why it is that risky.
        reason: String,
    },
}

/// Decides whether tool calls run: policy first, then (if needed) a person.
#[async_trait]
pub trait CallGate: Send + Sync {
    /// Decides what can be decided without asking (never blocks).
    fn assess(&self, call: &PendingCall<'_>) -> Assessment;

    /// Asks a person about a call [`assess`](CallGate::assess) answered with
    /// [`Assessment::Ask`]. Implementations without a person must refuse at once.
    async fn ask(&self, call: &PendingCall<'_>, risk: RiskLevel, reason: &str) -> DecisionRecord;
}
