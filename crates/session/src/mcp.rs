//! MCP servers as a front end inspects them, and agents served over MCP.

pub use agentctl_mcp::{McpError, McpManager, McpToolInfo, ServedAgent, sanitize_name};
