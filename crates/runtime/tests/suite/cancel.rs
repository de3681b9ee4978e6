//! Cancellation ends a run cleanly.

use super::support::{Queue, agent, calls, collect, kinds, runtime};
use agentctl_core::{DeltaSink, ModelProvider, ProviderError};
use agentctl_core::{ModelRequest, ModelResponse, Settings};
use agentctl_core::{
    RiskLevel, RunError, RunEvent, RunOptions, Tool, ToolContext, ToolError, ToolOutput,
    ToolRegistry,
};
use agentctl_runtime::Runtime;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A model that never answers.
struct Hang;

#[async_trait::async_trait]
impl ModelProvider for Hang {
    fn name(&self) -> &str {
        "hang"
    }
    async fn complete(
        &self,
        _: &ModelRequest,
        _: DeltaSink<'_>,
    ) -> Result<ModelResponse, ProviderError> {
        std::future::pending().await
    }
}

/// A tool that waits until the run is cancelled.
struct WaitForCancel(Arc<tokio::sync::Notify>);

#[async_trait::async_trait]
impl Tool for WaitForCancel {
    fn name(&self) -> &str {
        "wait"
    }
    fn description(&self) -> &str {
        "waits"
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
    async fn call(&self, _: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.0.notify_one();
        ctx.cancellation().cancelled().await;
        Err(ToolError::Cancelled)
    }
}

#[tokio::test]
async fn cancelling_during_a_model_call() {
    let runtime = Runtime::new(
        Settings::default(),
        |_: &_, _: &_| Ok(Arc::new(Hang) as Arc<dyn ModelProvider>),
        ToolRegistry::new(),
    );
    let token = CancellationToken::new();
    let handle = runtime.run(&agent("a"), "hi", RunOptions::new().cancel(token.clone()));
    let collector = tokio::spawn(collect(handle));
    token.cancel();
    let events = collector.await.unwrap();
    assert_eq!(
        kinds(&events).last().map(String::as_str),
        Some("run_failed")
    );
    assert!(
        matches!(events.last(), Some(RunEvent::RunFailed { error }) if error == "run cancelled")
    );
}

#[tokio::test]
async fn cancelling_during_a_tool_call_via_the_handle() {
    let provider = Queue::new(vec![calls(&[("c1", "wait", json!({}))])]);
    let started = Arc::new(tokio::sync::Notify::new());
    let mut tools = ToolRegistry::new();
    tools.register(WaitForCancel(started.clone()));
    let handle = runtime(provider, tools).run(&agent("a"), "hi", RunOptions::new());
    started.notified().await;
    handle.cancel();
    assert!(matches!(handle.result().await, Err(RunError::Cancelled)));
}

#[tokio::test]
async fn cancelled_before_start_makes_no_model_call() {
    let provider = Queue::new(vec![]);
    let token = CancellationToken::new();
    token.cancel();
    let error = runtime(provider.clone(), ToolRegistry::new())
        .run_to_completion(&agent("a"), "hi", RunOptions::new().cancel(token))
        .await
        .unwrap_err();
    assert!(matches!(error, RunError::Cancelled));
    assert!(provider.requests().is_empty());
}
