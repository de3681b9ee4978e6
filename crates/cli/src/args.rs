//! Command-line arguments, as clap parses them. Validation into typed requests happens in the
//! command modules.

mod agents;
mod bare_prompt;
pub(crate) mod context;
pub(crate) mod graph;
pub(crate) mod mcp;
pub(crate) mod memory;
pub(crate) mod plugins;
pub(crate) mod route;
pub(crate) mod sessions;
pub(crate) mod skills;
pub(crate) mod slash;
pub(crate) mod trace;
pub(crate) mod trust;
mod turn;

pub(crate) use agents::{
    AgentsCommand, CreateArgs, CreateScope, DeleteArgs, EditArgs, ExtendedArgs, ListArgs, ShowArgs,
    ToolsArgs, ValidateArgs,
};
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

/// Commands that read no project: `--project-dir` is neither shown nor accepted there.
pub(crate) const PROJECTLESS: [&str; 2] = ["schema", "completions"];

/// The command line as clap sees it: [`Cli`]'s, where the commands that read no project do not
/// take `--project-dir` (their help and the completion scripts do not offer it).
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory as _;
    let mut command = Cli::command();
    for name in PROJECTLESS {
        // A global flag reaches each subcommand that has no argument of its name: this
        // hidden one takes its place and refuses any value.
        command = command.mut_subcommand(name, |sub| {
            sub.arg(
                clap::Arg::new("project_dir")
                    .long("project-dir")
                    .value_name("DIR")
                    .hide(true)
                    .value_parser(move |_: &str| -> Result<String, String> {
                        Err(idle_project_dir(name))
                    }),
            )
        });
    }
    command
}

/// Why `--project-dir` is refused by `agentctl NAME`.
pub(crate) fn idle_project_dir(name: &str) -> String {
    format!("`agentctl {name}` reads no project: leave out --project-dir")
}

impl Command {
    /// This command's name when it reads no project, so `--project-dir` would do nothing.
    pub(crate) fn projectless_name(&self) -> Option<&'static str> {
        match self {
            Command::Schema(_) => Some(PROJECTLESS[0]),
            Command::Completions(_) => Some(PROJECTLESS[1]),
            _ => None,
        }
    }
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
    #[command(
        subcommand,
        after_help = "Examples:\n  agentctl agents list\n  agentctl agents show code-reviewer\n  \
agentctl agents create debug-analyzer --description 'Finds the cause of bugs'\n  \
agentctl agents validate --all\n  agentctl agents run code-reviewer -p 'Review src/stats.py'"
    )]
    Agents(AgentsCommand),
    /// List, show, delete and compact persisted sessions.
    #[command(
        subcommand,
        after_help = "Examples:\n  agentctl sessions list\n  agentctl sessions show ID --all\n  \
agentctl sessions compact ID\n  agentctl sessions delete ID --yes"
    )]
    Sessions(sessions::SessionsCommand),
    /// Show or override an agent's context mode for a session.
    Context(context::ContextArgs),
    /// List and show the skills (SKILL.md folders) agents can load.
    #[command(
        subcommand,
        after_help = "Skills are read from .agentctl/skills, .claude/skills, .gemini/skills and \
.agents/skills, in the project and in your home (the project's first).\n\n\
Examples:\n  agentctl skills list\n  agentctl skills show pdf --format json"
    )]
    Skills(skills::SkillsCommand),
    /// Install, list, update, remove, enable and disable plugins (Claude Code's format).
    #[command(
        subcommand,
        after_help = "Plugins live in $AGENTCTL_HOME/plugins (or the project's .agentctl/plugins with --project). Their agents, commands and skills are named plugin:name; their hooks and MCP servers run only once enabled.\n\n\
Examples:\n  agentctl plugins add ./marketplace --all\n  agentctl plugins list\n  \
agentctl plugins enable reviewer"
    )]
    Plugins(plugins::PluginsCommand),
    /// Run, resume, replay and draw graphs of agents.
    #[command(
        subcommand,
        after_help = "Examples:\n  agentctl graph list\n  agentctl graph run debug-flow -p 'The login test fails'\n  \
agentctl graph visualize debug-flow --format mermaid\n  agentctl graph resume --session ID"
    )]
    Graph(graph::GraphCommand),
    /// Show and export the traces of a session's runs.
    #[command(
        subcommand,
        after_help = "Examples:\n  agentctl trace show --session ID\n  \
agentctl trace export --session ID --format otlp-json > trace.json"
    )]
    Trace(trace::TraceCommand),
    /// List, search and forget agents' long-term memories.
    #[command(
        subcommand,
        after_help = "Examples:\n  agentctl memory list --agent researcher\n  \
agentctl memory search 'release checklist'\n  agentctl memory forget 42"
    )]
    Memory(memory::MemoryCommand),
    /// Inspect and call MCP servers; serve agents over MCP.
    #[command(
        subcommand,
        after_help = "Examples:\n  agentctl mcp list\n  agentctl mcp tools everything\n  \
agentctl mcp call everything echo '{\"message\":\"hi\"}'\n  agentctl mcp serve"
    )]
    Mcp(mcp::McpCommand),
    /// Trust this project's settings as they are now, or show or withdraw that trust.
    Trust(trust::TrustArgs),
    /// Show the resolved settings.
    #[command(
        subcommand,
        after_help = "Examples:\n  agentctl config show\n  agentctl config show --origin --format json"
    )]
    Config(ConfigCommand),
    /// Print JSON Schemas of agentctl's file formats and of its JSON output.
    #[command(
        subcommand,
        after_help = "JSON output: keys are camelCase, times RFC 3339 UTC (`2026-11-23T10:04:05.123Z`), \
every `stream-json` line has `type` and `sessionId`, run ids are the store's (`#N` in `sessions show`).\n\n\
Examples:\n  agentctl schema agent > agent.schema.json\n  \
agentctl schema settings > settings.schema.json\n  \
agentctl schema run-result > run-result.schema.json\n  \
agentctl schema run-event    # one line of `run --format stream-json`"
    )]
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
    /// JSON Schema of `run`/`agents run`/`chat -p --format json`: the run's result.
    #[command(after_help = "Example:\n  agentctl schema run-result > run-result.schema.json")]
    RunResult,
    /// JSON Schema of one line of `run`/`agents run`/`chat -p --format stream-json`.
    #[command(after_help = "Example:\n  agentctl schema run-event > run-event.schema.json")]
    RunEvent,
    /// JSON Schema of `graph run|resume --format json`.
    #[command(after_help = "Example:\n  agentctl schema graph-result > graph-result.schema.json")]
    GraphResult,
    /// JSON Schema of one line of `graph run|resume --format stream-json`.
    #[command(after_help = "Example:\n  agentctl schema graph-event > graph-event.schema.json")]
    GraphEvent,
    /// JSON Schema of `sessions list --format json`.
    #[command(after_help = "Example:\n  agentctl schema sessions > sessions.schema.json")]
    Sessions,
    /// JSON Schema of `sessions show --format json`.
    #[command(after_help = "Example:\n  agentctl schema session > session.schema.json")]
    Session,
    /// JSON Schema of `context NAME --format json` (`--all`: an array of them).
    #[command(after_help = "Example:\n  agentctl schema context > context.schema.json")]
    Context,
    /// JSON Schema of `memory list|search --format json`.
    #[command(after_help = "Example:\n  agentctl schema memory > memory.schema.json")]
    Memory,
    /// JSON Schema of `memory folders --format json`.
    #[command(
        after_help = "Example:\n  agentctl schema memory-folders > memory-folders.schema.json"
    )]
    MemoryFolders,
    /// JSON Schema of `trace show --format json`.
    #[command(after_help = "Example:\n  agentctl schema trace > trace.schema.json")]
    Trace,
    /// JSON Schema of one span of `trace export --format jsonl|json`.
    #[command(after_help = "Example:\n  agentctl schema trace-span > trace-span.schema.json")]
    TraceSpan,
    /// JSON Schema of `trust --format json` (with or without `--show`, `--revoke`).
    #[command(after_help = "Example:\n  agentctl schema trust > trust.schema.json")]
    Trust,
}

impl SchemaCommand {
    /// The name of an output shape (`agentctl schema NAME`); `None` for the file formats.
    pub(crate) fn output_shape(&self) -> Option<&'static str> {
        Some(match self {
            SchemaCommand::Agent | SchemaCommand::Settings => return None,
            SchemaCommand::RunResult => "run-result",
            SchemaCommand::RunEvent => "run-event",
            SchemaCommand::GraphResult => "graph-result",
            SchemaCommand::GraphEvent => "graph-event",
            SchemaCommand::Sessions => "sessions",
            SchemaCommand::Session => "session",
            SchemaCommand::Context => "context",
            SchemaCommand::Memory => "memory",
            SchemaCommand::MemoryFolders => "memory-folders",
            SchemaCommand::Trace => "trace",
            SchemaCommand::TraceSpan => "trace-span",
            SchemaCommand::Trust => "trust",
        })
    }
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
agentctl agents run fix-bugs 'Fix the code' --context shared\n  \
agentctl run --auto -p \"There's a bug in the login flow\"\n  \
agentctl run code-reviewer -p 'Review src/stats.py' --format stream-json\n  \
git diff | agentctl run code-reviewer --model sonnet\n  agentctl run code-reviewer --interactive\n  \
agentctl run bug-fixer -p 'Fix the failing test' --approve safe,low,medium\n  \
agentctl run bug-fixer --new -p 'Fix the failing test'\n  \
agentctl run code-reviewer -p 'Review @file:stats.py'\n\n\
Each run is recorded in a session (`.agentctl/sessions.db`) and continues the project's\n\
current one (the last a conversation used), so the main conversation and each agent remember\n\
their earlier turns; `--new` starts a session, `--session ID` picks one, and\n\
`agents.continueSession: false` starts one per run. `@file:NAME` attaches matching project\n\
files to the prompt.\n\
Without NAME (or --agent NAME) the agent is picked by its triggers when --auto is given or\n\
`agents.autoRoute` is true (see `agentctl route`); when none matches, `agents.defaultAgent`\n\
runs, if set, else the main conversation answers (when it has a model).\n\
Tool calls whose risk is not auto-approved are asked on a terminal (yes / no / always);\n\
without a terminal they are refused at once and the model is told why.\n\
An agent's `guardrails:` check the prompt and the answer; an answer is printed once it passed.\n\n\
Exit status: 0 done; 1 error; 2 bad usage; 3 a guardrail rejected the input or the output;\n\
128+N stopped by signal N (130 for Ctrl-C)."
)]
pub(crate) struct RunArgs {
    /// Agent name; without it the agent is picked by its triggers (--auto).
    pub name: Option<String>,
    /// The prompt, after NAME (the same as -p; its words are joined with spaces).
    #[arg(value_name = "PROMPT", conflicts_with = "prompt", requires = "name")]
    pub words: Vec<String>,
    /// Agent name (the same as NAME).
    #[arg(long = "agent", value_name = "NAME", conflicts_with = "name")]
    pub agent: Option<String>,
    /// Pick the agent whose triggers match the prompt; a name given wins.
    #[arg(long)]
    pub auto: bool,
    /// Context mode of this run, over the session's override, the agent's and the settings'.
    #[arg(long, value_enum, value_name = "MODE")]
    pub context: Option<context::ModeArg>,
    /// Run a custom command (`.agentctl/commands`, `.claude/commands`, `.gemini/commands`)
    /// with the words after `--` as its arguments; the main conversation runs it unless NAME,
    /// `--agent` or `--auto` picks an agent; its `allowed-tools` and `model` apply to the turn.
    #[arg(long, value_name = "COMMAND", conflicts_with_all = ["prompt", "words"])]
    pub command: Option<String>,
    /// The arguments of `--command`, after `--`.
    #[arg(last = true, value_name = "ARGS", requires = "command")]
    pub args: Vec<String>,
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
