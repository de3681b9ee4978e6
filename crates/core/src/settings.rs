//! Resolved settings: the result of layering `settings.json` files.

use crate::agent::{ContextMode, Scope};
use crate::mcp::McpServerConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Settings after every layer has been applied.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Agent behaviour defaults.
    pub agents: AgentsSettings,
    /// MCP servers by name, in Claude Code / Gemini CLI shape.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Model providers by name (`openai`, `anthropic`, or any compatible endpoint).
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Model aliases: `sonnet` → `anthropic:claude-sonnet-4-5`; overrides the built-in ones.
    pub aliases: BTreeMap<String, String>,
    /// Tool settings.
    pub tools: ToolsSettings,
    /// Approval policy.
    pub approvals: ApprovalSettings,
}

/// `agents.*` keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentsSettings {
    /// Context mode of agents whose file sets none.
    pub default_context_mode: ContextMode,
    /// Whether any agent may use the shared context.
    pub allow_shared_context: bool,
    /// How many of the main session's messages a shared agent is shown.
    pub shared_context_max_messages: u32,
    /// Whether requests are routed to agents by their triggers.
    pub auto_route: bool,
    /// Scope `agents create` writes to.
    pub default_scope: Scope,
    /// Whether sessions are persisted.
    pub context_persistence: bool,
    /// Whether runs are traced.
    pub tracing: bool,
    /// Model used when an agent names none (or says `inherit` at top level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
}

impl Default for AgentsSettings {
    fn default() -> Self {
        Self {
            default_context_mode: ContextMode::Isolated,
            allow_shared_context: true,
            shared_context_max_messages: 100,
            auto_route: false,
            default_scope: Scope::Project,
            context_persistence: true,
            tracing: false,
            default_model: None,
        }
    }
}

/// A model provider endpoint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderConfig {
    /// Wire format of the endpoint.
    pub kind: ProviderKind,
    /// Base URL, e.g. `http://localhost:11434/v1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Environment variable holding the API key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Extra HTTP headers.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// Wire format of a provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, …).
    #[default]
    Openai,
    /// Anthropic Messages API.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
}

/// `tools.*` keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolsSettings {
    /// Risk level overrides by tool name (`safe`, `low`, `medium`, `high`, `critical`).
    pub risk: BTreeMap<String, String>,
}

/// `approvals.*` keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalSettings {
    /// Risk levels approved without asking.
    pub auto_approve: Vec<String>,
}
