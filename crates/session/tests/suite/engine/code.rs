//! Agents defined in code: `Agent::new` and a typed tool from a closure, each agent running
//! its own tools even when another agent's tool has the same name.

use super::wire::{answer, call, options};
use agentctl_core::{RiskLevel, Settings, ToolError, tool_fn};
use agentctl_session::{Agent, RuntimeBuilder, Session};
use agentctl_test_support::FakeServer;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Key {
    /// The key.
    key: String,
}

/// An agent whose `lookup` answers `owner: KEY`.
fn agent(owner: &'static str) -> Agent {
    let lookup = tool_fn("lookup", "Looks a key up.", move |args: Key| async move {
        Ok::<_, ToolError>(format!("{owner}: {}", args.key))
    })
    .risk(RiskLevel::Safe)
    .read_only();
    Agent::new(owner, format!("You are {owner}."))
        .model("openai:gpt-4o-mini")
        .tool(lookup)
}

#[tokio::test]
async fn each_agent_defined_in_code_runs_its_own_tools() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::openai().await;
    for _ in 0..2 {
        call(&server, "c1", "lookup", r#"{"key": "k"}"#);
        answer(&server, "Looked up.");
    }
    let runtime = RuntimeBuilder::with_settings(Settings::default(), dir.path())
        .provider_options(options(&server, dir.path()));
    let session = Session::builder()
        .runtime(runtime)
        .agent(agent("first"))
        .agent(agent("second"))
        .build()
        .unwrap();
    assert_eq!(session.ask("Look k up").await.unwrap().text, "Looked up.");
    let second = session.ask_agent("second", "Look k up").await.unwrap();
    assert_eq!(second.text, "Looked up.");
    let requests = server.requests();
    let result = |index: usize| requests[index].body["messages"].to_string();
    assert!(result(1).contains("first: k"), "{}", result(1));
    assert!(result(3).contains("second: k"), "{}", result(3));
    session.shutdown().await;
    server.assert_no_violations();
}
