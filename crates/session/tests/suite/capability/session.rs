//! The capability context through the session runner: the settings' `orchestratorNote` in the
//! delegating agent's prompt and in its executor's, a hint given as one string, and a stopped
//! task's `task_stopped` event stored as a step of the run.

use agentctl_context::{RunLog as _, SessionChoice, SqliteStore};
use agentctl_core::{ModelProvider, ModelRef, ModelRequest, RunEvent, RunOptions, Settings};
use agentctl_session::{Project, RuntimeBuilder, SessionRunner};
use agentctl_test_support::{RoutedProvider as Routed, calls, first_user, text};
use futures_util::StreamExt;
use serde_json::json;
use std::sync::Arc;

fn system(request: &ModelRequest) -> &str {
    request.system.as_deref().unwrap_or_default()
}

fn last_is_user(request: &ModelRequest) -> bool {
    matches!(
        request.messages.last(),
        Some(agentctl_core::Message::User { .. })
    )
}

/// Through the session runner: the settings' orchestrator note in the delegating agent's
/// prompt and in the executor's, the hint as one string, and the stop stored as a step.
#[tokio::test]
async fn the_session_runner_carries_the_orchestrator_note_and_stores_stops() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".agentctl/agents")).unwrap();
    for (name, tools) in [
        ("main", "[task]"),
        ("researcher", "[read_file, web_search]"),
    ] {
        std::fs::write(
            root.join(format!(".agentctl/agents/{name}.md")),
            format!(
                "---\nname: {name}\ndescription: The {name} agent.\nmodel: openai:gpt-4o-mini\ntools:\n  allow: {tools}\n---\nYou are {name}.\n"
            ),
        )
        .unwrap();
    }
    std::fs::write(
        root.join(".agentctl/settings.json"),
        r#"{"agents": {"orchestratorNote": "Prefer researcher for reading; report gaps."}}"#,
    )
    .unwrap();
    let project = Project::load_from(Some(&root), &root).unwrap();
    let provider = Routed::new(|request| match (system(request), last_is_user(request)) {
        (s, true) if s.starts_with("You are main.") => calls(&[
            (
                "t1",
                "task",
                json!({"goal": "summarise the notes", "agent": "researcher",
                       "hints": "start with notes.txt"}),
            ),
            (
                "t2",
                "task",
                json!({"goal": "run the tests", "capabilities": "run_commands"}),
            ),
        ]),
        (s, _) if s.starts_with("You are researcher.") => text("notes summarised"),
        _ => text("done"),
    });
    let shared = Arc::clone(&provider);
    let factory =
        move |_: &ModelRef, _: &Settings| Ok(Arc::clone(&shared) as Arc<dyn ModelProvider>);
    let builder = RuntimeBuilder::new(&project).provider_factory(Arc::new(factory));
    let runner = SessionRunner::new(&project, builder);
    let main = runner.require_agent("main").unwrap();
    let session = runner.open_session(SessionChoice::New, Some("go")).unwrap();
    let (mut conversation, _) = runner
        .conversation(main, session, RunOptions::new())
        .await
        .unwrap();
    let mut turn = conversation.turn("go").await.unwrap();
    let run_id: i64 = turn.run_id().parse().unwrap();
    let mut events = Vec::new();
    while let Some(event) = turn.next().await {
        events.push(event);
    }
    assert_eq!(turn.finish().await.result.unwrap().text, "done");

    let requests = provider.requests();
    let orchestrator = system(&requests[0]);
    for line in [
        "# Delegation",
        "| researcher | available | read_code, web_search |",
        "## Current task\n\nNone.\n",
        "## Orchestrator note\n\nPrefer researcher for reading; report gaps.\n\nDispatch each task",
    ] {
        assert!(orchestrator.contains(line), "{line}\n---\n{orchestrator}");
    }
    let researcher = requests
        .iter()
        .find(|r| system(r).starts_with("You are researcher."))
        .unwrap();
    let prompt = system(researcher);
    for line in [
        "- ID: t1\n- Description: summarise the notes\n- Required capabilities: none\n- Assigned agent: researcher\n",
        "## Orchestrator note\n\nPrefer researcher for reading; report gaps.\n\nThis task was dispatched to `researcher`",
    ] {
        assert!(prompt.contains(line), "{line}\n---\n{prompt}");
    }
    assert!(first_user(researcher).contains("## Hints\n\n- start with notes.txt\n"));

    assert!(events.iter().any(|event| matches!(
        event,
        RunEvent::TaskStopped { id, missing_capabilities, .. }
            if id == "t2" && missing_capabilities == &["run_commands"]
    )));
    let store = SqliteStore::open(&project.store_path()).unwrap();
    let stops: Vec<_> = store
        .steps(run_id)
        .unwrap()
        .into_iter()
        .filter(|step| step.kind == "task_stopped")
        .collect();
    assert_eq!(stops.len(), 1);
    assert_eq!(stops[0].content["id"], "t2");
    runner.shutdown().await;
}
