//! The hook contract: what the agent loop asks of the user's hooks (Claude Code's
//! `PreToolUse`, `PostToolUse`, `Stop`, `SubagentStop`) at the points where a run can be
//! steered, and the answers it acts on.
//!
//! The loop knows nothing of commands, matchers or settings files: the session implements
//! [`RunHooks`] and gives it to every run it starts (its own agents, handoff targets, graph
//! nodes and sub-agents alike), so a hook reaches every agent of a tree.
//!
//! A hook can only narrow what a call does: a blocked call never runs; a rewritten call
//! ([`BeforeTool::input`]) goes through the approval gate (deny rules, levels, protected
//! paths) and then the tool's own sandbox as if the model had asked for it; an `allow` lets a
//! call through without a question only where the gate would have asked — never past a deny.

use crate::conversation::ToolCall;
use async_trait::async_trait;
use serde_json::Value;

/// The call a hook sees, before or after it runs.
#[derive(Debug, Clone, Copy)]
pub struct HookCall<'a> {
    /// The agent making the call.
    pub agent: &'a str,
    /// How deep the run is nested (0 for the turn's own agent, 1 for its sub-agents, …).
    pub depth: u32,
    /// The call: id, tool name (agentctl's) and arguments.
    pub call: &'a ToolCall,
}

/// What hooks say about the permission of a call (`hookSpecificOutput.permissionDecision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPermission {
    /// Run without asking a person, where the gate would ask; a denial still stands.
    Allow,
    /// Refuse the call.
    Deny,
    /// Ask a person, even where the gate would run it.
    Ask,
}

/// What the `PreToolUse` hooks decided about a call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeTool {
    /// Refuse the call with this reason (read by the model).
    pub block: Option<String>,
    /// The permission decision of the hooks, with their reason.
    pub permission: Option<(HookPermission, String)>,
    /// Arguments replacing the model's (`updatedInput`).
    pub input: Option<Value>,
    /// Text added to the tool's result for the model (`additionalContext`).
    pub context: Option<String>,
}

/// What the `PostToolUse` hooks said about a call's result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AfterTool {
    /// Feedback for the model, appended to the result (`decision: block` with its `reason`,
    /// or exit code 2 with its stderr).
    pub feedback: Option<String>,
    /// Text added to the result for the model (`additionalContext`).
    pub context: Option<String>,
}

/// What the `Stop` (or `SubagentStop`) hooks decided when the agent was about to finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopVerdict {
    /// The run ends.
    Stop,
    /// The agent goes on with this reason as its next instruction.
    Continue(String),
}

/// The user's hooks, as the agent loop calls them. Every method has a default that does
/// nothing, so an implementation says only what it handles.
#[async_trait]
pub trait RunHooks: Send + Sync {
    /// Before a call meets the approval gate (`PreToolUse`).
    async fn before_tool(&self, call: &HookCall<'_>) -> BeforeTool {
        let _ = call;
        BeforeTool::default()
    }

    /// After a call ran, with its result (`PostToolUse`); `failed` when the result is an error.
    async fn after_tool(&self, call: &HookCall<'_>, result: &str, failed: bool) -> AfterTool {
        let _ = (call, result, failed);
        AfterTool::default()
    }

    /// When the agent gives its final answer (`Stop`; `SubagentStop` at depth > 0).
    /// `continued` is true when the run already went on once because of a stop hook
    /// (`stop_hook_active`): the loop then ends whatever the answer.
    async fn stop(&self, agent: &str, depth: u32, answer: &str, continued: bool) -> StopVerdict {
        let _ = (agent, depth, answer, continued);
        StopVerdict::Stop
    }
}
