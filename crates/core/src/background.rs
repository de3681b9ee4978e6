//! Work a run's tools start in the background (a `task` whose agent says `background: true`):
//! the call returns at once, and the agent loop waits for what is still outstanding before the
//! run ends, reading each result as a message as it arrives. The runtime implements it per
//! run (bounded, cancelled with the run); tools reach it through
//! [`ToolContext::background`](crate::ToolContext::background).

use futures_util::future::BoxFuture;

/// The background work of one run.
pub trait Background: Send + Sync {
    /// Starts `work`, whose output is the message the agent reads when it is done; refused
    /// (with the reason) when as many tasks as the bound allows are already running.
    fn start(&self, work: BoxFuture<'static, String>) -> Result<(), String>;

    /// The next finished result, waiting for one while any is outstanding; `None` when
    /// nothing is.
    fn next(&self) -> BoxFuture<'_, Option<String>>;
}
