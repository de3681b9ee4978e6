//! A turn's rows are sent together (pipelined on one connection): they still land in order,
//! all or none, and a refused row is reported as the server refused it.

use super::support::{Sql, scratch};
use agentctl_core::{ContextMode, Message};
use agentctl_store::*;
use agentctl_store_postgres::{PgStore, ScratchDatabase};
use serde_json::json;

fn said(text: &str) -> NewMessage {
    NewMessage::new(ContextScope::Main, Some("a"), Message::assistant(text))
}

/// A store on a scratch database, with a session and a run started in it; `None` without a
/// server.
fn started() -> Option<(ScratchDatabase, PgStore, String, RunRecord)> {
    let database = scratch()?;
    let store = PgStore::connect(database.url()).unwrap();
    let session = store.create_session(None).unwrap().id;
    let run = store
        .start_run(&session, &NewRun::new("a", ContextMode::Shared))
        .unwrap();
    Some((database, store, session, run))
}

/// Adds a rule of the database's own to `table`, named `name`: no row whose content says
/// "forbidden".
fn forbid(database: &ScratchDatabase, table: &str, name: &str) {
    Sql::connect(database.url()).batch(&format!(
        "ALTER TABLE {table} ADD CONSTRAINT {name} CHECK (content::text NOT LIKE '%forbidden%')"
    ));
}

/// `error` is the refusal by rule `name`, not the aborted transaction that follows it.
fn assert_refused_by(error: &impl std::fmt::Display, name: &str) {
    let shown = error.to_string();
    assert!(shown.contains(name), "{shown}");
    assert!(
        !shown.contains("aborted"),
        "the first refusal is reported: {shown}"
    );
}

#[test]
fn a_turns_rows_keep_their_order_and_ids() {
    let Some((_database, store, session, run)) = started() else {
        return;
    };
    let texts: Vec<String> = (0..12).map(|n| format!("message {n}")).collect();
    let messages: Vec<NewMessage> = texts.iter().map(|text| said(text)).collect();
    let steps: Vec<NewStep> = (0..5)
        .map(|n| NewStep::new("model_call", json!({ "n": n })))
        .collect();
    let before = store.session(&session).unwrap().updated_at;
    std::thread::sleep(std::time::Duration::from_millis(2));
    let ids = store.record_turn(run.id, &messages, &steps).unwrap();
    assert_eq!(ids.len(), 12);
    // The session is touched in the same round trip, after the rows.
    let touched = store.session(&session).unwrap();
    assert!(
        touched.updated_at > before,
        "{} !> {before}",
        touched.updated_at
    );
    assert_eq!(touched.message_count, 12);
    assert!(ids.windows(2).all(|pair| pair[1] == pair[0] + 1), "{ids:?}");
    let stored = store.messages(&session, &MessageQuery::timeline()).unwrap();
    let read: Vec<(MessageId, String)> = stored
        .iter()
        .map(|message| match &message.message {
            Message::Assistant {
                content: Some(text),
                ..
            } => (message.id, text.clone()),
            other => panic!("not what was written: {other:?}"),
        })
        .collect();
    let expected: Vec<(MessageId, String)> = ids.iter().copied().zip(texts).collect();
    assert_eq!(read, expected);
    // A second turn numbers its steps after the first's.
    store
        .record_turn(
            run.id,
            &[said("more")],
            &[NewStep::new("model_call", json!({ "n": 5 }))],
        )
        .unwrap();
    let steps = store.steps(run.id).unwrap();
    let numbered: Vec<(i64, serde_json::Value)> = steps
        .into_iter()
        .map(|step| (step.step_index, step.content["n"].clone()))
        .collect();
    let expected: Vec<(i64, serde_json::Value)> = (0..6).map(|n| (n, json!(n))).collect();
    assert_eq!(numbered, expected);
}

#[test]
fn a_refused_row_fails_the_whole_turn_with_the_servers_reason() {
    let Some((database, store, session, run)) = started() else {
        return;
    };
    // A rule of the database's own that the second of three rows breaks.
    forbid(&database, "chat_messages", "no_forbidden_words");
    let messages = [said("first"), said("forbidden"), said("third")];
    let steps = [NewStep::new("model_call", json!({}))];
    let error = store.record_turn(run.id, &messages, &steps).unwrap_err();
    assert_refused_by(&error, "no_forbidden_words");
    // Nothing of the turn was kept, and the store goes on working.
    assert!(
        store
            .messages(&session, &MessageQuery::timeline())
            .unwrap()
            .is_empty()
    );
    assert!(store.steps(run.id).unwrap().is_empty());
    let ids = store.record_turn(run.id, &[said("fine")], &steps).unwrap();
    assert_eq!(ids.len(), 1);
    assert_eq!(store.steps(run.id).unwrap().len(), 1);
}

#[test]
fn a_refused_last_row_is_reported_before_the_sessions_touch() {
    let Some((database, store, session, run)) = started() else {
        return;
    };
    // The turn's last row breaks the rule: the touch sent after it is refused as part of an
    // aborted transaction, and what the caller reads is the rule's refusal.
    forbid(&database, "agent_run_steps", "no_forbidden_steps");
    let before = store.session(&session).unwrap().updated_at;
    std::thread::sleep(std::time::Duration::from_millis(2));
    let steps = [
        NewStep::new("model_call", json!({})),
        NewStep::new("model_call", json!({ "say": "forbidden" })),
    ];
    let error = store
        .record_turn(run.id, &[said("first")], &steps)
        .unwrap_err();
    assert_refused_by(&error, "no_forbidden_steps");
    let untouched = store.session(&session).unwrap();
    assert_eq!(untouched.updated_at, before);
    assert_eq!(untouched.message_count, 0);
}
