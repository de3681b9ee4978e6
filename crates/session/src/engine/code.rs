//! Agents defined in code: [`Agent::new`] and a few setters produce the same
//! [`AgentDefinition`] an agent file does, without a file.

use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, ContextMode, Handoff, Scope, SourceFormat, Tool,
    ToolPolicy,
};
use std::path::PathBuf;
use std::sync::Arc;

/// The allow-list pattern of every handoff tool an agent's `handoffs` declare.
const HANDOFF_TOOLS: &str = "handoff_to_*";

/// An agent defined in code, and the tools it brings.
///
/// It is offered no tools until given some: [`tool`](Agent::tool) adds one of its own,
/// [`allow`](Agent::allow) lets built-in or MCP tools through by name or pattern, and
/// [`handoff`](Agent::handoff) declares an agent it may hand the request to.
///
/// ```
/// use agentctl_session::Agent;
///
/// let agent = Agent::new("greeter", "Greet the user in one sentence.").model("openai:gpt-4o-mini");
/// assert_eq!(agent.definition().name(), "greeter");
/// assert_eq!(agent.definition().spec.model.as_deref(), Some("openai:gpt-4o-mini"));
/// ```
#[derive(Clone)]
pub struct Agent {
    pub(crate) definition: AgentDefinition,
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("name", &self.definition.name())
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// An agent called `name` (kebab-case, as agent files name them) that follows
    /// `instructions`, on the settings' default model until [`model`](Agent::model) says
    /// otherwise.
    pub fn new(name: impl Into<String>, instructions: impl Into<String>) -> Self {
        let name = name.into();
        let definition = AgentDefinition {
            source: AgentSource {
                format: SourceFormat::Native,
                path: PathBuf::from(format!("(agent `{name}` defined in code)")),
                scope: Scope::Project,
            },
            spec: AgentSpec {
                name,
                tools: ToolPolicy {
                    allow: Some(Vec::new()),
                    deny: Vec::new(),
                },
                ..AgentSpec::default()
            },
            system_prompt: instructions.into(),
            extra: Default::default(),
        };
        Self {
            definition,
            tools: Vec::new(),
        }
    }

    /// Its model: `provider:model` (`openai:gpt-4o-mini`, `scripted:PATH`) or an alias.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.definition.spec.model = Some(model.into());
        self
    }

    /// What it does, for the agents that hand off or delegate to it.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.definition.spec.description = Some(description.into());
        self
    }

    /// Gives it `tool` (a [`tool_fn`](agentctl_core::tool_fn), a
    /// [`typed_tool`](agentctl_core::typed_tool)…).
    pub fn tool(mut self, tool: impl Into<Arc<dyn Tool>>) -> Self {
        let tool = tool.into();
        let name = tool.name().to_owned();
        self = self.allow(name);
        self.tools.push(tool);
        self
    }

    /// Lets the tools `pattern` names through (`read_file`, `read_*`, `mcp__github__*`).
    pub fn allow(mut self, pattern: impl Into<String>) -> Self {
        let pattern = pattern.into();
        let allow = self
            .definition
            .spec
            .tools
            .allow
            .get_or_insert_with(Vec::new);
        if !allow.contains(&pattern) {
            allow.push(pattern);
        }
        self
    }

    /// Declares that it may hand the request to the agent `to` (a `handoff_to_<to>` tool).
    pub fn handoff(mut self, to: impl Into<String>) -> Self {
        self.definition.spec.handoffs.push(Handoff {
            to: to.into(),
            ..Handoff::default()
        });
        self.allow(HANDOFF_TOOLS)
    }

    /// Its turn limit per run.
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.definition.spec.max_turns = Some(turns);
        self
    }

    /// Its context mode in a recorded session.
    pub fn context_mode(mut self, mode: ContextMode) -> Self {
        self.definition.spec.context_mode = Some(mode);
        self
    }

    /// The definition, as an agent file would give it.
    pub fn definition(&self) -> &AgentDefinition {
        &self.definition
    }

    /// The definition and the tools it brings.
    pub(crate) fn into_parts(self) -> (AgentDefinition, Vec<Arc<dyn Tool>>) {
        (self.definition, self.tools)
    }
}

impl From<AgentDefinition> for Agent {
    fn from(definition: AgentDefinition) -> Self {
        Self {
            definition,
            tools: Vec::new(),
        }
    }
}
