//! Graphs through the session engine: a graph turn runs nodes in a session (a handoff inside a
//! node included), stores each node's JSON answer under its output key, checkpoints every
//! node, and `GraphReplay` reads the run back.

use super::support;
use agentctl_core::GraphEvent;
use agentctl_session::{
    EventMsg, GraphError, GraphReplay, Project, Session, SessionError, SessionHandle, Target,
};
use agentctl_store::{SessionChoice, SessionStore};
use agentctl_store_sqlite::SqliteStore;
use agentctl_test_support::{FakeServer, calls, text};
use serde_json::json;
use std::sync::Arc;

const FLOW: &str = "---\nname: flow\ndescription: A flow.\ngraph:\n  entry: triage\n  nodes:\n    \
- { name: triage, agent: triager, output: analysis }\n    - { name: fix, agent: fixer }\n  edges:\n    \
- { from: triage, to: fix, condition: analysis.can_auto_fix }\n    \
- { from: triage, to: END, condition: analysis.needs_human }\n---\nFlow.\n";

fn agent(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name}.\nmodel: openai:gpt-4o-mini\n{extra}---\nYou are {name}.\n"
    )
}

fn project() -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let agents = root.join(".agentctl/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("flow.md"), FLOW).unwrap();
    std::fs::write(
        agents.join("triager.md"),
        agent("triager", "handoffs:\n  - to: locator\n"),
    )
    .unwrap();
    std::fs::write(agents.join("locator.md"), agent("locator", "")).unwrap();
    std::fs::write(agents.join("fixer.md"), agent("fixer", "")).unwrap();
    let project = Project::load_from(Some(&root), &root).unwrap();
    (dir, project)
}

/// A session of `project` whose models are a strict fake of the OpenAI API answering
/// `responses` in order, and the server.
async fn session(
    project: &Project,
    responses: Vec<agentctl_core::ModelResponse>,
) -> (Session, FakeServer) {
    let server = FakeServer::openai().await;
    server.push_responses(responses);
    let session = support::session(project, super::engine::wire::builder(project, &server)).await;
    (session, server)
}

fn store(project: &Project) -> Arc<dyn SessionStore> {
    Arc::new(SqliteStore::open(&project.store_path()).unwrap())
}

#[tokio::test]
async fn a_node_hands_off_and_its_last_answer_drives_the_edges() {
    let (_dir, project) = project();
    let (session, server) = session(
        &project,
        vec![
            calls(&[(
                "h",
                "handoff_to_locator",
                json!({"reason": "needs locating"}),
            )]),
            text("```json\n{\"can_auto_fix\": true, \"file\": \"a.rs\"}\n```"),
            text("{\"applied\": true}"),
        ],
    )
    .await;
    let id = session.id().unwrap().to_owned();
    let (events, outcome) =
        support::turn(&session, Target::Graph("flow".into()), "It crashes").await;
    let mut kinds = Vec::new();
    for event in events {
        match event {
            EventMsg::Graph(GraphEvent::NodeFinished { node, agents, .. }) => {
                kinds.push(format!("{node}: {}", agents.join(" → ")))
            }
            EventMsg::Graph(GraphEvent::EdgeTaken { to, reason, .. }) => {
                kinds.push(format!("→ {to} ({reason})"))
            }
            _ => {}
        }
    }
    assert_eq!(outcome.result.unwrap().text, "{\"applied\": true}");
    let outcome = outcome.graph.unwrap();
    assert_eq!(
        kinds,
        [
            "triage: triager → locator",
            "→ fix (analysis.can_auto_fix = true)",
            "fix: fixer",
            "→ END (`fix` has no outgoing edges)",
        ]
    );
    assert_eq!(
        outcome.state["analysis"],
        json!({"can_auto_fix": true, "file": "a.rs"})
    );
    assert_eq!(outcome.state["fix"], json!({"applied": true}));
    assert_eq!(outcome.step, 2);
    // The fixer was given the request and the state.
    let asked = format!("{:?}", server.model_requests()[2].messages);
    assert!(
        asked.contains("It crashes") && asked.contains("can_auto_fix"),
        "{asked}"
    );
    let store = store(&project);
    let handle = SessionHandle::open(
        Arc::clone(&store),
        SessionChoice::Resume(id.clone()),
        None,
        project.settings().agents.clone(),
    )
    .unwrap();
    let replay = GraphReplay::load(&handle, None).unwrap();
    assert_eq!(replay.nodes[0].agents, ["triager", "locator"]);
    assert_eq!(
        replay.totals.handoffs, 2,
        "one edge and one handoff inside a node"
    );
    assert_eq!(store.graph_checkpoints(&id, 0).unwrap().len(), 3);
    session.shutdown().await;
}

#[tokio::test]
async fn a_condition_that_cannot_be_evaluated_stops_the_graph_at_its_checkpoint() {
    let (_dir, project) = project();
    // `can_auto_fix` is a string: `analysis.can_auto_fix` is not a boolean.
    let (session, _server) = session(&project, vec![text("{\"can_auto_fix\": \"yes\"}")]).await;
    let id = session.id().unwrap().to_owned();
    let (_, outcome) = support::turn(&session, Target::Graph("flow".into()), "x").await;
    let Err(SessionError::Graph(error)) = outcome.result else {
        panic!("{:?}", outcome.result)
    };
    assert!(matches!(*error, GraphError::Condition { .. }), "{error}");
    assert!(
        error.to_string().contains("analysis.can_auto_fix"),
        "{error}"
    );
    // Only the input checkpoint: the node's result is not taken as a step.
    assert_eq!(store(&project).graph_checkpoints(&id, 0).unwrap().len(), 1);
    session.shutdown().await;
}
