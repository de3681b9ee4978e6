//! A graph agent runs its graph whichever way it is reached — a turn naming it, a handoff, a
//! `task` — never as a plain agent with an empty prompt.

use super::wire::{answer, builder, call, drive, project};
use agentctl_core::GraphEvent;
use agentctl_session::{EventMsg, Op, Project, Session, Target, TurnOptions};
use agentctl_store::SessionStore;
use agentctl_store_sqlite::SqliteStore;
use agentctl_test_support::FakeServer;
use std::sync::Arc;

const FLOW: &str = "---\nname: flow\ndescription: Analyses a request, node by node.\ngraph:\n  \
entry: analyze\n  nodes:\n    - { name: analyze, agent: analyst, output: analysis }\n---\nFlow.\n";

/// A project with the graph `flow` (one node, `analyst`), `front` (which may hand off to it)
/// and `lead` (which may delegate with `task`).
fn graph_project() -> (tempfile::TempDir, Project) {
    let (dir, _) = project(
        &[
            ("analyst", ""),
            (
                "front",
                "tools:\n  allow: [handoff_to_flow]\nhandoffs:\n  - to: flow\n",
            ),
            ("lead", "tools:\n  allow: [task]\n"),
        ],
        None,
    );
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join(".agentctl/agents/flow.md"), FLOW).unwrap();
    let project = Project::load_from(Some(&root), &root).unwrap();
    (dir, project)
}

async fn session(project: &Project, server: &FakeServer) -> Session {
    Session::from_project(project)
        .runtime(builder(project, server))
        .build()
        .await
        .unwrap()
}

fn prompt(target: Target, prompt: &str) -> Op {
    Op::UserTurn {
        target,
        prompt: prompt.into(),
        options: TurnOptions::new(),
    }
}

fn nodes(events: &[EventMsg]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            EventMsg::Graph(GraphEvent::NodeStarted { node, agent, .. }) => {
                Some(format!("{node}: {agent}"))
            }
            _ => None,
        })
        .collect()
}

fn store(project: &Project) -> Arc<dyn SessionStore> {
    Arc::new(SqliteStore::open(&project.store_path()).unwrap())
}

#[tokio::test]
async fn a_graph_reached_by_a_handoff_runs_its_graph() {
    let (_dir, project) = graph_project();
    let server = FakeServer::openai().await;
    call(
        &server,
        "h1",
        "handoff_to_flow",
        r#"{"reason": "needs the flow"}"#,
    );
    answer(&server, r#"{"severity": "low"}"#);
    let session = session(&project, &server).await;
    let mut events = session.events().unwrap();
    let op = prompt(Target::Agent("front".into()), "The login page is slow");
    let (seen, outcome) = drive(&session, &mut events, op, |q| panic!("{q:?}")).await;
    assert_eq!(outcome.agents, ["front", "flow"]);
    assert_eq!(outcome.result.unwrap().text, r#"{"severity": "low"}"#);
    assert_eq!(nodes(&seen), ["analyze: analyst"]);
    // The node's agent was asked the request, through the brief, not an empty prompt.
    let analyst = &server.requests()[1].body;
    let asked = analyst["messages"].to_string();
    assert!(asked.contains("The login page is slow"), "{asked}");
    assert!(asked.contains("You are analyst."), "{asked}");
    let id = session.id().unwrap().to_owned();
    session.shutdown().await;
    let branches = store(&project).graph_branches(&id).unwrap();
    assert_eq!(branches.len(), 1);
    assert_eq!(branches[0].graph, "flow");
    server.assert_no_violations();
}

#[tokio::test]
async fn a_graph_reached_by_a_task_runs_its_graph() {
    let (_dir, project) = graph_project();
    let server = FakeServer::openai().await;
    call(
        &server,
        "t1",
        "task",
        r#"{"goal": "Analyse why the login page is slow", "agent": "flow"}"#,
    );
    answer(&server, r#"{"severity": "high"}"#);
    answer(&server, "The flow says: high.");
    let session = session(&project, &server).await;
    let mut events = session.events().unwrap();
    let op = prompt(Target::Agent("lead".into()), "Why is login slow?");
    let (_, outcome) = drive(&session, &mut events, op, |q| panic!("{q:?}")).await;
    assert_eq!(outcome.result.unwrap().text, "The flow says: high.");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let node = requests[1].body["messages"].to_string();
    assert!(node.contains("You are analyst."), "{node}");
    assert!(
        node.contains("Analyse why the login page is slow"),
        "{node}"
    );
    // The task's result is the graph's answer.
    let lead = requests[2].body["messages"].to_string();
    assert!(lead.contains("severity") && lead.contains("high"), "{lead}");
    let id = session.id().unwrap().to_owned();
    session.shutdown().await;
    let branches = store(&project).graph_branches(&id).unwrap();
    assert_eq!(branches.len(), 1, "{branches:?}");
    assert_eq!(branches[0].graph, "flow");
    server.assert_no_violations();
}

#[tokio::test]
async fn a_turn_naming_a_graph_agent_runs_its_graph() {
    let (_dir, project) = graph_project();
    let server = FakeServer::openai().await;
    answer(&server, r#"{"severity": "medium"}"#);
    let session = session(&project, &server).await;
    let mut events = session.events().unwrap();
    let op = prompt(Target::Agent("flow".into()), "Checkout fails");
    let (seen, outcome) = drive(&session, &mut events, op, |q| panic!("{q:?}")).await;
    assert!(matches!(
        seen.first(),
        Some(EventMsg::TurnStarted { graph: true, .. })
    ));
    assert_eq!(nodes(&seen), ["analyze: analyst"]);
    let graph = outcome.graph.expect("a graph turn");
    assert_eq!(graph.state["analysis"]["severity"], "medium");
    session.shutdown().await;
    server.assert_no_violations();
}
