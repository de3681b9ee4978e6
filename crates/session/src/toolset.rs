//! The tools an agent gets: the built-in tools, the MCP tools of the servers it names, the
//! session's `task` tool (and `memory_get`/`memory_set` for agents that declare
//! `memory.session` keys), `handoff_to_<agent>` for its `handoffs:`, `remember`/`recall` for
//! agents that declare `memory.longTerm`, and for agents that may delegate, the agent pool in
//! their prompt.
//!
//! Which of them a run offers is the agent's [`ToolFilter::for_agent`]: its allow and deny
//! lists, plus what its declarations (handoffs, memory) bring whatever the allow list says —
//! a deny still removes those. `task` is declared by nothing: an agent gets it from its tool
//! lists. [`Session::tools`](crate::Session::tools) is the one assembly, used by runs
//! and by `agents tools` alike.

use crate::builder::RuntimeBuilder;
use crate::capability::ResourcePool;
use crate::session::SessionHandle;
use crate::state::when_check;
use crate::store_location::StoreLocation;
use crate::task::TaskTool;
use agentctl_core::Tool;
use agentctl_core::{AgentDefinition, ToolFilter, ToolRegistry};
use agentctl_mcp::{McpError, McpManager};
use agentctl_memory::LongTermTools;
use agentctl_routing::{HandoffTool, MemoryTools};
use agentctl_tools::{BuiltinToolsConfig, register_builtin_tools};
use std::sync::Arc;

/// Which MCP tools an agent's tool set holds
/// ([`Session::tools`](crate::Session::tools)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpTools {
    /// Those the agent's allow and deny lists let through (what a run offers).
    Allowed,
    /// Every tool of the servers the agent names (for listings of refused tools too).
    Candidates,
}

/// An agent's tool set and the warnings met while assembling it.
#[derive(Debug, Default)]
pub struct AgentTools {
    /// The tools.
    pub registry: ToolRegistry,
    /// Servers that could not start, each naming the server and the cause; their tools are
    /// missing and everything else works.
    pub warnings: Vec<McpError>,
}

/// The built-in tools configured by `builtin`, built once to be shared by the agents of one
/// conversation (see [`agent_tools_sharing`]).
pub(crate) fn builtin_tool_set(builtin: &BuiltinToolsConfig) -> BuiltinTools {
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, builtin);
    registry.iter().cloned().collect::<Vec<_>>().into()
}

/// The built-in tools given (configured by the settings: sandbox, environment, time limits)
/// plus the MCP tools of the servers `agent` names (starting those servers), plus `task` when
/// given (with, in its session, the memory tools of an agent that declares `memory.session`
/// keys). The agents a handoff passes control to share the conversation's built-in tools (one `bash` temp dir per conversation, removed, and its lingering
/// background jobs killed, when the conversation ends), so a switch builds none.
pub(crate) async fn agent_tools_sharing(
    builtin: &BuiltinTools,
    manager: &McpManager,
    agent: &AgentDefinition,
    which: McpTools,
    task: Option<TaskTool>,
) -> AgentTools {
    let mut registry = ToolRegistry::new();
    for tool in builtin.iter() {
        registry.register_arc(Arc::clone(tool));
    }
    add_agent_tools(registry, manager, agent, which, task).await
}

/// The built-in tools of one conversation, shared by the agents it passes through.
pub(crate) type BuiltinTools = Arc<[Arc<dyn Tool>]>;

/// Adds to `registry` (the built-in tools) the MCP tools of the servers `agent` names and
/// `task` with its session memory tools.
async fn add_agent_tools(
    mut registry: ToolRegistry,
    manager: &McpManager,
    agent: &AgentDefinition,
    which: McpTools,
    task: Option<TaskTool>,
) -> AgentTools {
    let (tools, warnings) = match which {
        McpTools::Allowed => manager.tools_for_agent(agent).await,
        McpTools::Candidates => manager.candidate_tools_for_agent(agent).await,
    };
    for tool in tools {
        registry.register_arc(tool);
    }
    if let Some(task) = task {
        if let Some(memory) = memory_tools(agent, &task) {
            memory.register(&mut registry);
        }
        registry.register_typed(task);
    }
    AgentTools { registry, warnings }
}

/// The `handoff_to_<agent>` tools of `agent`'s `handoffs:` entries. A target that is not among
/// `agents` still gets its tool: a call explains there is no such agent, so the model adapts.
pub(crate) fn handoff_tools(
    agent: &AgentDefinition,
    agents: &[AgentDefinition],
    session: Option<&SessionHandle>,
) -> Vec<Arc<dyn Tool>> {
    let names: Vec<String> = agents.iter().map(|other| other.name().to_owned()).collect();
    agent
        .spec
        .handoffs
        .iter()
        .map(|spec| {
            let target = agents.iter().find(|other| other.name() == spec.to);
            let description = target.map(|target| {
                target
                    .spec
                    .description
                    .clone()
                    .or_else(|| target.spec.title.clone())
                    .unwrap_or_default()
            });
            let when = session.map(|session| when_check(session, agent.name()));
            Arc::new(HandoffTool::new(
                spec.clone(),
                description.as_deref(),
                names.clone(),
                when,
            )) as Arc<dyn Tool>
        })
        .collect()
}

/// Session state: `memory_get`/`memory_set` for the keys `agent` declares in `memory.session`,
/// in the session (and store) the `task` tool records into; `None` when it declares none.
fn memory_tools(agent: &AgentDefinition, task: &TaskTool) -> Option<MemoryTools> {
    let keys = &agent.spec.memory.as_ref()?.session;
    if keys.is_empty() {
        return None;
    }
    let (store, session) = task.session_store();
    let store: std::sync::Arc<dyn agentctl_store::StateLog> = store.clone();
    Some(MemoryTools::new(
        store,
        session.to_owned(),
        agent.name().to_owned(),
        keys.clone(),
    ))
}

/// `remember` and `recall` of an agent that declares `memory.longTerm`, over the long-term
/// memory of the session store at `sessions` (`memory.db` beside a SQLite file, or the same
/// PostgreSQL database; see [`StoreLocation::memory`]), opened on first use, masking
/// `builder`'s secrets;
/// with `backend: vector_store`, its embedding model built like the runtimes' providers — one
/// that cannot be built (no key) leaves keyword search, and each answer says why.
pub(crate) fn long_term_memory_tools(
    agent: &AgentDefinition,
    sessions: &StoreLocation,
    builder: &RuntimeBuilder,
) -> Option<LongTermTools> {
    let long_term = agent.spec.memory.as_ref()?.long_term.as_ref()?;
    let memory = sessions.memory();
    let secrets = builder.secrets().clone();
    let tightened = builder.tightened_files().clone();
    let tools = LongTermTools::opened_with(
        move || {
            memory
                .open_memory(secrets.clone(), true, &tightened)?
                .ok_or_else(|| {
                    agentctl_memory::MemoryError::Invalid(format!(
                        "the long-term memory store {memory} could not be opened"
                    ))
                })
        },
        agent.name(),
    );
    Some(match long_term.embedding_model() {
        None => tools,
        Some(model) => match builder.embedder(model) {
            Ok(embedder) => tools.with_embedder(embedder),
            Err(error) => tools.embedder_unavailable(error.to_string()),
        },
    })
}

/// An agent that may delegate with `task` gets the pool of agents it can delegate to (their
/// status and the capabilities their tools give them), the capability catalog and `note` (the
/// settings' `agents.orchestratorNote`) at the end of its system prompt — seed 004's
/// capability context as it stands when the conversation starts; each task's executor gets
/// the context of its own dispatch. Other agents are returned as they are.
pub(crate) fn with_agent_pool(
    mut agent: AgentDefinition,
    agents: &[AgentDefinition],
    note: Option<&str>,
) -> AgentDefinition {
    let delegates =
        ToolFilter::for_agent(&agent.spec).is_ok_and(|filter| filter.allows(TaskTool::NAME));
    if !delegates {
        return agent;
    }
    let pool =
        ResourcePool::from_agents(agents.iter().filter(|other| other.name() != agent.name()));
    let mut context = pool.build_agent_context(None);
    context.orchestrator_note = note.map(str::to_owned);
    agent.system_prompt = format!(
        "{}\n\n# Delegation\n\nThe `task` tool hands a goal to one of these agents (its `agent` argument, \
or the `capabilities` the task needs), or to a copy of yourself when none fits.\n\n{}",
        agent.system_prompt.trim_end(),
        context.render_markdown()
    );
    agent
}
