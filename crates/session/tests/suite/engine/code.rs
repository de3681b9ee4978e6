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
        .await
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

/// Seed 000's `/agents context NAME [--mode]` on a session: the mode and where it came from,
/// changed for the rest of the session by [`Op::SetContextMode`]; a mode the settings refuse
/// is refused when it is set, not at the next run.
#[tokio::test]
async fn a_session_reports_and_overrides_an_agents_context_mode() {
    use agentctl_core::{AgentsSettings, ContextMode};
    use agentctl_session::context::ModeSource;
    use agentctl_session::{EventMsg, Notice, Op};
    let fixer = || Agent::new("bug-fixer", "Fix bugs.").context_mode(ContextMode::Shared);
    let session = Session::builder().agent(fixer()).build().await.unwrap();
    let mut events = session.events().unwrap();
    let shown = session.context_mode("bug-fixer").await.unwrap();
    assert_eq!(
        (shown.mode, shown.source),
        (ContextMode::Shared, ModeSource::AgentFile)
    );
    let id = session
        .submit(Op::SetContextMode {
            agent: "bug-fixer".into(),
            mode: Some(ContextMode::Isolated),
        })
        .unwrap();
    let event = events.recv().await.unwrap();
    assert_eq!(event.turn, id);
    assert!(matches!(
        event.msg,
        EventMsg::Notice(Notice::ContextModeSet {
            mode: Some(ContextMode::Isolated),
            ..
        })
    ));
    let shown = session.context_mode("bug-fixer").await.unwrap();
    assert_eq!(
        (shown.mode, shown.source, shown.original),
        (
            ContextMode::Isolated,
            ModeSource::SessionOverride,
            ContextMode::Shared
        )
    );
    assert!(session.context_mode("nobody").await.is_err());
    session.shutdown().await;

    let locked = Settings {
        agents: AgentsSettings {
            allow_shared_context: false,
            ..AgentsSettings::default()
        },
        ..Settings::default()
    };
    let reviewer = Agent::new("code-reviewer", "Review.");
    let session = Session::builder()
        .settings(locked)
        .agent(reviewer)
        .build()
        .await
        .unwrap();
    let mut events = session.events().unwrap();
    session
        .submit(Op::SetContextMode {
            agent: "code-reviewer".into(),
            mode: Some(ContextMode::Shared),
        })
        .unwrap();
    let event = events.recv().await.unwrap();
    assert!(
        matches!(&event.msg, EventMsg::Notice(Notice::Failed { message }) if message.contains("code-reviewer")),
        "{:?}",
        event.msg
    );
    let shown = session.context_mode("code-reviewer").await.unwrap();
    assert_eq!(shown.mode, ContextMode::Isolated);
    session.shutdown().await;
}
