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
//! A runtime given no gate uses [`ApprovalPolicy::SafeOnly`]: safe calls run, the rest are
//! refused with a reason the model reads. Trusting every call is the explicit, named
//! [`ApprovalPolicy::TrustEverything`].
//!
//! Hints are data, never wording: each front end says in its own terms what would have let the
//! call run (`--approve` on the command line, `approvals.autoApprove` in settings for an MCP
//! client).

use crate::conversation::ToolCall;
use crate::decision::Decision;
use crate::risk::RiskLevel;
use crate::tool::Tool;
use crate::tool_filter::{ToolFilter, not_allowed};
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

/// The approval policies that need nobody to answer: what a runtime does when it is given no
/// gate of its own, and the explicit choice to trust every call.
///
/// Both apply the agent's tool lists first (a tool it may not use is refused as such) and
/// never ask: [`decide`](CallGate::decide) allows or denies.
///
/// ```
/// use agentctl_core::{ApprovalPolicy, CallGate, PendingCall, RiskLevel, ToolCall, ToolFilter};
/// # use agentctl_core::{Tool, ToolContext, ToolError, ToolOutput};
/// # struct Deploy;
/// # #[async_trait::async_trait]
/// # impl Tool for Deploy {
/// #     fn name(&self) -> &str { "deploy" }
/// #     fn description(&self) -> &str { "Deploys." }
/// #     fn parameters(&self) -> serde_json::Value { serde_json::json!({"type": "object"}) }
/// #     async fn call(&self, _: serde_json::Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
/// #         Ok(ToolOutput::text("deployed"))
/// #     }
/// # }
/// let call = ToolCall { id: "1".into(), name: "deploy".into(), arguments: serde_json::json!({}), signature: None };
/// let filter = ToolFilter::allow_all();
/// let pending = PendingCall { agent: "ops", filter: &filter, call: &call, tool: &Deploy };
/// // A tool that does not state its risk is medium: refused without a policy that trusts it.
/// let refused = ApprovalPolicy::default().decide(&pending);
/// assert_eq!(refused.risk(), RiskLevel::Medium);
/// assert!(refused.denial().unwrap().contains("no approval policy"));
/// assert!(ApprovalPolicy::TrustEverything.decide(&pending).denial().is_none());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApprovalPolicy {
    /// Calls of tools rated [`RiskLevel::Safe`] run; every other call is refused with a reason
    /// the model reads — as the command line does when nobody can be asked. What a runtime
    /// without a gate does: an embedder's own tool that does not state its risk is `medium`,
    /// so it never runs unless trusted.
    #[default]
    SafeOnly,
    /// Every call the agent's tool lists allow runs, whatever its risk: an explicit choice
    /// for tools trusted wholly (tests, a throw-away machine), never a default.
    TrustEverything,
}

impl ApprovalPolicy {
    fn decide_call(self, call: &PendingCall<'_>) -> Decision {
        let name = call.call.name.as_str();
        let risk = call.tool.risk();
        if !call.filter.allows(name) {
            return Decision::deny(risk, not_allowed(name));
        }
        match self {
            ApprovalPolicy::TrustEverything => Decision::allow(
                risk,
                "every call is trusted (ApprovalPolicy::TrustEverything)",
            ),
            ApprovalPolicy::SafeOnly if risk == RiskLevel::Safe => {
                Decision::allow(risk, "safe calls run without an approval policy")
            }
            ApprovalPolicy::SafeOnly => Decision::deny(
                risk,
                format!(
                    "denied: {name} is rated {risk}, and this runtime has no approval policy: \
                     only safe calls run"
                ),
            ),
        }
    }
}

#[async_trait]
impl CallGate for ApprovalPolicy {
    fn decide(&self, call: &PendingCall<'_>) -> Decision {
        self.decide_call(call)
    }

    async fn ask(&self, call: &PendingCall<'_>, _risk: RiskLevel, _reason: &str) -> Decision {
        // `decide` never answers `Ask`; whoever asks anyway gets the same answer.
        self.decide_call(call)
    }
}
