//! What a person is asked about a call the policy chain leaves to them ([`ApprovalRequest`]),
//! and their answer ([`ApprovalAnswer`]). Who asks is the caller's business: a session sends the
//! question to its front end as an event and hands the answer to [`Gate::answer`](crate::Gate::answer).

use agentctl_core::RiskLevel;
use serde::Serialize;
use serde_json::Value;

/// A call waiting for the user's decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovalRequest {
    /// The call's id (the model's, unless a front end had to tell two pending calls apart).
    pub call_id: String,
    /// The agent making the call.
    pub agent: String,
    /// The tool called.
    pub tool: String,
    /// The call's risk.
    pub risk: RiskLevel,
    /// Why it is that risky.
    pub reason: String,
    /// The model's arguments.
    pub arguments: Value,
}

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalAnswer {
    /// Run this call.
    Once,
    /// Run this call and further calls of the tool up to this risk, for the rest of the
    /// session (never for a call that changes a protected path, which is asked every time).
    AlwaysThisSession,
    /// Refuse this call.
    Deny,
}
