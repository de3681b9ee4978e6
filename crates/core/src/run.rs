//! Starting runs from inside a run: the contract between tools that delegate (the `task` tool,
//! handoffs) and whatever runs agents (the runtime).
//!
//! A tool gets a [`SubAgentRunner`] from its [`ToolContext`](crate::ToolContext) and starts a
//! child run with it; the child is a [`RunStream`] of [`RunEvent`]s that can be cancelled and
//! then turned into its [`RunResult`]. Neither side depends on the other's crate.

use crate::agent::AgentDefinition;
use crate::event::{RunEvent, RunResult};
use crate::model::ModelRef;
use crate::run_error::RunError;
use crate::run_options::RunOptions;
use futures_util::Stream;
use futures_util::future::BoxFuture;

/// A run in progress: a stream of its events, ending after `run_finished` or `run_failed`.
pub trait RunStream: Stream<Item = RunEvent> + Send + Unpin {
    /// Id of the run (also in its `run_started` event).
    fn run_id(&self) -> &str;

    /// Asks the run to stop; it ends with `run_failed` and [`RunError::Cancelled`].
    fn cancel(&self);

    /// Waits for the end of the run and returns its result, with the conversation. Events not
    /// read yet are discarded.
    fn into_result(self: Box<Self>) -> BoxFuture<'static, Result<RunResult, RunError>>;
}

/// Starts runs of other agents (or of the caller itself) for tools that delegate.
///
/// The runtime implements it: a sub-run shares the runtime's tools, providers and approval
/// gate, so a child's call that needs approval meets the same gate as its parent's.
pub trait SubAgentRunner: Send + Sync {
    /// The model a run of `agent` with `options` would use.
    fn resolve_model(
        &self,
        agent: &AgentDefinition,
        options: &RunOptions,
    ) -> Result<ModelRef, RunError>;

    /// Starts a run of `agent` on `prompt`; set [`RunOptions::depth`] to the caller's depth + 1
    /// and [`RunOptions::cancel`] to the caller's cancellation so the child stops with it.
    fn start(
        &self,
        agent: &AgentDefinition,
        prompt: &str,
        options: RunOptions,
    ) -> Box<dyn RunStream>;
}
