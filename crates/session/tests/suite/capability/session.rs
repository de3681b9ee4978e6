//! The capability context through the session engine: the settings' `orchestratorNote` in the
//! delegating agent's prompt and in its executor's, a hint given as one string, and a stopped
//! task's `task_stopped` event stored as a step of the run.

use crate::suite::support;
use agentctl_core::{ModelRequest, RunEvent};
use agentctl_session::Project;
use agentctl_store::RunLog as _;
use agentctl_store_sqlite::SqliteStore;
use agentctl_test_support::{FakeServer, calls, first_user, text};
use serde_json::json;

fn system(request: &ModelRequest) -> &str {
    request.system.as_deref().unwrap_or_default()
}

fn last_is_user(request: &ModelRequest) -> bool {
    matches!(
        request.messages.last(),
        Some(agentctl_core::Message::User { .. })
    )
}

/// Through the session engine: the settings' orchestrator note in the delegating agent's
/// prompt and in the executor's, the hint as one string, and the stop stored as a step.
#[tokio::test]
async fn the_session_carries_the_orchestrator_note_and_stores_stops() {
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
    let server =
        FakeServer::openai_routed(|request| match (system(request), last_is_user(request)) {
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
        })
        .await;
    let builder = crate::suite::engine::wire::builder(&project, &server);
    let session = support::session(&project, builder).await;
    let (events, outcome) = support::turn(&session, support::agent("main"), "go").await;
    let events = support::runs(&events);
    let Some(RunEvent::RunStarted { run_id, .. }) = events.first() else {
        panic!("{events:?}")
    };
    let run_id: i64 = run_id.parse().unwrap();
    assert_eq!(outcome.result.unwrap().text, "done");

    let requests = server.model_requests();
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
    session.shutdown().await;
}
