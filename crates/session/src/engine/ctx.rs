//! What the runs of one turn share ([`TurnCtx`]); built by the turn ([`TurnCtx::new`]) or, for a
//! graph agent run as a sub-agent, by the sub-agent runner.

use super::approvals::TurnGate;
use super::events::Sink;
use super::protocol::TurnOptions;
use super::state::Engine;
use agentctl_core::SubAgentRunner;
use agentctl_tools::ApprovalRequest;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Everything the runs of one turn share: the session, where the events go, the token that
/// cancels the turn, its gate (questions come back to this turn) and its sub-agent runner.
pub(crate) struct TurnCtx {
    pub(crate) engine: Arc<Engine>,
    pub(crate) sink: Sink,
    pub(crate) cancel: CancellationToken,
    pub(crate) gate: Arc<TurnGate>,
    pub(crate) sub_agents: Arc<dyn SubAgentRunner>,
    /// The questions of the turn's runs (and sub-agents), for the driver to send once the
    /// events before them are out.
    pub(crate) questions: mpsc::UnboundedReceiver<ApprovalRequest>,
    pub(crate) options: TurnOptions,
}

impl TurnCtx {
    /// The context of a parallel graph branch: the turn's engine, sink, gate, sub-agent
    /// runner and options, and a cancel token of its own under the turn's (a `join: any`
    /// stops the branches it does not wait for). Its questions reach the turn through the
    /// shared gate, whose channel the branch's driver listens to.
    pub(crate) fn branch(&self) -> TurnCtx {
        // Nobody sends on this channel: the turn's gate carries the questions.
        let (_, questions) = mpsc::unbounded_channel();
        TurnCtx {
            engine: Arc::clone(&self.engine),
            sink: self.sink.clone(),
            cancel: self.cancel.child_token(),
            gate: Arc::clone(&self.gate),
            sub_agents: Arc::clone(&self.sub_agents),
            questions,
            options: self.options.clone(),
        }
    }
}
