//! Agents served over MCP, driven by an rmcp client over an in-process duplex pipe.

use agentctl_mcp::{AgentInvoker, ServedAgent, serve_agents};
use async_trait::async_trait;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

struct Shouter;

#[async_trait]
impl AgentInvoker for Shouter {
    async fn invoke(
        &self,
        agent: &str,
        prompt: &str,
        _cancel: CancellationToken,
    ) -> Result<String, String> {
        if prompt == "fail" {
            return Err(format!("agent `{agent}` failed: approval needed for bash"));
        }
        Ok(format!("{agent}: {}", prompt.to_uppercase()))
    }
}

#[tokio::test]
async fn agents_are_tools_over_mcp() {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let agents = vec![
        ServedAgent {
            name: "shouter".into(),
            description: "Shouts.".into(),
        },
        ServedAgent {
            name: "reviewer".into(),
            description: "Reviews.".into(),
        },
    ];
    let (server_read, server_write) = tokio::io::split(server_io);
    let server = tokio::spawn(serve_agents(
        agents,
        Arc::new(Shouter),
        server_read,
        server_write,
    ));

    let client = ().serve(client_io).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["shouter", "reviewer"]);
    assert_eq!(tools[0].input_schema["required"][0], "prompt");

    let args = serde_json::json!({"prompt": "hello"});
    let result = client
        .call_tool(
            CallToolRequestParams::new("shouter").with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "shouter: HELLO");
    assert_ne!(result.is_error, Some(true));

    let args = serde_json::json!({"prompt": "fail"});
    let result = client
        .call_tool(
            CallToolRequestParams::new("reviewer")
                .with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));

    assert!(
        client
            .call_tool(CallToolRequestParams::new("nobody"))
            .await
            .is_err()
    );
    client.cancel().await.unwrap();
    server.await.unwrap().unwrap();
}

/// The `agentctl` binary next to this test binary (`cargo test --workspace` builds it).
fn agentctl_bin() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let bin = exe
        .parent()?
        .parent()?
        .join(format!("agentctl{}", std::env::consts::EXE_SUFFIX));
    let check = if bin.exists() {
        Ok(())
    } else {
        Err(format!(
            "{} is missing: build it with `cargo build -p agentctl` (cargo test --workspace does)",
            bin.display()
        ))
    };
    agentctl_test_support::requirement(check).then_some(bin)
}

const GREETER: &str = "---
name: greeter
description: Greets whoever asks.
model: scripted:.agentctl/cassettes/greeter.yaml
tools: [read_file]
---
You greet people.
";

const GREETER_CASSETTE: &str = "version: 1
turns:
  - expect: { lastUserContains: Ada }
    response: { text: 'Hello, Ada!' }
";

const CLEANER: &str = "---
name: cleaner
description: Deletes build output.
model: scripted:.agentctl/cassettes/cleaner.yaml
tools: [bash]
---
You clean up.
";

// The bash call needs approval; in `mcp serve` nobody can give it, so it is denied at once
// and the model sees the denial.
const CLEANER_CASSETTE: &str = "version: 1
turns:
  - response:
      toolCalls: [{ id: call_1, name: bash, arguments: { command: 'rm -rf target' } }]
  - response: { text: 'Could not clean: the call was denied.' }
";

#[tokio::test]
async fn agentctl_mcp_serve_runs_agents_for_an_mcp_client() {
    let Some(bin) = agentctl_bin() else { return };
    let project = tempfile::tempdir().unwrap();
    let dot = project.path().join(".agentctl");
    std::fs::create_dir_all(dot.join("agents")).unwrap();
    std::fs::create_dir_all(dot.join("cassettes")).unwrap();
    std::fs::write(dot.join("agents/greeter.md"), GREETER).unwrap();
    std::fs::write(dot.join("agents/cleaner.md"), CLEANER).unwrap();
    std::fs::write(dot.join("cassettes/greeter.yaml"), GREETER_CASSETTE).unwrap();
    std::fs::write(dot.join("cassettes/cleaner.yaml"), CLEANER_CASSETTE).unwrap();
    let home = tempfile::tempdir().unwrap();

    let mut child = tokio::process::Command::new(bin)
        .arg("--project-dir")
        .arg(project.path())
        .args(["mcp", "serve", "--agents", "greeter,cleaner"])
        .env("AGENTCTL_HOME", home.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let client = ().serve((stdout, stdin)).await.unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(names, ["cleaner", "greeter"]);
    let greeter = tools.iter().find(|t| t.name == "greeter").unwrap();
    assert_eq!(greeter.description.as_deref(), Some("Greets whoever asks."));

    let prompt = |text: &str| {
        serde_json::json!({ "prompt": text })
            .as_object()
            .unwrap()
            .clone()
    };
    let result = client
        .call_tool(CallToolRequestParams::new("greeter").with_arguments(prompt("I am Ada")))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "Hello, Ada!");

    let started = std::time::Instant::now();
    let result = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        client.call_tool(CallToolRequestParams::new("cleaner").with_arguments(prompt("clean"))),
    )
    .await
    .expect("approval must not hang")
    .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "Could not clean: the call was denied."
    );

    client.cancel().await.unwrap();
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait())
        .await
        .expect("mcp serve exits when the client goes")
        .unwrap();
    assert!(status.success(), "{status}");
}
