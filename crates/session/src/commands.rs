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
use agentctl_core::{
    AgentDefinition, PendingCall, PermissionSettings, ToolFilter, ToolPolicy, ToolRegistry,
    claude_tool_name,
};
use agentctl_definitions::{CommandDef, CommandSet};
use agentctl_tools::{PermissionRules, RuleVerdict};
use std::path::Path;

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
    // `Bash(git diff:*)` lets `bash` through here; [`Narrowing`] holds its calls to the pattern.
    let command = ToolFilter::new(&ToolPolicy {
        allow: Some(
            allowed
                .iter()
                .map(|entry| claude_tool_name(entry))
                .collect(),
        ),
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

/// The entries of a turn's `allowed-tools` with an argument pattern (`Bash(git diff:*)`,
/// `Read(./docs/**)`), read as Claude Code `allow` rules by the permission rules' own matching
/// ([`PermissionRules`]): a call of a tool that only such entries let through runs only when
/// they cover it (every command of a `bash` line, every path named); anything else is refused
/// for the turn. They narrow, never approve: a call they cover still meets the gate.
#[derive(Debug)]
pub(crate) struct Narrowing {
    /// The tools only patterned entries let through.
    tools: Vec<String>,
    rules: PermissionRules,
    /// The patterned entries as written, for the refusal.
    written: String,
}

impl Narrowing {
    /// The narrowing of `allowed` (paths judged from `root`); `None` when no entry has a
    /// pattern.
    pub(crate) fn new(allowed: &[String], root: &Path) -> Result<Option<Self>, SessionError> {
        let (patterned, plain): (Vec<&String>, Vec<&String>) =
            allowed.iter().partition(|entry| entry.contains('('));
        if patterned.is_empty() {
            return Ok(None);
        }
        let whole = ToolFilter::new(&ToolPolicy {
            allow: Some(plain.iter().map(|entry| claude_tool_name(entry)).collect()),
            deny: Vec::new(),
        })
        .map_err(|source| SessionError::ToolPolicy {
            agent: "allowed-tools".into(),
            source,
        })?;
        let mut tools: Vec<String> = patterned
            .iter()
            .map(|entry| claude_tool_name(entry))
            .filter(|tool| !whole.allows(tool))
            .collect();
        tools.dedup();
        let settings = PermissionSettings {
            allow: patterned.iter().map(|entry| (*entry).clone()).collect(),
            ..PermissionSettings::default()
        };
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let rules = PermissionRules::new(&settings, root, home.as_deref())?;
        let written = patterned
            .iter()
            .map(|entry| entry.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        Ok(Some(Self {
            tools,
            rules,
            written,
        }))
    }

    /// Why `call` is refused for the turn, when the patterned entries do not cover it.
    pub(crate) fn refusal(&self, call: &PendingCall<'_>) -> Option<String> {
        if !self.tools.contains(&call.call.name) {
            return None;
        }
        match self.rules.judge(call.tool, Some(&call.call.arguments)) {
            Some(RuleVerdict::Allow { .. }) => None,
            _ => Some(format!(
                "denied: this command's allowed-tools let {} run only as {}",
                call.call.name, self.written
            )),
        }
    }
}
