//! MCP tools through the CLI: `agents tools` and `run` with the real everything server.

use super::support::{TestProject, events, everything_server, tool_result};
use std::path::Path;

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

/// A project whose `echoer` may use the everything server's `echo` and nothing else.
fn project(server: &Path) -> TestProject {
    let project = TestProject::new();
    project.serve_cassettes();
    let settings = serde_json::json!({
        "mcpServers": { "everything": { "command": server, "args": ["stdio"] } }
    });
    project
        .write(".agentctl/settings.json", &settings.to_string())
        .write(
            ".agentctl/agents/echoer.md",
            "---\nname: echoer\ndescription: Echoes.\nmodel: scripted:cassette.yaml\nmcp:\n  servers: [everything]\ntools:\n  allow: [mcp.everything.echo]\n---\n\nEcho things.\n",
        )
        .write("cassette.yaml", CASSETTE);
    project
}

#[test]
fn allow_list_of_one_mcp_tool_is_the_effective_set_and_runs() {
    let Some(server) = everything_server() else {
        return;
    };
    let project = project(&server);
    let report = project.json(&["agents", "tools", "echoer", "--format", "json"]);
    let names: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mcp.everything.echo"]);

    let output = project.agentctl(&[
        "run",
        "echoer",
        "-p",
        "say hello",
        "--format",
        "stream-json",
    ]);
    let events = events(&output);
    let result = |id: &str| tool_result(&events, id);
    assert_eq!(result("e1")["isError"], false);
    assert!(
        result("e1")["content"]
            .as_str()
            .unwrap()
            .contains("hello over MCP")
    );
    assert_eq!(result("e2")["isError"], true);
    assert!(
        result("e2")["content"]
            .as_str()
            .unwrap()
            .contains("not allowed for this agent")
    );
    assert_eq!(events.last().unwrap()["type"], "run_finished");
}
