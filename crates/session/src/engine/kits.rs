//! Each agent's own tool set, assembled once per session: the built-in tools (one set for the
//! whole session), the MCP tools of the servers the agent names (started on first use), its
//! handoff tools, the session's `task` tool and session memory, its long-term memory and the
//! embedder's tools; and its memory folder (`memory: project`), created and granted to it
//! alone. A sub-agent or a handoff target gets its own kit, never its caller's.

use super::locking::lock;
use crate::memory_folder::{MemoryFolderWarning, open_memory_folder, with_memory_section};
use crate::plan::PlanTools;
use crate::session::SessionHandle;
use crate::shared::Shared;
use crate::skills::{SkillTool, skills_of, with_skills};
use crate::task::TaskTool;
use crate::toolset::{
    AgentTools, BuiltinTools, McpTools, agent_tools_sharing, handoff_tools, long_term_memory_tools,
    with_agent_pool,
};
use agentctl_core::{AgentDefinition, InstructionsMode};
use agentctl_mcp::McpError;
use agentctl_runtime::Toolbox;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::OnceCell;

/// An agent ready to run in the session.
#[derive(Debug)]
pub(crate) struct Kit {
    /// Its definition, the agent pool at the end of its prompt when it may delegate.
    pub agent: AgentDefinition,
    /// Its tools.
    pub toolbox: Toolbox,
    /// The prompt section of its memory folder, when it has one.
    pub memory: Option<String>,
}

/// What assembling a kit met: the agent runs without what failed.
#[derive(Debug)]
pub(crate) enum KitWarning {
    /// An MCP server the agent names could not start.
    Mcp(McpError),
    /// Its memory folder could not be set up.
    MemoryFolder(MemoryFolderWarning),
}

impl From<KitWarning> for super::protocol::Notice {
    fn from(warning: KitWarning) -> Self {
        match warning {
            KitWarning::Mcp(error) => Self::McpServer(error),
            KitWarning::MemoryFolder(warning) => Self::MemoryFolder(warning),
        }
    }
}

/// The kits built so far, by agent name.
#[derive(Default)]
pub(crate) struct Kits {
    cells: Mutex<HashMap<String, Arc<OnceCell<Arc<Kit>>>>>,
}

/// What assembling a kit needs from the session.
pub(crate) struct KitParts<'a> {
    pub shared: &'a Shared,
    pub builtin: &'a BuiltinTools,
    pub session: Option<&'a SessionHandle>,
    pub task: Option<&'a TaskTool>,
    pub plan: &'a PlanTools,
}

impl Kits {
    /// The kit of `agent`, assembled on first use; the warnings are those of the assembly that
    /// happened now (servers that could not start), empty when the kit was built before.
    pub(crate) async fn get(
        &self,
        agent: &AgentDefinition,
        parts: KitParts<'_>,
    ) -> (Arc<Kit>, Vec<KitWarning>) {
        let cell = Arc::clone(
            lock(&self.cells)
                .entry(agent.name().to_owned())
                .or_default(),
        );
        let mut warnings = Vec::new();
        let kit = cell
            .get_or_init(|| async {
                let (kit, met) = assemble(agent, &parts).await;
                warnings = met;
                Arc::new(kit)
            })
            .await;
        (Arc::clone(kit), warnings)
    }
}

/// Assembles `agent`'s kit.
async fn assemble(agent: &AgentDefinition, parts: &KitParts<'_>) -> (Kit, Vec<KitWarning>) {
    let AgentTools { registry, warnings } = assemble_tools(agent, parts, McpTools::Allowed).await;
    let mut warnings: Vec<KitWarning> = warnings.into_iter().map(KitWarning::Mcp).collect();
    let shared = parts.shared;
    let memory = open_memory_folder(agent, &shared.memory_places, shared.builtin.read_grants())
        .unwrap_or_else(|warning| {
            warnings.push(KitWarning::MemoryFolder(warning));
            None
        });
    let definition = with_memory_section(
        with_instructions(
            with_skills(agent.clone(), &skills_of(agent, &shared.skills)),
            shared.instructions.as_deref(),
        ),
        memory.as_deref(),
    );
    let definition = if parts.session.is_some() {
        with_agent_pool(
            definition,
            &shared.agents,
            shared.settings.orchestrator_note.as_deref(),
        )
    } else {
        definition
    };
    let kit = Kit {
        agent: definition,
        toolbox: Toolbox::new(registry),
        memory,
    };
    (kit, warnings)
}

/// `agent` with the project instructions after its own prompt, unless its file says
/// `instructions: none`.
pub(crate) fn with_instructions(
    mut agent: AgentDefinition,
    section: Option<&str>,
) -> AgentDefinition {
    if let Some(section) = section
        && agent.spec.instructions != Some(InstructionsMode::None)
    {
        agent.system_prompt = format!("{}\n\n{section}", agent.system_prompt.trim_end());
    }
    agent
}

/// The tools of `agent`'s kit, with the MCP tools `which` says: the one assembly, for runs
/// and for listings ([`Session::tools`](crate::Session::tools)) alike.
pub(crate) async fn assemble_tools(
    agent: &AgentDefinition,
    parts: &KitParts<'_>,
    which: McpTools,
) -> AgentTools {
    let shared = parts.shared;
    let AgentTools {
        mut registry,
        warnings,
    } = agent_tools_sharing(
        parts.builtin,
        &shared.mcp,
        agent,
        which,
        parts.task.cloned(),
    )
    .await;
    for tool in handoff_tools(agent, &shared.agents, parts.session) {
        registry.register_arc(tool);
    }
    let skills = skills_of(agent, &shared.skills);
    if !skills.is_empty() {
        let grants = shared.builtin.read_grants().clone();
        registry.register_typed(SkillTool::new(skills, grants));
    }
    if PlanTools::wanted_by(agent) {
        parts.plan.register(&mut registry);
    }
    // Long-term memory outlives sessions: offered whenever there is a project store. An
    // unusable store URL is reported when the session opens; here it only means no memory.
    if let Some(location) = shared.store.as_ref().and_then(|spec| spec.location().ok())
        && let Some(memory) = long_term_memory_tools(agent, &location, &shared.builder)
    {
        memory.register(&mut registry);
    }
    let own = shared.own_tools.get(agent.name()).into_iter().flatten();
    for tool in shared.builder.embedder_tools().iter().chain(own) {
        registry.register_arc(Arc::clone(tool));
    }
    AgentTools { registry, warnings }
}
