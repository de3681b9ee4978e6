//! An agent's tool set as `agents tools` (or any front end's tool page) lists it: exactly
//! the tools a run of the agent is offered, each through the policy chain a call meets.

use crate::engine::Session;
use crate::error::SessionError;
use crate::skills::{skills_of, with_skills};
use crate::toolset::McpTools;
use agentctl_core::{AgentDefinition, ToolFilter};
use agentctl_mcp::McpError;
use agentctl_tools::{Gate, ToolListing};

/// An agent's tools, each with the decision a call of it would meet.
#[derive(Debug)]
#[non_exhaustive]
pub struct ToolsListing {
    /// The agent.
    pub agent: AgentDefinition,
    /// Its tools: with [`McpTools::Allowed`] those a run offers, with
    /// [`McpTools::Candidates`] every tool of its servers too, each saying whether it is
    /// allowed.
    pub tools: Vec<ToolListing>,
    /// Servers that could not start, each naming the server and the cause; their tools are
    /// missing.
    pub warnings: Vec<McpError>,
}

impl Session {
    /// Lists the tools of the agent `name` ([`Session::tools`]) with the decision `gate`
    /// (the gate of the session's [`RuntimeBuilder`](crate::RuntimeBuilder)) takes for a
    /// call of each, through the filter a run of the agent gets: its lists and the tools its
    /// declarations bring.
    ///
    /// # Errors
    ///
    /// [`SessionError::Agent`] when there is no runnable agent `name`,
    /// [`SessionError::ToolPolicy`] when its tool lists do not compile.
    pub async fn list_tools(
        &self,
        name: &str,
        which: McpTools,
        gate: &Gate,
    ) -> Result<ToolsListing, SessionError> {
        let agent = self.require_agent(name)?;
        let assembled = self.tools(agent.name(), which).await?;
        let all: Vec<_> = assembled.registry.iter().cloned().collect();
        // The policy a run gets: with the `skill` tool its skills bring.
        let skills = skills_of(&agent, self.skills());
        let offered = with_skills(agent.clone(), &skills);
        let filter =
            ToolFilter::for_agent(&offered.spec).map_err(|source| SessionError::ToolPolicy {
                agent: agent.name().to_owned(),
                source,
            })?;
        let mut tools = gate.list(&filter, &all);
        if which == McpTools::Allowed {
            tools.retain(|tool| tool.allowed);
        }
        Ok(ToolsListing {
            agent,
            tools,
            warnings: assembled.warnings,
        })
    }
}
