//! The approval contract: how a policy sees every tool call before it runs, and the one
//! decision type it answers with.
//!
//! The agent loop asks a [`CallGate`] in two steps so that front ends can show the question:
//! [`CallGate::decide`] answers what it can without a person — [`Decision::Allow`],
//! [`Decision::Deny`] (with a reason for the model and an optional [`ApprovalHint`] for the
//! user), or [`Decision::Ask`]; for `Ask` the loop emits `approval_requested` and then awaits
//! [`CallGate::ask`], which answers `Allow` or `Deny`. Every final decision becomes a
//! `tool_decision` event.
//!
//! Hints are data, never wording: each front end says in its own terms what would have let the
//! call run (`--approve` on the command line, `approvals.autoApprove` in settings for an MCP
//! client).

use crate::conversation::ToolCall;
use crate::tool::{RiskLevel, Tool};
use crate::tool_registry::ToolFilter;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// A call the model asked for, as the gate sees it.
#[derive(Clone, Copy)]
pub struct PendingCall<'a> {
    /// The agent making the call.
    pub agent: &'a str,
    /// The agent's compiled tool allow and deny lists.
    pub filter: &'a ToolFilter,
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
    /// The agent's tool list, the protected paths or the auto-approve levels.
    Policy,
    /// The user, now or earlier in the session ("always").
    User,
    /// Nobody could be asked: no terminal, or a front end without a person (an MCP client).
    NonTerminal,
}

/// What would have let a refused call run, for the front end to word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovalHint {
    /// Auto-approving `levels` (the levels approved now plus the call's) lets it run.
    ApproveLevels {
        /// Every level to approve, lowest first: pass all of them, not only the new one.
        levels: Vec<RiskLevel>,
    },
    /// The call touches a protected path: no auto-approve level covers it; only a person who
    /// is asked can allow it.
    AskAPerson,
}

/// The one decision about a tool call, from the one policy chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// The call runs.
    Allow {
        /// The call's risk.
        risk: RiskLevel,
        /// Why it may run (`safe is auto-approved`, `approved by the user`).
        reason: String,
        /// Who decided.
        by: DecidedBy,
    },
    /// The call is refused; the model reads `reason` as the tool result.
    Deny {
        /// The call's risk.
        risk: RiskLevel,
        /// Why, for the model and the user (no front-end wording such as flag names).
        reason: String,
        /// Who decided.
        by: DecidedBy,
        /// What would have let it run, for the front end to word.
        hint: Option<ApprovalHint>,
    },
    /// A person must answer.
    Ask {
        /// The call's risk.
        risk: RiskLevel,
        /// Why it is that risky.
        reason: String,
    },
}

impl Decision {
    /// An allow decided by policy.
    pub fn allow(risk: RiskLevel, reason: impl Into<String>) -> Self {
        Decision::Allow {
            risk,
            reason: reason.into(),
            by: DecidedBy::Policy,
        }
    }

    /// A denial decided by policy, without a hint.
    pub fn deny(risk: RiskLevel, reason: impl Into<String>) -> Self {
        Decision::Deny {
            risk,
            reason: reason.into(),
            by: DecidedBy::Policy,
            hint: None,
        }
    }

    /// The call's risk.
    pub fn risk(&self) -> RiskLevel {
        match self {
            Decision::Allow { risk, .. }
            | Decision::Deny { risk, .. }
            | Decision::Ask { risk, .. } => *risk,
        }
    }

    /// Why.
    pub fn reason(&self) -> &str {
        match self {
            Decision::Allow { reason, .. }
            | Decision::Deny { reason, .. }
            | Decision::Ask { reason, .. } => reason,
        }
    }

    /// `Some(verdict)` once decided, `None` for [`Decision::Ask`].
    pub fn verdict(&self) -> Option<Verdict> {
        match self {
            Decision::Allow { .. } => Some(Verdict::Allow),
            Decision::Deny { .. } => Some(Verdict::Deny),
            Decision::Ask { .. } => None,
        }
    }

    /// The text the model reads instead of running the call, when denied.
    pub fn denial(&self) -> Option<&str> {
        match self {
            Decision::Deny { reason, .. } => Some(reason),
            _ => None,
        }
    }
}

/// Decides whether tool calls run: policy first, then (if needed) a person.
#[async_trait]
pub trait CallGate: Send + Sync {
    /// Decides what can be decided without asking (never blocks).
    fn decide(&self, call: &PendingCall<'_>) -> Decision;

    /// Asks a person about a call [`decide`](CallGate::decide) answered with
    /// [`Decision::Ask`]; answers [`Decision::Allow`] or [`Decision::Deny`]. Implementations
    /// without a person must refuse at once.
    async fn ask(&self, call: &PendingCall<'_>, risk: RiskLevel, reason: &str) -> Decision;
}
