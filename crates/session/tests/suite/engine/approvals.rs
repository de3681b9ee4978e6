//! Approvals as events, on the wire: a question comes as an event after everything the run
//! emitted before it, is answered with an operation, and an "always" answer holds for the
//! session — across a handoff, a turn of another agent and the next turn of the conversation.
//! Without a policy nothing is asked: what needs a person is refused at once.

use super::wire::{answer, builder, call, drive, options, project, questions};
use agentctl_core::{RunEvent, Settings, Verdict};
use agentctl_session::{
    Agent, EventMsg, Op, Questions, RuntimeBuilder, Session, Target, TurnOptions,
};
use agentctl_test_support::FakeServer;
use agentctl_tools::ApprovalAnswer;
use futures_util::StreamExt;

fn turn(target: Target) -> Op {
    Op::UserTurn {
        target,
        prompt: "Write the files".into(),
        options: TurnOptions::new(),
    }
}

fn write(path: &str) -> String {
    format!(r#"{{"path": "{path}", "content": "{path}\n"}}"#)
}

#[tokio::test]
async fn an_always_answer_holds_across_a_handoff_another_agent_and_the_next_turn() {
    let (_dir, project) = project(
        &[
            (
                "writer",
                "tools:\n  allow: [write_file, handoff_to_editor]\nhandoffs:\n  - to: editor\n",
            ),
            ("editor", "tools:\n  allow: [write_file]\n"),
        ],
        None,
    );
    let server = FakeServer::openai().await;
    // Turn 1: the writer writes a.txt (asked: "always"), hands off; the editor writes b.txt.
    call(&server, "c1", "write_file", &write("a.txt"));
    call(
        &server,
        "h1",
        "handoff_to_editor",
        r#"{"reason": "edit it"}"#,
    );
    call(&server, "c2", "write_file", &write("b.txt"));
    answer(&server, "Edited.");
    // Turn 2, `@editor`: c.txt. Turn 3, the conversation (the editor had the last word): d.txt.
    call(&server, "c3", "write_file", &write("c.txt"));
    answer(&server, "Wrote c.");
    call(&server, "c4", "write_file", &write("d.txt"));
    answer(&server, "Wrote d.");
    let session = Session::from_project(&project)
        .runtime(builder(&project, &server))
        .questions(Questions::Ask)
        .active("writer")
        .build()
        .await
        .unwrap();
    let mut events = session.events().unwrap();
    let always = |_: &_| ApprovalAnswer::AlwaysThisSession;

    let (first, outcome) = drive(&session, &mut events, turn(Target::Active), always).await;
    assert_eq!(outcome.agents, ["writer", "editor"]);
    assert_eq!(outcome.result.unwrap().text, "Edited.");
    let asked = questions(&first);
    assert_eq!(asked.len(), 1, "{first:?}");
    assert_eq!(
        (
            asked[0].agent.as_str(),
            asked[0].tool.as_str(),
            asked[0].call_id.as_str()
        ),
        ("writer", "write_file", "c1")
    );
    // The question came after the call it is about, as the front end must show them.
    let call_at = first
        .iter()
        .position(
            |event| matches!(event, EventMsg::Run(RunEvent::ToolCall { id, .. }) if id == "c1"),
        )
        .unwrap();
    let asked_at = first
        .iter()
        .position(|event| matches!(event, EventMsg::ApprovalRequested(_)))
        .unwrap();
    assert!(call_at < asked_at, "{first:?}");
    assert!(first.iter().any(|event| matches!(
        event,
        EventMsg::AgentSwitched { from, to, .. } if from == "writer" && to == "editor"
    )));

    let never = |question: &agentctl_tools::ApprovalRequest| -> ApprovalAnswer {
        panic!("asked again about {question:?}")
    };
    let (_, outcome) = drive(
        &session,
        &mut events,
        turn(Target::Agent("editor".into())),
        never,
    )
    .await;
    assert_eq!(outcome.result.unwrap().text, "Wrote c.");
    let (_, outcome) = drive(&session, &mut events, turn(Target::Active), never).await;
    assert_eq!(outcome.agents, ["editor"]);
    assert_eq!(outcome.result.unwrap().text, "Wrote d.");
    for file in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        assert!(project.root().join(file).exists(), "{file}");
    }
    session.shutdown().await;
    server.assert_no_violations();
}

#[tokio::test]
async fn a_session_without_a_policy_refuses_rm_rf_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("x")).unwrap();
    std::fs::write(root.join("x/keep.txt"), "kept\n").unwrap();
    let server = FakeServer::openai().await;
    call(&server, "c1", "bash", r#"{"command": "rm -rf x"}"#);
    answer(&server, "I could not delete it.");
    let runtime = RuntimeBuilder::with_settings(Settings::default(), &root)
        .provider_options(options(&server, &root));
    let cleaner = Agent::new("cleaner", "Clean up.")
        .model("openai:gpt-4o-mini")
        .allow("bash");
    let session = Session::builder()
        .runtime(runtime)
        .agent(cleaner)
        .build()
        .await
        .unwrap();
    let mut turn = session.turn(Target::Active, "Delete x", TurnOptions::new());
    let mut refused = None;
    while let Some(event) = turn.next().await {
        match event.msg {
            EventMsg::ApprovalRequested(question) => panic!("nobody can answer {question:?}"),
            EventMsg::Run(RunEvent::ToolDecision {
                decision: Verdict::Deny,
                reason,
                hint,
                ..
            }) => refused = Some((reason, hint)),
            EventMsg::TurnFinished(outcome) => {
                assert_eq!(outcome.result.unwrap().text, "I could not delete it.");
                break;
            }
            _ => {}
        }
    }
    let (reason, hint) = refused.expect("the call was refused");
    assert!(reason.contains("nobody can approve it here"), "{reason}");
    assert!(hint.is_some());
    assert!(root.join("x/keep.txt").exists());
    // The model read the refusal.
    let last = server.requests().pop().unwrap();
    assert!(
        last.body.to_string().contains("needs approval"),
        "{}",
        last.body
    );
    session.shutdown().await;
    server.assert_no_violations();
}
