//! Clearing an agent's stored context (`agents delete NAME`, `context NAME --clear-history`):
//! its `agent:` workspace goes in every session, or in one; main, other agents' workspaces,
//! its sub-agent work and its runs stay.

use super::support::temp_store;
use agentctl_context::*;
use agentctl_core::{ContextMode, Message};
use agentctl_store::*;
use agentctl_store_sqlite::*;
use rusqlite::Connection;
use std::path::Path;

/// In each of two sessions: a main message, a turn of `reviewer` and `fixer` in their own
/// workspaces (with a handoff to main each), two summaries of each workspace and one of main,
/// and a sub-agent task of the reviewer.
fn two_sessions_two_agents(store: &SqliteStore) -> [String; 2] {
    let sessions = [
        store.create_session(Some("one")).unwrap().id,
        store.create_session(Some("two")).unwrap().id,
    ];
    for session in &sessions {
        store
            .append_messages(
                session,
                None,
                &[NewMessage::new(
                    ContextScope::Main,
                    None,
                    Message::user("hi"),
                )],
            )
            .unwrap();
        for agent in ["reviewer", "fixer"] {
            let run = store
                .start_run(session, &NewRun::new(agent, ContextMode::Isolated))
                .unwrap();
            let scope = run.context_scope.clone();
            let ids = store
                .record_turn(
                    run.id,
                    &[
                        NewMessage::new(scope.clone(), None, Message::user("work")),
                        NewMessage::new(scope.clone(), Some(agent), Message::assistant("done")),
                    ],
                    &[NewStep::new("model_call", serde_json::json!({}))],
                )
                .unwrap();
            store
                .write_handoff(
                    run.id,
                    &HandoffSummary {
                        summary: format!("{agent} done"),
                        files_changed: vec![],
                        open_items: vec![],
                    },
                )
                .unwrap();
            store.save_summary(session, &scope, ids[0], "old").unwrap();
            store.save_summary(session, &scope, ids[1], "new").unwrap();
            if agent == "reviewer" {
                let task = store
                    .start_run(
                        session,
                        &NewRun {
                            parent_run_id: Some(run.id),
                            source: Source::TASK,
                            ..NewRun::new(agent, ContextMode::Run)
                        },
                    )
                    .unwrap();
                store
                    .record_turn(
                        task.id,
                        &[NewMessage::new(
                            task.context_scope,
                            Some(agent),
                            Message::assistant("sub work"),
                        )],
                        &[],
                    )
                    .unwrap();
            }
        }
        store
            .save_summary(session, &ContextScope::Main, 1, "main")
            .unwrap();
    }
    sessions
}

/// Rows of a scope in a table, counted in the file.
fn rows(path: &Path, table: &str, column: &str, session: &str, scope: &str) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row(
            &format!("SELECT COUNT(*) FROM {table} WHERE session_id = ?1 AND {column} = ?2"),
            [session, scope],
            |row| row.get(0),
        )
        .unwrap()
}

fn scope_rows(path: &Path, session: &str, scope: &str) -> [i64; 3] {
    [
        rows(path, "chat_messages", "context_scope", session, scope),
        rows(path, "chat_context_summaries", "scope", session, scope),
        rows(
            path,
            "chat_context_summary_history",
            "scope",
            session,
            scope,
        ),
    ]
}

#[test]
fn clearing_an_agent_empties_its_workspace_in_every_session_only() {
    let temp = temp_store();
    let store = &temp.store;
    let sessions = two_sessions_two_agents(store);
    let runs_before: Vec<usize> = sessions
        .iter()
        .map(|session| store.runs(session).unwrap().len())
        .collect();
    for session in &sessions {
        assert_eq!(scope_rows(&temp.path, session, "agent:reviewer"), [2, 1, 1]);
    }

    let cleared = store.clear_agent_context("reviewer").unwrap();
    assert_eq!(
        cleared,
        ClearedContext {
            sessions: 2,
            messages: 4,
            summaries: 4,
        }
    );
    for session in &sessions {
        assert_eq!(scope_rows(&temp.path, session, "agent:reviewer"), [0, 0, 0]);
        // The other agent, main (with both handoffs) and the reviewer's task stay.
        assert_eq!(scope_rows(&temp.path, session, "agent:fixer"), [2, 1, 1]);
        assert_eq!(scope_rows(&temp.path, session, "main"), [3, 1, 0]);
        let scopes = store.scopes(session).unwrap();
        assert!(scopes.iter().any(ContextScope::is_sub), "{scopes:?}");
        assert!(!scopes.contains(&ContextScope::agent("reviewer")));
        assert!(
            store
                .latest_summary(session, &ContextScope::agent("reviewer"))
                .unwrap()
                .is_none()
        );
        let view = load_history(store, session, "reviewer", ContextMode::Isolated, 100).unwrap();
        assert!(view.is_empty());
        let fixer = load_history(store, session, "fixer", ContextMode::Isolated, 100).unwrap();
        assert_eq!(fixer.summary(), Some("new"));
        let timeline = store.messages(session, &MessageQuery::timeline()).unwrap();
        let handoff = |m: &StoredMessage| {
            matches!(&m.message, Message::Assistant { content: Some(text), .. }
                if text.contains("reviewer done"))
        };
        assert!(
            timeline.iter().any(handoff),
            "the reviewer's handoff stays in main"
        );
    }
    // Runs and their steps are the audit trail: they stay.
    let runs_after: Vec<usize> = sessions
        .iter()
        .map(|session| store.runs(session).unwrap().len())
        .collect();
    assert_eq!(runs_after, runs_before);
    let reviewer_run = store.runs(&sessions[0]).unwrap()[0].clone();
    assert_eq!(reviewer_run.agent, "reviewer");
    assert_eq!(store.steps(reviewer_run.id).unwrap().len(), 2);

    // Again: nothing left to clear.
    assert_eq!(
        store.clear_agent_context("reviewer").unwrap(),
        ClearedContext::default()
    );
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn clearing_in_one_session_leaves_the_others() {
    let temp = temp_store();
    let store = &temp.store;
    let [one, two] = two_sessions_two_agents(store);
    let cleared = store.clear_agent_context_in(&one, "fixer").unwrap();
    assert_eq!(
        cleared,
        ClearedContext {
            sessions: 1,
            messages: 2,
            summaries: 2,
        }
    );
    assert_eq!(scope_rows(&temp.path, &one, "agent:fixer"), [0, 0, 0]);
    assert_eq!(scope_rows(&temp.path, &two, "agent:fixer"), [2, 1, 1]);
    assert_eq!(scope_rows(&temp.path, &one, "agent:reviewer"), [2, 1, 1]);
    assert!(matches!(
        store.clear_agent_context_in("nope", "fixer"),
        Err(ContextError::SessionNotFound(id)) if id == "nope"
    ));
}

#[test]
fn odd_agent_names_clear_nothing_else() {
    let temp = temp_store();
    let store = &temp.store;
    let [one, _] = two_sessions_two_agents(store);
    assert!(matches!(
        store.clear_agent_context(""),
        Err(ContextError::InvalidScope(_))
    ));
    // Quotes, wildcards and prefixes are names, never patterns.
    for name in [
        "%",
        "_",
        "reviewer' OR '1'='1",
        "review",
        "reviewer%",
        "*",
        "fixer:x",
    ] {
        assert_eq!(
            store.clear_agent_context(name).unwrap(),
            ClearedContext::default(),
            "{name}"
        );
    }
    assert_eq!(scope_rows(&temp.path, &one, "agent:reviewer"), [2, 1, 1]);
    assert_eq!(scope_rows(&temp.path, &one, "agent:fixer"), [2, 1, 1]);
}
