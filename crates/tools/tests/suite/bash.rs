//! The bash tool: exit codes, timeouts, output caps, cancellation, process groups.

use super::support::{bash_with, call, ctx, tool};
use agentctl_core::ToolError;
use agentctl_test_support::process::{group_of, live_members, wait_for_group, wait_group_dead};
use agentctl_tools::BuiltinToolsConfig;
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

// Commands run in a PID namespace of their own, where `$$` is not the host's pid: the tests
// find a command's group on the host by a unique `sleep` length in its command line.

#[tokio::test]
async fn after_a_timeout_no_process_of_the_group_lives() {
    let dir = tempfile::tempdir().unwrap();
    let watcher = tokio::spawn(wait_for_group("sleep\x00100301"));
    let error = call(
        dir.path(),
        "bash",
        json!({"command": "sleep 100301 | cat", "timeout_secs": 1}),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(error.starts_with("command timed out"), "{error}");
    let pgid = watcher.await.unwrap();
    assert_eq!(wait_group_dead(pgid).await, Vec::<u32>::new());
}

#[tokio::test]
async fn after_cancellation_no_process_of_the_group_lives() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ctx(dir.path());
    let token = ctx.cancellation().clone();
    let watcher = tokio::spawn(async move {
        let pgid = wait_for_group("sleep\x00100302").await;
        // The pipeline is running: sh, sleep and cat (and bubblewrap).
        while live_members(pgid).len() < 3 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        token.cancel();
        pgid
    });
    let result = tool("bash")
        .call(json!({"command": "sleep 100302 | cat"}), &ctx)
        .await;
    assert_eq!(result.unwrap_err(), ToolError::Cancelled);
    let pgid = watcher.await.unwrap();
    assert_eq!(wait_group_dead(pgid).await, Vec::<u32>::new());
}

#[tokio::test]
async fn dropping_the_call_kills_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let task = tokio::spawn(async move {
        tool("bash")
            .call(json!({"command": "sleep 100303 | cat"}), &ctx(&root))
            .await
    });
    let pgid = wait_for_group("sleep\x00100303").await;
    while live_members(pgid).len() < 3 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    assert_eq!(wait_group_dead(pgid).await, Vec::<u32>::new());
}

#[tokio::test]
async fn background_jobs_die_with_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let bash = bash_with(&BuiltinToolsConfig::default());
    let out = bash
        .call(
            json!({"command": "sleep 100304 > /dev/null 2>&1 & echo started"}),
            &ctx(dir.path()),
        )
        .await
        .unwrap()
        .content;
    assert!(out.contains("started"), "{out}");
    // The job outlives its command (a dev server started in the background keeps running)…
    let pgid = group_of("sleep\x00100304").unwrap_or_else(|| panic!("the job is gone: {out}"));
    assert!(!live_members(pgid).is_empty(), "{out}");
    // …until the run ends and the tool goes.
    drop(bash);
    assert_eq!(wait_group_dead(pgid).await, Vec::<u32>::new());
}

#[tokio::test]
async fn a_call_may_lower_the_configured_limit_but_not_raise_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = BuiltinToolsConfig::default().with_timeout("bash", Duration::from_secs(1));
    let bash = bash_with(&config);
    assert!(
        bash.description().contains("default 1, at most 1"),
        "{}",
        bash.description()
    );
    let error = bash
        .call(
            json!({"command": "sleep 30", "timeout_secs": 100}),
            &ctx(dir.path()),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("command timed out after 1 s"), "{error}");
    let default = tool("bash");
    assert!(
        default.description().contains("default 120, at most 600"),
        "{}",
        default.description()
    );
}

/// The commands' `$TMPDIR` is private (`0700`) whatever the umask: scratch files a command
/// writes there are not for other local users.
#[tokio::test]
async fn the_commands_temp_dir_is_private() {
    let dir = tempfile::tempdir().unwrap();
    let out = call(
        dir.path(),
        "bash",
        json!({"command": "stat -c %a \"$TMPDIR\""}),
    )
    .await
    .unwrap();
    assert!(out.starts_with("exit code: 0\nstdout:\n700\n"), "{out}");
}

/// The commands' `$TMPDIR` is made by the first command, once even when the first commands
/// start together, shared by the tool's later commands, and removed with the tool.
#[tokio::test]
async fn the_temp_dir_is_made_once_and_removed_with_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let bash = bash_with(&BuiltinToolsConfig::default());
    let context = ctx(dir.path());
    let args = || json!({"command": "printf %s \"$TMPDIR\""});
    let (a, b, c, d) = tokio::join!(
        bash.call(args(), &context),
        bash.call(args(), &context),
        bash.call(args(), &context),
        bash.call(args(), &context),
    );
    let folders: std::collections::BTreeSet<String> = [a, b, c, d]
        .into_iter()
        .map(|out| {
            let out = out.unwrap().content;
            let folder = out.strip_prefix("exit code: 0\nstdout:\n").unwrap_or(&out);
            folder.lines().next().unwrap_or_default().to_owned()
        })
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    let folder = std::path::PathBuf::from(folders.first().unwrap());
    assert!(folder.is_dir(), "{}", folder.display());
    let later = bash.call(args(), &context).await.unwrap().content;
    assert!(later.contains(&*folder.to_string_lossy()), "{later}");
    drop(bash);
    assert!(!folder.exists(), "{} outlived its tool", folder.display());
}
