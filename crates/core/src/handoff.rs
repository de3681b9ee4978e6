//! Control passing from one agent to another: what a handoff tool asks for, and what the
//! receiving agent is shown of the conversation so far.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the receiving agent of a handoff sees before its brief.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HandoffHistory {
    /// The conversation so far: the main timeline, as a shared agent sees it.
    Full,
    /// The handing-off agent's last answer, summarised in the brief.
    Summary,
    /// Nothing but the brief (reason and payload).
    None,
}

/// A request, from a handoff tool, to give the rest of the run to another agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandoffRequest {
    /// The agent handing off.
    pub from: String,
    /// The agent receiving the work.
    pub to: String,
    /// Why, as the model said.
    pub reason: String,
    /// The data passed along, checked against the handoff's payload schema.
    pub payload: Value,
    /// What the receiving agent sees; `None` means the default of its context mode (shared:
    /// the full history, else the summary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HandoffHistory>,
}
