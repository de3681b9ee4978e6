//! The bash tool: exit codes, timeouts, output caps, cancellation.

use super::support::{call, ctx, tool};
use agentctl_core::ToolError;
use serde_json::json;
use std::time::{Duration, Instant};

#[tokio::test]
async fn reports_exit_code_and_streams() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("here.txt"), "").unwrap();
    let out = call(
        dir.path(),
        "bash",
        json!({"command": "ls; echo oops >&2; exit 3"}),
    )
    .await
    .unwrap();
    assert_eq!(out, "exit code: 3\nstdout:\nhere.txt\nstderr:\noops");
}

#[tokio::test]
async fn timeout_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let error = call(
        dir.path(),
        "bash",
        json!({"command": "echo started; sleep 30 | cat; echo never", "timeout_secs": 1}),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        error.starts_with("command timed out after 1 s and was killed"),
        "{error}"
    );
    assert!(
        error.contains("started") && !error.contains("never"),
        "{error}"
    );
}

#[tokio::test]
async fn output_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let out = call(
        dir.path(),
        "bash",
        json!({"command": "yes abcdefgh | head -c 200000; echo; echo TAIL"}),
    )
    .await
    .unwrap();
    assert!(
        out.len() < 2 * agentctl_tools::MAX_STREAM_BYTES,
        "{}",
        out.len()
    );
    assert!(out.contains("bytes omitted") && out.contains("TAIL"));
}

#[tokio::test]
async fn cancellation_kills_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let token = ctx.cancellation().clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let started = Instant::now();
    let result = tool("bash")
        .call(json!({"command": "sleep 30"}), &ctx)
        .await;
    assert_eq!(result.unwrap_err(), ToolError::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10));
}
