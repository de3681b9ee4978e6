//! Errors of the MCP bridge. Each names the server (and tool) it is about.

use agentctl_config::ScriptChange;

/// Result of the MCP bridge.
pub type Result<T, E = McpError> = std::result::Result<T, E>;

/// Why an MCP operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// No server of that name is configured (in settings `mcpServers` or the agent file).
    #[error("unknown MCP server `{server}`; configured servers: {known}")]
    UnknownServer {
        /// The name asked for.
        server: String,
        /// The configured names, comma-separated (or `none`).
        known: String,
    },
    /// A `${VAR}` in the server's configuration names an unset environment variable.
    #[error(
        "MCP server `{server}`{}: environment variable `{variable}` used in `{field}` is not \
         set; set it or give a default with `${{{variable}:-default}}`",
        file.as_ref().map(|file| format!(" (in {})", file.display())).unwrap_or_default()
    )]
    MissingVariable {
        /// Server name.
        server: String,
        /// The settings file that configures the server, when known (`.mcp.json`).
        file: Option<std::path::PathBuf>,
        /// Configuration field holding the reference (`env.TOKEN`, `args[1]`, …).
        field: String,
        /// The variable's name.
        variable: String,
    },
    /// The configuration cannot describe a server (no command and no URL, bad header, …).
    #[error("MCP server `{server}`: invalid configuration: {message}")]
    InvalidConfig {
        /// Server name.
        server: String,
        /// What is wrong.
        message: String,
    },
    /// The server could not be started or did not complete the MCP handshake.
    #[error("MCP server `{server}` failed to start: {message}")]
    Start {
        /// Server name.
        server: String,
        /// The cause, with the last lines the server wrote on stderr if any.
        message: String,
    },
    /// A stdio server wrote something other than a JSON-RPC message on its stdout (a banner,
    /// a log line): the MCP spec reserves stdout for messages, and a stray line can swallow an
    /// answer, so the connection is closed at once.
    #[error(
        "MCP server `{server}` wrote a line that is not JSON-RPC on stdout: {line:?} — servers \
         must log to stderr"
    )]
    NotJsonRpc {
        /// Server name.
        server: String,
        /// The line (shortened to 200 characters).
        line: String,
    },
    /// The server did not answer in time.
    #[error("MCP server `{server}` did not answer {operation} within {millis} ms")]
    Timeout {
        /// Server name.
        server: String,
        /// What was asked (`tools/call echo`, `initialize`, …).
        operation: String,
        /// The timeout in milliseconds.
        millis: u64,
    },
    /// The connection to the server broke (process exited, HTTP session lost).
    #[error("MCP server `{server}` disconnected during {operation}: {message}")]
    Disconnected {
        /// Server name.
        server: String,
        /// What was asked.
        operation: String,
        /// The cause.
        message: String,
    },
    /// The server answered a request with an error.
    #[error("MCP server `{server}` rejected {operation}: {message}")]
    Protocol {
        /// Server name.
        server: String,
        /// What was asked.
        operation: String,
        /// The server's error message.
        message: String,
    },
    /// The server has no tool of that name (or it is excluded by `includeTools`/`excludeTools`).
    #[error("MCP server `{server}` has no tool `{tool}`")]
    UnknownTool {
        /// Server name.
        server: String,
        /// Tool name as asked for.
        tool: String,
    },
    /// Files of the project that a project-defined server runs changed since they were
    /// approved (recorded on first use): the server is not started until they are approved
    /// again.
    #[error("MCP server `{server}` not started: {}", changed_files(changes))]
    ScriptChanged {
        /// Server name.
        server: String,
        /// The files that changed, with the recorded and the current hash.
        changes: Vec<ScriptChange>,
    },
    /// The files a project-defined server runs could not be hashed or their records read:
    /// the server is not started.
    #[error("MCP server `{server}` not started: cannot check the files it runs: {message}")]
    ScriptCheck {
        /// Server name.
        server: String,
        /// Why.
        message: String,
    },
    /// A server defined inline in one of the project's agent files reads a variable of the
    /// user's environment (`${VAR}`) that MCP servers do not inherit: a project's agent files
    /// are not covered by trusting its settings, so they cannot hand the user's variables to
    /// the project's code.
    #[error(
        "MCP server `{server}` of a project agent file reads `{variable}` from the environment: \
         not started (a project's agent files may read only the variables every server inherits \
         and those of env.passthrough; define the server in settings instead)"
    )]
    VariableRefused {
        /// Server name.
        server: String,
        /// The variable.
        variable: String,
    },
    /// Serving agents over MCP failed.
    #[error("MCP serve failed: {0}")]
    Serve(String),
}

/// `` `tools/server.py` changed since it was approved (sha256 0123456789ab… then, 89abcdef0123… now) ``.
fn changed_files(changes: &[ScriptChange]) -> String {
    let short = |hash: &str| hash.get(..12).unwrap_or(hash).to_owned();
    changes
        .iter()
        .map(|change| {
            format!(
                "`{}` changed since it was approved (sha256 {}… then, {}… now)",
                change.file,
                short(&change.recorded),
                short(&change.current)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl McpError {
    /// True when trying again later may succeed (the server died, timed out, did not start or
    /// broke the protocol); the connection manager reconnects on the next use after such an
    /// error.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            McpError::Start { .. }
                | McpError::NotJsonRpc { .. }
                | McpError::Timeout { .. }
                | McpError::Disconnected { .. }
        )
    }

    /// Name of the server the error is about, if any.
    pub fn server(&self) -> Option<&str> {
        match self {
            McpError::UnknownServer { server, .. }
            | McpError::MissingVariable { server, .. }
            | McpError::InvalidConfig { server, .. }
            | McpError::Start { server, .. }
            | McpError::NotJsonRpc { server, .. }
            | McpError::Timeout { server, .. }
            | McpError::Disconnected { server, .. }
            | McpError::Protocol { server, .. }
            | McpError::UnknownTool { server, .. }
            | McpError::ScriptChanged { server, .. }
            | McpError::ScriptCheck { server, .. }
            | McpError::VariableRefused { server, .. } => Some(server),
            McpError::Serve(_) => None,
        }
    }
}
