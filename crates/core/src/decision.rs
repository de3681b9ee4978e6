//! The one decision about a tool call and its parts: allow, deny (with a reason and a hint for
//! the front end) or ask, and who decided.

use crate::risk::RiskLevel;
use serde::{Deserialize, Serialize};

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
    /// A `PreToolUse` hook of the user's settings or the agent's file.
    Hook,
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
    /// A permission rule (`permissions.ask`, or a `deny` rule the call might meet) asks about
    /// the call every time: only a person who is asked can allow it.
    AskedByRule {
        /// The rule as written.
        rule: String,
    },
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
