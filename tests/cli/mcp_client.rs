//! `mcp serve` driven by a real MCP client (rmcp's, over the server's stdin and stdout),
//! started from another folder with `--project-dir` as MCP clients start it: the handoff chain
//! of `examples/handoff-chain` edits the project's files, and a graph agent runs its graph.

use super::support::{TestProject, text};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use std::path::Path;
use std::process::Stdio;

/// Calls the tool `agent` with `prompt` on `agentctl --project-dir PROJECT mcp serve` started
/// in `folder`; returns the tools it listed, the call's result and the server's stderr.
async fn call(
    project: &TestProject,
    folder: &Path,
    agent: &str,
    prompt: &str,
) -> (Vec<String>, CallToolResult, String) {
    let mut command = tokio::process::Command::from(project.command(&["mcp", "serve"]));
    command
        .current_dir(folder)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let config = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("agentctl-cli-tests", "1"),
    );
    let client = config.serve((stdout, stdin)).await.unwrap();
    let tools = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    let arguments = serde_json::json!({ "prompt": prompt });
    let params = CallToolRequestParams::new(agent.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone());
    let result = client.call_tool(params).await.unwrap();
    // Closing the client closes the server's stdin: it ends.
    client.cancel().await.unwrap();
    let output = child.wait_with_output().await.unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    (tools, result, text(&output.stderr))
}

/// The text of a tool result.
fn result_text(result: &CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap().to_string()
}

#[tokio::test]
async fn the_handoff_chain_through_mcp_serve_edits_the_project_from_another_folder() {
    let project = TestProject::served_example("handoff-chain");
    let elsewhere = tempfile::tempdir().unwrap();
    let (tools, result, stderr) = call(
        &project,
        elsewhere.path(),
        "debug-analyzer",
        "Fix this bug: the dashboard crashes after login",
    )
    .await;
    assert!(tools.contains(&"debug-analyzer".to_owned()), "{tools:?}");
    assert_ne!(result.is_error, Some(true), "{result:?}\n{stderr}");
    assert!(
        result_text(&result).contains("Changes approved"),
        "{result:?}"
    );
    assert!(!stderr.contains("No such file"), "{stderr}");
    let source = std::fs::read_to_string(project.root.join("src/auth.ts")).unwrap();
    assert!(source.contains("if (!user.profile) {"), "{source}");
    // Nothing was written in the folder the server was started in.
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}

#[tokio::test]
async fn a_graph_agent_called_through_mcp_serve_runs_its_graph() {
    let project = TestProject::served_example("debug-flow");
    let elsewhere = tempfile::tempdir().unwrap();
    let (_, result, stderr) = call(
        &project,
        elsewhere.path(),
        "debug-flow",
        "Fix this bug: the dashboard crashes after login",
    )
    .await;
    assert_ne!(result.is_error, Some(true), "{result:?}\n{stderr}");
    assert!(!stderr.contains("has no model"), "{stderr}");
    let fixed = std::fs::read_to_string(project.root.join("src/auth.ts")).unwrap();
    assert!(fixed.contains("if (!user.profile)"), "{fixed}");
    // The graph ran node by node, checkpointed in the serve process's session.
    let sessions = project.json(&["sessions", "list", "--format", "json"]);
    let session = sessions[0]["sessionId"].as_str().unwrap();
    let replay = project.json(&["graph", "replay", "--session", session, "--format", "json"]);
    let nodes: Vec<&str> = replay["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["node"].as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["analyzer", "fixer", "reviewer"]);
}
