//! The tool trait every tool implements, built-in and MCP alike, and a typed variant whose JSON
//! Schema comes from the argument type.
//!
//! The agent loop only sees `Arc<dyn Tool>` (type-erased in the [`ToolRegistry`](crate::ToolRegistry)):
//! it asks a tool for its spec, whether it mutates anything (mutating calls never run
//! concurrently) and its risk (the approval policy's starting point), then calls it with the
//! model's JSON arguments. A tool that does not state its risk is `medium` and mutating: an
//! embedder's tool is never silently auto-approved or run concurrently.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::any::TypeId;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

use crate::event::RunEvent;
use crate::handoff::HandoffRequest;
use crate::risk::RiskLevel;
use crate::run::SubAgentRunner;
use crate::trace::TraceContext;

/// What a tool call knows about the run it belongs to.
///
/// Inside a run it also carries a [`SubAgentRunner`] and the run's nesting depth, so a tool can
/// start sub-agent runs (which share the runtime's tools, providers and approval gate) without
/// the tool holding the runtime itself (which would be a reference cycle: the runtime owns its
/// tools).
#[derive(Clone)]
pub struct ToolContext {
    run_id: Arc<str>,
    agent: Arc<str>,
    call_id: String,
    working_dir: Arc<Path>,
    cancel: CancellationToken,
    sub_agents: Option<Arc<dyn SubAgentRunner>>,
    depth: u32,
    trace: Option<TraceContext>,
    events: Option<EventEmitter>,
    background: Option<Arc<dyn crate::Background>>,
}

/// Where a tool call's own events go: the run's event stream (see [`ToolContext::emit`]).
pub type EventEmitter = Arc<dyn Fn(RunEvent) + Send + Sync>;

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("run_id", &self.run_id)
            .field("agent", &self.agent)
            .field("call_id", &self.call_id)
            .field("working_dir", &self.working_dir)
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context for calling a tool outside a run (tests, other front ends).
    pub fn new(
        run_id: impl Into<Arc<str>>,
        agent: impl Into<Arc<str>>,
        call_id: impl Into<String>,
        working_dir: impl Into<Arc<Path>>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            run_id: run_id.into(),
            agent: agent.into(),
            call_id: call_id.into(),
            working_dir: working_dir.into(),
            cancel,
            sub_agents: None,
            depth: 0,
            trace: None,
            events: None,
            background: None,
        }
    }

    /// The same context, whose tools may start work in the run's `background` (`None`: they
    /// cannot).
    pub fn with_background(mut self, background: Option<Arc<dyn crate::Background>>) -> Self {
        self.background = background;
        self
    }

    /// Where this call may start work that outlives it, to be read before its run ends.
    pub fn background(&self) -> Option<&Arc<dyn crate::Background>> {
        self.background.as_ref()
    }

    /// The same context, whose [`emit`](ToolContext::emit)ted events go to `events` (the agent
    /// loop passes its run's event stream; `None` drops them).
    pub fn with_events(mut self, events: Option<EventEmitter>) -> Self {
        self.events = events;
        self
    }

    /// Adds an event of the call to its run's stream (between the call's `tool_decision` and
    /// its `tool_result`); dropped when nobody listens.
    pub fn emit(&self, event: RunEvent) {
        if let Some(events) = &self.events {
            events(event);
        }
    }

    /// The same context, inside a run whose sub-agents `runner` starts, at nesting `depth` (0
    /// for a top-level run). The agent loop sets both; tests set them to call sub-agent tools
    /// directly.
    pub fn with_sub_agents(mut self, runner: Arc<dyn SubAgentRunner>, depth: u32) -> Self {
        self.sub_agents = Some(runner);
        self.depth = depth;
        self
    }

    /// The same context inside a traced run: the call's own work (a sub-agent run) hangs under
    /// the call's span ([`TraceContext::for_tool_call`]).
    pub fn with_trace(mut self, run: Option<&TraceContext>) -> Self {
        self.trace = run.map(|trace| trace.for_tool_call(&self.run_id, &self.call_id));
        self
    }

    /// Where this call's own work belongs in the trace; `None` when the run is not traced.
    pub fn trace(&self) -> Option<&TraceContext> {
        self.trace.as_ref()
    }

    /// Id of the run.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Name of the agent calling the tool.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// Id of this call, as the model assigned it.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Directory relative paths are resolved against (the project root for the CLI).
    pub fn working_dir(&self) -> &Path {
        &self.working_dir
    }

    /// Cancelled when the run is; long-running tools should stop when it fires.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// What starts sub-agent runs for this call's run; `None` for a context built with
    /// [`ToolContext::new`] alone.
    pub fn sub_agents(&self) -> Option<&Arc<dyn SubAgentRunner>> {
        self.sub_agents.as_ref()
    }

    /// Nesting depth of the run: 0 for a top-level run, 1 for a sub-agent it started, and so on
    /// (from [`RunOptions::depth`](crate::RunOptions::depth)).
    pub fn depth(&self) -> u32 {
        self.depth
    }
}

/// The result of a successful tool call, as text for the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text the model reads.
    pub content: String,
    /// Set by handoff tools: the run hands control to another agent after this turn.
    pub handoff: Option<HandoffRequest>,
}

impl ToolOutput {
    /// Plain text output.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            handoff: None,
        }
    }

    /// JSON output, serialised compactly.
    pub fn json(value: &Value) -> Self {
        Self::text(value.to_string())
    }

    /// The output of a handoff tool: `content` for the model, and the request the run acts on
    /// once the turn's calls are done.
    pub fn handoff(content: impl Into<String>, request: HandoffRequest) -> Self {
        Self {
            content: content.into(),
            handoff: Some(request),
        }
    }
}

impl From<String> for ToolOutput {
    fn from(content: String) -> Self {
        Self::text(content)
    }
}

impl From<&str> for ToolOutput {
    fn from(content: &str) -> Self {
        Self::text(content)
    }
}

/// Why a tool call failed. The message is fed back to the model as an error result, so it
/// should say what to do differently.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not match the tool's schema.
    #[error("invalid arguments for `{tool}`: {message}")]
    InvalidArguments {
        /// Tool name.
        tool: String,
        /// What was wrong.
        message: String,
    },
    /// The tool ran and failed.
    #[error("{0}")]
    Failed(String),
    /// The run was cancelled while the tool ran.
    #[error("cancelled")]
    Cancelled,
}

impl ToolError {
    /// A failure with a message for the model.
    pub fn failed(message: impl Into<String>) -> Self {
        ToolError::Failed(message.into())
    }
}

/// A tool the model can call.
///
/// Implement it directly when the arguments are dynamic (MCP tools); otherwise implement
/// [`TypedTool`] and register it with
/// [`ToolRegistry::register_typed`](crate::ToolRegistry::register_typed).
#[async_trait]
pub trait Tool: Send + Sync {
    /// Name the model calls the tool by; unique within a registry.
    fn name(&self) -> &str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments object.
    fn parameters(&self) -> Value;
    /// How much harm a call can do. A tool that does not say is `medium`: never auto-approved by
    /// the default policy.
    fn risk(&self) -> RiskLevel {
        RiskLevel::Medium
    }
    /// True when a call changes anything (files, processes, remote state). Mutating calls run
    /// one at a time, in the order the model asked for them. A tool that does not say is
    /// mutating.
    fn is_mutating(&self) -> bool {
        true
    }
    /// Paths a call with these arguments would create, change, rename or delete (relative to
    /// the working directory, or absolute), so the approval policy can treat calls that touch
    /// protected paths (`.git/`, `.agentctl/`, …) as such. Default: none known.
    fn written_paths(&self, args: &Value) -> Vec<PathBuf> {
        let _ = args;
        Vec::new()
    }
    /// Runs the tool with the model's arguments.
    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}

/// A tool with typed arguments: the JSON Schema is derived from `Args` by schemars and the
/// model's arguments are deserialised before [`TypedTool::call`] runs.
///
/// ```
/// use agentctl_core::{RiskLevel, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
/// use async_trait::async_trait;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct LookupArgs {
///     /// The key to look up.
///     key: String,
/// }
///
/// struct Lookup;
///
/// #[async_trait]
/// impl TypedTool for Lookup {
///     type Args = LookupArgs;
///     fn name(&self) -> &str { "lookup" }
///     fn description(&self) -> &str { "Looks a key up in the table." }
///     fn risk(&self) -> RiskLevel { RiskLevel::Safe }
///     fn is_mutating(&self) -> bool { false }
///     async fn call(&self, args: LookupArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
///         Ok(ToolOutput::text(format!("value of {}", args.key)))
///     }
/// }
///
/// let mut tools = ToolRegistry::new();
/// tools.register_typed(Lookup);
/// assert_eq!(tools.specs()[0].parameters["required"][0], "key");
/// ```
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments object.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// Name the model calls the tool by.
    fn name(&self) -> &str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// How much harm a call can do (default: medium — state it to be auto-approved).
    fn risk(&self) -> RiskLevel {
        RiskLevel::Medium
    }
    /// True when a call changes anything (default: true — state `false` to let calls run
    /// concurrently).
    fn is_mutating(&self) -> bool {
        true
    }
    /// Paths a call with these arguments would create, change, rename or delete (see
    /// [`Tool::written_paths`]). Default: none.
    fn written_paths(&self, args: &Self::Args) -> Vec<PathBuf> {
        let _ = args;
        Vec::new()
    }
    /// Runs the tool.
    async fn call(&self, args: Self::Args, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}

/// A [`TypedTool`] as a shared [`Tool`] (its JSON Schema derived once, here), for APIs that
/// take tool objects.
pub fn typed_tool<T: TypedTool>(tool: T) -> Arc<dyn Tool> {
    Arc::new(TypedAdapter::new(tool))
}

/// Adapts a [`TypedTool`] to [`Tool`], computing the schema once per tool type.
pub(crate) struct TypedAdapter<T> {
    tool: T,
    schema: Arc<Value>,
}

impl<T: TypedTool> TypedAdapter<T> {
    pub(crate) fn new(tool: T) -> Self {
        Self {
            tool,
            schema: schema_of_tool::<T>(),
        }
    }
}

/// The schema of `T`'s arguments, derived on the first adapter of a `T` and shared after:
/// the built-in tools are assembled for every agent a session starts (a handoff's target
/// among them), and deriving a schema costs far more than sharing one.
fn schema_of_tool<T: TypedTool>() -> Arc<Value> {
    static SCHEMAS: Mutex<BTreeMap<TypeId, Arc<Value>>> = Mutex::new(BTreeMap::new());
    let key = TypeId::of::<T>();
    if let Some(schema) = SCHEMAS
        .lock()
        .ok()
        .and_then(|schemas| schemas.get(&key).cloned())
    {
        return schema;
    }
    // Derived outside the lock: two first uses at once both derive, and either result serves.
    let schema = Arc::new(schema_of::<T::Args>());
    if let Ok(mut schemas) = SCHEMAS.lock() {
        schemas.insert(key, Arc::clone(&schema));
    }
    schema
}

/// JSON Schema of an arguments type, without the keys model APIs reject or ignore.
pub(crate) fn schema_of<A: JsonSchema>() -> Value {
    let mut schema = schemars::schema_for!(A).to_value();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
        map.remove("title");
    }
    schema
}

#[async_trait]
impl<T: TypedTool> Tool for TypedAdapter<T> {
    fn name(&self) -> &str {
        self.tool.name()
    }

    fn description(&self) -> &str {
        self.tool.description()
    }

    fn parameters(&self) -> Value {
        Value::clone(&self.schema)
    }

    fn risk(&self) -> RiskLevel {
        self.tool.risk()
    }

    fn is_mutating(&self) -> bool {
        self.tool.is_mutating()
    }

    fn written_paths(&self, args: &Value) -> Vec<PathBuf> {
        // Arguments that do not parse never reach `call`: nothing would be written.
        serde_json::from_value::<T::Args>(no_null(args.clone()))
            .map(|args| self.tool.written_paths(&args))
            .unwrap_or_default()
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args = serde_json::from_value::<T::Args>(no_null(args)).map_err(|error| {
            ToolError::InvalidArguments {
                tool: self.tool.name().to_owned(),
                message: error.to_string(),
            }
        })?;
        self.tool.call(args, ctx).await
    }
}

/// Models sometimes send `null` for "no arguments".
fn no_null(args: Value) -> Value {
    if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    struct EchoArgs {
        /// Text to echo.
        text: String,
    }

    struct Echo;

    #[async_trait]
    impl TypedTool for Echo {
        type Args = EchoArgs;
        fn name(&self) -> &str {
            "echo"
        }
        fn description(&self) -> &str {
            "Echoes."
        }
        async fn call(&self, args: EchoArgs, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(args.text))
        }
    }

    fn ctx() -> ToolContext {
        ToolContext::new("r", "a", "c", Path::new("."), CancellationToken::new())
    }

    #[tokio::test]
    async fn typed_tool_gets_schema_and_checks_arguments() {
        let tool = TypedAdapter::new(Echo);
        let schema = tool.parameters();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["text"]["type"], "string");
        assert!(schema.get("$schema").is_none());
        let out = tool
            .call(serde_json::json!({"text": "hi"}), &ctx())
            .await
            .unwrap();
        assert_eq!(out.content, "hi");
        let error = tool
            .call(serde_json::json!({"txt": 1}), &ctx())
            .await
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("invalid arguments for `echo`: missing field")
        );
    }
}
