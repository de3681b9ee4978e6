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
use crate::decision::Decision;
use crate::risk::RiskLevel;
use crate::tool::Tool;
use crate::tool_filter::ToolFilter;
use async_trait::async_trait;

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
