//! Agents served over MCP (`agentctl mcp serve`): each call is one turn of the named agent (a
//! graph agent runs its graph) in the serve process's session, in `run` context mode (every
//! call starts fresh and hands its answer back to the session's timeline), with nobody to ask
//! about approvals: the session's policy refuses what needs a person, at once.

use crate::engine::{EventMsg, Notice, Session, Target, TurnOptions};
use agentctl_core::{ApprovalHint, ContextMode, GraphEvent, RunEvent, Verdict};
use agentctl_mcp::{AgentInvoker, McpError, ServedAgent, serve_agents_stdio};
use async_trait::async_trait;
use futures_util::StreamExt;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What a served call reports besides its answer: refused calls with their hints, MCP
/// servers that failed. `mcp serve` prints them on stderr (clients show it as a log; stdout
/// carries the protocol).
pub trait ServeLog: Send + Sync {
    /// A tool call of a served agent was refused; `hint` says what would have allowed it.
    fn refused(&self, agent: &str, tool: &str, reason: &str, hint: Option<&ApprovalHint>);
    /// Anything else worth a line.
    fn warning(&self, message: &str);
}

/// Runs served agents as turns of a session.
pub struct ServedAgents {
    session: Session,
    log: Arc<dyn ServeLog>,
}

impl ServedAgents {
    /// Serves the agents of `session`.
    pub fn new(session: Session, log: Arc<dyn ServeLog>) -> Self {
        Self { session, log }
    }

    /// Serves `agents` over MCP on stdin and stdout until the client closes the connection,
    /// each call a turn of this session.
    ///
    /// # Errors
    ///
    /// [`McpError`] when the connection fails.
    pub async fn serve_stdio(self, agents: Vec<ServedAgent>) -> Result<(), McpError> {
        serve_agents_stdio(agents, Arc::new(self)).await
    }

    /// Logs what a served turn's event says the client's user should know.
    fn log(&self, agent: &str, msg: &EventMsg) {
        let run = match msg {
            EventMsg::Run(event) | EventMsg::Graph(GraphEvent::Run { event, .. }) => event,
            EventMsg::Notice(Notice::McpServer(warning)) => {
                self.log.warning(&warning.to_string());
                return;
            }
            _ => return,
        };
        if let RunEvent::ToolDecision {
            name,
            decision: Verdict::Deny,
            reason,
            hint,
            ..
        } = run
        {
            self.log.refused(agent, name, reason, hint.as_ref());
        }
    }
}

#[async_trait]
impl AgentInvoker for ServedAgents {
    async fn invoke(
        &self,
        agent: &str,
        prompt: &str,
        cancel: CancellationToken,
    ) -> Result<String, String> {
        let options = TurnOptions::new()
            .context_mode(ContextMode::Run)
            .cancel(cancel);
        let mut turn = self
            .session
            .turn(Target::Agent(agent.to_owned()), prompt, options);
        while let Some(event) = turn.next().await {
            let outcome = match event.msg {
                EventMsg::TurnFinished(outcome) => outcome,
                msg => {
                    self.log(agent, &msg);
                    continue;
                }
            };
            return outcome
                .result
                .map(|result| result.text)
                .map_err(|error| format!("agent `{agent}` failed: {error}"));
        }
        Err(format!("agent `{agent}` ended without an answer"))
    }
}
