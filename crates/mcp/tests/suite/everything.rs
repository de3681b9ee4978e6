//! The reference servers (`server-everything`, `server-filesystem`), installed from npm.

use super::support::{ProjectManager, agent, ctx, gone, npm_server, project_manager, stdio};
use serde_json::json;
use std::collections::BTreeMap;

/// The servers as a project's settings would define them: confined.
fn manager_with(servers: &[(&str, agentctl_core::McpServerConfig)]) -> ProjectManager {
    let map: BTreeMap<_, _> = servers
        .iter()
        .map(|(name, config)| ((*name).to_owned(), config.clone()))
        .collect();
    project_manager(map)
}

fn everything() -> Option<ProjectManager> {
    let bin = npm_server("mcp-server-everything")?;
    Some(manager_with(&[("everything", stdio(&bin, &[]))]))
}

#[tokio::test]
async fn lists_and_calls_tools_of_the_everything_server() {
    let Some(manager) = everything() else { return };
    let tools = manager.tools("everything").await.unwrap();
    let echo = tools
        .iter()
        .find(|tool| tool.info().name == "mcp.everything.echo")
        .expect("echo tool");
    assert_eq!(echo.info().tool, "echo");
    assert_eq!(
        echo.info().input_schema["properties"]["message"]["type"],
        "string"
    );
    assert!(echo.info().input_schema.get("$schema").is_none());
    // readOnlyHint: true → safe, and not mutating.
    assert_eq!(echo.info().risk, agentctl_core::RiskLevel::Safe);
    use agentctl_core::Tool;
    assert!(!echo.is_mutating());
    let out = echo
        .call(json!({"message": "hello"}), &ctx())
        .await
        .unwrap();
    assert!(out.content.contains("hello"), "{}", out.content);

    let sum = manager
        .call_tool("everything", "get-sum", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert!(sum.text.contains('5') && !sum.is_error, "{sum:?}");

    let status = manager.status().await;
    assert_eq!(status.len(), 1);
    assert_eq!(status[0].status, "connected");
    assert_eq!(status[0].transport, "stdio");
    assert_eq!(status[0].tools, tools.len());
    manager.shutdown().await;
}

#[tokio::test]
async fn reads_resources_and_prompts() {
    let Some(manager) = everything() else { return };
    let resources = manager.list_resources("everything").await.unwrap();
    let doc = resources
        .iter()
        .find(|r| r.uri.ends_with("architecture.md"))
        .expect("architecture.md resource");
    let contents = manager.read_resource("everything", &doc.uri).await.unwrap();
    assert!(contents[0].text.as_deref().is_some_and(|t| !t.is_empty()));

    let prompts = manager.list_prompts("everything").await.unwrap();
    let args_prompt = prompts.iter().find(|p| p.name == "args-prompt").unwrap();
    assert!(
        args_prompt
            .arguments
            .iter()
            .any(|a| a.name == "city" && a.required)
    );
    let messages = manager
        .get_prompt(
            "everything",
            "args-prompt",
            [("city".to_owned(), "Paris".to_owned())].into(),
        )
        .await
        .unwrap();
    assert!(
        messages.iter().any(|m| m.text.contains("Paris")),
        "{messages:?}"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn reads_a_file_through_the_filesystem_server() {
    let Some(bin) = npm_server("mcp-server-filesystem") else {
        return;
    };
    // A project's server serves a folder of the project (it runs sandboxed: it sees the
    // project, not the rest of the machine).
    let manager = manager_with(&[("files", stdio(&bin, &["served"]))]);
    let served = manager.root.join("served");
    std::fs::create_dir_all(&served).unwrap();
    std::fs::write(served.join("notes.txt"), "remember the milk\n").unwrap();
    let file = served.join("notes.txt").display().to_string();
    let read = manager
        .call_tool("files", "read_text_file", json!({"path": file}))
        .await
        .unwrap();
    assert!(read.text.contains("remember the milk"), "{read:?}");
    let outside = manager
        .call_tool("files", "read_text_file", json!({"path": "/etc/hostname"}))
        .await
        .unwrap();
    assert!(outside.is_error, "{outside:?}");
    manager.shutdown().await;
}

/// A folder outside the project named on a server's command line: shown to a server the user
/// configured (in the sandbox too), never to one a project configured — its arguments could
/// name `~/.ssh`.
#[tokio::test]
async fn only_the_users_own_servers_see_folders_their_command_line_names() {
    let Some(bin) = npm_server("mcp-server-filesystem") else {
        return;
    };
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    std::fs::write(outside.join("secret.txt"), "not for the project\n").unwrap();
    let file = outside.join("secret.txt").display().to_string();
    let arg = outside.display().to_string();

    let project = manager_with(&[("files", stdio(&bin, &[&arg]))]);
    let refused = project
        .call_tool("files", "read_text_file", json!({"path": file}))
        .await;
    assert!(
        refused.as_ref().is_err_and(|error| error
            .to_string()
            .contains("None of the specified directories are accessible")),
        "{refused:?}"
    );
    project.shutdown().await;

    let mut settings = agentctl_core::Settings::default();
    settings.sandbox.mcp_servers.confine = true;
    let launch = agentctl_mcp::LaunchPolicy::from_settings(&settings);
    assert!(launch.sandbox.is_some());
    let servers = BTreeMap::from([("files".to_owned(), stdio(&bin, &[&arg]))]);
    let users = agentctl_mcp::McpManager::with_launch(servers, project.root.clone(), launch);
    let read = users
        .call_tool("files", "read_text_file", json!({"path": file}))
        .await
        .unwrap();
    assert!(read.text.contains("not for the project"), "{read:?}");
    users.shutdown().await;
}

/// Acceptance 1: an agent allowed `mcp.everything.echo` gets exactly that tool.
#[tokio::test]
async fn allow_list_exposes_exactly_the_named_tool() {
    let Some(manager) = everything() else { return };
    // The allow list names the server, so `mcp.servers` may stay empty.
    for servers in [&[][..], &["everything"][..]] {
        let agent = agent(
            "echoer",
            servers,
            Some(&["read_file", "mcp.everything.echo"]),
        );
        let (tools, warnings) = manager.tools_for_agent(&agent).await;
        assert!(warnings.is_empty(), "{warnings:?}");
        let names: Vec<_> = tools.iter().map(|t| t.name().to_owned()).collect();
        assert_eq!(names, ["mcp.everything.echo"]);
    }
    // No allow list: every tool of the named server; deny wins.
    let mut open = agent("open", &["everything"], None);
    open.spec.tools.deny = vec!["mcp.everything.get-*".into()];
    let (tools, _) = manager.tools_for_agent(&open).await;
    assert!(tools.len() > 3);
    assert!(
        tools
            .iter()
            .all(|t| !t.name().starts_with("mcp.everything.get-"))
    );
    // An agent naming no server starts none.
    let (tools, warnings) = manager.tools_for_agent(&agent("plain", &[], None)).await;
    assert!(tools.is_empty() && warnings.is_empty());
    manager.shutdown().await;
}

/// Acceptance 2: killing the server mid-run gives a clear tool error, the next use reconnects,
/// and shutting down leaves no process behind.
#[tokio::test]
async fn killed_server_fails_its_tools_then_reconnects() {
    let Some(manager) = everything() else { return };
    let agent = agent("echoer", &["everything"], Some(&["mcp.everything.echo"]));
    let (tools, _) = manager.tools_for_agent(&agent).await;
    let echo = &tools[0];
    echo.call(json!({"message": "one"}), &ctx()).await.unwrap();
    let pid = manager.server_pid("everything").await.unwrap();
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(gone(pid).await);

    // The call right after the kill either finds the server dead and restarts it, or (when the
    // death is not noticed yet) fails with a tool error naming the server; the use after that
    // works again on a fresh process.
    match echo.call(json!({"message": "two"}), &ctx()).await {
        Ok(out) => assert!(out.content.contains("two")),
        Err(error) => {
            let error = error.to_string();
            assert!(
                error.starts_with("MCP server `everything` disconnected"),
                "{error}"
            );
            let out = echo
                .call(json!({"message": "three"}), &ctx())
                .await
                .unwrap();
            assert!(out.content.contains("three"));
        }
    }
    let new_pid = manager.server_pid("everything").await.unwrap();
    assert_ne!(pid, new_pid);

    manager.shutdown().await;
    assert!(gone(new_pid).await, "server {new_pid} outlived shutdown");
    assert!(manager.server_pid("everything").await.is_none());
}

/// The streamable-HTTP transport, against the everything server's HTTP mode on 127.0.0.1.
#[tokio::test]
async fn talks_streamable_http() {
    let Some(bin) = npm_server("mcp-server-everything") else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = tokio::process::Command::new(bin)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut up = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            up = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(up, "the everything server did not listen on port {port}");
    let config = agentctl_core::McpServerConfig {
        transport: Some("http".into()),
        url: Some(format!("http://127.0.0.1:{port}/mcp")),
        headers: [(
            "X-Agentctl-Test".to_owned(),
            "${AGENTCTL_TEST_UNSET_HEADER:-yes}".to_owned(),
        )]
        .into(),
        ..Default::default()
    };
    let manager = manager_with(&[("remote", config)]);
    let status = manager.status().await;
    assert_eq!(status[0].transport, "http");
    assert_eq!(status[0].status, "connected", "{status:?}");
    let out = manager
        .call_tool("remote", "echo", json!({"message": "over http"}))
        .await
        .unwrap();
    assert!(out.text.contains("over http"), "{out:?}");
    manager.shutdown().await;
    server.kill().await.unwrap();
}
