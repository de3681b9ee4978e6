//! Servers that fail: to start, mid-call, by never answering, or by configuration.

use super::support::{agent, alive, ctx, gone, misbehave};
use agentctl_core::McpServerConfig;
use agentctl_mcp::{McpError, McpManager};
use serde_json::json;
use std::collections::BTreeMap;

fn manager(servers: Vec<(&str, McpServerConfig)>) -> McpManager {
    let map: BTreeMap<_, _> = servers
        .into_iter()
        .map(|(name, config)| (name.to_owned(), config))
        .collect();
    McpManager::new(map, std::env::temp_dir())
}

#[tokio::test]
async fn crash_mid_call_is_a_tool_error_and_the_next_call_reconnects() {
    let Some(config) = misbehave(&[]) else { return };
    let manager = manager(vec![("bad", config)]);
    let agent = agent("a", &["bad"], None);
    let (tools, warnings) = manager.tools_for_agent(&agent).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    let crash = tools.iter().find(|t| t.name() == "mcp.bad.crash").unwrap();
    let echo = tools.iter().find(|t| t.name() == "mcp.bad.echo").unwrap();
    let pid = manager.server_pid("bad").await.unwrap();

    let error = crash.call(json!({}), &ctx()).await.unwrap_err().to_string();
    assert!(error.contains("MCP server `bad`"), "{error}");
    assert!(
        error.contains("segfault in crash tool"),
        "stderr tail missing: {error}"
    );
    assert!(gone(pid).await);

    let out = echo
        .call(json!({"message": "again"}), &ctx())
        .await
        .unwrap();
    assert_eq!(out.content, "echo: again");
    manager.shutdown().await;
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let Some(mut config) = misbehave(&[]) else {
        return;
    };
    // The timeout bounds the start too: long enough for node to start on a busy machine.
    config.timeout = Some(3_000);
    let manager = manager(vec![("slow", config)]);
    manager.tools("slow").await.unwrap();
    let started = std::time::Instant::now();
    let error = manager
        .call_tool("slow", "hang", json!({}))
        .await
        .unwrap_err();
    assert!(started.elapsed() < PROMPTLY);
    assert_eq!(
        error,
        McpError::Timeout {
            server: "slow".into(),
            operation: "tools/call hang".into(),
            millis: 3_000
        }
    );
    assert!(error.is_retryable());
    // The hung server was dropped; the next call starts a fresh one.
    let out = manager
        .call_tool("slow", "echo", json!({"message": "hi"}))
        .await
        .unwrap();
    assert_eq!(out.text, "echo: hi");
    manager.shutdown().await;
}

#[tokio::test]
async fn failures_are_warnings_naming_the_server_and_other_servers_keep_working() {
    let Some(good) = misbehave(&[]) else { return };
    let Some(broken) = misbehave(&["--fail-start"]) else {
        return;
    };
    let missing = McpServerConfig {
        command: Some("agentctl-no-such-mcp-server".into()),
        ..Default::default()
    };
    let secret = McpServerConfig {
        command: Some("node".into()),
        env: [(
            "TOKEN".to_owned(),
            "${AGENTCTL_TEST_UNSET_TOKEN}".to_owned(),
        )]
        .into(),
        ..Default::default()
    };
    let manager = manager(vec![
        ("good", good),
        ("broken", broken),
        ("missing", missing),
        ("secret", secret),
    ]);
    let agent = agent(
        "a",
        &["good", "broken", "missing", "secret", "nowhere"],
        None,
    );
    let (tools, warnings) = manager.tools_for_agent(&agent).await;
    assert_eq!(tools.len(), 3, "the good server's tools are all there");
    let messages: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 4, "{messages:#?}");
    let find = |server: &str| {
        messages
            .iter()
            .find(|m| m.contains(&format!("`{server}`")))
            .unwrap_or_else(|| panic!("no warning for {server}: {messages:#?}"))
    };
    assert!(find("broken").contains("cannot open database"));
    assert!(find("missing").contains("cannot run `agentctl-no-such-mcp-server`"));
    let secret = find("secret");
    assert!(
        secret.contains("AGENTCTL_TEST_UNSET_TOKEN") && secret.contains("env.TOKEN"),
        "{secret}"
    );
    assert!(find("nowhere").starts_with("unknown MCP server `nowhere`"));

    let status = manager.status().await;
    let failed: Vec<_> = status
        .iter()
        .filter(|s| s.status == "failed")
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(failed, ["broken", "missing", "secret"]);
    manager.shutdown().await;
}

#[tokio::test]
async fn shutdown_and_drop_stop_the_whole_process_group() {
    let Some(mut config) = misbehave(&[]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    config.env.insert(
        "MISBEHAVE_GRANDCHILD_PID".into(),
        pid_file.display().to_string(),
    );
    for explicit_shutdown in [true, false] {
        let manager = manager(vec![("kids", config.clone())]);
        manager.tools("kids").await.unwrap();
        let server = manager.server_pid("kids").await.unwrap();
        let grandchild: u32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(alive(grandchild));
        if explicit_shutdown {
            manager.shutdown().await;
        } else {
            drop(manager);
        }
        assert!(gone(server).await, "server {server} survived");
        assert!(
            gone(grandchild).await,
            "grandchild {grandchild} was orphaned"
        );
    }
}

const RUN_CASSETTE: &str = "version: 1
turns:
  - expect: { toolsInclude: [mcp.bad.crash, mcp.bad.echo] }
    response:
      toolCalls: [{ id: call_1, name: mcp.bad.crash, arguments: {} }]
  - expect: { lastToolResultContains: 'MCP server `bad` disconnected' }
    response:
      toolCalls: [{ id: call_2, name: mcp.bad.echo, arguments: { message: back } }]
  - expect: { lastToolResultContains: 'echo: back' }
    response: { text: 'The server came back.' }
";

/// Acceptance 2 at run level: the server dies during a call; the run goes on with a tool
/// error, the next call reconnects, and nothing is left running afterwards.
#[tokio::test]
async fn a_run_survives_its_server_dying_mid_call() {
    use agentctl_core::{RunOptions, ToolRegistry};
    use agentctl_providers::{BuiltinProviders, ProviderOptions};
    use agentctl_runtime::Runtime;
    let Some(config) = misbehave(&[]) else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("run.yaml"), RUN_CASSETTE).unwrap();
    let manager = manager(vec![("bad", config)]);
    let mut agent = agent("survivor", &["bad"], Some(&["mcp.bad.*"]));
    agent.spec.model = Some(format!(
        "scripted:{}",
        dir.path().join("run.yaml").display()
    ));
    let (tools, warnings) = manager.tools_for_agent(&agent).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    let first_pid = manager.server_pid("bad").await.unwrap();
    let mut registry = ToolRegistry::new();
    for tool in tools {
        registry.register_arc(tool);
    }
    // The test's own server, trusted explicitly: without a policy only safe calls run.
    let runtime = Runtime::new(
        agentctl_core::Settings::default(),
        BuiltinProviders::new(ProviderOptions::default()),
        registry,
    )
    .with_gate(std::sync::Arc::new(
        agentctl_core::ApprovalPolicy::TrustEverything,
    ));
    let result = runtime
        .run_to_completion(&agent, "go", RunOptions::new())
        .await
        .unwrap();
    assert_eq!(result.text, "The server came back.");
    let second_pid = manager.server_pid("bad").await.unwrap();
    assert_ne!(first_pid, second_pid);
    assert!(gone(first_pid).await);
    manager.shutdown().await;
    assert!(gone(second_pid).await);
}

/// Servers defined in the agent file (Claude `mcpServers`, Gemini `mcp_servers`): used as they
/// are, and when one differs from a settings server of the same name, the agent gets its own.
#[tokio::test]
async fn inline_servers_of_an_agent() {
    let Some(settings_srv) = misbehave(&[]) else {
        return;
    };
    let mut own = settings_srv.clone();
    own.env.insert("FLAVOUR".into(), "inline".into());
    own.exclude_tools = vec!["hang".into()];
    let manager = manager(vec![("srv", settings_srv)]);
    let mut inline_agent = agent("inliner", &[], None);
    inline_agent.spec.mcp.inline =
        [("srv".to_owned(), own.clone()), ("solo".to_owned(), own)].into();
    let (tools, warnings) = manager.tools_for_agent(&inline_agent).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    let mut names: Vec<_> = tools.iter().map(|t| t.name().to_owned()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "mcp.solo.crash",
            "mcp.solo.echo",
            "mcp.srv.crash",
            "mcp.srv.echo"
        ]
    );
    let echo = tools.iter().find(|t| t.name() == "mcp.srv.echo").unwrap();
    assert_eq!(
        echo.call(json!({"message": "x"}), &ctx())
            .await
            .unwrap()
            .content,
        "echo: x"
    );
    // Other agents still see the settings server, with all three tools.
    let (tools, _) = manager
        .tools_for_agent(&agent("plain", &["srv"], None))
        .await;
    assert_eq!(tools.len(), 3);
    assert_eq!(manager.server_names(), ["solo", "srv", "srv@inliner"]);
    manager.shutdown().await;
}

/// Generous bound for "at once": far below the timeouts these servers are given.
const PROMPTLY: std::time::Duration = std::time::Duration::from_secs(10);

/// A server that prints a banner on stdout before the protocol fails at once, quoting the
/// line, though its timeout is a minute.
#[tokio::test]
async fn a_banner_on_stdout_fails_at_once_quoting_it() {
    for flag in ["--banner", "--glued-banner"] {
        let Some(mut config) = misbehave(&[flag]) else {
            return;
        };
        config.timeout = Some(60_000);
        let manager = manager(vec![("noisy", config)]);
        let started = std::time::Instant::now();
        let error = manager.tools("noisy").await.unwrap_err();
        assert!(
            started.elapsed() < PROMPTLY,
            "{flag}: {:?}",
            started.elapsed()
        );
        let McpError::NotJsonRpc { server, line } = &error else {
            panic!("{flag}: {error:?}");
        };
        assert_eq!(server, "noisy");
        assert!(line.starts_with("Starting server..."), "{flag}: {line}");
        let message = error.to_string();
        assert!(
            message.starts_with(
                "MCP server `noisy` wrote a line that is not JSON-RPC on stdout: \"Starting server..."
            ) && message.ends_with("servers must log to stderr"),
            "{message}"
        );
        let status = manager.status().await;
        assert_eq!(status[0].status, "failed");
        manager.shutdown().await;
    }
}

/// A log line on stdout in the middle of a session fails that call at once, names the line,
/// and drops the connection; the next use starts the server again.
#[tokio::test]
async fn a_log_line_mid_session_fails_the_call_and_the_server_is_restarted() {
    let Some(mut config) = misbehave(&["--log-on-call"]) else {
        return;
    };
    config.timeout = Some(60_000);
    let manager = manager(vec![("chatty", config)]);
    manager.tools("chatty").await.unwrap();
    let first = manager.server_pid("chatty").await.unwrap();
    let started = std::time::Instant::now();
    let error = manager
        .call_tool("chatty", "echo", json!({"message": "hi"}))
        .await
        .unwrap_err();
    assert!(started.elapsed() < PROMPTLY);
    assert_eq!(
        error,
        McpError::NotJsonRpc {
            server: "chatty".into(),
            line: "handling echo".into()
        }
    );
    assert!(error.is_retryable());
    assert!(gone(first).await, "the broken server was not stopped");
    manager.tools("chatty").await.unwrap();
    assert_ne!(manager.server_pid("chatty").await, Some(first));
    manager.shutdown().await;
}

/// A server that never answers `initialize` fails after its configured `timeout`, not after a
/// built-in minimum, and the error names the server and the limit.
#[tokio::test]
async fn a_silent_server_fails_after_its_configured_timeout() {
    let Some(mut config) = misbehave(&["--silent"]) else {
        return;
    };
    config.timeout = Some(1_500);
    let manager = manager(vec![("silent", config)]);
    let started = std::time::Instant::now();
    let error = manager.tools("silent").await.unwrap_err();
    assert!(started.elapsed() < PROMPTLY, "{:?}", started.elapsed());
    assert_eq!(
        error,
        McpError::Timeout {
            server: "silent".into(),
            operation: "initialize".into(),
            millis: 1_500
        }
    );
    assert_eq!(
        error.to_string(),
        "MCP server `silent` did not answer initialize within 1500 ms"
    );
    manager.shutdown().await;
}
