//! Handoffs through the session engine: a chain of agents on one turn, each in its own store
//! run linked to the one that handed off; a payload that fails its schema, an unknown target,
//! several handoffs in one reply and the handoff limit each end cleanly with a message the
//! model or the user can act on.

use super::support;
use agentctl_core::{Message, RunError, RunEvent};
use agentctl_session::{EventMsg, Project, SessionError, TurnOutcome};
use agentctl_store::{MessageLog as _, MessageQuery, RunLog as _};
use agentctl_test_support::{FakeServer, calls, text};
use serde_json::json;

struct Setup {
    _dir: tempfile::TempDir,
    project: Project,
}

/// A project with `agents` (`(name, front matter lines)`), all on `openai:gpt-4o-mini`.
fn setup(agents: &[(&str, &str)], settings: Option<&str>) -> Setup {
    setup_on("openai:gpt-4o-mini", agents, settings)
}

/// A project with `agents` (`(name, front matter lines)`), all on `model`.
fn setup_on(model: &str, agents: &[(&str, &str)], settings: Option<&str>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".agentctl/agents")).unwrap();
    for (name, extra) in agents {
        std::fs::write(
            root.join(format!(".agentctl/agents/{name}.md")),
            format!(
                "---\nname: {name}\ndescription: The {name} agent.\nmodel: {model}\n{extra}---\nYou are {name}.\n"
            ),
        )
        .unwrap();
    }
    if let Some(settings) = settings {
        std::fs::write(root.join(".agentctl/settings.json"), settings).unwrap();
    }
    let project = Project::load_from(Some(&root), &root).unwrap();
    Setup { _dir: dir, project }
}

/// A strict fake of the OpenAI API answering `responses` in order.
async fn serve(responses: Vec<agentctl_core::ModelResponse>) -> FakeServer {
    let server = FakeServer::openai().await;
    server.push_responses(responses);
    server
}

/// Runs one turn of `first` on `prompt` with the models on `server`; returns the run events,
/// the outcome and the session's id.
async fn turn(
    setup: &Setup,
    server: &FakeServer,
    first: &str,
    prompt: &str,
) -> (Vec<RunEvent>, TurnOutcome, String) {
    let builder = super::engine::wire::builder(&setup.project, server);
    let session = support::session(&setup.project, builder).await;
    let id = session.id().unwrap().to_owned();
    let (events, outcome) = support::turn(&session, support::agent(first), prompt).await;
    let switched: Vec<(String, String)> = events
        .iter()
        .filter_map(|event| match event {
            EventMsg::AgentSwitched { from, to, .. } => Some((from.clone(), to.clone())),
            _ => None,
        })
        .collect();
    let handoffs = support::runs(&events)
        .iter()
        .filter(|event| matches!(event, RunEvent::Handoff { .. }))
        .count();
    // Every handoff made starts its target, announced as such.
    if outcome.result.is_ok() {
        assert_eq!(switched.len(), handoffs, "{events:?}");
    }
    session.shutdown().await;
    (support::runs(&events), outcome, id)
}

/// Whether the result of call `id` was an error (the wire does not say; the events do).
fn tool_error(events: &[RunEvent], id: &str) -> bool {
    events.iter().any(|event| {
        matches!(event, RunEvent::ToolResult { id: call, is_error: true, .. } if call == id)
    })
}

const CHAIN: &[(&str, &str)] = &[
    (
        "debug-analyzer",
        "handoffs:\n  - to: code-fixer\n    payload:\n      schema:\n        type: object\n        properties:\n          file: {type: string}\n          line: {type: integer}\n        required: [file, line]\n",
    ),
    ("code-fixer", "handoffs:\n  - to: code-reviewer\n"),
    ("code-reviewer", ""),
];

#[tokio::test]
async fn a_chain_of_handoffs_runs_every_agent_on_one_turn() {
    let setup = setup(CHAIN, None);
    let server = serve(vec![
        // debug-analyzer: a payload that fails its schema first, then a good one.
        calls(&[(
            "h1",
            "handoff_to_code-fixer",
            json!({"file": "auth.ts", "line": "forty-five"}),
        )]),
        calls(&[(
            "h2",
            "handoff_to_code-fixer",
            json!({"file": "auth.ts", "line": 45, "reason": "null pointer"}),
        )]),
        // code-fixer
        calls(&[(
            "h3",
            "handoff_to_code-reviewer",
            json!({"reason": "fix applied", "context": {"applied": true}}),
        )]),
        // code-reviewer
        text("Changes approved."),
    ])
    .await;
    let (events, outcome, session) = turn(&setup, &server, "debug-analyzer", "Fix this bug").await;
    assert_eq!(outcome.result.unwrap().text, "Changes approved.");
    assert_eq!(
        outcome.agents,
        ["debug-analyzer", "code-fixer", "code-reviewer"]
    );
    let handoffs: Vec<(String, String)> = events
        .iter()
        .filter_map(|event| match event {
            RunEvent::Handoff { from, to, .. } => Some((from.clone(), to.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        handoffs,
        [
            ("debug-analyzer".into(), "code-fixer".into()),
            ("code-fixer".into(), "code-reviewer".into())
        ]
    );

    let requests = server.model_requests();
    assert_eq!(requests.len(), 4);
    // The bad payload was a tool error the model could correct.
    let Some(Message::Tool { content, .. }) = requests[1].messages.last() else {
        panic!("{:?}", requests[1].messages)
    };
    assert!(tool_error(&events, "h1"));
    assert!(
        content.contains("Invalid type for line: expected integer, got string")
            && content.contains("nothing was handed off"),
        "{content}"
    );
    // The fixer starts from a brief with the validated payload, with its own prompt and tools.
    let fixer = &requests[2];
    assert!(
        fixer
            .system
            .as_deref()
            .is_some_and(|system| system.starts_with("You are code-fixer."))
    );
    let Some(Message::User { content: brief }) = fixer.messages.first() else {
        panic!("{:?}", fixer.messages)
    };
    assert!(
        brief.starts_with("Handoff from `debug-analyzer`."),
        "{brief}"
    );
    assert!(brief.contains("Reason: null pointer"), "{brief}");
    assert!(brief.contains("\"line\": 45"), "{brief}");
    assert!(
        brief.contains("The user's request: Fix this bug"),
        "{brief}"
    );
    let fixer_tools: Vec<&str> = fixer.tools.iter().map(|tool| tool.name.as_str()).collect();
    assert!(fixer_tools.contains(&"handoff_to_code-reviewer"));
    assert!(!fixer_tools.contains(&"handoff_to_code-fixer"));

    // Each agent has its own store run, linked to the one that handed off.
    let store = agentctl_store_sqlite::SqliteStore::open(&setup.project.store_path()).unwrap();
    let runs = store.runs(&session).unwrap();
    let chain: Vec<(&str, Option<i64>)> = runs
        .iter()
        .map(|run| (run.agent.as_str(), run.parent_run_id))
        .collect();
    assert_eq!(
        chain,
        [
            ("debug-analyzer", None),
            ("code-fixer", Some(runs[0].id)),
            ("code-reviewer", Some(runs[1].id))
        ]
    );
    assert_eq!(runs[1].context_scope.to_string(), "agent:code-fixer");
    // The timeline shows the handoffs.
    let timeline: Vec<String> = store
        .messages(&session, &MessageQuery::timeline())
        .unwrap()
        .into_iter()
        .filter_map(|stored| match stored.message {
            Message::Assistant {
                content: Some(text),
                ..
            } => Some(text),
            _ => None,
        })
        .collect();
    assert!(
        timeline
            .iter()
            .any(|text| text.contains("🔄 Handoff: debug-analyzer → code-fixer")),
        "{timeline:#?}"
    );
}

#[tokio::test]
async fn an_unknown_target_and_a_second_handoff_in_one_reply_are_tool_errors() {
    let setup = setup(
        &[
            (
                "triage",
                "handoffs:\n  - to: ghost\n  - to: helper\n  - to: other\n",
            ),
            ("helper", ""),
            ("other", ""),
        ],
        None,
    );
    let server = serve(vec![
        calls(&[("g", "handoff_to_ghost", json!({"reason": "?"}))]),
        calls(&[
            ("a", "handoff_to_helper", json!({"reason": "first"})),
            ("b", "handoff_to_other", json!({"reason": "second"})),
        ]),
        text("helper done"),
    ])
    .await;
    let (events, outcome, _) = turn(&setup, &server, "triage", "go").await;
    let ignored = events.iter().find_map(|event| match event {
        RunEvent::ToolResult {
            id,
            content,
            is_error: true,
            ..
        } if id == "b" => Some(content.clone()),
        _ => None,
    });
    assert_eq!(
        ignored.as_deref(),
        Some(
            "Ignored: this reply already hands off to helper; only the first handoff of a reply is made."
        )
    );
    assert_eq!(outcome.agents, ["triage", "helper"]);
    assert_eq!(outcome.result.unwrap().text, "helper done");
    let requests = server.model_requests();
    let Some(Message::Tool { content, .. }) = requests[1].messages.last() else {
        panic!()
    };
    assert!(
        content.starts_with("there is no agent named `ghost` to hand off to"),
        "{content}"
    );
    // The helper's brief says why it got the work; the second handoff of the reply was
    // refused, and the triage agent's turn shows it.
    let Some(Message::User { content: brief }) = requests[2].messages.first() else {
        panic!()
    };
    assert!(brief.contains("Reason: first"), "{brief}");
}

#[tokio::test]
async fn ping_pong_past_the_handoff_limit_stops_with_a_clear_message() {
    let setup = setup(
        &[
            ("ping", "handoffs:\n  - to: pong\n"),
            ("pong", "handoffs:\n  - to: ping\n"),
        ],
        Some(r#"{"agents": {"maxHandoffs": 2}}"#),
    );
    let server = serve(vec![
        calls(&[("1", "handoff_to_pong", json!({"reason": "yours"}))]),
        calls(&[("2", "handoff_to_ping", json!({"reason": "no, yours"}))]),
        calls(&[("3", "handoff_to_pong", json!({"reason": "yours again"}))]),
    ])
    .await;
    let (events, outcome, _) = turn(&setup, &server, "ping", "go").await;
    let Err(error) = &outcome.result else {
        panic!("{:?}", outcome.result)
    };
    assert!(matches!(
        error,
        SessionError::Run(RunError::HandoffLimit { limit: 2, .. })
    ));
    assert_eq!(
        error.to_string(),
        "stopped after 2 handoffs (ping → pong → ping → pong): the agents kept handing the work on; raise agents.maxHandoffs or change their handoff conditions"
    );
    assert!(matches!(events.last(), Some(RunEvent::RunFailed { .. })));
    assert_eq!(server.model_requests().len(), 3);
}

#[tokio::test]
async fn when_reads_the_session_state_and_a_false_condition_moves_nothing() {
    let setup = setup(
        &[
            (
                "analyzer",
                "memory:\n  session: [analysis]\nhandoffs:\n  - to: fixer\n    when: analysis.can_auto_fix\n",
            ),
            ("fixer", ""),
        ],
        None,
    );
    let handoff = || calls(&[("h", "handoff_to_fixer", json!({"reason": "fixable"}))]);
    let set = |value: bool| {
        calls(&[(
            "m",
            "memory_set",
            json!({"key": "analysis", "value": {"can_auto_fix": value}}),
        )])
    };
    let server = serve(vec![
        handoff(),
        set(false),
        handoff(),
        set(true),
        handoff(),
        text("fixed"),
    ])
    .await;
    let (_, outcome, _) = turn(&setup, &server, "analyzer", "go").await;
    assert_eq!(outcome.agents, ["analyzer", "fixer"]);
    assert_eq!(outcome.result.unwrap().text, "fixed");
    let tool_result = |index: usize| match server.model_requests()[index].messages.last() {
        Some(Message::Tool { content, .. }) => content.clone(),
        other => panic!("{other:?}"),
    };
    // Not set yet: the model is told which key to set.
    let missing = tool_result(1);
    assert!(
        missing.contains("cannot be evaluated") && missing.contains("analysis"),
        "{missing}"
    );
    // Set, but false: refused, nothing handed off.
    assert_eq!(
        tool_result(3),
        "handoff to `fixer` refused: its condition `analysis.can_auto_fix` is false for the session state; nothing was handed off"
    );
}

/// The agents of a session share its built-in tools, not their permissions: the target
/// of a handoff is offered, and may call, only what its own file allows, whatever the agent
/// that handed off could do.
#[tokio::test]
async fn a_handoff_target_gets_only_its_own_tools_from_the_shared_set() {
    let setup = setup(
        &[
            (
                "builder",
                "tools:\n  allow: [write_file, read_file, bash, handoff_to_auditor]\nhandoffs:\n  - to: auditor\n",
            ),
            ("auditor", "tools:\n  allow: [read_file]\n"),
        ],
        None,
    );
    let server = serve(vec![
        calls(&[("h1", "handoff_to_auditor", json!({"reason": "audit it"}))]),
        // The auditor, told by a hostile file to write, tries the builder's tools.
        calls(&[
            (
                "w1",
                "write_file",
                json!({"path": "pwned.txt", "content": "x"}),
            ),
            ("b1", "bash", json!({"command": "touch pwned-by-bash.txt"})),
        ]),
        text("Audited."),
    ])
    .await;
    let (events, outcome, _) = turn(&setup, &server, "builder", "Build and audit").await;
    assert_eq!(outcome.result.unwrap().text, "Audited.");
    let requests = server.model_requests();
    let offered = |index: usize| -> Vec<String> {
        requests[index]
            .tools
            .iter()
            .map(|tool| tool.name.clone())
            .collect()
    };
    assert!(
        offered(0).contains(&"write_file".to_owned()),
        "{:?}",
        offered(0)
    );
    assert_eq!(requests[1].system.as_deref(), Some("You are auditor."));
    let auditor = offered(1);
    assert!(auditor.contains(&"read_file".to_owned()), "{auditor:?}");
    assert!(
        !auditor
            .iter()
            .any(|name| name == "write_file" || name == "bash"),
        "{auditor:?}"
    );
    // Both calls came back as errors, and nothing was written.
    assert_eq!(requests[2].messages.len(), requests[1].messages.len() + 3);
    assert!(
        tool_error(&events, "w1") && tool_error(&events, "b1"),
        "{events:?}"
    );
    let root = setup.project.root().to_path_buf();
    assert!(!root.join("pwned.txt").exists());
    assert!(!root.join("pwned-by-bash.txt").exists());
}

#[tokio::test]
async fn an_untrusted_projects_approvals_do_not_reach_the_agent_handed_off_to() {
    // The clone asks for everything to be approved; the project is not trusted.
    let setup = setup(
        &[("triage", "handoffs:\n  - to: writer\n"), ("writer", "")],
        Some(r#"{"approvals": {"autoApprove": ["safe", "low", "medium", "high", "critical"]}}"#),
    );
    assert!(setup.project.settings().approvals.auto_approve.is_empty());
    assert_eq!(
        setup
            .project
            .settings
            .ignored()
            .map(|loosening| loosening.key.as_str())
            .collect::<Vec<_>>(),
        ["approvals.autoApprove"]
    );
    let server = serve(vec![
        calls(&[("h1", "handoff_to_writer", json!({"reason": "write it"}))]),
        calls(&[(
            "w1",
            "write_file",
            json!({"path": "planted.txt", "content": "x"}),
        )]),
        text("Could not write."),
    ])
    .await;
    let (events, outcome, _) = turn(&setup, &server, "triage", "Write a file").await;
    assert_eq!(outcome.agents, ["triage", "writer"]);
    let requests = server.model_requests();
    let Some(Message::Tool { content, .. }) = requests[2].messages.last() else {
        panic!("{:?}", requests[2].messages)
    };
    assert!(
        tool_error(&events, "w1") && content.contains("needs approval"),
        "{content}"
    );
    assert!(!setup.project.root().join("planted.txt").exists());
}

/// Where the provider matters: Anthropic wants every `tool_use` answered by a `tool_result` in
/// the next user turn and roles that alternate, so the chain's briefs and payload errors go
/// through the strict Anthropic fake.
#[tokio::test]
async fn a_chain_of_handoffs_sends_valid_anthropic_requests() {
    use agentctl_test_support::anthropic;
    let setup = setup_on("anthropic:claude-sonnet-4-5", CHAIN, None);
    let server = FakeServer::anthropic().await;
    for (id, target, payload) in [
        (
            "h1",
            "handoff_to_code-fixer",
            json!({"file": "auth.ts", "line": "x"}),
        ),
        (
            "h2",
            "handoff_to_code-fixer",
            json!({"file": "auth.ts", "line": 45}),
        ),
        ("h3", "handoff_to_code-reviewer", json!({"reason": "fixed"})),
    ] {
        server.push_json(anthropic::response(None, &[(id, target, payload)]));
    }
    server.push_json(anthropic::response(Some("Changes approved."), &[]));
    let options = agentctl_providers::ProviderOptions {
        retry: agentctl_providers::RetryPolicy::none(),
        env: agentctl_providers::Env::from_pairs([
            ("ANTHROPIC_API_KEY", "sk-ant-test".to_owned()),
            ("ANTHROPIC_BASE_URL", server.base_url()),
        ]),
        working_dir: Some(setup.project.root().to_path_buf()),
        ..agentctl_providers::ProviderOptions::default()
    };
    let builder = agentctl_session::RuntimeBuilder::new(&setup.project).provider_options(options);
    let session = support::session(&setup.project, builder).await;
    let (events, outcome) =
        support::turn(&session, support::agent("debug-analyzer"), "Fix this bug").await;
    session.shutdown().await;
    assert_eq!(outcome.result.unwrap().text, "Changes approved.");
    assert_eq!(
        outcome.agents,
        ["debug-analyzer", "code-fixer", "code-reviewer"]
    );
    assert!(tool_error(&support::runs(&events), "h1"));
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    // The payload error went back as the tool_result of the call, flagged as an error.
    let retry = &requests[1].body["messages"];
    let last = &retry[retry.as_array().unwrap().len() - 1]["content"][0];
    assert_eq!(last["type"], "tool_result");
    assert_eq!(last["tool_use_id"], "h1");
    assert_eq!(last["is_error"], true);
    server.assert_no_violations();
}
