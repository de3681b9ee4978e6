//! Shared data types of agentctl.
//!
//! Every other crate speaks these types: the definitions loader produces an [`AgentDefinition`],
//! the settings loader produces [`Settings`], the runtime resolves a [`ModelRef`] from them. This
//! crate does no I/O, so routing, guardrails, context and the runtime can all depend on it without
//! depending on each other.

mod agent;
mod conversation;
mod mcp;
mod model;
mod serde_util;
mod settings;
mod tool_names;

pub use agent::{
    AgentDefinition, AgentSource, AgentSpec, ContextMode, Guardrail, GuardrailPolicy,
    GuardrailStage, Handoff, HandoffPayload, McpRefs, MemorySpec, Scope, SourceFormat, ToolPolicy,
    TracingBackend, TracingSpec, Trigger,
};
pub use conversation::{
    Message, ModelDelta, ModelRequest, ModelResponse, StopReason, ToolCall, ToolSpec, Usage,
    json_len,
};
pub use mcp::McpServerConfig;
pub use model::{BUILTIN_ALIASES, KNOWN_PROVIDERS, ModelError, ModelRef, resolve_model};
pub use settings::{
    AgentsSettings, ApprovalSettings, DEFAULT_TOOL_TIMEOUT_SECS, EnvSettings, ProviderConfig,
    ProviderKind, SandboxMode, SandboxSettings, Settings, ToolsSettings,
};
pub use tool_names::{BUILTIN_TOOLS, KnownTool, claude_tool_name, gemini_tool_name, is_known_tool};
