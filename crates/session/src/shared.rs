//! What a session runner and its conversations share: the agents, the MCP servers and the
//! runtime builder. A conversation needs them to start the agent a handoff passes control to.

use crate::builder::RuntimeBuilder;
use crate::error::SessionError;
use crate::session::SessionHandle;
use crate::store::StoreSpec;
use crate::task::TaskTool;
use crate::toolset::{
    AgentTools, BuiltinTools, McpTools, agent_tools_sharing, builtin_tool_set, handoff_tools,
    long_term_memory_tools, with_agent_pool,
};
use agentctl_core::{AgentDefinition, AgentsSettings};
use agentctl_definitions::Discovery;
use agentctl_mcp::{McpError, McpManager};
use agentctl_runtime::Runtime;
use agentctl_tools::BuiltinToolsConfig;
use agentctl_trace::Tracing;
use std::path::PathBuf;

/// What the runner and its conversations share: conversations need it to start the agents a
/// handoff passes control to.
pub(crate) struct Shared {
    pub(crate) builder: RuntimeBuilder,
    pub(crate) builtin: BuiltinToolsConfig,
    pub(crate) discovery: Discovery,
    pub(crate) agents: Vec<AgentDefinition>,
    pub(crate) mcp: McpManager,
    /// Where the embedded session store is (traces and long-term memory live beside it,
    /// whichever store holds the sessions); `None` for agents defined in code without a
    /// project.
    pub(crate) store_path: Option<PathBuf>,
    /// The session store; `None` for agents defined in code without a project.
    pub(crate) store: Option<StoreSpec>,
    pub(crate) settings: AgentsSettings,
    /// The tracing backends and the decision, per turn, whether it is traced.
    pub(crate) tracing: Tracing,
}

/// An agent ready to run: its definition (with the agent pool when it delegates), its runtime
/// and the warnings met while assembling its tools.
pub(crate) struct Prepared {
    pub agent: AgentDefinition,
    pub runtime: Runtime,
    pub warnings: Vec<McpError>,
    /// Its built-in tools, for the agents a handoff passes control to.
    pub builtin: BuiltinTools,
}

impl Shared {
    pub(crate) fn require_agent(&self, name: &str) -> Result<AgentDefinition, SessionError> {
        Ok(self.discovery.require(name)?.definition.clone())
    }

    /// Handoffs one run may make.
    pub(crate) fn max_handoffs(&self) -> u32 {
        self.settings.max_handoffs
    }

    pub(crate) async fn tools(
        &self,
        agent: &AgentDefinition,
        session: Option<&SessionHandle>,
        which: McpTools,
    ) -> AgentTools {
        let builtin = builtin_tool_set(&self.builtin);
        self.tools_sharing(&builtin, agent, session, which).await
    }

    /// [`tools`](Self::tools) with the built-in tools given.
    async fn tools_sharing(
        &self,
        builtin: &BuiltinTools,
        agent: &AgentDefinition,
        session: Option<&SessionHandle>,
        which: McpTools,
    ) -> AgentTools {
        let task = session.map(|session| {
            TaskTool::new(session.dyn_store(), session.id(), self.agents.clone())
                .with_orchestrator_note(self.settings.orchestrator_note.clone())
        });
        let mut tools = agent_tools_sharing(builtin, &self.mcp, agent, which, task).await;
        for tool in handoff_tools(agent, &self.agents, session) {
            tools.registry.register_arc(tool);
        }
        // Long-term memory outlives sessions: offered whenever there is a project store.
        // An unusable store URL is reported when a session opens; here it only means no memory.
        if let Some(location) = self.store.as_ref().and_then(|spec| spec.location().ok())
            && let Some(memory) = long_term_memory_tools(agent, &location, &self.builder)
        {
            memory.register(&mut tools.registry);
        }
        tools
    }

    /// Assembles `agent`'s tools — with `builtin`, the built-in tools of the conversation a
    /// handoff passes control in, else new ones — and builds its runtime.
    pub(crate) async fn prepare(
        &self,
        agent: AgentDefinition,
        session: Option<&SessionHandle>,
        builtin: Option<BuiltinTools>,
    ) -> Result<Prepared, SessionError> {
        let builtin = builtin.unwrap_or_else(|| builtin_tool_set(&self.builtin));
        let AgentTools { registry, warnings } = self
            .tools_sharing(&builtin, &agent, session, McpTools::Allowed)
            .await;
        let agent = if session.is_some() {
            with_agent_pool(
                agent,
                &self.agents,
                self.settings.orchestrator_note.as_deref(),
            )
        } else {
            agent
        };
        let runtime = self.builder.build(registry)?;
        Ok(Prepared {
            agent,
            runtime,
            warnings,
            builtin,
        })
    }
}
