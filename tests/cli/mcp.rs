//! MCP tools through the CLI: `agents tools` and `run` with the real everything server.

use super::support::everything_server;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const CASSETTE: &str = r#"
version: 1
turns:
  - expect: { toolsInclude: [mcp.everything.echo] }
    response:
      toolCalls:
        - { id: e1, name: mcp.everything.echo, arguments: { message: hello over MCP } }
        - { id: e2, name: mcp.everything.get-sum, arguments: { a: 1, b: 2 } }
  - expect: { lastToolResultContains: "not allowed for this agent" }
    response: { text: "echo said hello" }
"#;

fn project(server: &Path) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".agentctl/agents")).unwrap();
    let settings = serde_json::json!({
        "mcpServers": { "everything": { "command": server, "args": ["stdio"] } }
    });
    std::fs::write(root.join(".agentctl/settings.json"), settings.to_string()).unwrap();
    std::fs::write(
        root.join(".agentctl/agents/echoer.md"),
        "---\nname: echoer\ndescription: Echoes.\nmodel: scripted:cassette.yaml\nmcp:\n  servers: [everything]\ntools:\n  allow: [mcp.everything.echo]\n---\n\nEcho things.\n",
    )
    .unwrap();
    std::fs::write(root.join("cassette.yaml"), CASSETTE).unwrap();
    (tmp, root)
}

fn agentctl(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentctl"))
        .arg("--project-dir")
        .arg(root)
        .args(args)
        .env("HOME", root.join("home"))
        .env("AGENTCTL_HOME", root.join("home/.agentctl"))
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn allow_list_of_one_mcp_tool_is_the_effective_set_and_runs() {
    let Some(server) = everything_server() else {
        return;
    };
    let (_tmp, root) = project(&server);
    let output = agentctl(&root, &["agents", "tools", "echoer", "--format", "json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mcp.everything.echo"]);

    let output = agentctl(
        &root,
        &[
            "run",
            "echoer",
            "-p",
            "say hello",
            "--format",
            "stream-json",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let result = |id: &str| {
        events
            .iter()
            .find(|e| e["type"] == "tool_result" && e["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(result("e1")["is_error"], false);
    assert!(
        result("e1")["content"]
            .as_str()
            .unwrap()
            .contains("hello over MCP")
    );
    assert_eq!(result("e2")["is_error"], true);
    assert!(
        result("e2")["content"]
            .as_str()
            .unwrap()
            .contains("not allowed for this agent")
    );
    assert_eq!(events.last().unwrap()["type"], "run_finished");
}
