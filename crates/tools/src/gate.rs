//! The gate every tool call passes: policy, then (if needed) the user, with session memory.
//!
//! [`Gate::check`] returns a [`DecisionRecord`] — the final allow or deny, its reason and who
//! decided — that the runtime puts into its event stream. A denial's reason is what the model
//! gets as the tool result; the front end prints a warning line.

use crate::approval::{ApprovalPolicy, Decision, approve_hint};
use crate::approver::{ApprovalAnswer, ApprovalRequest, Approver};
use agentctl_runtime::RiskLevel;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The final outcome of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The call runs.
    Allow,
    /// The call is refused.
    Deny,
}

/// Who decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The agent's tool list or the auto-approve levels.
    Policy,
    /// The user, now or earlier in the session ("always").
    User,
    /// Nobody could be asked: no terminal.
    NonTerminal,
}

/// One decision, serialisable as an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionRecord {
    /// The tool called.
    pub tool: String,
    /// The call's risk.
    pub risk: RiskLevel,
    /// Allow or deny.
    pub decision: Verdict,
    /// Why; for a denial, the text the model receives.
    pub reason: String,
    /// Who decided.
    pub by: DecidedBy,
}

impl DecisionRecord {
    /// True when the call may run.
    pub fn is_allowed(&self) -> bool {
        self.decision == Verdict::Allow
    }

    /// The tool result to give the model instead of running the call, when denied.
    pub fn denial(&self) -> Option<&str> {
        (self.decision == Verdict::Deny).then_some(self.reason.as_str())
    }
}

/// Policy + approver + what the user said "always" to in this session.
pub struct Gate {
    policy: ApprovalPolicy,
    approver: Arc<dyn Approver>,
    /// Tool → highest risk the user approved for the whole session.
    always: Mutex<BTreeMap<String, RiskLevel>>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("policy", &self.policy)
            .field("always", &self.always)
            .finish_non_exhaustive()
    }
}

impl Gate {
    /// A gate with an empty session memory.
    pub fn new(policy: ApprovalPolicy, approver: Arc<dyn Approver>) -> Self {
        Self {
            policy,
            approver,
            always: Mutex::new(BTreeMap::new()),
        }
    }

    /// The policy.
    pub fn policy(&self) -> &ApprovalPolicy {
        &self.policy
    }

    /// Decides one call: refused if the agent may not use the tool, allowed if the policy
    /// auto-approves its risk or the user said "always" to the tool at that risk or higher,
    /// otherwise asked (or refused at once without a terminal).
    pub async fn check(&self, request: &ApprovalRequest, allowed_by_agent: bool) -> DecisionRecord {
        let record = |decision, reason: String, by| DecisionRecord {
            tool: request.tool.clone(),
            risk: request.risk,
            decision,
            reason,
            by,
        };
        let assessment = crate::RiskAssessment::new(request.risk, request.reason.clone());
        let (risk, reason) = match self
            .policy
            .decide(&request.tool, assessment, allowed_by_agent)
        {
            Decision::Allow => {
                return record(
                    Verdict::Allow,
                    "auto-approved by policy".into(),
                    DecidedBy::Policy,
                );
            }
            Decision::Deny { reason } => return record(Verdict::Deny, reason, DecidedBy::Policy),
            Decision::NeedsApproval { risk, reason } => (risk, reason),
        };
        if self.remembered(&request.tool, risk) {
            return record(
                Verdict::Allow,
                format!("{} was approved for this session", request.tool),
                DecidedBy::User,
            );
        }
        if !self.approver.is_interactive() {
            let reason = format!(
                "denied: {} needs approval (risk {risk}) and stdin is not a terminal; {}",
                request.tool,
                approve_hint(risk)
            );
            return record(Verdict::Deny, reason, DecidedBy::NonTerminal);
        }
        match self.approver.ask(request).await {
            ApprovalAnswer::Yes => record(
                Verdict::Allow,
                format!("approved by the user ({reason})"),
                DecidedBy::User,
            ),
            ApprovalAnswer::Always => {
                if let Ok(mut always) = self.always.lock() {
                    let level = always.entry(request.tool.clone()).or_insert(risk);
                    *level = (*level).max(risk);
                }
                record(
                    Verdict::Allow,
                    format!("approved by the user for this session ({reason})"),
                    DecidedBy::User,
                )
            }
            ApprovalAnswer::No => record(
                Verdict::Deny,
                format!(
                    "denied: the user refused {} (risk {risk}: {reason})",
                    request.tool
                ),
                DecidedBy::User,
            ),
        }
    }

    fn remembered(&self, tool: &str, risk: RiskLevel) -> bool {
        self.always
            .lock()
            .ok()
            .and_then(|always| always.get(tool).copied())
            .is_some_and(|approved| risk <= approved)
    }
}
