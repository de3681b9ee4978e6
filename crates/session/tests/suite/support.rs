//! What the suites share: a session of a project (its models on a strict fake server, see
//! `engine::wire`), and a turn read to its end.

use agentctl_core::RunEvent;
use agentctl_session::{
    EventMsg, Project, RuntimeBuilder, Session, Target, TurnOptions, TurnOutcome,
};
use futures_util::StreamExt;

/// A session of `project` with `builder`, recorded in a new session of its store.
pub async fn session(project: &Project, builder: RuntimeBuilder) -> Session {
    Session::from_project(project)
        .runtime(builder)
        .build()
        .await
        .unwrap()
}

/// One turn of `target` on `prompt`, read to its end: its events and its outcome.
pub async fn turn(session: &Session, target: Target, prompt: &str) -> (Vec<EventMsg>, TurnOutcome) {
    let mut turn = session.turn(target, prompt, TurnOptions::new());
    let mut events = Vec::new();
    while let Some(event) = turn.next().await {
        match event.msg {
            EventMsg::TurnFinished(outcome) => return (events, *outcome),
            msg => events.push(msg),
        }
    }
    panic!("the turn ended without an outcome: {events:?}")
}

/// The run events among `events`.
pub fn runs(events: &[EventMsg]) -> Vec<RunEvent> {
    events
        .iter()
        .filter_map(|event| match event {
            EventMsg::Run(event) => Some(event.clone()),
            _ => None,
        })
        .collect()
}

/// `agent`.
pub fn agent(name: &str) -> Target {
    Target::Agent(name.to_owned())
}
