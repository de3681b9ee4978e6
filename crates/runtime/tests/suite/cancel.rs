//! Cancellation ends a run cleanly.

use super::support::{Queue, agent, calls, collect, kinds, runtime};
use agentctl_core::{ModelProvider, RunError, RunEvent, RunOptions, Settings, ToolRegistry};
use agentctl_runtime::Runtime;
use agentctl_test_support::{Behaviour, FakeTool, HangingProvider};
use serde_json::json;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn cancelling_during_a_model_call() {
    let runtime = Runtime::new(
        Settings::default(),
        |_: &_, _: &_| Ok(Arc::new(HangingProvider) as Arc<dyn ModelProvider>),
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
    tools.register_arc(FakeTool::new("wait", Behaviour::WaitForCancel(started.clone())).shared());
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
