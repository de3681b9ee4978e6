//! The contracts of agentctl: shared data types and the traits every crate builds on.
//!
//! Every other crate speaks these types: the definitions loader produces an [`AgentDefinition`],
//! the settings loader produces [`Settings`], the runtime resolves a [`ModelRef`] from them and
//! drives a [`ModelProvider`] and [`Tool`]s, emitting [`RunEvent`]s, and asks a [`CallGate`]
//! before each call. This crate does no I/O, so tools, MCP, context, routing and guardrails can
//! all depend on it without depending on the loop, an HTTP client or each other.

mod agent;
mod approval;
mod background;
mod catalogue;
mod context_mode;
mod conversation;
mod decision;
mod declared_tools;
mod effort;
mod embed;
mod event;
mod graph;
mod graph_event;
mod guardrail;
mod guardrail_check;
mod handoff;
mod hint;
mod hooks;
mod mcp;
mod memory;
mod model;
mod permission_mode;
mod permission_rule;
mod provider;
mod redact;
mod risk;
mod run;
mod run_error;
mod run_options;
mod serde_util;
mod settings;
mod text;
#[cfg(feature = "tls")]
mod tls;
mod tool;
mod tool_filter;
mod tool_fn;
mod tool_names;
mod tool_registry;
mod trace;
mod wire_names;

pub use agent::{
    AgentDefinition, AgentSource, AgentSpec, Handoff, HandoffPayload, InstructionsMode,
    KeywordMatch, McpRefs, Scope, SourceFormat, ToolPolicy, TracingBackend, TracingSpec, Trigger,
};
pub use approval::{ApprovalPolicy, CallGate, PendingCall};
pub use background::Background;
pub use catalogue::{ModelCatalogue, ModelPrice};
pub use context_mode::{ContextFilter, ContextMode, MessageRole};
pub use conversation::{
    Message, ModelDelta, ModelRequest, ModelResponse, StopReason, ToolCall, ToolSpec, Usage,
    json_len,
};
pub use decision::{ApprovalHint, DecidedBy, Decision, Verdict};
pub use declared_tools::{
    Declaration, DeclaredTool, HANDOFF_TOOL_PREFIX, MEMORY_FOLDER_TOOLS, MEMORY_GET_TOOL,
    MEMORY_SET_TOOL, RECALL_TOOL, REMEMBER_TOOL, handoff_tool_name,
};
pub use effort::{EFFORTS, Effort, EffortPlan, EffortStyle, EffortSupport, UnknownEffort};
pub use embed::Embedder;
pub use event::{PlanItem, PlanStatus, RunEvent, RunMetadata, RunResult, TokensUsed};
pub use graph::{
    DEFAULT_GRAPH_MAX_STEPS, EdgeTarget, GRAPH_END, GraphEdge, GraphMap, GraphNode, GraphSpec,
    Join, JoinMode, NodeKind, Reducer,
};
pub use graph_event::{GraphEvent, GraphStart};
pub use guardrail::{
    DEFAULT_MAX_REPAIRS, DEFAULT_VALIDATOR_TIMEOUT_SECS, Guardrail, GuardrailPolicy, GuardrailStage,
};
pub use guardrail_check::{
    GuardrailAction, GuardrailCheck, GuardrailFactory, GuardrailFailure, GuardrailPhase,
    GuardrailSpecError, GuardrailSubject, GuardrailVerdict, GuardrailViolation, RunGuardrails,
};
pub use handoff::{HandoffHistory, HandoffRequest};
pub use hint::Hint;
pub use hooks::{AfterTool, BeforeTool, HookCall, HookPermission, RunHooks, StopVerdict};
pub use mcp::{McpSandboxSettings, McpServerConfig};
pub use memory::{LongTermConfig, LongTermMemory, MemoryBackend, MemoryScope, MemorySpec};
pub use model::{
    BUILTIN_ALIASES, KNOWN_PROVIDERS, ModelError, ModelRef, resolve_embedding_model, resolve_model,
};
pub use permission_mode::PermissionMode;
pub use permission_rule::{
    CommandPattern, PathAccess, PermissionRule, RuleError, RuleKind, RuleTarget,
};
pub use provider::{DeltaSink, ModelProvider, ProviderError, ProviderFactory};
pub use redact::Redactor;
pub use risk::RiskLevel;
pub use run::{RunStream, SubAgentRunner};
pub use run_error::{BudgetReached, RunError};
pub use run_options::{DEFAULT_MAX_TURNS, RunOptions};
pub use settings::{
    AgentsSettings, ApprovalSettings, ContextSettings, DEFAULT_TOOL_TIMEOUT_SECS,
    DEFAULT_WEB_MAX_BYTES, EnvSettings, HostPattern, NetworkAccess, NetworkHost, PROTECTED_DIRS,
    PermissionSettings, ProviderConfig, ProviderKind, SandboxMode, SandboxSettings, SearchBackend,
    Settings, StoreSettings, ToolsSettings, TracingSettings, WebSearchSettings, WebSettings,
};
pub use text::one_line;
#[cfg(feature = "tls")]
pub use tls::install_crypto_provider;
pub use tool::{EventEmitter, Tool, ToolContext, ToolError, ToolOutput, TypedTool, typed_tool};
pub use tool_filter::{ToolFilter, ToolPatternError, not_allowed};
pub use tool_fn::{FnTool, tool_fn};
pub use tool_names::{BUILTIN_TOOLS, KnownTool, claude_tool_name, gemini_tool_name, is_known_tool};
pub use tool_registry::{ToolRegistry, spec_of};
pub use trace::{
    MAX_SPAN_TEXT_BYTES, Span, SpanDetail, SpanId, SpanKind, SpanSink, SpanStatus, SpanTokens,
    TRUNCATION_MARK, TraceContext, TraceId, TracePolicy, bounded,
};
pub use wire_names::{ToolNames, portable_id, wire_tool_name};
