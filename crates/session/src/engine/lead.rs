//! What starts an agent's part of a turn ([`Lead`]) and how it ended ([`AgentOutcome`]): the
//! terms the turn, a graph node and the agent runner share.

use super::events::Frame;
use crate::error::SessionError;
use agentctl_core::{AgentDefinition, ContextMode, RunResult, TraceContext};
use agentctl_store::{RunId, Source};

/// The first agent of a turn (or of a graph node) and how it runs.
pub(crate) struct Lead {
    pub agent: AgentDefinition,
    /// The user's prompt, expanded (a node's prompt for a graph node).
    pub prompt: String,
    /// The main conversation.
    pub main: bool,
    /// The first agent's context mode, over everything else.
    pub flag: Option<ContextMode>,
    /// The first agent's model, over its own.
    pub model: Option<String>,
    /// Its events are the turn's own, or a graph node's.
    pub frame: Frame,
    /// The span its runs hang under (a graph node's), else the turn's own root.
    pub trace: Option<TraceContext>,
    /// Where its runs are recorded as coming from, over the session's (`graph` for a node).
    pub source: Option<Source>,
}

/// How an agent's part of a turn ended.
pub(crate) struct AgentOutcome {
    /// The last run's result; the turn's failure, or a store error.
    pub result: Result<RunResult, SessionError>,
    /// The agents that worked, in order.
    pub agents: Vec<String>,
    /// The first run's store id.
    pub first_run: Option<RunId>,
}
