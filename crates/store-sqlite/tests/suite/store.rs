//! The SQLite store: schema, sessions, messages, runs, overrides.

use super::support::temp_store;
use agentctl_core::{ContextMode, Message, ToolCall, Usage};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use serde_json::json;

#[test]
fn schema_is_migrated_and_wal() {
    let temp = temp_store();
    assert_eq!(temp.store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(temp.store.integrity_check().unwrap(), "ok");
    temp.store.create_session(None).unwrap();
    assert!(temp.path.with_file_name("sessions.db-wal").exists());
    drop(temp.store);
    // Reopening an up-to-date file is a no-op.
    let again = SqliteStore::open(&temp.path).unwrap();
    assert_eq!(again.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(again.list_sessions().unwrap().len(), 1);
}

#[test]
fn sessions_create_list_latest_delete() {
    let temp = temp_store();
    let store = &temp.store;
    let first = store.create_session(Some("first")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let second = store.create_session(None).unwrap();
    assert_ne!(first.id, second.id);
    assert_eq!(store.latest_session().unwrap().unwrap().id, second.id);
    // Writing to the first makes it the latest.
    std::thread::sleep(std::time::Duration::from_millis(5));
    store
        .append_messages(
            &first.id,
            None,
            &[NewMessage::new(
                ContextScope::Main,
                None,
                Message::user("hi"),
            )],
        )
        .unwrap();
    assert_eq!(store.latest_session().unwrap().unwrap().id, first.id);
    let list = store.list_sessions().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].message_count, 1);
    assert!(store.delete_session(&first.id).unwrap());
    assert!(!store.delete_session(&first.id).unwrap());
    assert!(matches!(
        store.session(&first.id),
        Err(ContextError::SessionNotFound(_))
    ));
    assert!(store.append_messages(&first.id, None, &[]).is_err());
}

#[test]
fn runs_scopes_steps_and_handoff() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap().id;
    let new_run = |agent: &str, mode, parent| NewRun {
        agent: agent.into(),
        mode,
        parent_run_id: parent,
        handoff: false,
        model: Some("scripted:x".into()),
        source: Source::CLI,
    };
    let isolated = store
        .start_run(&session, &new_run("a", ContextMode::Isolated, None))
        .unwrap();
    assert_eq!(isolated.context_scope, ContextScope::agent("a"));
    let shared = store
        .start_run(&session, &new_run("b", ContextMode::Shared, None))
        .unwrap();
    assert_eq!(shared.context_scope, ContextScope::Main);
    let run = store
        .start_run(&session, &new_run("c", ContextMode::Run, None))
        .unwrap();
    assert_eq!(run.context_scope, ContextScope::run(run.id));
    let sub = store
        .start_run(&session, &new_run("d", ContextMode::Isolated, Some(run.id)))
        .unwrap();
    assert_eq!(sub.context_scope, ContextScope::sub("d", sub.id));
    assert!(
        store
            .start_run(&session, &new_run("e", ContextMode::Run, Some(9_999)))
            .is_err()
    );

    let ids = store
        .record_turn(
            sub.id,
            &[NewMessage::new(
                sub.context_scope.clone(),
                Some("d"),
                Message::assistant("step"),
            )],
            &[NewStep {
                kind: "model_call".into(),
                content: json!({"n": 1}),
                budget: None,
            }],
        )
        .unwrap();
    assert_eq!(ids.len(), 1);
    store
        .finish_run(
            sub.id,
            RunStatus::Completed,
            Usage {
                input_tokens: 3,
                output_tokens: 4,
            },
        )
        .unwrap();
    let handoff = HandoffSummary {
        summary: "Tests added.".into(),
        files_changed: vec!["src/lib.rs".into()],
        open_items: vec![],
    };
    let message_id = store.write_handoff(sub.id, &handoff).unwrap();
    let timeline = store.messages(&session, &MessageQuery::timeline()).unwrap();
    assert_eq!(
        timeline.len(),
        1,
        "the sub-agent step is not in the timeline"
    );
    assert_eq!(timeline[0].id, message_id);
    assert_eq!(timeline[0].context_scope, ContextScope::Main);
    assert_eq!(timeline[0].agent.as_deref(), Some("d"));
    let steps = store.steps(sub.id).unwrap();
    assert_eq!(
        steps.iter().map(|s| s.kind.as_str()).collect::<Vec<_>>(),
        ["model_call", "handoff"]
    );
    assert_eq!(steps[1].step_index, 1);
    let record = store.run(sub.id).unwrap();
    assert_eq!(record.status, RunStatus::Completed);
    assert_eq!(record.usage.output_tokens, 4);
    assert_eq!(record.parent_run_id, Some(run.id));
    assert_eq!(store.runs(&session).unwrap().len(), 4);
    // The three runs left `running` belong to this process, which is alive: not stale.
    assert_eq!(store.interrupt_stale_runs(&session).unwrap(), 0);
    assert!(store.delete_session(&session).unwrap());
}

#[test]
fn message_queries() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap().id;
    let call = ToolCall {
        id: "c1".into(),
        name: "grep".into(),
        arguments: json!({"q": "x"}),
        signature: None,
    };
    store
        .append_messages(
            &session,
            None,
            &[
                NewMessage::new(ContextScope::Main, None, Message::user("one")),
                NewMessage::new(
                    ContextScope::agent("a"),
                    Some("a"),
                    Message::Assistant {
                        content: None,
                        tool_calls: vec![call],
                    },
                ),
                NewMessage::new(
                    ContextScope::agent("a"),
                    Some("a"),
                    Message::Tool {
                        call_id: "c1".into(),
                        name: "grep".into(),
                        content: "found".into(),
                        is_error: false,
                    },
                )
                .hidden(),
                NewMessage::new(ContextScope::Main, None, Message::user("two")),
            ],
        )
        .unwrap();
    let all = store.messages(&session, &MessageQuery::default()).unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all[1].role, "assistant");
    assert!(all[1].token_estimate > 0);
    assert_eq!(
        store
            .messages(&session, &MessageQuery::timeline())
            .unwrap()
            .len(),
        3
    );
    let last = store
        .messages(
            &session,
            &MessageQuery {
                last: Some(1),
                ..MessageQuery::scope(ContextScope::Main)
            },
        )
        .unwrap();
    assert_eq!(last[0].message, Message::user("two"));
    let after = store
        .messages(
            &session,
            &MessageQuery {
                after_id: Some(all[1].id),
                ..MessageQuery::default()
            },
        )
        .unwrap();
    assert_eq!(after.len(), 2);
    assert_eq!(
        store.scopes(&session).unwrap(),
        [ContextScope::Main, ContextScope::agent("a")]
    );
}

#[test]
fn mode_overrides_round_trip() {
    let temp = temp_store();
    let store = &temp.store;
    let session = store.create_session(None).unwrap().id;
    store
        .set_mode_override(&session, "a", Some(ContextMode::Shared))
        .unwrap();
    store
        .set_mode_override(&session, "a", Some(ContextMode::Run))
        .unwrap();
    store
        .set_mode_override(&session, "b", Some(ContextMode::Shared))
        .unwrap();
    store.set_mode_override(&session, "b", None).unwrap();
    let overrides = store.mode_overrides(&session).unwrap();
    assert_eq!(
        overrides.into_iter().collect::<Vec<_>>(),
        [("a".to_owned(), ContextMode::Run)]
    );
    assert!(store.set_mode_override("missing", "a", None).is_err());
}

#[test]
fn newer_schema_is_refused() {
    let temp = temp_store();
    drop(temp.store);
    let conn = rusqlite::Connection::open(&temp.path).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    let error = SqliteStore::open(&temp.path).unwrap_err();
    assert!(
        matches!(error, ContextError::SchemaTooNew { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("upgrade agentctl"));
}
