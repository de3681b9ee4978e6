//! Arguments of `agentctl agents …`: list, show, create, edit, delete, tools, validate, and
//! the spellings of `run`, `context`, `graph` and `trace` under `agents`.

use super::{ApprovalArgs, RunArgs, ScopeFilter, TableFormat, TextFormat, context, graph, trace};
use clap::{Args, Subcommand, ValueEnum};

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
    /// Create an agent file: a wizard on a terminal, flags in scripts.
    #[command(after_help = "Examples:\n  agentctl agents create\n  \
agentctl agents create api-reviewer --template code-review\n  \
agentctl agents create doc-writer --description 'Writes docs' --allow read_file,write_file --global")]
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
    /// Run an agent (the same as `agentctl run`): `agents run NAME PROMPT [--context MODE]`.
    Run(RunArgs),
    /// Show or override agents' context modes for a session (the same as `agentctl context`).
    #[command(after_help = "Examples:\n  agentctl agents context bug-fixer\n  \
agentctl agents context bug-fixer --mode isolated\n  agentctl agents context --all")]
    Context(context::ContextArgs),
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

/// `agents create`: every question of the wizard has a flag here, and a flag given skips its
/// question. Without a terminal (or with `CI` set, or `--no-input`) nothing is asked: a
/// missing name is an error naming its flag, everything else takes its default.
#[derive(Debug, Args)]
#[command(after_long_help = CREATE_HELP)]
pub(crate) struct CreateArgs {
    /// Agent name (kebab-case). Asked for on a terminal when missing.
    pub name: Option<String>,
    /// Title shown by `agents list` (default: the name in title case, or the template's).
    #[arg(long)]
    pub title: Option<String>,
    /// What the agent does and when to use it. Optional: without one (and none from the
    /// template) it is derived from the title and the system prompt, and the output says so.
    #[arg(long)]
    pub description: Option<String>,
    /// Model: `provider:model` or an alias (default: none, the settings' `agents.defaultModel`
    /// or the caller's).
    #[arg(long)]
    pub model: Option<String>,
    /// Which agents the file joins: the project's or the user's (default: settings
    /// `agents.defaultScope`). It goes to the scope's folder that already holds agents
    /// (`.agentctl/agents`, `.claude/agents` or `.gemini/agents`; the first of them when
    /// several do), else agentctl's own.
    #[arg(long, value_enum)]
    pub scope: Option<CreateScope>,
    /// The same as `--scope global`.
    #[arg(long)]
    pub global: bool,
    /// Write the file into DIR instead (created if missing); its scope is the project's
    /// when DIR is inside the project, else global.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["scope", "global"])]
    pub dir: Option<std::path::PathBuf>,
    /// Allowed tools, comma-separated names or patterns (`read_file,grep,mcp.github.*`).
    /// Without it the wizard offers a picker (read-only tools ticked); without a terminal the
    /// agent may use every tool.
    #[arg(
        long,
        visible_alias = "tools",
        value_delimiter = ',',
        value_name = "TOOLS"
    )]
    pub allow: Vec<String>,
    /// Denied tools, comma-separated; deny wins over allow.
    #[arg(long, value_delimiter = ',', value_name = "TOOLS")]
    pub deny: Vec<String>,
    /// MCP servers from settings `mcpServers` the agent uses, comma-separated.
    #[arg(
        long = "mcp-server",
        visible_alias = "mcp",
        value_delimiter = ',',
        value_name = "SERVERS"
    )]
    pub mcp_servers: Vec<String>,
    /// Which conversation the agent sees (default: settings `agents.defaultContextMode`).
    #[arg(
        long = "context-mode",
        visible_alias = "context",
        value_name = "MODE",
        value_parser = ["isolated", "shared", "run"]
    )]
    pub context_mode: Option<String>,
    /// Start from a template: its title, description, tools and system prompt. Built in:
    /// debugging, code-review, documentation, test-generator (or testing), security; files
    /// `NAME.md` in the project's `.agentctl/templates/`, `$AGENTCTL_HOME/templates/` or
    /// `~/.gemini/agents/templates/` add templates (or replace a built-in of the same name).
    /// `--template list` lists them all.
    #[arg(long, value_name = "NAME")]
    pub template: Option<String>,
    /// Also ask the P2 questions: triggers, handoffs, guardrails, memory, graph, tracing.
    #[arg(long)]
    pub extended: bool,
    /// Ask nothing, even on a terminal: what no flag gives takes its default.
    #[arg(long)]
    pub no_input: bool,
    /// Replace an existing file of the same name.
    #[arg(long)]
    pub force: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
    /// The P2 fields (boxed: they are many, and clap keeps the parsed command on the stack).
    #[command(flatten, next_help_heading = EXTENDED)]
    pub p2: Box<ExtendedArgs>,
}

/// The P2 fields of `agents create` (seed 002 §4.2.1): each skips its `--extended` question.
#[derive(Debug, Args)]
pub(crate) struct ExtendedArgs {
    /// Routing keywords, comma-separated: a prompt holding one of them picks the agent.
    #[arg(long = "trigger", value_delimiter = ',', value_name = "KEYWORDS")]
    pub trigger_keywords: Vec<String>,
    /// A regular expression that picks the agent when it matches the prompt (repeatable).
    #[arg(long = "trigger-regex", value_name = "PATTERN")]
    pub trigger_regex: Vec<String>,
    /// Priority of the trigger when several agents match; higher wins (default 5).
    #[arg(long = "trigger-priority", value_name = "N")]
    pub trigger_priority: Option<i32>,
    /// Intent label of the trigger (`debug`, `review`).
    #[arg(long = "trigger-intent", value_name = "INTENT")]
    pub trigger_intent: Option<String>,
    /// An agent this one may hand work to, optionally with a CEL condition:
    /// `code-reviewer` or `code-reviewer:task.status == 'need-review'` (repeatable).
    #[arg(long = "handoff", value_name = "AGENT[:WHEN]")]
    pub handoffs: Vec<String>,
    /// JSON Schema of the payload handed to AGENT: `code-reviewer={"type":"object"}`
    /// (repeatable).
    #[arg(long = "handoff-payload", value_name = "AGENT=SCHEMA")]
    pub handoff_payloads: Vec<String>,
    /// A check of the agent's answer (repeatable): `schema=JSON`, `json`, `no-secrets`,
    /// `max-length=N`, `regex=PATTERN` (must match) or `not-regex=PATTERN`.
    #[arg(long = "guardrail", value_name = "CHECK")]
    pub guardrails: Vec<String>,
    /// What a failing guardrail does (default reject).
    #[arg(long = "guardrail-policy", value_name = "POLICY", value_parser = ["reject", "repair", "warn"])]
    pub guardrail_policy: Option<String>,
    /// Session memory keys, comma-separated (`current_task,analyzed_files`).
    #[arg(long = "memory", value_delimiter = ',', value_name = "KEYS")]
    pub memory_keys: Vec<String>,
    /// Keep long-term memory across sessions, in this backend (default sqlite).
    #[arg(
        long = "long-term-memory",
        value_name = "BACKEND",
        num_args = 0..=1,
        default_missing_value = "sqlite",
        value_parser = ["sqlite", "vector_store", "filesystem"]
    )]
    pub long_term_memory: Option<String>,
    /// Embedding model of the `vector_store` long-term memory.
    #[arg(long = "embedding-model", value_name = "MODEL")]
    pub embedding_model: Option<String>,
    /// A graph node running an agent, optionally with the state key its answer is stored
    /// under: `analyzer=debug-analyzer:analysis` (repeatable); makes this a graph agent.
    #[arg(long = "graph-node", value_name = "NODE=AGENT[:KEY]")]
    pub graph_nodes: Vec<String>,
    /// A graph edge: `analyzer->fixer`, or with a CEL condition
    /// `analyzer->fixer:analysis.can_auto_fix`; `->END` ends the graph (repeatable).
    #[arg(long = "graph-edge", value_name = "FROM->TO[:CONDITION]")]
    pub graph_edges: Vec<String>,
    /// The node the graph starts at (default: the first node).
    #[arg(long = "graph-entry", value_name = "NODE")]
    pub graph_entry: Option<String>,
    /// Trace the agent's runs (implied by the other --trace-* flags).
    #[arg(long)]
    pub tracing: bool,
    /// Span kinds to trace, comma-separated (default: the settings' list).
    #[arg(
        long = "trace-events",
        value_delimiter = ',',
        value_name = "KINDS",
        value_parser = ["session", "graph", "node", "run", "llm", "tool", "handoff", "guardrail"]
    )]
    pub trace_events: Vec<String>,
    /// Where traces go besides the session store, comma-separated (default: the settings').
    #[arg(
        long = "trace-backend",
        value_delimiter = ',',
        value_name = "BACKENDS",
        value_parser = ["console", "jsonl", "otel"]
    )]
    pub trace_backends: Vec<String>,
    /// Fraction of runs traced, from 0 to 1.
    #[arg(long = "trace-sample-rate", value_name = "RATE")]
    pub trace_sample_rate: Option<f64>,
}

/// Where `agents create` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CreateScope {
    /// The project's agents folder.
    Project,
    /// The user's agents folder.
    Global,
}

/// The help heading of `agents create`'s P2 flags.
const EXTENDED: &str = "Extended fields (asked with --extended)";

/// The examples and rules of `agents create --help`.
const CREATE_HELP: &str = "\
On a terminal, a wizard asks for what no flag gave: name, title, description, model (from the
default model, the settings' aliases and the configured providers' models), scope, allowed and
denied tools, MCP servers from settings, context mode; with --extended also triggers, handoffs,
guardrails, memory, graph and tracing. It ends with the next steps: edit, validate, run.

Without a terminal (stdin or stderr not a terminal, `CI` set, or --no-input) nothing is asked:
NAME is required, everything else takes its default; a missing description is derived from the
title and the system prompt (the output says so).
The file goes where the scope's agents already live: a project keeping its agents in
.gemini/agents gets it there; when several folders hold agents, the first of .agentctl/agents,
.claude/agents, .gemini/agents (global: $AGENTCTL_HOME/agents, ~/.claude/agents,
~/.gemini/agents); when none does, agentctl's own. --dir DIR chooses. The output names the file.
It is checked as `agents validate` checks it and written only if it is valid; an existing
agent file is replaced only with --force.

Examples:
  agentctl agents create
  agentctl agents create --extended
  agentctl agents create api-reviewer --template code-review
  agentctl agents create --template list
  agentctl agents create debug-analyzer --title 'Debug Analyzer' --model gemini-2.5-pro \\
      --tools read_file,grep,bash --mcp github --scope project
  agentctl agents create notes --description 'Keeps notes' --dir .gemini/agents
  agentctl agents create debug-analyzer --title 'Debug Analyzer' --description 'Finds bugs' \\
      --model sonnet --allow read_file,grep,bash --deny write_file --mcp-server github \\
      --context-mode isolated --scope project
  agentctl agents create debug-flow --description 'Routes bug reports' --trigger bug,error \\
      --trigger-regex 'fix.*test' --trigger-priority 8 --handoff code-reviewer \\
      --guardrail 'schema={\"type\":\"object\"}' --memory current_task --tracing --no-input";

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
    /// Keep the agent's stored context (its isolated workspace in this project's sessions);
    /// by default it is cleared with the last file that defines the agent.
    #[arg(long)]
    pub keep_context: bool,
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

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// Agent name; without it every agent file found is validated.
    #[arg(conflicts_with = "all")]
    pub name: Option<String>,
    /// Validate every agent file found (the same as giving no name).
    #[arg(long)]
    pub all: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}
