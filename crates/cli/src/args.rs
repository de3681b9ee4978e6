//! Command-line arguments, as clap parses them. Validation into typed requests happens in the
//! command modules.

mod bare_prompt;
pub(crate) mod context;
pub(crate) mod graph;
pub(crate) mod mcp;
pub(crate) mod memory;
pub(crate) mod route;
pub(crate) mod sessions;
pub(crate) mod trace;
mod turn;

pub(crate) use bare_prompt::parse;
pub(crate) use turn::{ChatArgs, TurnArgs};

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

/// Run specialised AI agents defined in Markdown files.
#[derive(Debug, Parser)]
#[command(name = "agentctl", version, long_about = None, propagate_version = true)]
#[command(allow_external_subcommands = true)]
#[command(
    after_help = "Examples:\n  agentctl --project-dir examples/review-fix run code-reviewer -p 'Review src/stats.py'\n  \
agentctl \"There's a bug in the login flow\"\n  agentctl route 'Review PR 42'\n  \
agentctl agents list\n  agentctl agents validate --all\n  agentctl sessions list\n  agentctl mcp list\n\n\
A quoted prompt with a space in it, in place of a command, runs auto-routed: the same as\n\
`agentctl run --auto -p PROMPT`, and `run` flags may follow it. A single word is read as a\n\
command: for a one-word prompt use `agentctl run --auto -p WORD`."
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags accepted by every command.
#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Project root (default: walk up from the current directory to the first folder holding
    /// `.agentctl`, `.claude`, `.gemini` or `.git`).
    #[arg(long, global = true, value_name = "DIR")]
    pub project_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run an agent on a prompt, or interactively.
    Run(RunArgs),
    /// Talk to the default model in the session's main conversation; `@agent` runs an agent.
    Chat(ChatArgs),
    /// Show which agents a prompt's words route to, and why.
    Route(route::RouteArgs),
    /// Create, list, show, edit, delete and validate agents.
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// List, show, delete and compact persisted sessions.
    #[command(subcommand)]
    Sessions(sessions::SessionsCommand),
    /// Show or override an agent's context mode for a session.
    Context(context::ContextArgs),
    /// Run, resume, replay and draw graphs of agents.
    #[command(subcommand)]
    Graph(graph::GraphCommand),
    /// Show and export the traces of a session's runs.
    #[command(subcommand)]
    Trace(trace::TraceCommand),
    /// List, search and forget agents' long-term memories.
    #[command(subcommand)]
    Memory(memory::MemoryCommand),
    /// Inspect and call MCP servers; serve agents over MCP.
    #[command(subcommand)]
    Mcp(mcp::McpCommand),
    /// Show the resolved settings.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print JSON Schemas of agentctl's file formats.
    #[command(subcommand)]
    Schema(SchemaCommand),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// A quoted prompt in place of a command: `agentctl "PROMPT"` (see `bare_prompt`).
    #[command(external_subcommand)]
    Prompt(Vec<OsString>),
}

/// Output format of listing commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum TableFormat {
    /// Aligned columns for people.
    #[default]
    Table,
    /// JSON for scripts.
    Json,
}

/// Output format of single-object commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum TextFormat {
    /// Readable text.
    #[default]
    Text,
    /// JSON for scripts.
    Json,
}

/// Which scopes a command looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum ScopeFilter {
    /// User-wide agents.
    Global,
    /// The project's agents.
    Project,
    /// Both.
    #[default]
    All,
}

#[derive(Debug, Subcommand)]
pub(crate) enum AgentsCommand {
    /// List agents, grouped by scope.
    #[command(
        after_help = "Examples:\n  agentctl agents list\n  agentctl agents list --all\n  \
agentctl agents list --scope project --format json"
    )]
    List(ListArgs),
    /// Show one agent's definition.
    #[command(after_help = "Examples:\n  agentctl agents show code-reviewer\n  \
agentctl agents show code-reviewer --format json")]
    Show(ShowArgs),
    /// Create an agent file.
    #[command(
        after_help = "Examples:\n  agentctl agents create api-reviewer --template code-review\n  \
agentctl agents create doc-writer --description 'Writes docs' --tools read_file,write_file --global"
    )]
    Create(CreateArgs),
    /// Open an agent file in $VISUAL or $EDITOR, then validate it.
    #[command(after_help = "Example:\n  EDITOR=vim agentctl agents edit code-reviewer")]
    Edit(EditArgs),
    /// Delete an agent file.
    #[command(after_help = "Examples:\n  agentctl agents delete old-agent\n  \
agentctl agents delete old-agent --scope global --yes")]
    Delete(DeleteArgs),
    /// Show the tools an agent may use, with risk levels and approval decisions.
    #[command(after_help = "Examples:\n  agentctl agents tools code-reviewer\n  \
agentctl agents tools bug-fixer --all --format json\n  agentctl agents tools bug-fixer --yes")]
    Tools(ToolsArgs),
    /// Check agent files: front matter, required fields, model, tools, MCP servers, prompt.
    #[command(after_help = "Examples:\n  agentctl agents validate code-reviewer\n  \
agentctl agents validate --all --format json")]
    Validate(ValidateArgs),
    /// Run an agent (the same as `agentctl run`).
    Run(RunArgs),
    /// Graphs of agents (the same as `agentctl graph`).
    #[command(subcommand)]
    Graph(graph::GraphCommand),
    /// Traces of a session's runs (the same as `agentctl trace`).
    #[command(subcommand)]
    Trace(trace::TraceCommand),
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Which scopes to list.
    #[arg(long, value_enum, default_value_t)]
    pub scope: ScopeFilter,
    /// Also list agents shadowed by another of the same name, and by what.
    #[arg(long)]
    pub all: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// Agent name.
    pub name: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

/// Templates `agents create` starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TemplateName {
    /// Finds the cause of a bug and proposes a fix.
    Debugging,
    /// Reviews changes for correctness, style and risk.
    CodeReview,
    /// Writes and updates documentation.
    Documentation,
    /// Writes tests for existing code.
    TestGenerator,
    /// Audits code for security problems.
    Security,
}

#[derive(Debug, Args)]
pub(crate) struct CreateArgs {
    /// Agent name (kebab-case). Asked for on a terminal when missing.
    pub name: Option<String>,
    /// Title.
    #[arg(long)]
    pub title: Option<String>,
    /// Description.
    #[arg(long)]
    pub description: Option<String>,
    /// Model (`provider:model` or alias).
    #[arg(long)]
    pub model: Option<String>,
    /// Allowed tools, comma-separated (names or patterns).
    #[arg(long, value_delimiter = ',')]
    pub tools: Vec<String>,
    /// Denied tools, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub deny: Vec<String>,
    /// MCP servers, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub mcp: Vec<String>,
    /// Context mode.
    #[arg(long, value_parser = ["isolated", "shared", "run"])]
    pub context: Option<String>,
    /// Start from a template.
    #[arg(long, value_enum)]
    pub template: Option<TemplateName>,
    /// Write to the global agents folder instead of the project's.
    #[arg(long)]
    pub global: bool,
    /// Replace an existing file of the same name.
    #[arg(long)]
    pub force: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

#[derive(Debug, Args)]
pub(crate) struct EditArgs {
    /// Agent name.
    pub name: String,
}

#[derive(Debug, Args)]
pub(crate) struct DeleteArgs {
    /// Agent name.
    pub name: String,
    /// Scope to delete from when the name exists in both.
    #[arg(long, value_enum)]
    pub scope: Option<ScopeFilter>,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// Agent name.
    pub name: String,
    /// Also list the tools the agent's allow and deny lists refuse.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub approvals: ApprovalArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

/// Which tool calls run without asking.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct ApprovalArgs {
    /// Risk levels that run without asking, comma-separated (safe, low, medium, high,
    /// critical); replaces the settings' `approvals.autoApprove`.
    #[arg(long, value_name = "LEVELS")]
    pub approve: Option<String>,
    /// Run calls up to high risk without asking (critical still needs `--approve critical`).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// Agent name; omit with --all.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub name: Option<String>,
    /// Validate every agent found.
    #[arg(long)]
    pub all: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Print the resolved settings.
    #[command(
        after_help = "Examples:\n  agentctl config show\n  agentctl config show --origin\n  \
agentctl config show --format json"
    )]
    Show(ConfigShowArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ConfigShowArgs {
    /// Show which layer (default, global file, project file) set each value.
    #[arg(long)]
    pub origin: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SchemaCommand {
    /// JSON Schema of an agent file's front matter.
    #[command(after_help = "Example:\n  agentctl schema agent > agent.schema.json")]
    Agent,
    /// JSON Schema of settings.json.
    #[command(after_help = "Example:\n  agentctl schema settings > settings.schema.json")]
    Settings,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  agentctl completions bash > ~/.local/share/bash-completion/completions/agentctl\n  \
agentctl completions zsh > ~/.zfunc/_agentctl"
)]
pub(crate) struct CompletionsArgs {
    /// Shell to generate completions for.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  agentctl run code-reviewer -p 'Review src/stats.py'\n  \
agentctl run --auto -p \"There's a bug in the login flow\"\n  \
agentctl run code-reviewer -p 'Review src/stats.py' --format stream-json\n  \
git diff | agentctl run code-reviewer --model sonnet\n  agentctl run code-reviewer --interactive\n  \
agentctl run bug-fixer -p 'Fix the failing test' --approve safe,low,medium\n  \
agentctl run bug-fixer --continue -p 'Fix what the review found'\n  \
agentctl run code-reviewer -p 'Review @file:stats.py'\n\n\
Each run is recorded in a session (`.agentctl/sessions.db`); `--continue` resumes the latest,\n\
`--session ID` a given one. `@file:NAME` attaches matching project files to the prompt.\n\
Without NAME (or --agent NAME) the agent is picked by its triggers when --auto is given or\n\
`agents.autoRoute` is true (see `agentctl route`); when none matches, `agents.defaultAgent`\n\
runs, if set.\n\
Tool calls whose risk is not auto-approved are asked on a terminal (yes / no / always);\n\
without a terminal they are refused at once and the model is told why.\n\
An agent's `guardrails:` check the prompt and the answer; an answer is printed once it passed.\n\n\
Exit status: 0 done; 1 error; 2 bad usage; 3 a guardrail rejected the input or the output;\n\
128+N stopped by signal N (130 for Ctrl-C)."
)]
pub(crate) struct RunArgs {
    /// Agent name; without it the agent is picked by its triggers (--auto).
    pub name: Option<String>,
    /// Agent name (the same as NAME).
    #[arg(long = "agent", value_name = "NAME", conflicts_with = "name")]
    pub agent: Option<String>,
    /// Pick the agent whose triggers match the prompt; a name given wins.
    #[arg(long)]
    pub auto: bool,
    /// Context mode, instead of the agent's.
    #[arg(long, value_parser = ["isolated", "shared", "run"])]
    pub context: Option<String>,
    #[command(flatten)]
    pub turn: TurnArgs,
}

/// Output format of `run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum RunFormat {
    /// The answer streamed as text; tool calls as dim lines on stderr.
    #[default]
    Text,
    /// One result object at the end.
    Json,
    /// One event per line (JSON Lines).
    StreamJson,
}

impl RunFormat {
    /// The name as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            RunFormat::Text => "text",
            RunFormat::Json => "json",
            RunFormat::StreamJson => "stream-json",
        }
    }
}
