//! The main conversation (seed 000): talking to the default model with no agent file, in the
//! session's `main` timeline — the history shared agents read and isolated agents never see.

use agentctl_core::{AgentDefinition, AgentSource, AgentSpec, ContextMode, Scope, SourceFormat};
use std::path::PathBuf;

/// The name the main conversation runs and is recorded under.
pub const MAIN_AGENT: &str = "main";

/// Where the main conversation's definition says it comes from.
const MAIN_SOURCE: &str = "(built-in main conversation)";

/// True for the main conversation's own definition (not a project agent that happens to be
/// named `main`).
pub(crate) fn is_main_conversation(agent: &AgentDefinition) -> bool {
    agent.name() == MAIN_AGENT && agent.source.path == std::path::Path::new(MAIN_SOURCE)
}

/// The main conversation's system prompt.
const MAIN_PROMPT: &str = "You are the main assistant of this project, working with the user in \
their terminal. Answer directly and concisely. Use your tools to read, search and change the \
project when that helps, and say what you changed. When a request fits one of the specialised \
agents listed below, delegate it with the `task` tool and report what the agent found.";

/// The main conversation as an agent: the default model (`agents.defaultModel`, or what
/// `--model` names), every tool the settings allow, the `main` timeline as its workspace.
///
/// ```
/// let main = agentctl_session::main_agent(&agentctl_core::Settings::default());
/// assert_eq!(main.name(), agentctl_session::MAIN_AGENT);
/// assert_eq!(main.spec.context_mode, Some(agentctl_core::ContextMode::Shared));
/// ```
pub fn main_agent(settings: &agentctl_core::Settings) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: MAIN_AGENT.to_owned(),
            title: Some("Main conversation".to_owned()),
            description: Some("The session's main conversation with the default model".to_owned()),
            model: settings.agents.default_model.clone(),
            context_mode: Some(ContextMode::Shared),
            ..AgentSpec::default()
        },
        system_prompt: MAIN_PROMPT.to_owned(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: PathBuf::from(MAIN_SOURCE),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}
