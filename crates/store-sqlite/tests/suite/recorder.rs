//! [`RunRecorder`] and store failures: the first error of a run reaches `finish`, so the front
//! end can report that the turn was not saved.

use agentctl_core::{ContextMode, Message, RunEvent};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use std::sync::Arc;

fn new_run() -> NewRun {
    NewRun {
        agent: "helper".into(),
        mode: ContextMode::Shared,
        parent_run_id: None,
        handoff: false,
        model: None,
        source: Source::CLI,
    }
}

fn ending(status: RunStatus) -> RunEnding {
    RunEnding {
        status,
        answer_visible: true,
        step: None,
        handoff: None,
    }
}

#[test]
fn a_turn_that_cannot_be_saved_is_reported_by_finish() {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let session = store.create_session(None).unwrap().id;
    let mut recorder =
        RunRecorder::start(store.clone(), &session, &new_run(), "hello", Vec::new()).unwrap();
    let run = recorder.run().id;
    recorder.event(&RunEvent::TurnCommitted {
        turn: 1,
        messages: vec![Message::assistant("first")],
    });
    // Another process deletes the session while the run goes on.
    assert!(store.delete_session(&session).unwrap());
    recorder.event(&RunEvent::TurnCommitted {
        turn: 2,
        messages: vec![Message::assistant("second")],
    });
    let error = recorder.finish(ending(RunStatus::Completed));
    assert!(
        matches!(error, Some(ContextError::RunNotFound(id)) if id == run),
        "{error:?}"
    );
}

#[test]
fn a_run_that_saves_everything_reports_nothing() {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let session = store.create_session(None).unwrap().id;
    let mut recorder =
        RunRecorder::start(store.clone(), &session, &new_run(), "hello", Vec::new()).unwrap();
    recorder.event(&RunEvent::TurnCommitted {
        turn: 1,
        messages: vec![Message::assistant("done")],
    });
    assert!(recorder.finish(ending(RunStatus::Completed)).is_none());
    let timeline = store.messages(&session, &MessageQuery::timeline()).unwrap();
    assert_eq!(timeline.len(), 2);
}

#[test]
fn starting_a_run_in_a_missing_session_fails_at_once() {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    let error = RunRecorder::start(store, "nope", &new_run(), "hello", Vec::new()).unwrap_err();
    assert!(matches!(error, ContextError::SessionNotFound(id) if id == "nope"));
}
