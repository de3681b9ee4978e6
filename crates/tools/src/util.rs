//! Small helpers the tools share.

use crate::paths::ProjectRoot;
use agentctl_core::{ToolContext, ToolError, ToolOutput};

/// The project root of a call: the context's working directory, canonicalised.
pub(crate) fn root_of(ctx: &ToolContext) -> Result<ProjectRoot, ToolError> {
    ProjectRoot::new(ctx.working_dir()).map_err(|error| {
        ToolError::failed(format!(
            "project root {} is not usable: {error}",
            ctx.working_dir().display()
        ))
    })
}

/// Runs blocking file work off the async runtime.
pub(crate) async fn blocking<F>(work: F) -> Result<ToolOutput, ToolError>
where
    F: FnOnce() -> Result<ToolOutput, ToolError> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| ToolError::failed(format!("tool task failed: {error}")))?
}
