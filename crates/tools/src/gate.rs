//! The gate every tool call passes: risk, policy, then (if needed) the user, with session
//! memory.
//!
//! [`Gate`] implements the runtime's [`CallGate`]: installed with
//! [`Runtime::with_gate`](agentctl_runtime::Runtime::with_gate), it rates each call with its
//! [`RiskClassifier`], applies the [`ApprovalPolicy`], and asks its [`Approver`] when the
//! policy says so. Its [`DecisionRecord`]s become `tool_decision` events; a denial's reason is
//! what the model gets as the tool result.

use crate::approval::{ApprovalPolicy, Decision, approve_hint};
use crate::approver::{ApprovalAnswer, ApprovalRequest, Approver};
use crate::risk::RiskClassifier;
use agentctl_runtime::{
    Assessment, CallGate, DecidedBy, DecisionRecord, PendingCall, RiskLevel, Verdict,
};
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Classifier + policy + approver + what the user said "always" to in this session.
pub struct Gate {
    policy: ApprovalPolicy,
    classifier: RiskClassifier,
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
    /// A gate with the default classifier and an empty session memory.
    pub fn new(policy: ApprovalPolicy, approver: Arc<dyn Approver>) -> Self {
        Self {
            policy,
            classifier: RiskClassifier::new(),
            approver,
            always: Mutex::new(BTreeMap::new()),
        }
    }

    /// Rates calls with `classifier` (e.g. one with the settings' `tools.risk` overrides).
    pub fn with_classifier(mut self, classifier: RiskClassifier) -> Self {
        self.classifier = classifier;
        self
    }

    /// The policy.
    pub fn policy(&self) -> &ApprovalPolicy {
        &self.policy
    }

    /// Decides what can be decided without asking: refused if the agent may not use the
    /// tool, allowed if the policy auto-approves its risk or the user said "always" to the
    /// tool at that risk or higher, refused at once when nobody can be asked.
    pub fn assess_request(&self, request: &ApprovalRequest, allowed_by_agent: bool) -> Assessment {
        let assessment = crate::RiskAssessment::new(request.risk, request.reason.clone());
        let (risk, reason) = match self
            .policy
            .decide(&request.tool, assessment, allowed_by_agent)
        {
            Decision::Allow => {
                return Assessment::Decided(DecisionRecord::by_policy(
                    &request.tool,
                    request.risk,
                    Verdict::Allow,
                    "auto-approved by policy",
                ));
            }
            Decision::Deny { reason } => {
                return Assessment::Decided(DecisionRecord::by_policy(
                    &request.tool,
                    request.risk,
                    Verdict::Deny,
                    reason,
                ));
            }
            Decision::NeedsApproval { risk, reason } => (risk, reason),
        };
        if self.remembered(&request.tool, risk) {
            return Assessment::Decided(record(
                request,
                Verdict::Allow,
                format!("{} was approved for this session", request.tool),
                DecidedBy::User,
            ));
        }
        if !self.approver.is_interactive() {
            let reason = format!(
                "denied: {} needs approval (risk {risk}) and stdin is not a terminal; {}",
                request.tool,
                approve_hint(risk)
            );
            return Assessment::Decided(record(
                request,
                Verdict::Deny,
                reason,
                DecidedBy::NonTerminal,
            ));
        }
        Assessment::Ask { risk, reason }
    }

    /// Asks the approver about a call and remembers an "always".
    pub async fn ask_request(&self, request: &ApprovalRequest) -> DecisionRecord {
        let reason = &request.reason;
        match self.approver.ask(request).await {
            ApprovalAnswer::Yes => record(
                request,
                Verdict::Allow,
                format!("approved by the user ({reason})"),
                DecidedBy::User,
            ),
            ApprovalAnswer::Always => {
                if let Ok(mut always) = self.always.lock() {
                    let level = always.entry(request.tool.clone()).or_insert(request.risk);
                    *level = (*level).max(request.risk);
                }
                record(
                    request,
                    Verdict::Allow,
                    format!("approved by the user for this session ({reason})"),
                    DecidedBy::User,
                )
            }
            ApprovalAnswer::No => record(
                request,
                Verdict::Deny,
                format!(
                    "denied: the user refused {} (risk {}: {reason})",
                    request.tool, request.risk
                ),
                DecidedBy::User,
            ),
        }
    }

    /// [`assess_request`](Self::assess_request), then [`ask_request`](Self::ask_request)
    /// when a person must answer.
    pub async fn check(&self, request: &ApprovalRequest, allowed_by_agent: bool) -> DecisionRecord {
        match self.assess_request(request, allowed_by_agent) {
            Assessment::Decided(record) => record,
            Assessment::Ask { risk, reason } => {
                let asked = ApprovalRequest {
                    risk,
                    reason,
                    ..request.clone()
                };
                self.ask_request(&asked).await
            }
        }
    }

    fn request_for(&self, call: &PendingCall<'_>) -> ApprovalRequest {
        let risk = self.classifier.classify(call.tool, &call.call.arguments);
        ApprovalRequest {
            agent: call.agent.to_owned(),
            tool: call.call.name.clone(),
            risk: risk.level,
            reason: risk.reason,
            arguments: call.call.arguments.clone(),
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

fn record(
    request: &ApprovalRequest,
    decision: Verdict,
    reason: String,
    by: DecidedBy,
) -> DecisionRecord {
    DecisionRecord {
        tool: request.tool.clone(),
        risk: request.risk,
        decision,
        reason,
        by,
    }
}

#[async_trait]
impl CallGate for Gate {
    fn assess(&self, call: &PendingCall<'_>) -> Assessment {
        // The runtime has already applied the agent's allow and deny lists.
        self.assess_request(&self.request_for(call), true)
    }

    async fn ask(&self, call: &PendingCall<'_>, risk: RiskLevel, reason: &str) -> DecisionRecord {
        let request = ApprovalRequest {
            risk,
            reason: reason.to_owned(),
            ..self.request_for(call)
        };
        self.ask_request(&request).await
    }
}
