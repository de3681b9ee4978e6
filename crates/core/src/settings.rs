//! Resolved settings: the result of layering `settings.json` files.

use crate::agent::{ContextMode, Scope, TracingBackend};
use crate::mcp::McpServerConfig;
use crate::serde_util::one_or_many;
use crate::trace::SpanKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::num::NonZeroU64;
use std::time::Duration;

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
    /// OS confinement of what tools run.
    pub sandbox: SandboxSettings,
    /// Environment of the processes tools and MCP servers start.
    pub env: EnvSettings,
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
    /// Tracing of runs: `true`/`false`, or `{enabled, backend, events, sampleRate,
    /// captureContent}`. An agent's `tracing:` overrides it field by field.
    pub tracing: TracingSettings,
    /// Model used when an agent names none (or says `inherit` at top level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    /// Agent that takes a prompt no trigger matched, when routing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_agent: Option<String>,
    /// Handoffs one run may make before it is stopped (default 8).
    pub max_handoffs: u32,
    /// The "Orchestrator note" of the capability context: an instruction shown to agents that
    /// delegate with `task` and to every executor with its task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orchestrator_note: Option<String>,
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
            tracing: TracingSettings::default(),
            default_model: None,
            default_agent: None,
            max_handoffs: 8,
            orchestrator_note: None,
        }
    }
}

/// `agents.tracing`: whether and how runs are traced. Written as a boolean (`true` traces
/// every run into the session store and the default backend) or as an object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", from = "TracingSettingsInput")]
#[schemars(with = "TracingSettingsInput")]
pub struct TracingSettings {
    /// Whether runs are traced.
    pub enabled: bool,
    /// Where traces go besides the session store; empty means `jsonl`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub backend: Vec<TracingBackend>,
    /// Span kinds recorded; empty means all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SpanKind>,
    /// Fraction of runs traced, from 0 to 1.
    pub sample_rate: f64,
    /// Whether OpenTelemetry spans carry message contents.
    pub capture_content: bool,
}

impl Default for TracingSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            backend: Vec::new(),
            events: Vec::new(),
            sample_rate: 1.0,
            capture_content: false,
        }
    }
}

/// `agents.tracing` as written: a boolean or an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
enum TracingSettingsInput {
    /// `true` or `false`.
    Flag(bool),
    /// `{enabled, backend, events, sampleRate, captureContent}`.
    Object(TracingSettingsObject),
}

/// `agents.tracing` written as an object.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TracingSettingsObject {
    /// Whether runs are traced (default true).
    #[serde(default = "enabled_by_default")]
    enabled: bool,
    /// One backend or a list.
    #[serde(default, deserialize_with = "one_or_many")]
    backend: Vec<TracingBackend>,
    /// Span kinds recorded; empty means all.
    #[serde(default, deserialize_with = "one_or_many")]
    events: Vec<SpanKind>,
    /// Fraction of runs traced, from 0 to 1.
    #[serde(default, alias = "sample_rate")]
    sample_rate: Option<f64>,
    /// Whether OpenTelemetry spans carry message contents.
    #[serde(default, alias = "capture_content")]
    capture_content: bool,
}

fn enabled_by_default() -> bool {
    true
}

impl From<TracingSettingsInput> for TracingSettings {
    fn from(input: TracingSettingsInput) -> Self {
        match input {
            TracingSettingsInput::Flag(enabled) => Self {
                enabled,
                ..Self::default()
            },
            TracingSettingsInput::Object(object) => Self {
                enabled: object.enabled,
                backend: object.backend,
                events: object.events,
                sample_rate: object.sample_rate.unwrap_or(1.0),
                capture_content: object.capture_content,
            },
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolsSettings {
    /// Risk level overrides by tool name (`safe`, `low`, `medium`, `high`, `critical`).
    pub risk: BTreeMap<String, String>,
    /// Longest a call of any tool may run, in seconds, unless `timeouts` names the tool.
    pub timeout_seconds: NonZeroU64,
    /// Longest a call may run, in seconds, by tool name (e.g. `{"bash": 1800}`); overrides
    /// `timeoutSeconds` for those tools.
    pub timeouts: BTreeMap<String, NonZeroU64>,
}

/// Default of `tools.timeoutSeconds`: ten minutes, the longest a `bash` call could ask for
/// before the setting existed.
pub const DEFAULT_TOOL_TIMEOUT_SECS: u64 = 600;

impl Default for ToolsSettings {
    fn default() -> Self {
        Self {
            risk: BTreeMap::new(),
            timeout_seconds: NonZeroU64::new(DEFAULT_TOOL_TIMEOUT_SECS).unwrap_or(NonZeroU64::MIN),
            timeouts: BTreeMap::new(),
        }
    }
}

impl ToolsSettings {
    /// The longest a call of `tool` may run: `timeouts.<tool>`, else `timeoutSeconds`.
    ///
    /// ```
    /// let mut tools = agentctl_core::ToolsSettings::default();
    /// tools.timeouts.insert("bash".into(), std::num::NonZeroU64::new(1800).unwrap());
    /// assert_eq!(tools.timeout_for("bash").as_secs(), 1800);
    /// assert_eq!(tools.timeout_for("grep").as_secs(), 600);
    /// ```
    pub fn timeout_for(&self, tool: &str) -> Duration {
        let secs = self.timeouts.get(tool).unwrap_or(&self.timeout_seconds);
        Duration::from_secs(secs.get())
    }
}

/// `approvals.*` keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ApprovalSettings {
    /// Risk levels approved without asking.
    pub auto_approve: Vec<String>,
}

/// `sandbox.*` keys: how the commands of the `bash` tool (and, when asked, MCP stdio servers)
/// are confined by the operating system.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct SandboxSettings {
    /// What confined processes may write.
    pub mode: SandboxMode,
    /// Whether confined processes may bind and connect TCP sockets (default: yes, since
    /// builds and package managers need it). UDP and pathname Unix sockets are not covered by
    /// the sandbox either way.
    pub network: bool,
    /// Directories confined processes may write besides the project root and their temp dir,
    /// e.g. `~/.npm` or `~/.cargo/registry` for package caches (a later, unconfined build
    /// trusts what is written there). `~/` is the home directory; a relative path is relative
    /// to the project root; a missing directory is skipped.
    pub writable_roots: Vec<String>,
    /// Whether MCP stdio servers run confined too (with the same mode, network and writable
    /// roots; their working directory and the project root are writable).
    pub mcp_servers: bool,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            mode: SandboxMode::WorkspaceWrite,
            network: true,
            writable_roots: Vec::new(),
            mcp_servers: false,
        }
    }
}

/// What a confined process may write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// The project root, the process's temp dir and `sandbox.writableRoots`; reads anywhere.
    #[default]
    WorkspaceWrite,
    /// Only the process's temp dir; reads anywhere.
    ReadOnly,
    /// No confinement.
    Off,
}

impl SandboxMode {
    /// `workspace-write`, `read-only` or `off`, as written in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        }
    }
}

/// `env.*` keys: what the processes tools and MCP servers start see of agentctl's environment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct EnvSettings {
    /// Variable names passed on although they look like secrets (`bash` commands) or are not
    /// in the default set (MCP stdio servers), e.g. `["GITHUB_TOKEN"]`.
    pub passthrough: Vec<String>,
}
