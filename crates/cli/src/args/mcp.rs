//! Arguments of `agentctl mcp …`.

use super::{TableFormat, TextFormat};
use clap::{Args, Subcommand};

/// `agentctl mcp …`
#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// List the configured servers: transport, status, tool count and error (starts them all).
    #[command(after_help = "Examples:\n  agentctl mcp list\n  agentctl mcp list --format json")]
    List(ListArgs),
    /// List the tools of one server, or of every server, by their `mcp.<server>.<tool>` names.
    #[command(
        after_help = "Examples:\n  agentctl mcp tools\n  agentctl mcp tools github --format json"
    )]
    Tools(ToolsArgs),
    /// Call a tool of a server with JSON arguments and print its result.
    #[command(after_help = "Example:\n  agentctl mcp call everything echo '{\"message\": \"hi\"}'")]
    Call(CallArgs),
    /// List a server's resources, or read one with --read URI.
    #[command(after_help = "Examples:\n  agentctl mcp resources everything\n  \
agentctl mcp resources files --read file:///tmp/notes.txt")]
    Resources(ResourcesArgs),
    /// List a server's prompts, or render one with --get NAME [--arg KEY=VALUE]...
    #[command(after_help = "Examples:\n  agentctl mcp prompts everything\n  \
agentctl mcp prompts everything --get args-prompt --arg city=Paris")]
    Prompts(PromptsArgs),
    /// Serve agents as MCP tools on stdin/stdout, for Claude Code, Gemini CLI or any MCP client.
    #[command(
        after_help = "Examples:\n  agentctl mcp serve\n  agentctl mcp serve --agents code-reviewer,test-runner\n\n\
Claude Code: claude mcp add agentctl -- agentctl --project-dir $PWD mcp serve\n\
Tool calls that need approval are denied at once: nobody can answer a prompt in this mode."
    )]
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// Server name (default: every server).
    pub server: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// Server name.
    pub server: String,
    /// Tool name as the server spells it (`echo`), or qualified (`mcp.everything.echo`).
    pub tool: String,
    /// Arguments as a JSON object.
    #[arg(default_value = "{}")]
    pub args: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ResourcesArgs {
    /// Server name.
    pub server: String,
    /// Read this resource instead of listing.
    #[arg(long, value_name = "URI")]
    pub read: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct PromptsArgs {
    /// Server name.
    pub server: String,
    /// Render this prompt instead of listing.
    #[arg(long, value_name = "NAME")]
    pub get: Option<String>,
    /// A prompt argument (with --get), repeatable.
    #[arg(long = "arg", value_name = "KEY=VALUE", requires = "get")]
    pub args: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Agents to expose, comma-separated (default: every agent found).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub agents: Vec<String>,
}
