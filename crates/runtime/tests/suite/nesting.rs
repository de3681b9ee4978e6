//! Tools that start sub-runs: `ToolContext::sub_agents` and `ToolContext::depth`.

use super::support::{Queue, agent, calls, runtime, text};
use agentctl_core::{
    RiskLevel, RunOptions, Tool, ToolContext, ToolError, ToolOutput, ToolRegistry,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Records the depth it sees; below depth 1 it runs a nested agent through the context's
/// runtime and returns that agent's answer.
struct Nest {
    depths: Arc<Mutex<Vec<u32>>>,
}

#[async_trait::async_trait]
impl Tool for Nest {
    fn name(&self) -> &str {
        "nest"
    }
    fn description(&self) -> &str {
        "Runs a nested agent."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }
    fn is_mutating(&self) -> bool {
        false
    }
    async fn call(&self, _args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.depths.lock().unwrap().push(ctx.depth());
        let runner = ctx
            .sub_agents()
            .ok_or_else(|| ToolError::failed("no sub-agent runner"))?;
        let options = RunOptions::new()
            .depth(ctx.depth() + 1)
            .cancel(ctx.cancellation().clone());
        let result = runner
            .start(&agent("child"), "nested", options)
            .into_result()
            .await
            .map_err(|error| ToolError::failed(error.to_string()))?;
        Ok(ToolOutput::text(result.text))
    }
}

#[tokio::test]
async fn tools_see_the_runtime_and_the_depth_and_can_nest_runs() {
    // Parent calls `nest` (depth 0); the child calls `nest` (depth 1), whose grandchild answers.
    let provider = Queue::new(vec![
        calls(&[("c1", "nest", json!({}))]),
        calls(&[("c2", "nest", json!({}))]),
        text("grandchild answer"),
        text("child answer"),
        text("parent answer"),
    ]);
    let depths = Arc::new(Mutex::new(Vec::new()));
    let mut tools = ToolRegistry::new();
    tools.register(Nest {
        depths: Arc::clone(&depths),
    });
    let runtime = runtime(provider.clone(), tools);
    let result = runtime
        .run_to_completion(&agent("parent"), "go", RunOptions::new())
        .await
        .unwrap();
    assert_eq!(result.text, "parent answer");
    assert_eq!(*depths.lock().unwrap(), [0, 1]);
    let requests = provider.requests();
    // The parent read the child's answer as its tool result.
    let last = requests.last().unwrap();
    assert!(
        format!("{:?}", last.messages).contains("child answer"),
        "{:?}",
        last.messages
    );
}

#[test]
fn a_context_built_outside_a_run_has_no_sub_agent_runner_and_depth_zero() {
    let ctx = ToolContext::new("r", "a", "c", Path::new("."), Default::default());
    assert!(ctx.sub_agents().is_none());
    assert_eq!(ctx.depth(), 0);
}

#[tokio::test]
async fn a_caller_chosen_run_id_is_used() {
    let provider = Queue::new(vec![text("ok")]);
    let runtime = runtime(provider, ToolRegistry::new());
    let handle = runtime.run(&agent("a"), "hi", RunOptions::new().run_id("task-7-0"));
    assert_eq!(handle.run_id(), "task-7-0");
    let result = handle.result().await.unwrap();
    assert_eq!(result.metadata.run_id, "task-7-0");
}
