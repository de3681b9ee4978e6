//! How stdio servers are started: only the environment they need, and the sandbox when the
//! settings ask for it.

use super::support::{npm_server, stdio};
use agentctl_core::{McpServerConfig, SandboxMode, Settings};
use agentctl_mcp::{LaunchPolicy, McpManager};
use agentctl_sandbox::{DEFAULT_SERVER_ENV, EnvPolicy, SandboxPolicy, SandboxStatus, probe};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

fn manager(config: McpServerConfig, root: &Path, launch: LaunchPolicy) -> McpManager {
    McpManager::with_launch(BTreeMap::from([("s".to_owned(), config)]), root, launch)
}

/// The environment the everything server reports with its `get-env` tool.
async fn server_env(config: McpServerConfig, launch: LaunchPolicy) -> BTreeMap<String, String> {
    let manager = manager(config, &std::env::temp_dir(), launch);
    let out = manager.call_tool("s", "get-env", json!({})).await.unwrap();
    manager.shutdown().await;
    serde_json::from_str(&out.text).unwrap_or_else(|error| panic!("{error}: {}", out.text))
}

/// A variable of this test process that a server does not get by default.
fn some_private_variable() -> String {
    std::env::vars()
        .map(|(name, _)| name)
        .find(|name| !DEFAULT_SERVER_ENV.contains(&name.as_str()))
        .expect("cargo sets CARGO_* variables for tests")
}

#[tokio::test]
async fn a_server_sees_only_the_default_set_and_its_configured_env() {
    let Some(bin) = npm_server("mcp-server-everything") else {
        return;
    };
    let mut config = stdio(&bin, &[]);
    config.env = BTreeMap::from([
        ("CONFIGURED".to_owned(), "yes".to_owned()),
        (
            "GIVEN_TOKEN".to_owned(),
            "${AGENTCTL_UNSET_FOR_TEST:-explicit}".to_owned(),
        ),
    ]);
    let env = server_env(config, LaunchPolicy::default()).await;
    for name in env.keys() {
        assert!(
            DEFAULT_SERVER_ENV.contains(&name.as_str())
                || name == "CONFIGURED"
                || name == "GIVEN_TOKEN",
            "the server sees {name}: {env:?}"
        );
    }
    assert_eq!(env.get("PATH"), std::env::var("PATH").ok().as_ref());
    assert_eq!(env["CONFIGURED"], "yes");
    // A secret reaches a server when its configuration names it.
    assert_eq!(env["GIVEN_TOKEN"], "explicit");
    assert!(!env.contains_key(&some_private_variable()));
}

#[tokio::test]
async fn passthrough_adds_names_to_a_servers_env() {
    let Some(bin) = npm_server("mcp-server-everything") else {
        return;
    };
    let name = some_private_variable();
    let launch = LaunchPolicy {
        env: EnvPolicy::new([name.as_str()]),
        ..LaunchPolicy::default()
    };
    let env = server_env(stdio(&bin, &[]), launch).await;
    assert_eq!(
        env.get(&name),
        std::env::var(&name).ok().as_ref(),
        "{env:?}"
    );
}

#[test]
fn settings_turn_the_server_sandbox_on() {
    let mut settings = Settings::default();
    assert_eq!(LaunchPolicy::from_settings(&settings).sandbox, None);
    settings.sandbox.mcp_servers.confine = true;
    settings.sandbox.mode = SandboxMode::ReadOnly;
    settings.env.passthrough = vec!["AWS_PROFILE".into()];
    let launch = LaunchPolicy::from_settings(&settings);
    assert_eq!(
        launch.sandbox.map(|policy| policy.mode()),
        Some(SandboxMode::ReadOnly)
    );
    assert!(launch.env.passes("AWS_PROFILE".as_ref()));
}

/// Writes `OUTSIDE/new.txt` through the filesystem server (which itself allows OUTSIDE)
/// started under the launch policy `launch` gives for OUTSIDE; returns the tool result.
async fn write_outside(
    bin: &Path,
    launch: impl FnOnce(&Path) -> LaunchPolicy,
) -> (agentctl_mcp::CallOutcome, bool) {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    let launch = launch(&outside);
    std::fs::write(outside.join("f"), "keep").unwrap();
    let allowed = outside.display().to_string();
    let manager = manager(stdio(bin, &[&allowed]), root.path(), launch);
    let read = manager
        .call_tool("s", "read_text_file", json!({"path": outside.join("f")}))
        .await
        .unwrap();
    assert!(read.text.contains("keep"), "{read:?}");
    let target = outside.join("new.txt");
    let write = manager
        .call_tool("s", "write_file", json!({"path": target, "content": "x"}))
        .await
        .unwrap();
    manager.shutdown().await;
    let written = target.exists();
    std::fs::remove_dir_all(&outside).unwrap();
    (write, written)
}

#[tokio::test]
async fn a_sandboxed_server_cannot_write_outside_the_project() {
    let Some(bin) = npm_server("mcp-server-filesystem") else {
        return;
    };
    let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    let enforced = match probe(&policy) {
        SandboxStatus::Enforced { .. } => Ok(()),
        status => Err(format!("the sandbox is {status}")),
    };
    if !agentctl_test_support::requirement(enforced) {
        return;
    }
    // The sandbox shows the server its own package (outside the project and `PATH`) and the
    // outside folder, read-only.
    let servers = bin.ancestors().nth(2).unwrap().to_path_buf();
    let (write, written) = write_outside(&bin, |outside| LaunchPolicy {
        sandbox: Some(
            policy
                .clone()
                .with_readable_root(&servers)
                .with_readable_root(outside),
        ),
        ..LaunchPolicy::default()
    })
    .await;
    assert!(write.is_error && !written, "{write:?}");
    assert!(
        [
            "EACCES",
            "permission denied",
            "EROFS",
            "read-only file system"
        ]
        .iter()
        .any(|error| write.text.contains(error)),
        "{write:?}"
    );
    // Unconfined (the default), the same server writes there.
    let (write, written) = write_outside(&bin, |_| LaunchPolicy::default()).await;
    assert!(!write.is_error && written, "{write:?}");
}
