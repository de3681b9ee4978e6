//! Agents served over MCP (`agentctl mcp serve`): each call is one turn of the named agent in
//! the serve process's session, in `run` context mode (every call starts fresh and hands its
//! answer back to the session's timeline), with nobody to ask about approvals.

use crate::runner::SessionRunner;
use crate::session::SessionHandle;
use agentctl_core::{ApprovalHint, ContextMode, RunEvent, RunOptions, Verdict};
use agentctl_mcp::AgentInvoker;
use async_trait::async_trait;
use futures_util::StreamExt;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What a served call reports besides its answer: refused calls with their hints, MCP
/// servers that failed, turns that could not be saved. `mcp serve` prints them on stderr
/// (clients show it as a log; stdout carries the protocol).
pub trait ServeLog: Send + Sync {
    /// A tool call of a served agent was refused; `hint` says what would have allowed it.
    fn refused(&self, agent: &str, tool: &str, reason: &str, hint: Option<&ApprovalHint>);
    /// Anything else worth a line.
    fn warning(&self, message: &str);
}

/// Runs served agents through the session runner.
pub struct ServedAgents {
    runner: Arc<SessionRunner>,
    session: Option<SessionHandle>,
    log: Arc<dyn ServeLog>,
}

impl ServedAgents {
    /// Serves the agents of `runner`, recording into `session` when given.
    pub fn new(
        runner: Arc<SessionRunner>,
        session: Option<SessionHandle>,
        log: Arc<dyn ServeLog>,
    ) -> Self {
        Self {
            runner,
            session,
            log,
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
        let definition = self
            .runner
            .require_agent(agent)
            .map_err(|error| error.to_string())?;
        let options = RunOptions::new()
            .context_mode(ContextMode::Run)
            .cancel(cancel);
        let (mut conversation, warnings) = self
            .runner
            .conversation(definition, self.session.clone(), options)
            .await
            .map_err(|error| format!("agent `{agent}` not started: {error}"))?;
        for warning in &warnings {
            self.log.warning(&warning.to_string());
        }
        let mut turn = conversation
            .turn(prompt)
            .await
            .map_err(|error| format!("agent `{agent}` not started: {error}"))?;
        while let Some(event) = turn.next().await {
            if let RunEvent::ToolDecision {
                name,
                decision: Verdict::Deny,
                reason,
                hint,
                ..
            } = &event
            {
                self.log.refused(agent, name, reason, hint.as_ref());
            }
        }
        let outcome = turn.finish().await;
        if let Some(error) = &outcome.save_error {
            self.log.warning(&format!(
                "agent `{agent}`: the session could not be saved: {error}"
            ));
        }
        outcome
            .result
            .map(|result| result.text)
            .map_err(|error| format!("agent `{agent}` failed: {error}"))
    }
}
