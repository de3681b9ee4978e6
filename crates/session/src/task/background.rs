//! `background: true` (Claude Code's subagent field): a `task` naming such an agent returns at
//! once, and the sub-agent works on in the calling run's background
//! ([`ToolContext::background`]); its result reaches the caller as a message before the
//! caller's run may end (the agent loop waits for it). Bounded by the run's background, and
//! cancelled with the caller's run.

use super::{TaskArgs, TaskTool};
use agentctl_core::{AgentDefinition, ToolContext, ToolError, ToolOutput, TypedTool};
use serde_json::Value;

/// The front-matter field, kept in the agent's `extra`.
const FIELD: &str = "background";

/// Whether `agent` runs in the background when a task names it.
fn in_background(agent: &AgentDefinition) -> bool {
    agent.extra.get(FIELD) == Some(&Value::Bool(true))
}

impl TaskTool {
    /// Starts the task in the caller's background when the agent it names runs there: the
    /// call's answer, or `None` when the task runs as usual.
    pub(super) fn start_in_background(
        &self,
        args: &TaskArgs,
        ctx: &ToolContext,
    ) -> Option<Result<ToolOutput, ToolError>> {
        let name = args.agent.as_deref()?;
        let agent = self
            .inner
            .agents
            .iter()
            .find(|agent| agent.name() == name)?;
        if !in_background(agent) {
            return None;
        }
        let background = ctx.background()?;
        let id = ctx.call_id().to_owned();
        let tool = self.clone();
        let args = args.clone();
        let agent = name.to_owned();
        // The work outlives the call: its own events go nowhere (the child's run is recorded
        // in the store as any task's), and it cannot start background work of its own here.
        let detached = ctx.clone().with_background(None).with_events(None);
        let note_id = id.clone();
        let work = Box::pin(async move {
            let text = match tool.call(args, &detached).await {
                Ok(output) => output.content,
                Err(error) => format!("the task failed: {error}"),
            };
            format!("The background task {note_id} (`{agent}`) finished:\n{text}")
        });
        Some(match background.start(work) {
            Ok(()) => Ok(ToolOutput::text(format!(
                "started in the background, id {id}: its result arrives as a message before \
                 you finish; go on with other work meanwhile"
            ))),
            Err(reason) => Err(ToolError::failed(format!("task refused: {reason}"))),
        })
    }
}
