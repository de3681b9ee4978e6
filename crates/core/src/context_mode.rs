//! Which conversation history an agent sees: shared by agent files, run events and trace spans.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which conversation history an agent sees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContextMode {
    /// The agent has its own history.
    #[default]
    Isolated,
    /// The agent sees the main session's history.
    Shared,
    /// Each run gets a fresh workspace; only its summary returns to the timeline.
    Run,
}

impl ContextMode {
    /// The lowercase name used in files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextMode::Isolated => "isolated",
            ContextMode::Shared => "shared",
            ContextMode::Run => "run",
        }
    }
}

impl fmt::Display for ContextMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which of the main conversation's messages a shared agent sees (seed 000's selective
/// sharing, `contextFilter:`). Every list left empty lets everything through; the limits
/// combine (a message must pass each).
///
/// ```
/// use agentctl_core::{ContextFilter, MessageRole};
/// let filter: ContextFilter = serde_json::from_value(serde_json::json!({
///     "agents": ["user", "code-reviewer"], "roles": ["user", "assistant"], "recent": 20
/// }))?;
/// assert!(filter.admits_agent(None) && filter.admits_agent(Some("code-reviewer")));
/// assert!(!filter.admits_agent(Some("planner")));
/// assert!(!filter.admits_role(MessageRole::Tool));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextFilter {
    /// Whose messages: `user` for the person's, else agent names (the `[name]` each message
    /// is tagged with).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// Which kinds: `user`, `assistant` (their text), `tool` (tool calls with their results).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<MessageRole>,
    /// Only the newest this many of the messages that pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recent: Option<u32>,
}

/// A kind of conversation message, as a [`ContextFilter`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MessageRole {
    /// What the person wrote.
    User,
    /// What an agent answered (its text).
    Assistant,
    /// Tool calls and their results.
    Tool,
}

impl ContextFilter {
    /// Whether it lets everything through.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty() && self.roles.is_empty() && self.recent.is_none()
    }

    /// Whether messages of `agent` pass (`None`: the person's).
    pub fn admits_agent(&self, agent: Option<&str>) -> bool {
        self.agents.is_empty()
            || self
                .agents
                .iter()
                .any(|name| name == agent.unwrap_or("user"))
    }

    /// Whether messages of `role` pass.
    pub fn admits_role(&self, role: MessageRole) -> bool {
        self.roles.is_empty() || self.roles.contains(&role)
    }
}
