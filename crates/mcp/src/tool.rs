//! [`McpTool`]: one tool of one MCP server, as the runtime's [`Tool`].

use crate::error::Result;
use crate::render::CallOutcome;
use agentctl_core::{RiskLevel, Tool, ToolContext, ToolError, ToolOutput};
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// A server's tool under its qualified name `mcp.<server>.<tool>`.
///
/// Calls go through the [`McpManager`](crate::McpManager), which (re)connects the server when needed; a server
/// that is down or dies during the call makes the call fail with a tool error naming the
/// server and the cause, and leaves every other tool working.
#[derive(Clone)]
pub struct McpTool {
    info: McpToolInfo,
    /// Key of the connection in the manager (the server name, or for an agent's inline server
    /// that shadows a settings server of the same name, a key private to that agent).
    key: String,
    calls: Arc<dyn ServerCalls>,
}

/// What calls a tool of a connected server (the [`McpManager`](crate::McpManager), which
/// reconnects a server that went away).
#[async_trait]
pub(crate) trait ServerCalls: Send + Sync {
    /// Calls `tool` of the server known by `key` with `args`.
    async fn call_server_tool(&self, key: &str, tool: &str, args: Value) -> Result<CallOutcome>;
}

/// What is known about an MCP tool without calling it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolInfo {
    /// Qualified name, `mcp.<server>.<tool>`.
    pub name: String,
    /// Server name as configured.
    pub server: String,
    /// Tool name as the server spells it.
    pub tool: String,
    /// Description (the server's, or a generic one).
    pub description: String,
    /// JSON Schema of the arguments (without `$schema`).
    pub input_schema: Value,
    /// Risk from the tool's annotations, one level lower for a trusted server.
    pub risk: RiskLevel,
    /// The server's `readOnlyHint`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The server's `destructiveHint`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
}

impl McpToolInfo {
    pub(crate) fn new(server: &str, name: String, tool: &rmcp::model::Tool, trusted: bool) -> Self {
        let read_only_hint = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        let destructive_hint = tool.annotations.as_ref().and_then(|a| a.destructive_hint);
        let mut input_schema = Value::Object((*tool.input_schema).clone());
        if let Value::Object(map) = &mut input_schema {
            map.remove("$schema");
        }
        let description = tool
            .description
            .as_deref()
            .map(str::to_owned)
            .or_else(|| tool.title.clone())
            .unwrap_or_else(|| format!("Tool `{}` of MCP server `{server}`.", tool.name));
        Self {
            name,
            server: server.to_owned(),
            tool: tool.name.to_string(),
            description,
            input_schema,
            risk: risk_from_annotations(read_only_hint, destructive_hint, trusted),
            read_only_hint,
            destructive_hint,
        }
    }
}

/// The risk of an MCP tool from its annotations: `readOnlyHint` → safe, `destructiveHint` →
/// high, otherwise medium; a trusted server lowers the level by one (never below safe).
///
/// ```
/// use agentctl_core::RiskLevel;
/// use agentctl_mcp::risk_from_annotations;
///
/// assert_eq!(risk_from_annotations(Some(true), None, false), RiskLevel::Safe);
/// assert_eq!(risk_from_annotations(None, Some(true), false), RiskLevel::High);
/// assert_eq!(risk_from_annotations(None, Some(true), true), RiskLevel::Medium);
/// assert_eq!(risk_from_annotations(None, None, false), RiskLevel::Medium);
/// ```
pub fn risk_from_annotations(
    read_only_hint: Option<bool>,
    destructive_hint: Option<bool>,
    trusted_server: bool,
) -> RiskLevel {
    // Per the MCP spec, destructiveHint only means something when the tool is not read-only.
    let level = if read_only_hint == Some(true) {
        RiskLevel::Safe
    } else if destructive_hint == Some(true) {
        RiskLevel::High
    } else {
        RiskLevel::Medium
    };
    if !trusted_server {
        return level;
    }
    match level {
        RiskLevel::Safe | RiskLevel::Low => RiskLevel::Safe,
        RiskLevel::Medium => RiskLevel::Low,
        RiskLevel::High => RiskLevel::Medium,
        RiskLevel::Critical => RiskLevel::High,
    }
}

impl McpTool {
    pub(crate) fn new(info: McpToolInfo, key: String, calls: Arc<dyn ServerCalls>) -> Self {
        Self { info, key, calls }
    }

    /// What is known about the tool.
    pub fn info(&self) -> &McpToolInfo {
        &self.info
    }
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.info.name)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.info.name
    }

    fn description(&self) -> &str {
        &self.info.description
    }

    fn parameters(&self) -> Value {
        self.info.input_schema.clone()
    }

    fn risk(&self) -> RiskLevel {
        self.info.risk
    }

    fn is_mutating(&self) -> bool {
        self.info.read_only_hint != Some(true)
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let call = self
            .calls
            .call_server_tool(&self.key, &self.info.tool, args);
        let outcome = tokio::select! {
            outcome = call => outcome,
            () = ctx.cancellation().cancelled() => return Err(ToolError::Cancelled),
        };
        match outcome {
            Ok(outcome) if outcome.is_error => Err(ToolError::failed(format!(
                "`{}` failed: {}",
                self.info.name, outcome.text
            ))),
            Ok(outcome) => Ok(ToolOutput::text(outcome.text)),
            Err(error) => Err(ToolError::failed(error.to_string())),
        }
    }
}
