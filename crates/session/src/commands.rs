//! Custom slash commands in a session: the commands of the project and the user, the turn a
//! command starts, and the narrowing of a turn's tools its `allowed-tools` asks for.
//!
//! A command is a prompt template ([`CommandDef`]); [`command_turn`] expands it with the
//! arguments typed and sets the turn's [`TurnOptions::model`] and
//! [`TurnOptions::allowed_tools`]. The engine applies those to every run of the turn (the
//! first agent, an agent a handoff starts, a graph's nodes) through the agent's own tool
//! policy, the one pipeline the runtime and the approval gate read: a tool the command does
//! not allow is denied for that turn, and nothing a command says widens what an agent may use.

use crate::engine::TurnOptions;
use crate::error::SessionError;
use crate::project::Project;
use agentctl_core::{AgentDefinition, ToolFilter, ToolPolicy, ToolRegistry};
use agentctl_definitions::{CommandDef, CommandSet};

/// The names of the REPL's own commands: a user command of one of these names is shadowed.
pub const BUILTIN_COMMANDS: &[&str] = &["agents", "clear", "exit", "help", "quit"];

impl Project {
    /// The custom commands of the project and the user, with what discovery met (malformed
    /// files, collisions), from the folders
    /// [`command_dirs`](agentctl_definitions::command_dirs) lists.
    pub fn commands(&self) -> CommandSet {
        agentctl_definitions::discover_commands(&self.locations)
    }
}

/// The prompt and options of a turn running `command` with `args`: the expanded template,
/// the command's model (over `options`' own) and its tools.
///
/// ```
/// use agentctl_session::{TurnOptions, command_turn};
/// use agentctl_session::definitions::{CommandDef, CommandSyntax};
/// let command = CommandDef {
///     name: "review".into(), description: None, allowed_tools: Some(vec!["read_file".into()]),
///     model: Some("openai:fast".into()), argument_hint: None,
///     template: "Review $ARGUMENTS".into(), syntax: CommandSyntax::Markdown,
///     file: "review.md".into(), scope: agentctl_core::Scope::Project,
/// };
/// let (prompt, options) = command_turn(&command, "src/lib.rs", TurnOptions::new());
/// assert_eq!(prompt, "Review src/lib.rs");
/// assert_eq!(options.model.as_deref(), Some("openai:fast"));
/// assert_eq!(options.allowed_tools, Some(vec!["read_file".to_owned()]));
/// ```
pub fn command_turn(
    command: &CommandDef,
    args: &str,
    mut options: TurnOptions,
) -> (String, TurnOptions) {
    if let Some(model) = &command.model {
        options.model = Some(model.clone());
    }
    if let Some(tools) = &command.allowed_tools {
        options.allowed_tools = Some(tools.clone());
    }
    (command.expand(args), options)
}

/// `agent` whose tools (those of `tools` its own policy lets through) are narrowed to those
/// `allowed` lets through: every other one joins its deny list, which wins over everything,
/// declared tools (handoffs, memory, `skill`) included.
pub(crate) fn narrowed(
    agent: &AgentDefinition,
    tools: &ToolRegistry,
    allowed: &[String],
) -> Result<AgentDefinition, SessionError> {
    let policy_error = |source| SessionError::ToolPolicy {
        agent: agent.name().to_owned(),
        source,
    };
    let own = ToolFilter::for_agent(&agent.spec).map_err(policy_error)?;
    let command = ToolFilter::new(&ToolPolicy {
        allow: Some(allowed.to_vec()),
        deny: Vec::new(),
    })
    .map_err(policy_error)?;
    let mut agent = agent.clone();
    let refused = tools
        .names()
        .filter(|name| own.allows(name) && !command.allows(name))
        .map(str::to_owned)
        .collect::<Vec<_>>();
    agent.spec.tools.deny.extend(refused);
    Ok(agent)
}
