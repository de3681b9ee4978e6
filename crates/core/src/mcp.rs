//! MCP server configuration, in the shape Claude Code and Gemini CLI users already write.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// One entry of `mcpServers` (settings) or of an agent's inline servers.
///
/// A stdio server has `command` (and `args`, `env`, `cwd`); an HTTP server has `url` or
/// `httpUrl` (and `headers`). Values may contain `${VAR}`, expanded from the environment when
/// the server starts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpServerConfig {
    /// Transport named explicitly (`stdio`, `http`, `sse`), as Claude Code writes it.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// Program to start for a stdio server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Arguments of `command`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Environment of the child process.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Working directory of the child process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// URL of an HTTP (or, in Gemini CLI files, SSE) server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// URL of a streamable-HTTP server (Gemini CLI spelling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_url: Option<String>,
    /// HTTP headers sent with every request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Request timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// Trusted servers skip approval prompts for their tools.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub trust: bool,
    /// Start the server when a session starts (seed 002's `autoStart`), not when an agent
    /// first needs it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto_start: bool,
    /// Only these tools of the server are exposed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_tools: Option<Vec<String>>,
    /// These tools of the server are never exposed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_tools: Vec<String>,
    /// What the server is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fields of other tools' formats that agentctl does not use, kept as written.
    #[serde(flatten, default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
}

/// `sandbox.mcpServers`: which MCP stdio servers run in the sandbox.
///
/// Servers a project defines (in its `.agentctl/settings.json` or inline in its agent files)
/// always run confined, except those the user names in `unconfined` in their own settings.
/// `confine` decides for the servers of the user's own settings and agent files. Written
/// `true` / `false` (sets `confine`) or `{"confine": …, "unconfined": [names…]}`.
///
/// ```
/// let value: agentctl_core::McpSandboxSettings = serde_json::from_str("true").unwrap();
/// assert!(value.confine && value.unconfined.is_empty());
/// let value: agentctl_core::McpSandboxSettings =
///     serde_json::from_str(r#"{"unconfined": ["local-db"]}"#).unwrap();
/// assert!(!value.confine && value.is_unconfined("local-db"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", from = "McpSandboxInput")]
#[schemars(with = "McpSandboxInput")]
pub struct McpSandboxSettings {
    /// Whether the servers of the user's own settings and agent files run confined (project
    /// servers always do).
    pub confine: bool,
    /// Servers that never run confined, project servers included; honoured only from the
    /// user's own settings (a project cannot take its servers out of the sandbox).
    pub unconfined: Vec<String>,
}

impl McpSandboxSettings {
    /// Whether the user took the server called `name` out of the sandbox.
    pub fn is_unconfined(&self, name: &str) -> bool {
        self.unconfined.iter().any(|entry| entry == name)
    }
}

/// `sandbox.mcpServers` as written: a boolean or an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
enum McpSandboxInput {
    /// `true` confines the user's own servers too; `false` (the default) leaves them unconfined.
    Flag(bool),
    /// `{confine, unconfined}`.
    Object(McpSandboxObject),
}

/// `sandbox.mcpServers` written as an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct McpSandboxObject {
    /// Whether the user's own servers run confined (default false).
    #[serde(default)]
    confine: bool,
    /// Servers that never run confined.
    #[serde(default)]
    unconfined: Vec<String>,
}

impl From<McpSandboxInput> for McpSandboxSettings {
    fn from(input: McpSandboxInput) -> Self {
        match input {
            McpSandboxInput::Flag(confine) => Self {
                confine,
                unconfined: Vec::new(),
            },
            McpSandboxInput::Object(object) => Self {
                confine: object.confine,
                unconfined: object.unconfined,
            },
        }
    }
}
