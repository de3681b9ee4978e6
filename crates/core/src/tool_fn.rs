//! A typed tool from a closure: the arguments' JSON Schema from their type, the call an async
//! closure — no trait to implement, no `async-trait` in the embedder's code.

use crate::risk::RiskLevel;
use crate::tool::{Tool, ToolContext, ToolError, ToolOutput, TypedTool, typed_tool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

/// A tool made of a name, a description and an async closure over its typed arguments
/// ([`tool_fn`]). Like any tool that does not state its risk it is `medium` and mutating until
/// [`risk`](FnTool::risk) and [`read_only`](FnTool::read_only) say otherwise.
pub struct FnTool<A, F> {
    name: String,
    description: String,
    risk: RiskLevel,
    mutating: bool,
    call: F,
    args: PhantomData<fn(A)>,
}

impl<A, F> std::fmt::Debug for FnTool<A, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.name)
            .field("risk", &self.risk)
            .field("mutating", &self.mutating)
            .finish_non_exhaustive()
    }
}

/// A tool called `name` that runs `call` on its arguments, parsed from the model's JSON into
/// `A` (whose JSON Schema, with its doc comments, is what the model sees).
///
/// ```
/// use agentctl_core::{RiskLevel, Tool, ToolError, tool_fn};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct LookupArgs {
///     /// The key to look up.
///     key: String,
/// }
///
/// let lookup = tool_fn("lookup", "Looks a key up in the table.", |args: LookupArgs| async move {
///     match args.key.as_str() {
///         "capital-of-france" => Ok("Paris".to_owned()),
///         other => Err(ToolError::failed(format!("no key `{other}`"))),
///     }
/// })
/// .risk(RiskLevel::Safe)
/// .read_only();
/// let tool = lookup.into_tool();
/// assert_eq!(tool.name(), "lookup");
/// assert_eq!(tool.parameters()["required"][0], "key");
/// assert!(!tool.is_mutating());
/// ```
pub fn tool_fn<A, F, Fut, O>(name: &str, description: &str, call: F) -> FnTool<A, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    O: Into<ToolOutput>,
{
    FnTool {
        name: name.to_owned(),
        description: description.to_owned(),
        risk: RiskLevel::Medium,
        mutating: true,
        call,
        args: PhantomData,
    }
}

impl<A, F, Fut, O> FnTool<A, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    O: Into<ToolOutput>,
{
    /// How much harm a call can do: what the approval policy starts from.
    pub fn risk(mut self, risk: RiskLevel) -> Self {
        self.risk = risk;
        self
    }

    /// The tool changes nothing: calls may run concurrently.
    pub fn read_only(mut self) -> Self {
        self.mutating = false;
        self
    }

    /// The tool, shared, for APIs that take tool objects.
    pub fn into_tool(self) -> Arc<dyn Tool> {
        typed_tool(self)
    }
}

#[async_trait]
impl<A, F, Fut, O> TypedTool for FnTool<A, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    O: Into<ToolOutput>,
{
    type Args = A;

    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn risk(&self) -> RiskLevel {
        self.risk
    }

    fn is_mutating(&self) -> bool {
        self.mutating
    }

    async fn call(&self, args: A, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        (self.call)(args).await.map(Into::into)
    }
}

impl<A, F, Fut, O> From<FnTool<A, F>> for Arc<dyn Tool>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    O: Into<ToolOutput>,
{
    fn from(tool: FnTool<A, F>) -> Self {
        tool.into_tool()
    }
}
