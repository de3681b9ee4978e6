//! Tool names: the built-in set and the mapping of Claude Code and Gemini CLI tool names.

/// Built-in tools, by their agentctl names.
pub const BUILTIN_TOOLS: &[&str] = &[
    "read_file",
    "read_many_files",
    "grep",
    "glob",
    "write_file",
    "edit_file",
    "bash",
    "delete_file",
    "web_fetch",
    "web_search",
];

/// What a tool name in an allow or deny list refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KnownTool {
    /// One of [`BUILTIN_TOOLS`].
    Builtin,
    /// A tool of an MCP server (`mcp.<server>.<tool>`, or a pattern over one server).
    Mcp {
        /// The server name.
        server: String,
    },
    /// A glob pattern over tool names (`*`, `read_*`).
    Pattern,
    /// Nothing by that name exists here.
    Unknown,
}

/// Classifies a name from a tool list.
///
/// ```
/// use agentctl_core::{is_known_tool, KnownTool};
/// assert_eq!(is_known_tool("read_file"), KnownTool::Builtin);
/// assert_eq!(is_known_tool("mcp.github.*"), KnownTool::Mcp { server: "github".into() });
/// assert_eq!(is_known_tool("web_search"), KnownTool::Builtin);
/// assert_eq!(is_known_tool("todo_write"), KnownTool::Unknown);
/// ```
pub fn is_known_tool(name: &str) -> KnownTool {
    if let Some(rest) = name.strip_prefix("mcp.") {
        let server = rest.split('.').next().unwrap_or_default();
        if server.is_empty() || server.contains(['*', '?', '[']) {
            return KnownTool::Pattern;
        }
        return KnownTool::Mcp {
            server: server.to_owned(),
        };
    }
    if BUILTIN_TOOLS.contains(&name) {
        KnownTool::Builtin
    } else if name.contains(['*', '?', '[']) {
        KnownTool::Pattern
    } else {
        KnownTool::Unknown
    }
}

/// Maps a Claude Code tool name (`Read`, `Bash(git:*)`, `mcp__srv__tool`) to an agentctl name.
///
/// Names without a counterpart are returned in snake case, so that `validate` can report them.
///
/// ```
/// use agentctl_core::claude_tool_name;
/// assert_eq!(claude_tool_name("Read"), "read_file");
/// assert_eq!(claude_tool_name("Bash(git diff:*)"), "bash");
/// assert_eq!(claude_tool_name("mcp__github__create_issue"), "mcp.github.create_issue");
/// assert_eq!(claude_tool_name("WebSearch"), "web_search");
/// ```
pub fn claude_tool_name(name: &str) -> String {
    let name = name.trim();
    // `Bash(git diff:*)` restricts arguments; the tool is still `Bash`.
    let base = name.split_once('(').map_or(name, |(base, _)| base.trim());
    if let Some(rest) = base.strip_prefix("mcp__") {
        return match rest.split_once("__") {
            Some((server, tool)) => format!("mcp.{server}.{tool}"),
            None => format!("mcp.{rest}.*"),
        };
    }
    let mapped = match base {
        "Read" => "read_file",
        "Write" => "write_file",
        "Edit" | "MultiEdit" => "edit_file",
        "Bash" => "bash",
        "Glob" | "LS" => "glob",
        "Grep" => "grep",
        "WebFetch" => "web_fetch",
        "WebSearch" => "web_search",
        "Task" | "Agent" => "task",
        "TodoWrite" => "todo_write",
        "NotebookEdit" => "notebook_edit",
        "NotebookRead" => "read_file",
        "*" => "*",
        other => return to_snake_case(other),
    };
    mapped.to_owned()
}

/// Maps a Gemini CLI tool name (`read_file`, `run_shell_command`, `replace`) to an agentctl name.
///
/// ```
/// use agentctl_core::gemini_tool_name;
/// assert_eq!(gemini_tool_name("run_shell_command"), "bash");
/// assert_eq!(gemini_tool_name("replace"), "edit_file");
/// assert_eq!(gemini_tool_name("read_*"), "read_*");
/// assert_eq!(gemini_tool_name("web_fetch"), "web_fetch");
/// assert_eq!(gemini_tool_name("google_web_search"), "web_search");
/// ```
pub fn gemini_tool_name(name: &str) -> String {
    let name = name.trim();
    let base = name.split_once('(').map_or(name, |(base, _)| base.trim());
    let mapped = match base {
        "run_shell_command" | "ShellTool" => "bash",
        "replace" | "EditTool" | "edit" => "edit_file",
        "search_file_content" | "grep_search" | "GrepTool" => "grep",
        "list_directory" | "LSTool" | "ls" => "glob",
        "FindFiles" | "GlobTool" => "glob",
        "ReadFileTool" => "read_file",
        "WriteFileTool" => "write_file",
        "ReadManyFilesTool" => "read_many_files",
        "google_web_search" | "WebSearchTool" => "web_search",
        "web_fetch" | "WebFetchTool" => "web_fetch",
        "MemoryTool" => "save_memory",
        other => other,
    };
    mapped.to_owned()
}

fn to_snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, ch) in name.chars().enumerate() {
        if ch.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(ch.to_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_claude_tools_become_snake_case() {
        assert_eq!(claude_tool_name("ExitPlanMode"), "exit_plan_mode");
        assert_eq!(claude_tool_name("mcp__srv"), "mcp.srv.*");
    }

    #[test]
    fn patterns_are_recognised() {
        assert_eq!(is_known_tool("*"), KnownTool::Pattern);
        assert_eq!(is_known_tool("mcp.*"), KnownTool::Pattern);
    }
}
